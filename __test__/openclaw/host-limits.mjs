// What an executor cell makes the gateway hold, and how cells of different tenants share the
// runtime, driven through upstream's executor contract (needs Node >= 24.16: the real openclaw
// runtime module is imported). Prints one JSON object of findings; run by
// __test__/host-limits.spec.ts.
import { createRequire } from 'node:module'
import { config as base, execInput as input } from './executor-input.mjs'

const require = createRequire(import.meta.url)
const { createCodeModeExecutor, loadOpenClawRuntime } = require('../../lib/openclaw-executor.js')
const { configureCodeModeRuntime } = require('../../index.js')
const native = require('../../lib/native.js')
await loadOpenClawRuntime()
// One sandbox process with four workers: the fairness and crash findings below depend on it.
configureCodeModeRuntime({ sandboxProcesses: 1, workerThreads: 4 })

/** An exec input with `config` over the defaults, whose final value the gateway keeps. */
const execInput = (source, config = {}) => input(source, { retainFinalValue: true, config: { ...base, ...config } })
const checkpoint = { onBoundary: async () => ({ kind: 'checkpoint', onConsumed() {} }) }
const answer = {
  onBoundary: async (boundary) => ({
    kind: 'continue',
    timeoutMs: 4000,
    settledRequests: boundary.pendingRequests.map((r) => ({ id: r.id, ok: true, json: '1' })),
    pendingRequests: [],
    onConsumed() {},
  }),
}
const executor = createCodeModeExecutor()
const run = (input, inlineHost = answer, timeoutMs = input.config.timeoutMs) =>
  executor.execute(input, { timeoutMs: timeoutMs + 2000, signal: new AbortController().signal, inlineHost })
const gc = () => globalThis.gc?.()
const findings = {}

// A parked continuation retains the arguments of the requests it waits on.
{
  const big = "await add_one({ x: 1, pad: 'x'.repeat(2_000_000) })"
  const parked = await run(execInput(big), checkpoint)
  const over = await run(execInput(big, { maxSnapshotBytes: 1 << 20 }), checkpoint)
  findings.retained = { status: parked.status, retainedBytes: parked.continuation?.retainedBytes, over: { status: over.status, code: over.code } }
  await parked.continuation?.dispose()
  // Arguments of many small values count as the gateway holds them once parsed (about 48 bytes
  // a value), not as their 120 KB of text.
  const many = await run(execInput('await add_one({ x: 1, pad: Array(60_000).fill(0) })'), checkpoint)
  findings.retainedParsed = { status: many.status, retainedBytes: many.continuation?.retainedBytes }
  await many.continuation?.dispose()
}

// A huge error message is cut where it is made: what crosses is bounded, and so is the memory.
{
  gc()
  const before = process.memoryUsage().rss
  const failed = await run(execInput("throw new Error('\\x01'.repeat(20e6))"))
  gc()
  findings.hugeError = { status: failed.status, code: failed.code, length: failed.error?.length, rssGrowth: process.memoryUsage().rss - before }
}

