// @ts-check
'use strict'
// Plugin namespaces. The registry (ids, global names, required tools) lives in Rust; the
// JavaScript parts of a registration (createScope, input mappers) stay here.

const native = require('./native.js')
const { errorMessage, tolerantJson } = require('./nested-call.js')
const { handleRejection, ignore } = require('./host-callback.js')

/** @typedef {import('../index').CodeModeNamespaceRegistration} CodeModeNamespaceRegistration */
/** @typedef {import('../index').CodeModeNamespaceContext} CodeModeNamespaceContext */
/** @typedef {import('../index').CodeModeNamespaceToolMarker} CodeModeNamespaceToolMarker */
/** @typedef {import('../binding').NamespaceCandidate} NamespaceCandidate */
/** @typedef {import('../binding').NamespaceScope} NamespaceScope */
/** @typedef {(args: unknown[]) => unknown} InputMapper */

const NAMESPACE_TOOL = Symbol('code-mode namespace tool')
/** @type {Map<string, CodeModeNamespaceRegistration['createScope']>} namespace id -> createScope */
const scopeBuilders = new Map()

/**
 * Marks a scope member as a callable backed by the catalog tool `toolName`.
 * @param {string} toolName
 * @param {InputMapper} [inputMapper]
 * @returns {CodeModeNamespaceToolMarker}
 */
function createCodeModeNamespaceTool(toolName, inputMapper) {
  if (typeof toolName !== 'string' || toolName.length === 0) {
    throw new TypeError('createCodeModeNamespaceTool(toolName): toolName must be a non-empty string.')
  }
  if (inputMapper !== undefined && typeof inputMapper !== 'function') {
    throw new TypeError('createCodeModeNamespaceTool(toolName, inputMapper): inputMapper must be a function.')
  }
  return Object.freeze({ [NAMESPACE_TOOL]: true, toolName, inputMapper })
}

/**
 * Registers a namespace owned by `pluginId` (for the trusted plugin loader). Throws on invalid input.
 * @param {string} pluginId
 * @param {CodeModeNamespaceRegistration} registration
 */
function registerCodeModeNamespaceForPlugin(pluginId, registration) {
  if (typeof pluginId !== 'string' || pluginId.length === 0) {
    throw new TypeError('registerCodeModeNamespaceForPlugin(pluginId): pluginId must be a non-empty string.')
  }
  if (registration === null || typeof registration !== 'object') {
    throw new TypeError('registerCodeModeNamespaceForPlugin: registration must be an object.')
  }
  const { id, globalName, description, prompt, requiredToolNames, createScope } = registration
  for (const [name, value] of [['id', id], ['globalName', globalName]]) {
    if (typeof value !== 'string') throw new TypeError(`code mode namespace ${name} must be a string.`)
  }
  if (!Array.isArray(requiredToolNames) || !requiredToolNames.every((n) => typeof n === 'string')) {
    throw new TypeError(`code mode namespace "${id}" needs requiredToolNames: an array of tool names.`)
  }
  if (typeof createScope !== 'function') {
    throw new TypeError(`code mode namespace "${id}" needs a createScope(ctx) function.`)
  }
  try {
    native.registerNamespace(pluginId, {
      id,
      globalName,
      description: typeof description === 'string' ? description : '',
      prompt: typeof prompt === 'string' ? prompt : undefined,
      requiredToolNames,
    })
  } catch (error) {
    // The native check's refusals (a bad id, a taken id or globalName) are misuse, like the
    // checks above: a TypeError, as index.d.ts says.
    throw new TypeError(errorMessage(error))
  }
  scopeBuilders.set(id, createScope)
}

/**
 * Removes every namespace registered by `pluginId` (plugin disabled, uninstalled or rolled back).
 * @param {string} pluginId
 */
function clearCodeModeNamespacesForPlugin(pluginId) {
  for (const id of native.clearNamespacesForPlugin(String(pluginId))) scopeBuilders.delete(id)
}

/**
 * Removes one namespace by id.
 * @param {string} namespaceId
 */
function unregisterCodeModeNamespace(namespaceId) {
  native.unregisterNamespace(String(namespaceId))
  scopeBuilders.delete(namespaceId)
}

/** Removes every namespace registration (between tests). */
function clearCodeModeNamespacesForTest() {
  native.clearNamespaces()
  scopeBuilders.clear()
}

// A scope's data is copied into the VM of every cell of the run, where it counts against
// memoryLimitBytes (an object or array costs about 200 bytes there, whatever its JSON length):
// past these its namespace is hidden, naming the size, rather than every cell failing as if its
// program had run out of memory. Together they keep a scope to about 20 MiB of a 64 MiB VM.
const MAX_SCOPE_DATA_BYTES = 1 << 20
const MAX_SCOPE_CONTAINERS = 100_000
const SCOPE_LIMITS = `a namespace scope holds at most ${MAX_SCOPE_DATA_BYTES} bytes as JSON and ${MAX_SCOPE_CONTAINERS} objects and arrays`

const UNSAFE_SEGMENTS = new Set(['__proto__', 'constructor', 'prototype'])

/** A scope walk stopped at MAX_SCOPE_CONTAINERS: a shared object is copied once per place it appears, so a scope of a few dozen objects that share each other can stand for millions. */
class ScopeTooLarge extends Error {}

