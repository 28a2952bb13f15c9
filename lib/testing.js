// @ts-check
'use strict'
// Test helpers for plugin authors. createOpenClawTestRun: cells run through the real OpenClaw
// gateway's code-mode tools (the guest API OpenClaw users run: tool globals, catalog, results,
// MCP) around the plugin's own agent tools. createTestRun: a CodeModeRun (this library's own
// guest API: tools.*, ALL_TOOLS) around plain handler functions. Both record every nested call
// and follow `waiting` with `wait` (lib/follow-waits.js). The public types are lib/testing.d.ts.

const { followWaits } = require('./follow-waits.js')
const { configProblems } = require('./config-check.js')

/** @typedef {import('./testing').TestRun} TestRun */
/** @typedef {import('./testing').TestRunResult} TestRunResult */
/** @typedef {import('./testing').TestToolHandler} TestToolHandler */
/** @typedef {import('./testing').TestToolSpec} TestToolSpec */
/** @typedef {import('./testing').CreateTestRunOptions} CreateTestRunOptions */
/** @typedef {import('./testing').RecordedCall} RecordedCall */
/** @typedef {import('./testing').OpenClawTestRun} OpenClawTestRun */
/** @typedef {import('./testing').OpenClawTestRunResult} OpenClawTestRunResult */
/** @typedef {import('./testing').OpenClawCodeModeResult} OpenClawCodeModeResult */
/** @typedef {import('./testing').OpenClawRecordedCall} OpenClawRecordedCall */
/** @typedef {import('./testing').CreateOpenClawTestRunOptions} CreateOpenClawTestRunOptions */
/** @typedef {import('../index').CodeModeEvent} CodeModeEvent */
/** @typedef {import('../index').CatalogTool} CatalogTool */

// index.js (the native addon) is loaded by createTestRun only: createOpenClawTestRun reaches
// this package through the gateway, as the `quickjs` executor plugin.
const native = () => require('../index.js')

/** @type {Set<{ cleanup(): void | Promise<void> }>} */
const live = new Set()
let nextRun = 0

/**
 * @param {string} name
 * @param {TestToolHandler | TestToolSpec} spec
 * @returns {{ tool: CatalogTool, handler: TestToolHandler }}
 */
function toolDefinition(name, spec) {
  /** @type {Partial<TestToolSpec>} */
  const given = typeof spec === 'function' ? { handler: spec } : spec && typeof spec === 'object' ? spec : {}
  const { handler, ...meta } = given
  if (typeof handler !== 'function') {
    throw new TypeError(`createTestRun: tool "${name}" needs a handler function`)
  }
  return { tool: { name, description: meta.description ?? `Test tool ${name}`, ...meta }, handler }
}

/**
 * A run whose catalog is `tools` (name → handler, or { handler, description, parameters,
 * source, sourceName, label }). Handlers receive `(input, call)`.
 * @param {CreateTestRunOptions} [options]
 * @returns {TestRun}
 */