// An output past maxOutputBytes is cut in the sandbox, where it is made: no leg's answer carries
// the megabytes, and the gateway gets what its own capture keeps of the whole output, to the byte.
{
  const sdk = await loadOpenClawRuntime()
  const answers = []
  const P = native.NativeExecutorCell.prototype
  const originals = { start: P.start, next: P.next }
  for (const name of /** @type {const} */ (['start', 'next'])) {
    P[name] = function (...args) {
      const answer = originals[name].apply(this, args)
      answer.then((a) => answers.push(a.outcome.length), () => {})
      return answer
    }
  }
  gc()
  const before = process.memoryUsage().heapUsed
  const huge = await run(execInput("text('x'.repeat(3e7)); json({ n: 1 }); return 1"))
  const atBoundary = await run(execInput("text('x'.repeat(3e7)); await add_one({ x: 1 }); return 2"))
  findings.hugeOutput = {
    status: [huge.status, atBoundary.status],
    count: huge.output?.count,
    source: { kind: huge.output?.source.kind, bytes: huge.output?.source.json.length, originalBytes: huge.output?.source.originalBytes },
    longestAnswer: Math.max(...answers),
    heapGrowth: process.memoryUsage().heapUsed - before,
  }
  Object.assign(P, originals)
  // The same cell with every item whole, then cut at bytes that fall inside a character, an
  // escape and an item: each cut equals upstream's capture of the whole output.
  const cell = String.raw`text('x'.repeat(1000)); json({ n: [0.1 + 0.2, 1e21, -0, 5e-7, 2 ** 70], s: 'é😀\u2028\u0001"\\', u: '\ud800' }); text('😀'.repeat(600)); console.log('tail', { a: [1, 2] }); return 1`
  const whole = await run(execInput(cell, { maxOutputBytes: 1 << 20 }))
  const items = JSON.parse(whole.output.source.json)
  findings.outputCuts = []
  // Its JSON is 3,624 bytes: the first item ends at 1,027; `é` is at 1,118, `😀` at 1,120, U+2028
  // at 1,124, the escapes `\u0001` and `\ud800` at 1,127 and 1,144, the run of `😀` from 1,177.
  for (const cap of [1027, 1028, 1119, 1121, 1122, 1123, 1125, 1126, 1129, 1147, 1180, 1181, 1182, 3603, 3623]) {
    const got = (await run(execInput(cell, { maxOutputBytes: cap }))).output
    findings.outputCuts.push({ cap, kind: got?.source.kind, same: JSON.stringify(got) === JSON.stringify(sdk.captureCodeModeOutput(items, cap)) })
  }
  findings.outputWhole = { kind: whole.output.source.kind, count: whole.output.count }
}

// Lone surrogates survive as U+FFFD, in errors and thrown strings.
{
  const error = await run(execInput("throw new Error('bad \\ud800 surrogate')"))
  const thrown = await run(execInput("throw 'thrown \\udc00 text'"))
  findings.surrogates = { error: error.error, thrown: thrown.error }
}

// Each executor cell is a tenant of its own (the contract names no session): a small cell (1 s)
// does not wait for four spinning cells (3 s) that hold all four workers. A stand-in worker takes
// it once the spinners run long, so it settles first.
{
  const order = []
  const spinning = Array.from({ length: 4 }, () => run(execInput('for (;;) {}', { timeoutMs: 3000 })).then((r) => (order.push('spinner'), r)))
  await new Promise((r) => setTimeout(r, 100))
  const small = await run(execInput('return 1 + 1', { timeoutMs: 1000 })).then((r) => (order.push('small'), r))
  const spun = await Promise.all(spinning)
  findings.fairness = { small: { status: small.status, code: small.code, value: small.value }, spun: spun.map((r) => r.code), order }
}

// A native loop that never polls the deadline, in an executor cell: the leg fails timeout, the
// stuck thread is given up on, and the next cell of another tenant runs.
{
  const givenUp = native.__testAbandonedWorkers()
  const stuck = await run(execInput('const a = 3n ** 320000n; for (;;) a * a', { timeoutMs: 500 }))
  await new Promise((r) => setTimeout(r, 300))
  const after = await run(execInput('return 7'))
  findings.nonPolling = { status: stuck.status, code: stuck.code, failurePhase: stuck.failurePhase, givenUp: native.__testAbandonedWorkers() - givenUp, after: after.status }
}

// A value too long to send (its JSON text over 64 MiB, the sandbox's cap; it travels beside the
// outcome, not escaped inside it): the cell fails output_limit_exceeded, and the process that
// ran it, with another cell parked there, lives on.
{
  const parked = await run(execInput('await yield_control(); return 10'), checkpoint)
  const huge = await run(execInput(`await 0; globalThis.__openclawResult = 'x'.repeat(${(64 << 20) + 10}); return 1`, { memoryLimitBytes: 512 << 20 }))
  const settledRequests = (parked.pendingRequests ?? []).map((r) => ({ id: r.id, ok: true, json: 'null' }))
  const resumed = parked.continuation
    ? await parked.continuation.resume(
        { kind: 'resume', retainFinalValue: true, config: base, settledRequests, pendingRequests: [] },
        { timeoutMs: 7000, signal: new AbortController().signal, inlineHost: answer },
      )
    : undefined
  findings.longValue = {
    huge: { status: huge.status, code: huge.code, error: String(huge.error).slice(0, 200) },
    resumed: { status: resumed?.status, code: resumed?.code, value: resumed?.value },
  }
}

