// What the executor does to the gateway's process: host callbacks that throw or reject, and the
// memory its results keep. Drives this package's executor with the real openclaw runtime and
// prints one JSON object of findings. No handler for uncaught exceptions or unhandled rejections
// is installed: Node's defaults end the process with status 1 on either, which the test sees.
// Run as `node --expose-gc` (Node >= 24.16) by __test__/openclaw-executor.spec.ts.
import { createRequire } from 'node:module'
import { config, execInput } from './executor-input.mjs'

const require = createRequire(import.meta.url)
const { createCodeModeExecutor } = require('../../lib/openclaw-executor.js')

const boom = (what) => {
  throw new Error(`${what} exploded`)
}

/** A host that answers callValue with x + 1 and checkpoints on `yield`; `overrides` replace its parts. */
function host(overrides = {}) {
  return {
    onNetworkContent: () => {},
    onBoundary: async (boundary, context) => {
      if (overrides.onBoundary) await overrides.onBoundary(boundary, context)
      if (boundary.pendingRequests.some((r) => r.method === 'yield')) return { kind: 'checkpoint', onConsumed: overrides.onConsumed ?? (() => {}) }
      return {
        kind: 'continue',
        timeoutMs: 4000,
        settledRequests: boundary.pendingRequests.map((r) => ({ id: r.id, ok: true, json: JSON.stringify({ x: (r.args[1]?.x ?? 0) + 1 }) })),
        pendingRequests: [],
        onConsumed: overrides.onConsumed ?? (() => {}),
      }
    },
    ...overrides.inlineHost,
  }
}

const run = (executor, input, inlineHost, extra = {}) => executor.execute(input, { timeoutMs: config.timeoutMs + 2000, signal: new AbortController().signal, inlineHost, ...extra })
const summary = (r) => ({ status: r.status, code: r.code, failurePhase: r.failurePhase, error: r.error, value: r.value, networkContentObserved: r.networkContentObserved })
const findings = { callbacks: {}, warnings: [] }
const executor = createCodeModeExecutor()
process.on('warning', (warning) => {
  if (warning.code === 'OPENCLAW_CODE_MODE_HOST_CALLBACK') findings.warnings.push(warning.message)
})

/** Execs a yielding cell, then resumes it with `inlineHost`. */
async function resumed(inlineHost) {
  const waiting = await run(executor, execInput('await yield_control("r"); return "resumed"'), host())
  const input = { kind: 'resume', retainFinalValue: false, config, settledRequests: waiting.pendingRequests.map((r) => ({ id: r.id, ok: true, json: 'null' })), pendingRequests: [] }
  const result = await waiting.continuation.resume(input, { timeoutMs: 7000, signal: new AbortController().signal, inlineHost })
  await waiting.continuation.dispose()
  return summary(result)
}

const cb = findings.callbacks
// onInputConsumed runs in the first resumed leg's promise callbacks.
cb.inputConsumedThrows = await resumed({ ...host(), onInputConsumed: () => boom('onInputConsumed') })
cb.inputConsumedRejects = await resumed({ ...host(), onInputConsumed: async () => boom('onInputConsumed') })
// A thenable on purpose (as below): what the executor makes of a host's thenable is the test.
// oxlint-disable-next-line unicorn/no-thenable
cb.inputConsumedThenThrows = await resumed({ ...host(), onInputConsumed: () => ({ then: () => boom('then') }) })
{
  const getter = { ...host() }
  Object.defineProperty(getter, 'onInputConsumed', { get: () => boom('the onInputConsumed getter') })
  cb.inputConsumedGetterThrows = await resumed(getter)
}
// A continue reply's onConsumed, a checkpoint's, thrown and rejected.
cb.consumedThrows = summary(await run(executor, execInput('return (await add_one({ x: 1 })).x'), host({ onConsumed: () => boom('onConsumed') })))
cb.consumedRejects = summary(await run(executor, execInput('return (await add_one({ x: 1 })).x'), host({ onConsumed: async () => boom('onConsumed') })))
{
  const waiting = await run(executor, execInput('await yield_control("r"); return 1'), host({ onConsumed: () => boom('onConsumed') }))
  cb.checkpointConsumedThrows = { status: waiting.status }
  await waiting.continuation?.dispose()
}
// onNetworkContent, thrown and rejected, at a boundary and at the end.
{
  const apiFiles = [{ path: 'mcp/docs.d.ts', description: 'docs server', content: 'declare const x: 1', bytes: 18 }]
  const source = 'await API.read("mcp/docs.d.ts"); return (await add_one({ x: 1 })).x'
  cb.networkThrows = summary(await run(executor, execInput(source, { apiFiles }), host({ inlineHost: { onNetworkContent: () => boom('onNetworkContent') } })))
  cb.networkRejects = summary(await run(executor, execInput(source, { apiFiles }), host({ inlineHost: { onNetworkContent: async () => boom('onNetworkContent') } })))
}
// Listeners the host puts on the task signal run when the executor aborts it at the end.
cb.taskListenersThrow = summary(
  await run(
    executor,
    execInput('return (await add_one({ x: 1 })).x'),
    host({
      onBoundary: (_, context) => {
        context.signal.addEventListener('abort', () => boom('an abort listener'))
        context.signal.addEventListener('abort', { handleEvent: () => boom('an abort handleEvent') })
        context.signal.addEventListener('abort', async () => boom('an async abort listener'))
        context.signal.onabort = () => boom('onabort')
      },
    }),
  ),
)
// onBoundary: a throwing getter, a throw, a thenable whose `then` throws.
{
  const getter = { ...host() }
  Object.defineProperty(getter, 'onBoundary', { get: () => boom('the onBoundary getter') })
  cb.boundaryGetterThrows = summary(await run(executor, execInput('return (await add_one({ x: 1 })).x'), getter))
  // oxlint-disable-next-line unicorn/no-thenable
  cb.boundaryThenThrows = summary(await run(executor, execInput('return (await add_one({ x: 1 })).x'), { ...host(), onBoundary: () => ({ then: () => boom('then') }) }))
  const unprintable = { toString: () => boom('toString') }
  cb.boundaryRejectsUnprintable = summary(await run(executor, execInput('return (await add_one({ x: 1 })).x'), { ...host(), onBoundary: async () => Promise.reject(unprintable) }))
}

// Results keep only their bounded bytes: 16 values, outputs and errors cut from 4 MiB texts.
{
  const inUse = () => {
    globalThis.gc()
    globalThis.gc()
    const { heapUsed, external } = process.memoryUsage()
    return heapUsed + external
  }
  const before = inUse()
  const kept = []
  for (let i = 0; i < 8; i++) {
    kept.push(await run(executor, execInput(`const s = "v".repeat(${4 << 20}) + ${i}; console.log(s); return s`), host()))
    kept.push(await run(executor, execInput(`throw new Error("e".repeat(${4 << 20}) + ${i})`), host()))
  }
  findings.retained = {
    bytes: inUse() - before,
    kinds: kept.map((r) => r.value?.kind ?? r.code),
    outputs: kept.map((r) => r.output.source.kind),
    valueBytes: kept[0].value.json.length,
    errorEnd: kept[1].error.slice(-18),
  }
}

// Anything thrown late (a listener, a promise callback) surfaces before the findings are written.
await new Promise((resolve) => setTimeout(resolve, 200))
process.stdout.write(JSON.stringify(findings), () => process.exit(0))