function createTestRun(options = {}) {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new TypeError(`createTestRun(options): options must be an object such as { tools: { name: handler } }, not ${typeName(options)}`)
  }
  // null reads as left out, as it always has.
  const tools = options.tools ?? {}
  const namespaces = options.namespaces ?? []
  if (typeof tools !== 'object' || Array.isArray(tools)) {
    throw new TypeError(`createTestRun: tools must be an object of tool name → handler or { handler, description, ... }, not ${typeName(tools)}`)
  }
  if (!Array.isArray(namespaces)) {
    throw new TypeError(`createTestRun: namespaces must be an array of { pluginId, registration }, not ${typeName(namespaces)}`)
  }
  refuseConfigProblems('createTestRun', options.config, { executorChosenBy: 'the run uses the executor the kit gives it', enabledHonoured: true })
  const entries = Object.entries(tools).map(([name, spec]) => toolDefinition(name, spec))
  const handlers = new Map(entries.map(({ tool, handler }) => [tool.name, handler]))
  const { CodeModeRun, registerCodeModeNamespaceForPlugin, unregisterCodeModeNamespace } = native()
  /** @type {string[]} */
  const registered = []
  for (const { pluginId, registration } of namespaces) {
    registerCodeModeNamespaceForPlugin(pluginId, registration)
    registered.push(registration.id)
  }
  /** @type {RecordedCall[]} */
  const calls = []
  /** @type {CodeModeEvent[]} */
  const events = []
  const run = CodeModeRun.create({
    config: testConfig(options.config),
    runId: options.runId ?? `test-run-${++nextRun}`,
    sessionId: options.sessionId ?? 'test-session',
    sessionKey: options.sessionKey,
    agentId: options.agentId ?? 'test-agent',
    context: options.context,
    tools: entries.map(({ tool }) => tool),
    executor: async (call) => {
      /** @type {RecordedCall} */
      const record = { id: call.id, name: call.name, input: call.input, toolCallId: call.toolCallId, parentToolCallId: call.parentToolCallId }
      if (call.namespace) record.namespace = call.namespace
      calls.push(record)
      try {
        // Every call names a tool of this catalog, each with its handler.
        const handler = /** @type {TestToolHandler} */ (handlers.get(call.name))
        record.result = await handler(call.input, call)
        return record.result
      } catch (error) {
        record.error = error instanceof Error ? error.message : String(error)
        throw error
      }
    },
    onEvent: (event) => events.push(event),
  })
  const legIds = legIdSource()
  /**
   * @param {string} id
   * @param {string} code
   * @param {{ language?: 'javascript' | 'typescript' }} execOptions
   */
  const execLeg = (id, code, execOptions) => run.exec({ code, ...(execOptions.language ? { language: execOptions.language } : {}) }, { toolCallId: id })
  /** @type {TestRun} */
  const testRun = {
    run,
    calls,
    events,
    /** One exec, as the model would call it. */
    exec(code, execOptions = {}) {
      return execLeg(legIds.next(), code, execOptions)
    },
    /** exec, then wait until the cell completes or fails (at most `maxLegs` legs); collects the output of every leg. */
    async execUntilDone(code, execOptions = {}) {
      const done = await untilDone(
        calls,
        legIds,
        execOptions.maxLegs,
        (id) => execLeg(id, code, execOptions),
        (id, runId) => run.wait({ runId }, { toolCallId: id }),
      )
      return /** @type {TestRunResult} */ (done)
    },
    /** Aborts the run and removes the namespaces it registered. */
    cleanup() {
      live.delete(testRun)
      run.abort()
      for (const id of registered) unregisterCodeModeNamespace(id)
      registered.length = 0
    },
  }
  live.add(testRun)
  return testRun
}

/**
 * What a value is, for a message: `null`, `an array`, `a number`, `an object`…
 * @param {unknown} value
 */
function typeName(value) {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  const type = typeof value
  return type === 'undefined' ? type : `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`
}

/**
 * `tools.codeMode` for a test run: `enabled: true` unless the test says otherwise, so a partial
 * config (`{ timeoutMs: 100 }`) keeps code mode on, as the CLI does.
 * @param {unknown} config
 */
function testConfig(config) {
  if (config === undefined || config === null) return { enabled: true }
  if (typeof config === 'object' && !Array.isArray(config)) return { enabled: true, ...config }
  return config
}

/** The tool call ids of a test run's exec and wait legs, `test_call_1` on; `next(mine)` adds the id to `mine`. */
function legIdSource() {
  let legs = 0
  return {
    /** @param {Set<string>} [mine] */
    next(mine) {
      const id = `test_call_${++legs}`
      mine?.add(id)
      return id
    },
  }
}

