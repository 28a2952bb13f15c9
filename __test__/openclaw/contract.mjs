// Drives this package's executor directly through upstream's executor contract (execute →
// boundaries → continue/checkpoint → resume/dispose), with bad inputs a gateway or a broken
// install could hand it, and prints one JSON object of findings. Needs Node >= 24.16 (the real
// openclaw runtime module is imported). Run by __test__/openclaw-executor.spec.ts.
import { createRequire } from 'node:module'
import { config, execInput as input } from './executor-input.mjs'

const require = createRequire(import.meta.url)
const { createCodeModeExecutor, loadOpenClawRuntime } = require('../../lib/openclaw-executor.js')
const sdk = await loadOpenClawRuntime()

/** An exec input whose final value the gateway keeps (`retainFinalValue`). */
const execInput = (source, extra = {}) => input(source, { retainFinalValue: true, ...extra })

/** A host that answers every callValue with x + 1, checkpoints on `yield`, and records calls. */
function host(log = [], overrides = {}) {
  return {
    onNetworkContent: () => log.push('network'),
    onBoundary: async (boundary, context) => {
      log.push({ boundary: boundary.pendingRequests.map((r) => r.method), mode: boundary.settlementMode.kind, maxTimeoutMs: context.maxTimeoutMs, signal: context.signal instanceof AbortSignal, yieldSignal: context.yieldSignal instanceof AbortSignal, memoryUsedBytes: boundary.memoryUsedBytes })
      if (overrides.onBoundary) return overrides.onBoundary(boundary, context)
      if (boundary.pendingRequests.some((r) => r.method === 'yield')) return { kind: 'checkpoint', onConsumed: () => log.push('consumed') }
      return {
        kind: 'continue',
        timeoutMs: 4000,
        settledRequests: boundary.pendingRequests.map((r) => ({ id: r.id, ok: true, json: JSON.stringify({ x: (r.args[1]?.x ?? 0) + 1 }) })),
        pendingRequests: [],
        onConsumed: () => log.push('consumed'),
      }
    },
  }
}

const run = (executor, input, inlineHost, extra = {}) => executor.execute(input, { timeoutMs: config.timeoutMs + 2000, signal: new AbortController().signal, inlineHost, ...extra })
const summary = (r) => ({ status: r.status, code: r.code, failurePhase: r.failurePhase, error: r.error, value: r.value, output: r.output })
const findings = {}
const executor = createCodeModeExecutor()

// A plain cell, a nested call, and the boundary the host saw.
{
  const log = []
  findings.nested = { result: summary(await run(executor, execInput('return (await add_one({ x: 41 })).x'), host(log))), log }
}

// yield → checkpoint → waiting; resume once; resume again; dispose twice.
{
  const log = []
  const waiting = await run(executor, execInput('console.log("a"); await yield_control("r"); return "resumed"'), host(log))
  const continuation = waiting.continuation
  const consumedInputs = []
  const resumeInput = { kind: 'resume', retainFinalValue: true, config, settledRequests: waiting.pendingRequests.map((r) => ({ id: r.id, ok: true, json: 'null' })), pendingRequests: [] }
  const first = await continuation.resume(resumeInput, { timeoutMs: 7000, signal: new AbortController().signal, inlineHost: { ...host(log), onInputConsumed: () => consumedInputs.push(1) } })
  const second = await continuation.resume(resumeInput, { timeoutMs: 7000, signal: new AbortController().signal, inlineHost: host(log) })
  await continuation.dispose()
  await continuation.dispose()
  findings.resume = {
    waiting: { status: waiting.status, executor: continuation.executor, retainedBytes: continuation.retainedBytes, pending: waiting.pendingRequests.map((r) => r.method), output: waiting.output, mode: waiting.settlementMode },
    first: summary(first),
    second: summary(second),
    consumedInputs: consumedInputs.length,
    log,
  }
}