// A sandbox process that crashes: the executor leg it was running fails runtime_unavailable
// (phase host), a continuation parked there is lost and says so, and the next cell runs.
{
  const parked = await run(execInput('await yield_control(); return 8'), checkpoint)
  const spinning = run(execInput('for (;;) {}', { timeoutMs: 5000 }))
  await new Promise((r) => setTimeout(r, 300))
  const probe = await native.__testProbe('segfault', 0)
  const leg = await spinning
  // The continuation lost with its process holds no parked slot: with one slot in all, another
  // cell parks though the gateway has not disposed the lost one yet.
  configureCodeModeRuntime({ maxSuspendedCells: 1 })
  const another = await run(execInput('await yield_control(); return 10'), checkpoint)
  await another.continuation?.dispose()
  configureCodeModeRuntime({ maxSuspendedCells: 64 })
  const resumed = parked.continuation
    ? await parked.continuation.resume(
        { kind: 'resume', retainFinalValue: true, config: base, settledRequests: [], pendingRequests: [] },
        { timeoutMs: 7000, signal: new AbortController().signal, inlineHost: answer },
      )
    : undefined
  const next = await run(execInput('return 9'))
  findings.crash = {
    probe,
    leg: { status: leg.status, code: leg.code, failurePhase: leg.failurePhase },
    parked: parked.status,
    another: { status: another.status, code: another.code, error: another.error },
    resumed: resumed && { status: resumed.status, code: resumed.code, failurePhase: resumed.failurePhase },
    next: next.status,
  }
}

// maxActiveCells and maxSuspendedCells hold for executor cells too.
{
  configureCodeModeRuntime({ maxActiveCells: 1, maxSuspendedCells: 1 })
  const slow = run(execInput('const t = Date.now(); while (Date.now() - t < 600) {} return 1'))
  const quick = run(execInput('return 2'))
  await new Promise((r) => setTimeout(r, 200))
  const admission = native.__testAdmission()
  const both = await Promise.all([slow, quick])
  const first = await run(execInput('await yield_control(); return 3'), checkpoint)
  const second = await run(execInput('await yield_control(); return 4'), checkpoint)
  await first.continuation?.dispose()
  const third = await run(execInput('await yield_control(); return 5'), checkpoint)
  await third.continuation?.dispose()
  // While a slot is taken, a cell whose exec is aborted, and one whose source the gateway refuses
  // (module access, after a long loop), wait for it; neither may run once the slot frees.
  const holder = run(execInput('const t = Date.now(); while (Date.now() - t < 600) {} return 1'))
  const abort = new AbortController()
  const aborted = executor.execute(execInput('const t = Date.now(); while (Date.now() - t < 20000) {} return 1', { timeoutMs: 30_000 }), {
    timeoutMs: 32_000,
    signal: abort.signal,
    inlineHost: answer,
  })
  const refused = run(execInput("const t = Date.now(); while (Date.now() - t < 20000) {}\nawait import('node:fs')", { timeoutMs: 30_000 }))
  await new Promise((r) => setTimeout(r, 100))
  abort.abort()
  const queued = await Promise.all([aborted, refused])
  await holder
  await new Promise((r) => setTimeout(r, 300))
  const afterQueued = native.__testAdmission()
  configureCodeModeRuntime({ maxActiveCells: 1024, maxSuspendedCells: 64 })
  // With a slot free, a refused source that started before the gateway's checks ended is stopped
  // at once: its loop does not hold the slot (polled for at most 5 s of its 20).
  const refusedRunning = await run(execInput("const t = Date.now(); while (Date.now() - t < 20000) {}\nawait import('node:fs')", { timeoutMs: 30_000 }))
  let freed = false
  for (const until = Date.now() + 5000; !freed && Date.now() < until; await new Promise((r) => setTimeout(r, 20))) {
    freed = native.__testAdmission()[0] === 0
  }
  findings.caps = {
    admission,
    both: both.map((r) => r.status),
    first: first.status,
    second: { status: second.status, code: second.code, error: second.error },
    third: third.status,
    queued: queued.map((r) => ({ status: r.status, code: r.code, error: r.error })),
    afterQueued,
    refusedRunning: { status: refusedRunning.status, code: refusedRunning.code, error: refusedRunning.error },
    freed,
  }
}