/**
 * exec, then wait until the cell completes or fails (at most `maxLegs` legs, each with the next
 * leg id): the last result, with the output of every leg, each result, and the cell's own calls.
 * @template {{ status: string, runId?: string, output?: unknown[] }} R
 * @template {{ parentToolCallId?: string }} C
 * @param {C[]} calls every call of the run, recorded as they start
 * @param {ReturnType<typeof legIdSource>} legIds
 * @param {number | undefined} maxLegs
 * @param {(id: string) => Promise<R>} exec
 * @param {(id: string, runId: string) => Promise<R>} wait
 */
async function untilDone(calls, legIds, maxLegs, exec, wait) {
  const first = calls.length
  const limit = legLimit(maxLegs)
  /** @type {Set<string>} */
  const mine = new Set()
  const results = await followWaits(
    () => exec(legIds.next(mine)),
    (runId) => wait(legIds.next(mine), runId),
    limit,
  )
  return {
    ...results[results.length - 1],
    output: results.flatMap((r) => r.output ?? []),
    legs: results,
    calls: cellCalls(calls, first, mine),
  }
}

/**
 * The calls one cell made: those recorded since `first` whose parent is one of its legs (`mine`).
 * Other cells running at the same time on the same run record theirs under other leg ids; a
 * record without a parent cannot be told apart and is kept.
 * @template {{ parentToolCallId?: string }} T
 * @param {T[]} calls
 * @param {number} first
 * @param {Set<string>} mine
 */
function cellCalls(calls, first, mine) {
  return calls.slice(first).filter((call) => call.parentToolCallId === undefined || mine.has(call.parentToolCallId))
}

/**
 * Throws a TypeError naming every key of `config` that would not run as written (a misspelt key,
 * a value out of range or of the wrong type): a test must run with the settings it asks for.
 * @param {string} who
 * @param {unknown} config
 * @param {{ openclaw?: boolean, executorChosenBy: string, enabledHonoured?: boolean }} options
 */
function refuseConfigProblems(who, config, options) {
  if (config === null || typeof config !== 'object' || Array.isArray(config)) return
  const problems = configProblems(/** @type {Record<string, unknown>} */ (config), options)
  if (problems.length > 0) throw new TypeError(`${who}: config would not run as written: ${problems.join('; ')}`)
}

/**
 * `maxLegs`: the most exec/wait results to take (the exec is the first leg).
 * @param {number} [maxLegs]
 */
function legLimit(maxLegs = 100) {
  if (!Number.isInteger(maxLegs) || maxLegs < 1) throw new TypeError(`maxLegs must be a positive integer; got ${String(maxLegs)}`)
  return maxLegs
}

/**
 * A coded Error, like the gateway harness's refusals.
 * @param {string} code
 * @param {string} message
 */
function kitError(code, message) {
  const error = /** @type {Error & { code: string }} */ (new Error(message))
  error.code = code
  return error
}

/**
 * A test run inside the real OpenClaw gateway (the installed `openclaw` package): `tools` (the
 * plugin's agent tools) and `mcpServers` behind the gateway's own exec/wait tools, with this
 * package as the `quickjs` executor (or `executor: 'bundled' | 'node'`, upstream's). Rejects with
 * an Error whose `code` names what is missing: `ERR_CODE_MODE_OPENCLAW_MISSING`,
 * `ERR_CODE_MODE_OPENCLAW_VERSION`, `ERR_CODE_MODE_NODE_VERSION`.
 * @param {CreateOpenClawTestRunOptions & { namespaces?: unknown }} [options]
 * @returns {Promise<OpenClawTestRun>}
 */