// resume after dispose.
{
  const waiting = await run(executor, execInput('await yield_control("r"); return 1'), host())
  await waiting.continuation.dispose()
  const resumed = await waiting.continuation.resume({ kind: 'resume', retainFinalValue: true, config, settledRequests: [], pendingRequests: [] }, { timeoutMs: 7000, signal: new AbortController().signal, inlineHost: host() })
  findings.resumeAfterDispose = summary(resumed)
}

// Malformed continuation replies.
findings.malformed = {}
for (const [name, reply] of Object.entries({
  notAnObject: 42,
  unknownKind: { kind: 'rewind' },
  settledNotArray: { kind: 'continue', timeoutMs: 1000, settledRequests: 'nope', pendingRequests: [] },
  settledBadEntry: { kind: 'continue', timeoutMs: 1000, settledRequests: [{ id: 1, ok: 'yes' }], pendingRequests: [] },
  pendingBadEntry: { kind: 'continue', timeoutMs: 1000, settledRequests: [], pendingRequests: [{ id: 'x' }] },
  budgetTooLarge: { kind: 'continue', timeoutMs: 1e9, settledRequests: [], pendingRequests: [] },
  budgetZero: { kind: 'continue', timeoutMs: 0, settledRequests: [], pendingRequests: [] },
})) {
  findings.malformed[name] = summary(await run(executor, execInput('return await add_one({ x: 1 })'), host([], { onBoundary: async () => reply })))
}
// The host's own work is aborted mid-boundary: its reply rejects with an AbortError.
findings.boundaryAborted = summary(await run(executor, execInput('return await add_one({ x: 1 })'), host([], { onBoundary: async () => { throw new DOMException('This operation was aborted', 'AbortError') } })))
findings.boundaryThrows = summary(await run(executor, execInput('return await add_one({ x: 1 })'), host([], { onBoundary: async () => { throw new Error('host exploded') } })))

// Abort mid-boundary: the host never answers; the exec's signal aborts.
{
  const controller = new AbortController()
  const started = performance.now()
  setTimeout(() => controller.abort(), 100)
  const result = await run(executor, execInput('return await add_one({ x: 1 })'), host([], { onBoundary: () => new Promise(() => {}) }), { signal: controller.signal })
  findings.abortMidBoundary = { ...summary(result), ms: Math.round(performance.now() - started) }
}
// A host that never answers a boundary, or answers `continue` for ever with nothing settled:
// the call ends at options.timeoutMs (not counting time queued) as upstream's worker timeout,
// with the task signal it handed onBoundary aborted.
{
  const short = { config: { ...config, timeoutMs: 1000 } }
  const signals = []
  const silent = host([], { onBoundary: (_, context) => (signals.push(context.signal), new Promise(() => {})) })
  const never = await run(executor, execInput('return await add_one({ x: 1 })', short), silent, { timeoutMs: 3000 })
  let calls = 0
  const spinning = host([], {
    onBoundary: async (boundary, context) => {
      if (calls++ === 0) signals.push(context.signal)
      return { kind: 'continue', timeoutMs: 200, settledRequests: [], pendingRequests: boundary.pendingRequests }
    },
  })
  const loop = await run(executor, execInput('return await add_one({ x: 1 })', short), spinning, { timeoutMs: 3000 })
  // A resume is bounded by its own call's options.timeoutMs.
  const waiting = await run(executor, execInput('await yield_control("r"); return await add_one({ x: 1 })', short), host())
  const consumed = []
  const resumed = await waiting.continuation.resume(
    { kind: 'resume', retainFinalValue: true, config: short.config, settledRequests: waiting.pendingRequests.map((r) => ({ id: r.id, ok: true, json: 'null' })), pendingRequests: [] },
    { timeoutMs: 3000, signal: new AbortController().signal, inlineHost: { ...silent, onInputConsumed: () => consumed.push(1) } },
  )
  findings.hostTimeout = { never: summary(never), loop: summary(loop), resumed: summary(resumed), calls, signalsAborted: signals.map((s) => s.aborted), consumed: consumed.length }
}

