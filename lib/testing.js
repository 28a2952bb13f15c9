'use strict'
// Test helpers for plugin authors: a code-mode run around plain handler functions, with every
// nested call recorded and `waiting` followed automatically.

const {
  CodeModeRun,
  registerCodeModeNamespaceForPlugin,
  unregisterCodeModeNamespace,
} = require('../index.js')

const live = new Set()
let nextRun = 0

function toolDefinition(name, spec) {
  const { handler, ...meta } = typeof spec === 'function' ? { handler: spec } : spec
  if (typeof handler !== 'function') {
    throw new TypeError(`createTestRun: tool "${name}" needs a handler function`)
  }
  return { tool: { name, description: meta.description ?? `Test tool ${name}`, ...meta }, handler }
}

/**
 * A run whose catalog is `tools` (name → handler, or { handler, description, parameters,
 * source, sourceName, label }). Handlers receive `(input, call)`.
 */
function createTestRun(options = {}) {
  const entries = Object.entries(options.tools ?? {}).map(([name, spec]) => toolDefinition(name, spec))
  const handlers = new Map(entries.map(({ tool, handler }) => [tool.name, handler]))
  const registered = []
  for (const { pluginId, registration } of options.namespaces ?? []) {
    registerCodeModeNamespaceForPlugin(pluginId, registration)
    registered.push(registration.id)
  }
  const calls = []
  const events = []
  const run = CodeModeRun.create({
    config: options.config ?? { enabled: true },
    runId: options.runId ?? `test-run-${++nextRun}`,
    sessionId: options.sessionId ?? 'test-session',
    sessionKey: options.sessionKey,
    agentId: options.agentId ?? 'test-agent',
    context: options.context,
    tools: entries.map(({ tool }) => tool),
    executor: async (call) => {
      const record = { id: call.id, name: call.name, input: call.input, toolCallId: call.toolCallId, parentToolCallId: call.parentToolCallId }
      if (call.namespace) record.namespace = call.namespace
      calls.push(record)
      try {
        record.result = await handlers.get(call.name)(call.input, call)
        return record.result
      } catch (error) {
        record.error = error instanceof Error ? error.message : String(error)
        throw error
      }
    },
    onEvent: (event) => events.push(event),
  })
  let legs = 0
  const testRun = {
    run,
    calls,
    events,
    /** One exec, as the model would call it. */
    exec(code, execOptions = {}) {
      return run.exec({ code, ...(execOptions.language ? { language: execOptions.language } : {}) }, { toolCallId: `test_call_${++legs}` })
    },
    /** exec, then wait until the cell completes or fails; collects the output of every leg. */
    async execUntilDone(code, execOptions = {}) {
      const first = calls.length
      const results = [await testRun.exec(code, execOptions)]
      const maxLegs = execOptions.maxLegs ?? 100
      while (results.at(-1).status === 'waiting' && results.length <= maxLegs) {
        results.push(await run.wait({ runId: results.at(-1).runId }, { toolCallId: `test_call_${++legs}` }))
      }
      const last = results.at(-1)
      return {
        ...last,
        output: results.flatMap((r) => r.output ?? []),
        legs: results,
        calls: calls.slice(first),
      }
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

/** Cleans up every test run still alive (use in `afterEach`). */
function cleanupTestRuns() {
  for (const testRun of [...live]) testRun.cleanup()
}

module.exports = { createTestRun, cleanupTestRuns }
