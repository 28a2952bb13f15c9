'use strict'
// The public surface of @openclaw/code-mode. Everything that can live in Rust does; this file
// holds what must touch JavaScript values: the executor wrapper (signals, onUpdate, JSON),
// exec/wait promises and their AbortSignals, events, namespace callbacks and the adapter.

const native = require('./binding.js')
const {
  CALL,
  LEG_DONE,
  ABORT_CELL,
  EVENT,
  forEachCall,
  decodeCallTools,
  nestedToolCallId,
  decodeLegResult,
  decodeEvent,
  OutcomeQueue,
} = require('./lib/protocol.js')

// A pending exec/wait keeps Node alive like any pending I/O; parked cells do not (the native
// port is weak). One idle timer, referenced only while legs are in flight.
let pendingLegs = 0
const keepAlive = setInterval(() => {}, 1 << 30)
keepAlive.unref()

function legStarted() {
  if (pendingLegs++ === 0) keepAlive.ref()
}

function legEnded() {
  if (--pendingLegs === 0) keepAlive.unref()
}

/** JSON text of a tool result: JSON.stringify semantics, cycles and BigInt replaced. */
function resultJson(value) {
  try {
    const text = JSON.stringify(value)
    return text === undefined ? 'null' : text
  } catch {
    const ancestors = []
    const text = JSON.stringify(value, function (key, item) {
      if (typeof item === 'bigint') return String(item)
      if (item === null || typeof item !== 'object') return item
      while (ancestors.length > 0 && ancestors[ancestors.length - 1] !== this) ancestors.pop()
      if (ancestors.includes(item)) return '[Circular]'
      ancestors.push(item)
      return item
    })
    return text === undefined ? 'null' : text
  }
}

function errorMessage(error) {
  try {
    if (error instanceof Error) return error.message || error.name || 'tool call failed'
    if (typeof error === 'string' && error) return error
    const text = JSON.stringify(error)
    return text && text !== '{}' ? text : String(error) || 'tool call failed'
  } catch {
    return 'tool call failed'
  }
}

function emit(onEvent, event) {
  if (typeof onEvent !== 'function') return
  try {
    onEvent(event)
  } catch {
    // A throwing listener must not break the run.
  }
}

// ---------------------------------------------------------------------------------------------
// Plugin namespaces. The registry (ids, global names, required tools) lives in Rust; the
// JavaScript parts of a registration (createScope, input mappers) stay here.

const NAMESPACE_TOOL = Symbol('code-mode namespace tool')
/** namespace id -> createScope */
const scopeBuilders = new Map()

/** Marks a scope member as a callable backed by the catalog tool `toolName`. */
function createCodeModeNamespaceTool(toolName, inputMapper) {
  if (typeof toolName !== 'string' || toolName.length === 0) {
    throw new TypeError('createCodeModeNamespaceTool(toolName): toolName must be a non-empty string.')
  }
  if (inputMapper !== undefined && typeof inputMapper !== 'function') {
    throw new TypeError('createCodeModeNamespaceTool(toolName, inputMapper): inputMapper must be a function.')
  }
  return Object.freeze({ [NAMESPACE_TOOL]: true, toolName, inputMapper })
}

/** Registers a namespace owned by `pluginId` (for the trusted plugin loader). Throws on invalid input. */
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
  native.registerNamespace(pluginId, {
    id,
    globalName,
    description: typeof description === 'string' ? description : undefined,
    prompt: typeof prompt === 'string' ? prompt : undefined,
    requiredToolNames,
  })
  scopeBuilders.set(id, createScope)
}

/** Removes every namespace registered by `pluginId` (plugin disabled, uninstalled or rolled back). */
function clearCodeModeNamespacesForPlugin(pluginId) {
  for (const id of native.clearNamespacesForPlugin(String(pluginId))) scopeBuilders.delete(id)
}

/** Removes one namespace by id. */
function unregisterCodeModeNamespace(namespaceId) {
  native.unregisterNamespace(String(namespaceId))
  scopeBuilders.delete(namespaceId)
}

/** Removes every namespace registration (between tests). */
function clearCodeModeNamespacesForTest() {
  native.clearNamespaces()
  scopeBuilders.clear()
}

const UNSAFE_SEGMENTS = new Set(['__proto__', 'constructor', 'prototype'])

/**
 * A scope as plain data plus its callables (`{ path, toolName, inputMapper }`). Rejects raw
 * functions, cycles and unsafe keys; shared (non-circular) references are copied.
 */