// A process that dies with legs waiting for a slot (maxActiveCells) for it fails every one of them:
// each failure passes the slot on to the next, which fails in turn (on the thread that read the
// process's end, while no lock of it is held).
{
  configureCodeModeRuntime({ maxActiveCells: 1 })
  const holder = run(execInput('for (;;) {}', { timeoutMs: 5000 }))
  await new Promise((r) => setTimeout(r, 300))
  const queued = [run(execInput('return 1')), run(execInput('return 2'))]
  await new Promise((r) => setTimeout(r, 100))
  const waiting = native.__testAdmission()
  const probe = await native.__testProbe('segfault', 0)
  const settled = await Promise.race([Promise.all([holder, ...queued]), new Promise((r) => setTimeout(() => r('unsettled'), 10_000))])
  configureCodeModeRuntime({ maxActiveCells: 1024 })
  const after = await run(execInput('return 3'))
  findings.queuedOnDeath = {
    waiting,
    probe,
    settled: Array.isArray(settled) ? settled.map((r) => ({ status: r.status, code: r.code, failurePhase: r.failurePhase })) : settled,
    after: after.status,
  }
}

// A refused source that started in its sandbox before the gateway's checks reaches nothing: its tool
// request never becomes a boundary the host sees.
{
  let boundaries = 0
  const spy = {
    onBoundary: async (/** @type {any} */ boundary) => {
      boundaries++
      return answer.onBoundary(boundary)
    },
  }
  const refused = await run(execInput("await add_one({ x: 1 })\nawait import('node:fs')"), spy)
  await new Promise((r) => setTimeout(r, 300))
  findings.refusedCall = { status: refused.status, code: refused.code, error: refused.error, boundaries }
}

// A cell disposed while its leg runs stops that leg at once (an abort sent before the leg's start
// reached the sandbox would have found nothing to stop; the dispose does not).
{
  const sdk = await loadOpenClawRuntime()
  const key = await native.compileExecutorController(sdk.CODE_MODE_CONTROLLER_SOURCE)
  const program = sdk.buildUserSource('const t = Date.now(); while (Date.now() - t < 20000) {}')
  const data = JSON.stringify({ __openclawCatalog: [], __openclawNamespaces: [], __openclawApiFiles: [], __openclawSwarmEnabled: false, __openclawMaxPendingToolCalls: 8 })
  const cell = new native.NativeExecutorCell({ memoryLimitBytes: 64 << 20, maxPendingToolCalls: 8 })
  const leg = cell.start(key, data, program.source, JSON.stringify(program.location), 30_000)
  for (const until = Date.now() + 5000; cell.legRunningMs() < 0 && Date.now() < until; ) await new Promise((r) => setTimeout(r, 10))
  const running = cell.legRunningMs() >= 0
  const t = Date.now()
  cell.dispose()
  const outcome = JSON.parse((await leg).outcome)
  findings.disposedRunning = { running, status: outcome.status, code: outcome.code, ms: Date.now() - t }

  // An abort cannot reach a native loop that never polls: the watchdog gives it up soon after the
  // abort instead, not past its 30 s deadline.
  const native_ = sdk.buildUserSource('const a = 3n ** 320000n; for (;;) a * a')
  const spinning = new native.NativeExecutorCell({ memoryLimitBytes: 64 << 20, maxPendingToolCalls: 8 })
  const spun = spinning.start(key, data, native_.source, JSON.stringify(native_.location), 30_000)
  for (const until = Date.now() + 5000; spinning.legRunningMs() < 0 && Date.now() < until; ) await new Promise((r) => setTimeout(r, 10))
  // Inside the loop by now (the power takes a few milliseconds).
  await new Promise((r) => setTimeout(r, 300))
  const aborted = Date.now()
  spinning.abort()
  const ended = await Promise.race([spun.then((answer) => JSON.parse(answer.outcome)), new Promise((r) => setTimeout(() => r('still running'), 12_000))])
  spinning.dispose()
  findings.abortedNative = { status: ended.status ?? ended, code: ended.code, ms: Date.now() - aborted }
}