// Abort mid-leg (a busy loop) and an already-aborted signal.
{
  const controller = new AbortController()
  setTimeout(() => controller.abort(), 100)
  findings.abortMidLeg = summary(await run(executor, execInput('while (true) {}'), host(), { signal: controller.signal }))
  const aborted = new AbortController()
  aborted.abort()
  findings.abortBefore = summary(await run(executor, execInput('return 1'), host(), { signal: aborted.signal }))
}

// A controller source that does not compile; a runtime module without the executor exports.
findings.badController = summary(await run(createCodeModeExecutor({ loadRuntime: async () => ({ ...sdk, CODE_MODE_CONTROLLER_SOURCE: '(() => { return ' }) }), execInput('return 1'), host()))
findings.tooOldRuntime = summary(await run(createCodeModeExecutor({ loadRuntime: async () => ({ prepareSource: sdk.prepareSource }) }), execInput('return 1'), host()))
findings.missingRuntime = summary(await run(createCodeModeExecutor({ loadRuntime: async () => { throw new Error("Cannot find package 'openclaw'") } }), execInput('return 1'), host()))
findings.badInput = summary(await executor.execute({ kind: 'exec' }, { timeoutMs: 1000, inlineHost: host() }))
{
  const cyclic = { source: 'x' }
  cyclic.self = cyclic
  findings.cyclicCatalog = summary(await run(executor, execInput('return 1', { catalog: [cyclic] }), host()))
  findings.resumeKindOnExecute = summary(await executor.execute({ kind: 'resume', config, settledRequests: [], pendingRequests: [] }, { timeoutMs: 1000 }))
  findings.notAnObject = summary(await executor.execute(null, {}))
}

// A config or options the gateway never sends: the failure names the field.
{
  const { timeoutMs: _, ...noTimeout } = config
  findings.badConfig = {
    empty: summary(await executor.execute({ kind: 'exec', source: 'return 1', config: {} }, {})),
    missing: summary(await run(executor, execInput('return 1', { config: noTimeout }), host())),
    nan: summary(await run(executor, execInput('return 1', { config: { ...config, timeoutMs: NaN } }), host())),
    text: summary(await run(executor, execInput('return 1', { config: { ...config, timeoutMs: 'soon' } }), host())),
    negative: summary(await run(executor, execInput('return 1', { config: { ...config, timeoutMs: -5 } }), host())),
    nullOptions: summary(await executor.execute(execInput('return 1'), null)),
  }
  const waiting = await run(executor, execInput('await yield_control("r"); return 1'), host())
  const resumeInput = { kind: 'resume', retainFinalValue: true, config: {}, settledRequests: waiting.pendingRequests.map((r) => ({ id: r.id, ok: true, json: 'null' })), pendingRequests: [] }
  findings.badConfig.resumeEmpty = summary(await waiting.continuation.resume(resumeInput, {}))
  const again = await run(executor, execInput('await yield_control("r"); return 1'), host())
  findings.badConfig.resumeNullOptions = summary(await again.continuation.resume({ ...resumeInput, config }, null))
  findings.badConfig.resumeAfterNull = summary(await again.continuation.resume({ ...resumeInput, config }, {}))
}

// A catalog too large for memoryLimitBytes: the failure names the limit and the data's size.
{
  const catalog = Array.from({ length: 10_000 }, (_, i) => ({ source: 'openclaw', name: `tool_${i}`, label: `Tool ${i}`, description: 'd'.repeat(200), input: '{}', callableName: `tool_${i}` }))
  const result = await run(executor, execInput('return 1', { catalog, config: { ...config, memoryLimitBytes: 8 << 20 } }), host())
  findings.hugeCatalog = { ...summary(result), bytes: Buffer.byteLength(JSON.stringify(catalog)) }
}

// The event loop keeps running while a cell computes (guest JavaScript runs on a worker).
{
  let ticks = 0
  const timer = setInterval(() => ticks++, 10)
  const result = await run(executor, execInput('const end = Date.now() + 400; let n = 0; while (Date.now() < end) n++; return n > 0'), host())
  clearInterval(timer)
  findings.mainThread = { status: result.status, ticks }
}