function serializeScope(scope) {
  if (scope === null || typeof scope !== 'object' || Array.isArray(scope) || typeof scope.then === 'function') {
    throw new TypeError('createScope must return a plain object')
  }
  const callables = []
  const ancestors = []
  const where = (path) => (path.length ? path.join('.') : 'the scope root')
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
      return JSON.parse(resultJson(value))
    }
    ancestors.push(value)
    let out
    if (Array.isArray(value)) {
      out = value.map((item, i) => walk(item, [...path, String(i)]) ?? null)
    } else {
      out = {}
      for (const key of Object.keys(value)) {
        if (key === '' || key.includes('.') || UNSAFE_SEGMENTS.has(key)) {
          throw new TypeError(`unsafe scope path segment "${key}" at ${where(path)}`)
        }
        const item = walk(value[key], [...path, key])
        if (item !== undefined) out[key] = item
      }
    }
    ancestors.pop()
    return out
  }
  return { data: walk(scope, []), callables }
}

function optionalString(value) {
  return typeof value === 'string' && value.length > 0 ? value : undefined
}

/**
 * The `NestedToolCall` an executor receives. A class, not an object literal: a literal with a
 * getter costs ~1 µs per call in V8, an instance ~10 ns. `signal` is built on first read (Node
 * spends ~3 µs on an AbortSignal), so only executors that use it pay for it.
 */
class NestedCall {
  #controller
  constructor(tool, input, toolCallId, parentToolCallId, scope, controller, onUpdate) {
    this.#controller = controller
    this.id = tool.id
    this.name = tool.name
    this.source = tool.source
    this.sourceName = tool.sourceName
    this.input = input
    this.toolCallId = toolCallId
    this.parentToolCallId = parentToolCallId
    this.runId = scope.runId
    this.sessionId = scope.sessionId
    this.sessionKey = scope.sessionKey
    this.agentId = scope.agentId
    // A per-call closure: an executor may pass it around detached.
    this.onUpdate = onUpdate
  }

  /** Aborted when the call is no longer wanted (run aborted, cell ended). */
  get signal() {
    return this.#controller.signal
  }
}

class CodeModeRun {
  #native
  #executor
  #onEvent
  #legs = new Map()
  #nextLeg = 0
  /** cell id -> Map<call id, AbortController> */
  #calls = new Map()
  #modelTools
  #catalog
  /** namespace id -> input mappers by callable index */
  #mappers = new Map()
  /** runId, sessionId, sessionKey, agentId: every nested call's scope */
  #scope
  /** The catalog as nested calls name it: `{ id, name, source, sourceName, mcp }` by index */
  #callTools
  #nestedIdPrefix
  #outcomes = new OutcomeQueue()
  #lifetime = new AbortController()

  /**
   * Builds the run-scoped catalog and model surface for one agent run. Throws only on misuse
   * (missing executor, tools not an array, missing runId).
   */
  static create(options) {
    if (options === null || typeof options !== 'object') {
      throw new TypeError('CodeModeRun.create(options): options must be an object.')
    }
    if (typeof options.executor !== 'function') {
      throw new TypeError('CodeModeRun.create(options): options.executor must be a function.')
    }
    if (!Array.isArray(options.tools)) {
      throw new TypeError('CodeModeRun.create(options): options.tools must be an array.')
    }
    if (typeof options.runId !== 'string' || options.runId.length === 0) {
      throw new TypeError('CodeModeRun.create(options): options.runId must be a non-empty string.')
    }
    return new CodeModeRun(options)
  }