// A final value that shares one array many times over is small in the VM and 25 MB as JSON text
// (parsing and capturing it takes seconds): it is captured off the main thread, whose event loop
// keeps turning, and the capture is the gateway's own, as if made in place.
{
  const levels = 22
  let longest = 0
  let last = performance.now()
  const ticking = setInterval(() => {
    const now = performance.now()
    longest = Math.max(longest, now - last)
    last = now
  }, 5)
  const result = await run(
    execInput(`let o = [1]; for (let i = 0; i < ${levels}; i++) o = [o, o]; return o`, { timeoutMs: 30_000, memoryLimitBytes: 256 << 20 }),
  )
  clearInterval(ticking)
  // The result may come within the stall's own task: the time since the last tick counts too.
  longest = Math.max(longest, performance.now() - last)
  let o = [1]
  for (let i = 0; i < levels; i++) o = [o, o]
  const sdk = await loadOpenClawRuntime()
  const inPlace = sdk.captureCodeModeValue(JSON.parse(JSON.stringify(o)), base.maxOutputBytes, Math.min(256 << 20, base.maxSnapshotBytes))
  findings.sharedValue = {
    status: result.status,
    code: result.code,
    error: result.error,
    same: JSON.stringify(result.value) === JSON.stringify(inPlace),
    kind: result.value?.kind,
    longestStallMs: Math.round(longest),
  }
}

// The off-thread captures are shared by every cell (lib/value-capture.js): what one cell's
// capture may cost the others is bounded.
const capture = require('../../lib/value-capture.js')
const sdk = await loadOpenClawRuntime()
/** How the gateway's capture made in place would keep a final value (retainFinalValue). */
const inPlace = (value, memoryLimitBytes = base.memoryLimitBytes) =>
  JSON.stringify(sdk.captureCodeModeValue(value, base.maxOutputBytes, Math.min(memoryLimitBytes, base.maxSnapshotBytes)))
/** A final value of `n` objects, about 20 characters of JSON each. */
const rows = (n) => `return Array.from({ length: ${n} }, (_, i) => ({ i, s: 'ab' }))`
const rowsValue = (n) => Array.from({ length: n }, (_, i) => ({ i, s: 'ab' }))

// A worker that captured a long text (over 4 Mi characters) is ended once it answers, not kept
// idle with the heap its parse left; after a shorter one it is kept for the next capture.
{
  const before = capture.captureState()
  const long = await run(execInput("return 'k'.repeat(5_000_000)"))
  const afterLong = capture.captureState()
  const short = await run(execInput("return 'k'.repeat(2_000_000)"))
  const afterShort = capture.captureState()
  findings.workerKept = {
    statuses: [long.status, short.status],
    endedAfterLong: afterLong.terminated - before.terminated,
    endedAfterShort: afterShort.terminated - afterLong.terminated,
    idleAfterShort: afterShort.workers - afterShort.running,
  }
}

// Huge values of other cells (18M characters of `{},` each: about 1.5 s to parse and capture, with
// a 30 s budget) do not hold a short cell's >1M-character value past its deadline: captures run
// two at a time, earliest deadline first. The victim starts once the first hostile capture is
// done, when the others are waiting or running; one shared worker, first come first served,
// captured it after all of them.
{
  const order = []
  const hostile = Array.from({ length: 6 }, () =>
    run(execInput("await 0; globalThis.__openclawResult = '[' + '{},'.repeat(6e6) + '0]'; return 1", { timeoutMs: 30_000 })).then(
      (r) => (order.push('hostile'), r),
    ),
  )
  await Promise.race(hostile)
  const started = performance.now()
  // A watchdog of 3 + 2 s.
  const victim = await run(execInput("return 'v'.repeat(1_200_000)", { timeoutMs: 3000 }))
  const ms = performance.now() - started
  order.push('victim')
  const done = await Promise.all(hostile)
  findings.headOfLine = {
    victim: { status: victim.status, code: victim.code, same: JSON.stringify(victim.value) === inPlace('v'.repeat(1_200_000)) },
    victimMs: Math.round(ms),
    hostileAfterVictim: order.length - 1 - order.indexOf('victim'),
    hostile: done.map((r) => r.status),
  }
}