/**
 * A scope as plain data plus its callables (`{ path, toolName, inputMapper }`). Rejects raw
 * functions, cycles and unsafe keys; shared (non-circular) references are copied.
 * @param {unknown} scope what `createScope` returned
 */
function serializeScope(scope) {
  if (scope !== null && typeof scope === 'object' && typeof (/** @type {{ then?: unknown }} */ (scope).then) === 'function') {
    throw new TypeError('createScope must return a plain object, not a promise: it runs synchronously, once per run')
  }
  if (scope === null || typeof scope !== 'object' || Array.isArray(scope)) {
    throw new TypeError('createScope must return a plain object')
  }
  /** @type {{ path: string[], toolName: string, inputMapper: InputMapper | undefined }[]} */
  const callables = []
  /** @type {object[]} */
  const ancestors = []
  let containers = 0
  /** One more object or array copied; the walk stops past the bound. */
  const count = () => {
    if (++containers > MAX_SCOPE_CONTAINERS) throw new ScopeTooLarge()
  }
  /** @param {string[]} path */
  const where = (path) => (path.length ? path.join('.') : 'the scope root')
  /**
   * @param {any} value any member of the scope
   * @param {string[]} path
   * @returns {unknown} its plain-data form, undefined when it is left out
   */
  const walk = (value, path) => {
    if (value !== null && typeof value === 'object' && value[NAMESPACE_TOOL] === true) {
      callables.push({ path, toolName: value.toolName, inputMapper: value.inputMapper })
      return undefined
    }
    switch (typeof value) {
      case 'function':
        throw new TypeError(`raw function at ${where(path)}: wrap it with createCodeModeNamespaceTool(toolName)`)
      case 'bigint':
        return String(value)
      case 'symbol':
      case 'undefined':
        return undefined
      case 'number':
        return Number.isFinite(value) ? value : null
      case 'string':
      case 'boolean':
        return value
    }
    if (value === null) return null
    if (ancestors.includes(value)) throw new TypeError(`circular reference at ${where(path)}`)
    const proto = Object.getPrototypeOf(value)
    if (!Array.isArray(value) && proto !== Object.prototype && proto !== null) {
      // Dates, class instances: their JSON form, like any value crossing the bridge.
      // JSON.stringify copies a shared object once per place too: each counts against the bound.
      return JSON.parse(tolerantJson(value, count))
    }
    ancestors.push(value)
    count()
    /** @type {unknown[] | Record<string, unknown>} */
    let out
    if (Array.isArray(value)) {
      out = value.map((item, i) => walk(item, [...path, String(i)]) ?? null)
    } else {
      /** @type {Record<string, unknown>} */
      const members = {}
      out = members
      for (const key of Object.keys(value)) {
        if (key === '' || key.includes('.') || UNSAFE_SEGMENTS.has(key)) {
          throw new TypeError(`unsafe scope path segment "${key}" at ${where(path)}`)
        }
        const item = walk(value[key], [...path, key])
        if (item !== undefined) members[key] = item
      }
    }
    ancestors.pop()
    return out
  }
  return { data: walk(scope, []), callables }
}

/**
 * Builds the scope of each candidate namespace (`NativeRun.namespaceCandidates()`) with `ctx`;
 * returns the scopes `NativeRun.installNamespaces` takes and fills `mappers` (namespace id ->
 * input mappers by callable index). A failing createScope hides only its namespace.
 * @param {NamespaceCandidate[]} candidates
 * @param {CodeModeNamespaceContext} ctx
 * @param {Map<string, (InputMapper | undefined)[]>} mappers
 * @returns {NamespaceScope[]}
 */
function describeNamespaces(candidates, ctx, mappers) {
  return candidates.map(({ id }) => {
    const createScope = scopeBuilders.get(id)
    if (!createScope) return { id, ok: false, reason: 'no createScope registered' }
    try {
      const scope = createScope(Object.freeze({ ...ctx }))
      // A promise is refused below; its rejection must not go unhandled (it would end the process).
      handleRejection(scope, ignore)
      const { data, callables } = serializeScope(scope)
      const dataJson = JSON.stringify(data)
      const bytes = Buffer.byteLength(dataJson)
      if (bytes > MAX_SCOPE_DATA_BYTES) {
        return { id, ok: false, reason: `scope too large: its data is ${bytes} bytes as JSON; ${SCOPE_LIMITS}` }
      }
      mappers.set(id, callables.map((c) => c.inputMapper))
      return { id, ok: true, dataJson, callables: callables.map(({ path, toolName }) => ({ path, toolName })) }
    } catch (error) {
      if (error instanceof ScopeTooLarge) {
        return { id, ok: false, reason: `scope too large: its data has more than ${MAX_SCOPE_CONTAINERS} objects and arrays (a shared one counts at each place it appears); ${SCOPE_LIMITS}` }
      }
      return { id, ok: false, reason: `createScope failed: ${errorMessage(error)}` }
    }
  })
}

module.exports = {
  createCodeModeNamespaceTool,
  registerCodeModeNamespaceForPlugin,
  clearCodeModeNamespacesForPlugin,
  unregisterCodeModeNamespace,
  clearCodeModeNamespacesForTest,
  describeNamespaces,
}