  constructor(options) {
    this.#executor = options.executor
    this.#onEvent = options.onEvent
    this.#scope = {
      runId: options.runId,
      sessionId: optionalString(options.sessionId),
      sessionKey: optionalString(options.sessionKey),
      agentId: optionalString(options.agentId),
    }
    const tools = options.tools.map((tool) => {
      try {
        return JSON.parse(JSON.stringify(tool))
      } catch {
        return null // not JSON: counted as invalid by the catalog
      }
    })
    this.#native = new native.NativeRun(
      options.config,
      {
        runId: options.runId,
        sessionId: optionalString(options.sessionId),
        sessionKey: optionalString(options.sessionKey),
        agentId: optionalString(options.agentId),
        toolsJson: JSON.stringify(tools),
        disableTools: options.disableTools === true,
        rawModelCall: options.rawModelCall === true,
      },
      (kind, id, payload) => this.#port(kind, id, payload),
    )
    this.#installNamespaces(options)
  }

  // createScope runs once per run, here on the main thread; a failure hides that namespace.
  #installNamespaces(options) {
    const candidates = JSON.parse(this.#native.namespaceCandidatesJson())
    const ctx = {
      agentId: optionalString(options.agentId),
      sessionKey: optionalString(options.sessionKey),
      sessionId: optionalString(options.sessionId),
      runId: options.runId,
      config: options.context,
      signal: this.#lifetime.signal,
    }
    const descriptors = candidates.map(({ id }) => {
      const createScope = scopeBuilders.get(id)
      if (!createScope) return { id, ok: false, reason: 'no createScope registered' }
      try {
        const { data, callables } = serializeScope(createScope(Object.freeze({ ...ctx })))
        this.#mappers.set(id, callables.map((c) => c.inputMapper))
        return { id, ok: true, data, callables: callables.map(({ path, toolName }) => ({ path, toolName })) }
      } catch (error) {
        return { id, ok: false, reason: `createScope failed: ${errorMessage(error)}` }
      }
    })
    const hidden = JSON.parse(this.#native.installNamespaces(JSON.stringify(descriptors)))
    for (const { id, reason } of hidden) {
      emit(this.#onEvent, { type: 'namespace_hidden', runId: options.runId, namespaceId: id, reason })
    }
  }

  /** False when code mode does not apply to this run (config off, no tools, raw call). */
  get active() {
    return this.#native.active
  }

  /** The resolved `tools.codeMode` settings of this run. */
  get config() {
    return this.#native.config
  }

  /** Exactly `[exec, wait]` when active, `[]` otherwise. */
  get modelTools() {
    this.#modelTools ??= JSON.parse(this.#native.modelToolsJson)
    return structuredClone(this.#modelTools)
  }

  /** The guest-visible `ALL_TOOLS` view (no MCP entries, no schemas). */
  get catalog() {
    this.#catalog ??= JSON.parse(this.#native.catalogJson)
    return structuredClone(this.#catalog)
  }

  /** Host-only counters (never shown to the model). */
  get telemetry() {
    return JSON.parse(this.#native.telemetryJson)
  }

  /** Runs a cell. Resolves to a `CodeModeResult`; never rejects. */
  exec(input, options) {
    return this.#leg('exec', input, options)
  }

  /** Continues a waiting cell by its `runId`. Resolves to a `CodeModeResult`; never rejects. */
  wait(input, options) {
    return this.#leg('wait', input, options)
  }

  /** Drops every cell this run created and aborts their nested calls. */
  abort() {
    this.#lifetime.abort()
    this.#native.abort()
  }

  #leg(kind, input, options) {
    const toolCallId = optionalString(options?.toolCallId)
    const signal = options?.signal
    this.#nextLeg = (this.#nextLeg % 0x7fffffff) + 1
    const leg = this.#nextLeg
    return new Promise((resolve) => {
      const immediate = this.#native[kind](input, leg, toolCallId, signal?.aborted === true)
      if (immediate !== null && immediate !== undefined) {
        resolve(decodeLegResult(immediate))
        return
      }
      let onAbort
      if (signal && typeof signal.addEventListener === 'function') {
        onAbort = () => this.#native.abortLeg(leg)
        signal.addEventListener('abort', onAbort, { once: true })
      }
      legStarted()
      this.#legs.set(leg, (result) => {
        legEnded()
        if (onAbort) signal.removeEventListener('abort', onAbort)
        resolve(result)
      })
    })
  }

  // Every native message arrives here; nothing may throw out of it.
  #port(kind, id, payload) {
    try {
      if (kind === CALL) {
        // Every call the cell started since its previous batch.
        forEachCall(payload, (call, toolIndex, input, namespace, parent) =>
          this.#startCall(id, call, toolIndex, input, namespace, parent),
        )
      } else if (kind === LEG_DONE) {
        const done = this.#legs.get(id)
        if (done) {
          this.#legs.delete(id)
          done(decodeLegResult(payload))
        }
      } else if (kind === ABORT_CELL) {
        const calls = this.#calls.get(id)
        if (calls) {
          this.#calls.delete(id)
          for (const controller of calls.values()) controller.abort(new Error('code mode cell ended'))
        }
      } else if (kind === EVENT) emit(this.#onEvent, decodeEvent(payload))
    } catch {
      // Only a bug can get here; the run carries on.
    }
  }

  // Outcomes of one microtask checkpoint go over together (see OutcomeQueue).
  #settle(cellId, call, ok, text) {
    if (this.#outcomes.push(cellId, call, ok, text)) queueMicrotask(this.#flushSettled)
  }

  #flushSettled = () => this.#outcomes.flush(this.#native)

  // One nested call of a batch (see lib/protocol.js): the tool by catalog index, the rest from
  // this run's scope.
  #startCall(cell, call, toolIndex, rawInput, namespace, parentToolCallId) {
    const tool = (this.#callTools ??= decodeCallTools(this.#native.callToolsJson))[toolIndex]
    const toolCallId = nestedToolCallId((this.#nestedIdPrefix ??= this.#native.nestedIdPrefix), cell, call)
    const controller = new AbortController()
    let calls = this.#calls.get(cell)
    if (!calls) this.#calls.set(cell, (calls = new Map()))
    calls.set(call, controller)
    const scope = this.#scope
    // Events cost objects on every call: built only when someone listens.
    const onEvent = this.#onEvent
    const described =
      typeof onEvent === 'function'
        ? {
            toolCallId,
            parentToolCallId,
            toolId: tool.id,
            toolName: tool.name,
            source: tool.source,
            sourceName: tool.sourceName,
            runId: scope.runId,
          }
        : undefined
    let input = rawInput
    let mapperError
    if (namespace) {
      // A namespace callable sends its argument list; the registration's mapper makes the input.
      const args = Array.isArray(input) ? input : []
      const mapper = this.#mappers.get(namespace.id)?.[namespace.index]
      try {
        input = mapper ? mapper(args) : (args[0] ?? {})
      } catch (error) {
        mapperError = `namespace input mapper failed: ${errorMessage(error)}`
      }
    }
    const nested = new NestedCall(tool, input, toolCallId, parentToolCallId, scope, controller, (partial) => {
      if (described) emit(onEvent, { type: 'tool_call_update', ...described, partial })
    })
    if (tool.mcp) nested.mcp = { ...tool.mcp }
    if (namespace) nested.namespace = { id: namespace.id, globalName: namespace.globalName, path: namespace.path }
    const started = described ? performance.now() : 0
    if (described) emit(onEvent, { type: 'tool_call_start', ...described })
    // Runs inside promise callbacks: a throw here would be an unhandled rejection, which ends
    // the process. Nothing may escape.
    const finish = (ok, text, error) => {
      try {
        calls.delete(call)
        if (calls.size === 0 && this.#calls.get(cell) === calls) this.#calls.delete(cell)
        if (described) {
          const durationMs = Math.round((performance.now() - started) * 1000) / 1000
          emit(onEvent, {
            type: 'tool_call_end',
            ...described,
            durationMs,
            ok,
            ...(ok ? {} : { error }),
            aborted: controller.signal.aborted,
          })
        }
        this.#settle(cell, call, ok, text)
      } catch {
        // Only a bug can get here; the call stays pending and the leg's clock ends it.
      }
    }
    let pending
    try {
      pending = mapperError ? Promise.reject(new Error(mapperError)) : Promise.resolve(this.#executor(nested))
    } catch (error) {
      pending = Promise.reject(error)
    }
    pending.then(
      (value) => {
        let text
        try {
          text = resultJson(value)
        } catch (error) {
          const message = `tool result is not JSON-serialisable: ${errorMessage(error)}`
          return finish(false, message, message)
        }
        finish(true, text)
      },
      (error) => {
        const message = errorMessage(error)
        finish(false, message, message)
      },
    )
  }
}

/** Wraps a run's exec and wait as OpenClaw agent tools (drop-in for the gateway's tool list). */
function createCodeModeAgentTools(run) {
  if (!(run instanceof CodeModeRun)) {
    throw new TypeError('createCodeModeAgentTools(run): run must be a CodeModeRun.')
  }
  return run.modelTools.map((definition) => {
    const isExec = definition.name === 'exec'
    return {
      name: definition.name,
      label: definition.label,
      description: definition.description,
      parameters: definition.parameters,
      toolKind: isExec ? 'code_mode_exec' : 'code_mode_wait',
      /** Hook metadata for one call: lets policies tell a code cell from a shell `exec`. */
      hookMetadata(params) {
        if (!isExec) return { toolKind: 'code_mode_wait' }
        const language = params?.language === 'typescript' ? 'typescript' : 'javascript'
        return { toolKind: 'code_mode_exec', toolInputKind: language }
      },
      async execute(toolCallId, params, signal, onUpdate) {
        const result = await run[definition.name](params, { toolCallId, signal })
        if (typeof onUpdate === 'function' && result.status === 'waiting') {
          try {
            onUpdate({ content: [{ type: 'text', text: `waiting: ${result.runId}` }], details: result })
          } catch {}
        }
        return { content: [{ type: 'text', text: JSON.stringify(result, null, 2) }], details: result }
      },
    }
  })
}

module.exports = {
  CodeModeRun,
  createCodeModeAgentTools,
  registerCodeModeNamespaceForPlugin,
  createCodeModeNamespaceTool,
  clearCodeModeNamespacesForPlugin,
  unregisterCodeModeNamespace,
  clearCodeModeNamespacesForTest,
  resolveCodeModeConfig: native.resolveCodeModeConfig,
  configureCodeModeRuntime: native.configureCodeModeRuntime,
  assertCodeModePayload: native.assertCodeModePayload,
}