// A capture past its deadline (48M characters of `{},`, about 4 s to parse and capture, with a
// watchdog of 4.5 s that the leg uses part of) fails the cell `timeout`, with its output, at the
// deadline, and the worker running it is terminated; the next large capture gets a fresh worker
// and is the gateway's own. The leg's own budget is most of the watchdog, so that a loaded machine
// still ends it in the capture, not in the leg; the next cell's is generous, as it may wait for
// the ended worker's thread (V8 ends it only once its parse returns).
{
  const before = capture.captureState?.()
  const started = performance.now()
  const late = await executor.execute(
    execInput("console.log('made'); await 0; globalThis.__openclawResult = '[' + '{},'.repeat(16e6) + '0]'; return 1", {
      timeoutMs: 4000,
      memoryLimitBytes: 256 << 20,
    }),
    { timeoutMs: 4500, signal: new AbortController().signal, inlineHost: answer },
  )
  const ms = performance.now() - started
  const after = capture.captureState?.()
  const next = await run(execInput(rows(100_000), { timeoutMs: 20_000 }))
  findings.deadline = {
    late: { status: late.status, code: late.code, failurePhase: late.failurePhase, error: late.error, output: late.output?.count },
    ms: Math.round(ms),
    expired: after && after.expired - before.expired,
    terminated: after && after.terminated - before.terminated,
    next: { status: next.status, code: next.code, error: next.error, kind: next.value?.kind, same: JSON.stringify(next.value) === inPlace(rowsValue(100_000)) },
  }
}

// The texts waiting or running are bounded (256 Mi characters; 3 Mi here): a capture that would
// pass the bound fails at once, runtime_unavailable, naming it; one within it completes.
{
  const limits = capture.captureLimits
  const heldChars = limits?.heldChars
  if (limits) limits.heldChars = 3 << 20
  const started = performance.now()
  const over = await run(execInput("console.log('big'); return 'o'.repeat(4_000_000)"))
  const ms = performance.now() - started
  const within = await run(execInput("return 'w'.repeat(2_000_000)"))
  if (limits) limits.heldChars = heldChars
  findings.bound = {
    over: { status: over.status, code: over.code, failurePhase: over.failurePhase, error: over.error, output: over.output?.count },
    ms: Math.round(ms),
    within: { status: within.status, same: JSON.stringify(within.value) === inPlace('w'.repeat(2_000_000)) },
  }
}

// A capture worker that dies (here: ended behind the module's back, as an exit) fails the capture
// it ran, runtime_unavailable (phase host), and nothing else; the next capture gets a fresh
// worker. (A worker out of memory can abort the whole process, nodejs/node#47224: a text is only
// sent to a worker when its parse fits the worker's heap, and a longer one fails at once, as
// output_limit_exceeded.)
{
  const { Worker } = await import('node:worker_threads')
  const post = Worker.prototype.postMessage
  let kill = 1
  Worker.prototype.postMessage = function (...args) {
    post.apply(this, args)
    if (kill-- > 0) setImmediate(() => this.terminate())
  }
  const died = await run(execInput("console.log('dying'); return 'd'.repeat(3_000_000)"))
  Worker.prototype.postMessage = post
  const next = await run(execInput(rows(100_000)))
  const limits = capture.captureLimits
  const maxChars = limits?.maxChars
  if (limits) limits.maxChars = 2 << 20
  const long = await run(execInput("return 'l'.repeat(3_000_000)"))
  if (limits) limits.maxChars = maxChars
  findings.workerDeath = {
    died: { status: died.status, code: died.code, failurePhase: died.failurePhase, error: died.error, output: died.output?.count },
    next: { status: next.status, same: JSON.stringify(next.value) === inPlace(rowsValue(100_000)) },
    long: { status: long.status, code: long.code, failurePhase: long.failurePhase, error: long.error },
    state: capture.captureState?.(),
  }
}

// A refused source that started early and holds a native loop that never polls (so never sees its
// abort) is given up on shortly after the refusal, not at the end of its 30 s budget: its slot is
// free again within seconds (at once if it never got to run).
{
  const givenUp = native.__testAbandonedWorkers()
  const t = Date.now()
  const refused = await run(execInput("const a = 3n ** 320000n; for (;;) a * a\nawait import('node:fs')", { timeoutMs: 30_000 }))
  let freed = false
  for (const until = Date.now() + 12_000; !freed && Date.now() < until; await new Promise((r) => setTimeout(r, 50))) {
    freed = native.__testAdmission()[0] === 0
  }
  findings.refusedNative = { status: refused.status, code: refused.code, freed, ms: Date.now() - t, givenUp: native.__testAbandonedWorkers() - givenUp }
}

process.stdout.write(JSON.stringify(findings))
process.exit(0)