async function createOpenClawTestRun(options = {}) {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new TypeError(`createOpenClawTestRun(options): options must be an object such as { tools: [...] }, not ${typeName(options)}`)
  }
  for (const key of /** @type {const} */ (['pluginId', 'agentId', 'sessionId', 'sessionKey', 'runId'])) {
    const value = options[key]
    if (value !== undefined && (typeof value !== 'string' || value.trim() === '')) {
      throw new TypeError(`createOpenClawTestRun: ${key} must be a non-empty string, not ${typeof value === 'string' ? 'an empty one' : typeName(value)}`)
    }
  }
  if (options.namespaces !== undefined) {
    throw kitError(
      'ERR_CODE_MODE_OPENCLAW_UNSUPPORTED',
      'createOpenClawTestRun: openclaw gives cells no plugin namespaces (its one namespace is MCP, namespaces.MCP): give the tools instead, or use createTestRun for this library\'s namespaces',
    )
  }
  if (options.config !== undefined && (options.config === null || typeof options.config !== 'object' || Array.isArray(options.config))) {
    throw new TypeError('createOpenClawTestRun: config must be a tools.codeMode object such as { timeoutMs: 2000 }')
  }
  refuseConfigProblems('createOpenClawTestRun', options.config, { openclaw: true, executorChosenBy: 'the executor option chooses it' })
  const { createGateway } = require('./openclaw-gateway.js')
  /** @type {OpenClawRecordedCall[]} */
  const calls = []
  const gateway = await createGateway({
    who: 'createOpenClawTestRun',
    tools: options.tools ?? [],
    mcpServers: options.mcpServers,
    config: options.config,
    executor: options.executor,
    pluginId: options.pluginId,
    agentId: options.agentId,
    sessionId: options.sessionId,
    sessionKey: options.sessionKey,
    runId: options.runId,
    onCall: (record) => calls.push(record),
  })
  const legIds = legIdSource()
  /**
   * The details of an exec or wait result.
   * @param {{ details?: unknown }} result
   * @returns {OpenClawCodeModeResult}
   */
  const details = (result) => /** @type {OpenClawCodeModeResult} */ (result?.details ?? result)
  /**
   * One exec or wait leg through the gateway's tool, as the model calls it: its result's details.
   * @param {{ execute(id: string, input: object, signal?: unknown): Promise<any> }} tool
   * @param {string} id
   * @param {object} input
   * @param {unknown} signal
   */
  const leg = async (tool, id, input, signal) => details(await tool.execute(id, input, signal))
  /** @type {OpenClawTestRun} */
  const testRun = {
    calls,
    execDescription: gateway.execDescription,
    executor: gateway.executor,
    openclaw: gateway.openclaw,
    /** The model-visible tools (exec, wait) as the gateway built them. */
    tools: gateway.tools,
    /** One exec, as the model would call it; resolves to the result's details. */
    exec(code, execOptions = {}) {
      return leg(gateway.exec, legIds.next(), { code }, execOptions.signal)
    },
    /** One wait for a `waiting` result's runId. */
    wait(runId, waitOptions = {}) {
      return leg(gateway.wait, legIds.next(), { runId }, waitOptions.signal)
    },
    /** exec, then wait until the cell completes or fails (at most `maxLegs` legs); collects the output of every leg. */
    async execUntilDone(code, execOptions = {}) {
      return untilDone(
        calls,
        legIds,
        execOptions.maxLegs,
        (id) => leg(gateway.exec, id, { code }, execOptions.signal),
        (id, runId) => leg(gateway.wait, id, { runId }, execOptions.signal),
      )
    },
    /** Ends the gateway's run (parked cells are released) and stops its MCP servers. */
    async cleanup() {
      live.delete(testRun)
      await gateway.cleanup()
    },
  }
  live.add(testRun)
  return testRun
}

/** Cleans up every test run still alive (use in `afterEach`; resolves when all are closed). */
async function cleanupTestRuns() {
  await Promise.all([...live].map((testRun) => testRun.cleanup()))
}

module.exports = { createTestRun, createOpenClawTestRun, cleanupTestRuns }

// The table is the API testing.d.ts declares (checked by `npm run typecheck`; no runtime effect).
/** @type {typeof import('./testing.d.ts')} */
const _declared = module.exports