// Output, snapshot and memory caps as results.
findings.snapshotLimit = summary(await run(executor, execInput('const keep = "k".repeat(3 << 20); await yield_control("big"); return keep.length', { config: { ...config, maxSnapshotBytes: 1 << 20 } }), host()))
findings.memoryBomb = summary(await run(executor, execInput('const a = []; for (;;) a.push(new Array(1e5).fill(1))', { config: { ...config, memoryLimitBytes: 16 << 20 } }), host()))
findings.timeout = summary(await run(executor, execInput('for (;;) {}', { config: { ...config, timeoutMs: 200 } }), host(), { timeoutMs: 2200 }))

// VMs prepared ahead serve only cells of the same catalog and limits. A 40 MiB string fits a VM
// of twice 64 MiB, not one of twice 16 MiB (docs/executor-contract.md, "Memory").
{
  const tool = (name) => ({ source: 'openclaw', name, label: name, description: name, input: '{}', callableName: name })
  const probe = 'console.log(typeof alpha, typeof beta); const keep = "m".repeat(40 << 20); return keep.length'
  const values = []
  for (let round = 0; round < 3; round++) {
    for (const [catalog, memoryLimitBytes] of [[[tool('alpha')], 64 << 20], [[tool('beta')], 16 << 20]]) {
      const r = await run(executor, execInput(probe, { catalog, config: { ...config, memoryLimitBytes } }), host())
      values.push({ code: r.code ?? r.status, value: r.value?.json, output: JSON.parse(r.output.source.json).map((o) => o.text) })
    }
  }
  findings.spares = values
}

// retainFinalValue picks the bound of a structured final value, as upstream's capture does.
{
  const source = 'return Array.from({ length: 10000 }, (_, i) => ({ i }))'
  const value = Array.from({ length: 10000 }, (_, i) => ({ i }))
  const kept = await run(executor, execInput(source, { retainFinalValue: true }), host())
  const bounded = await run(executor, execInput(source, { retainFinalValue: false }), host())
  const expectKept = sdk.captureCodeModeValue(value, config.maxOutputBytes, Math.min(config.memoryLimitBytes, config.maxSnapshotBytes))
  const expectBounded = sdk.captureCodeModeValue(value, config.maxOutputBytes, config.maxOutputBytes)
  const shape = (v) => ({ kind: v.kind, bytes: v.json.length, originalBytes: v.originalBytes })
  findings.retainFinalValue = {
    kept: shape(kept.value),
    bounded: shape(bounded.value),
    keptEqual: JSON.stringify(kept.value) === JSON.stringify(expectKept),
    boundedEqual: JSON.stringify(bounded.value) === JSON.stringify(expectBounded),
  }
}

// Reading an MCP API file marks network content: the host hears it, and the result says so.
{
  const log = []
  const apiFiles = [{ path: 'mcp/docs.d.ts', description: 'docs server', content: 'declare const x: 1', bytes: 18 }]
  const result = await run(executor, execInput('await API.read("mcp/docs.d.ts"); return 1', { apiFiles }), host(log))
  findings.network = { status: result.status, flag: result.networkContentObserved, heard: log.filter((e) => e === 'network').length }
}

// A source past 1 MiB is refused before the gateway's checks parse it on this thread; a
// timeout past what setTimeout takes arms no timer that fires at once (no TimeoutOverflowWarning).
{
  const warnings = []
  process.on('warning', (w) => warnings.push(w.name))
  const started = performance.now()
  const huge = await run(executor, execInput('x=1;'.repeat(300_000)), host())
  findings.hugeSource = { ...summary(huge), ms: performance.now() - started }
  const long = await run(executor, execInput('return 1', { config: { ...config, timeoutMs: 1e12 } }), host(), { timeoutMs: 1e12 })
  await new Promise((resolve) => setTimeout(resolve, 20))
  findings.longTimeout = { status: long.status, warnings }
}

process.stdout.write(JSON.stringify(findings), () => process.exit(0))
