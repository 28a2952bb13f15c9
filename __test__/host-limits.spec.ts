// What a cell makes the gateway hold, and how tenants share the runtime (SECURITY.md, "What a
// cell can make the gateway hold"): a parked cell's results count against its snapshot cap as
// they arrive, executor continuations report everything they keep, errors are cut where they are
// made, lone surrogates survive, queue time never counts, the process-wide caps hold for every
// host, Tool Search's `tool_call` passes its arguments as data, and a panic on a worker settles
// its leg.
import { existsSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { ToolSearchRun, type CodeModeEvent, type NestedToolCall } from '../index.js'
import { __testPanic, testingBuild } from './support/native-testing.js'
import { expectStatus, makeRun, sleep } from './helpers.js'
import { node24, runNode24 } from './node24.js'

const root = resolve(__dirname, '..')
const linuxX64 = process.platform === 'linux' && process.arch === 'x64'

describe('a parked code-mode cell', () => {
  it('counts the results that reach it against maxSnapshotBytes, starts none of its queued calls, and is dropped once over', async () => {
    const calls: NestedToolCall[] = []
    const { run, events } = makeRun({
      config: { enabled: true, timeoutMs: 100, maxSnapshotBytes: 1 << 20, maxPendingToolCalls: 2 },
      executor: async (call) => {
        calls.push(call)
        await sleep(200)
        return 'x'.repeat(600_000)
      },
    })
    const waiting = expectStatus(
      await run.exec({ code: 'const all = await Promise.all(Array.from({ length: 8 }, () => tools.slow({}))); all.length' }),
      'waiting',
    )
    expect(waiting.pendingToolCalls?.length).toBe(8)
    await sleep(600)
    // Two calls in flight when it parked; the six queued behind them never started.
    expect(calls.length).toBe(2)
    // Dropped as soon as it was over, before anyone waited on it.
    const dropped = events.find((e) => e.type === 'cell_dropped') as (CodeModeEvent & { code?: string }) | undefined
    expect(dropped?.code).toBe('snapshot_limit_exceeded')
    const failed = expectStatus(await run.wait({ runId: waiting.runId }), 'failed')
    expect(failed.code).toBe('snapshot_limit_exceeded')
    expect(failed.error).toMatch(/maxSnapshotBytes/)
  })

  // A slow tool (or an approval) holds each call's input in the gateway while the cell is parked:
  // 16 inputs over the 10 MiB snapshot cap in all, so the cell is not kept; a tenth of them parks.
  it.each([
    // 1 MiB of text each.
    { what: 'text', value: "'x'.repeat(1 << 20)", small: "'x'.repeat(1 << 16)" },
    // 20,000 zeros each: 40 KB of text (640 KB in all), but about 960 KB once parsed (48 bytes a
    // value), 15 MB in all: counted as the gateway holds them, not as their text.
    { what: 'many small values', value: 'Array(20_000).fill(0)', small: 'Array(2_000).fill(0)' },
  ])('answers for the inputs of the calls still running ($what): too many to keep fails it and aborts them', async ({ value, small }) => {
    const calls: NestedToolCall[] = []
    const { run } = makeRun({
      config: { enabled: true, timeoutMs: 300 },
      executor: (call) => {
        calls.push(call)
        return new Promise(() => {})
      },
    })
    const code = (input: string) => `const a = ${input}\nawait Promise.all(Array.from({ length: 16 }, () => tools.message({ a })))`
    const big = expectStatus(await run.exec({ code: code(value) }), 'failed')
    expect(big.code).toBe('snapshot_limit_exceeded')
    expect(big.error).toMatch(/inputs of its pending tool calls/)
    expect(calls).toHaveLength(16)
    await sleep(20)
    expect(calls.every((call) => call.signal.aborted)).toBe(true)
    expect(run.telemetry.suspendedCellsInProcess).toBe(0)
    expectStatus(await run.exec({ code: code(small) }), 'waiting')
    run.abort()
  })

  // The same calls from a cell that completes at once (fire and forget) run on, their results
  // dropped: per run, at most maxPendingToolCalls of them and maxSnapshotBytes of their inputs;
  // past either, the oldest completed cell's are aborted.
  it("bounds a run's calls still running after their cells completed, oldest aborted first", async () => {
    const calls: NestedToolCall[] = []
    const { run } = makeRun({
      config: { enabled: true, maxPendingToolCalls: 4 },
      executor: (call) => {
        calls.push(call)
        // `quick` settles (freeing its place), `message` never does.
        return call.name === 'read_file' ? sleep(50).then(() => 'read') : new Promise(() => {})
      },
    })
    const fire = (tool: string, input = '{}') => `for (let i = 0; i < 4; i++) tools.${tool}(${input})\n'fired'`
    const aborted = () => calls.map((call) => call.signal.aborted)
    expect(expectStatus(await run.exec({ code: fire('read_file') }), 'completed').value).toBe('fired')
    await sleep(200)
    // Settled, so they take no place: the next cell's four are kept.
    expect(expectStatus(await run.exec({ code: fire('message') }), 'completed').value).toBe('fired')
    await sleep(20)
    expect(aborted()).toEqual(Array(8).fill(false))
    // Four more: over maxPendingToolCalls, the oldest cell's four are aborted.
    expectStatus(await run.exec({ code: fire('message') }), 'completed')
    await sleep(20)
    expect(aborted()).toEqual([...Array(4).fill(false), ...Array(4).fill(true), ...Array(4).fill(false)])
    // Inputs over maxSnapshotBytes (10 MiB): 4 × 3 MiB are aborted at once, and the four before them.
    expectStatus(await run.exec({ code: fire('message', "{ a: 'x'.repeat(3 << 20) }") }), 'completed')
    await sleep(20)
    expect(aborted().slice(8)).toEqual(Array(8).fill(true))
    run.abort()
  })

  it('counts only the calls still running: one settled while its cell ran last takes no place', async () => {
    const calls: NestedToolCall[] = []
    const { run } = makeRun({
      config: { enabled: true, maxPendingToolCalls: 2 },
      executor: (call) => {
        calls.push(call)
        return call.name === 'read_file' ? sleep(5).then(() => 'ok') : new Promise(() => {})
      },
    })
    expectStatus(await run.exec({ code: "tools.message({}); 'a'" }), 'completed')
    // A call whose result arrives while its cell still computes: settled, though the cell's
    // sandbox listed it as running when the cell completed.
    for (let i = 0; i < 2; i++) {
      expectStatus(await run.exec({ code: "tools.read_file({}); const t = Date.now(); while (Date.now() - t < 300) {}\n'b'" }), 'completed')
      await sleep(50)
    }
    expect(calls.map((call) => [call.name, call.signal.aborted])).toEqual([['message', false], ['read_file', false], ['read_file', false]])
    run.abort()
  })

  it("a cell another run adopted by wait counts its calls in the run that started them", async () => {
    const calls: NestedToolCall[] = []
    const make = () =>
      makeRun({
        config: { enabled: true, maxPendingToolCalls: 2, timeoutMs: 200 },
        executor: (call) => {
          calls.push(call)
          if (call.name === 'read_file') return sleep(300).then(() => 'ok')
          if ((call.input as { k?: string }).k === 'c') return sleep(1000).then(() => 'ok')
          return new Promise(() => {})
        },
      }).run
    const [a, b] = [make(), make()]
    expectStatus(await b.exec({ code: "tools.message({ k: 'd' }); 'd'" }), 'completed')
    const parked = expectStatus(await a.exec({ code: "tools.message({ k: 'c' }); await tools.read_file({}); 'c'" }), 'waiting')
    let result = await b.wait({ runId: parked.runId })
    while (result.status === 'waiting') result = await b.wait({ runId: result.runId })
    expectStatus(result, 'completed')
    await sleep(1200)
    expectStatus(await b.exec({ code: "tools.message({ k: 'e' }); 'e'" }), 'completed')
    await sleep(50)
    // b has two calls running (d, e), a none: nothing is over a budget.
    expect(calls.filter((call) => call.signal.aborted)).toEqual([])
    a.abort()
    b.abort()
  })

  it('keeps a queue waiting while parked and starts it on wait', async () => {
    const calls: NestedToolCall[] = []
    const { run, events } = makeRun({
      config: { enabled: true, timeoutMs: 100, maxPendingToolCalls: 1 },
      executor: async (call) => {
        calls.push(call)
        await sleep(150)
        return (call.input as { i: number }).i
      },
    })
    const waiting = expectStatus(
      await run.exec({ code: 'const r = await Promise.all([1, 2, 3].map((i) => tools.slow({ i }))); r' }),
      'waiting',
    )
    await sleep(400)
    expect(calls.length).toBe(1)
    let result = await run.wait({ runId: waiting.runId })
    while (result.status === 'waiting') result = await run.wait({ runId: result.runId })
    expect(expectStatus(result, 'completed').value).toEqual([1, 2, 3])
    expect(events.some((e) => e.type === 'cell_dropped')).toBe(false)
  })
})

describe("Tool Search's tool_call", () => {
  it('passes the arguments exactly as the model made them: __proto__ keys included, past 1 MiB', async () => {
    const inputs: unknown[] = []
    const run = ToolSearchRun.create({
      config: { enabled: true, mode: 'tools' },
      runId: 'ts-proto',
      tools: [{ name: 'shell', description: 'Run a command' }],
      executor: (call) => {
        inputs.push(call.input)
        return 'ok'
      },
    })
    const args = JSON.parse('{"__proto__": {"command": "rm -rf /"}, "command": "ls", "nested": {"__proto__": {"x": 1}}}')
    const result = await run.call('tool_call', { id: 'openclaw:core:shell', args })
    expect(result.status).toBe('completed')
    expect(JSON.stringify(inputs[0])).toBe(JSON.stringify(args))
    expect(Object.keys(inputs[0] as object)).toEqual(['__proto__', 'command', 'nested'])
    const big = await run.call('tool_call', { id: 'openclaw:core:shell', args: { pad: 'x'.repeat(2 << 20) } })
    expect(big.status).toBe('completed')
    expect((inputs[1] as { pad: string }).pad.length).toBe(2 << 20)
  })
})

describe.runIf(testingBuild)('a panic on a worker', () => {
  it('outside a slice still settles its leg: runtime failure, phase host, and the next cell runs', async () => {
    const { run } = makeRun({ runId: 'job-panic' })
    __testPanic('job', 'job-panic')
    const failed = expectStatus(await run.exec({ code: '1' }), 'failed')
    expect(failed).toMatchObject({ code: 'runtime_unavailable', failurePhase: 'host' })
    expect(failed.error).toMatch(/panic injected in a worker job/)
    expect(expectStatus(await run.exec({ code: '2' }), 'completed').value).toBe(2)
  })
})

// Its findings need the testing build's exports (admission, probes, given-up workers).
describe.runIf(linuxX64 && testingBuild)('OpenClaw executor cells', () => {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  let f: any
  beforeAll(async () => {
    expect(existsSync(node24), 'tools/node24 provides Node 24').toBe(true)
    f = JSON.parse(await runNode24(['--expose-gc', join(root, '__test__', 'openclaw', 'host-limits.mjs')]))
  }, 120_000)

  it("a parked continuation's retainedBytes counts the arguments of the requests it waits on", () => {
    expect(f.retained.status).toBe('waiting')
    expect(f.retained.retainedBytes).toBeGreaterThan(2_000_000)
    expect(f.retained.over).toEqual({ status: 'failed', code: 'snapshot_limit_exceeded' })
    // 60,000 zeros: 120 KB of text, about 2.9 MB once the gateway parses them.
    expect(f.retainedParsed.status).toBe('waiting')
    expect(f.retainedParsed.retainedBytes).toBeGreaterThan(60_000 * 48)
  })

  it('a 20-million-character error is cut where it is made: the result and the memory stay small', () => {
    expect(f.hugeError).toMatchObject({ status: 'failed', code: 'internal_error' })
    expect(f.hugeError.length).toBeLessThan(70_000)
    expect(f.hugeError.rssGrowth).toBeLessThan(150 << 20)
  })

  it('a 30-million-character output is cut in the sandbox: no leg answer carries it, and the cut is the gateway\'s own', () => {
    expect(f.hugeOutput.status).toEqual(['completed', 'completed'])
    expect(f.hugeOutput.count).toBe(2)
    expect(f.hugeOutput.source).toEqual({ kind: 'prefix', bytes: 65_536, originalBytes: 30_000_059 })
    // The answers that crossed, the boundary's included, stayed near the cap, not 30 MB.
    expect(f.hugeOutput.longestAnswer).toBeLessThan(80_000)
    expect(f.hugeOutput.heapGrowth).toBeLessThan(20 << 20)
    // Cut at bytes inside a character, an escape and an item, each is upstream's capture of the
    // whole output.
    expect(f.outputWhole).toEqual({ kind: 'complete', count: 4 })
    expect(f.outputCuts.length).toBe(15)
    for (const cut of f.outputCuts) expect(cut, String(cut.cap)).toMatchObject({ kind: 'prefix', same: true })
  })

  it("a capture worker that parsed a long value is ended at once, not kept idle with that parse's heap", () => {
    expect(f.workerKept).toEqual({ statuses: ['completed', 'completed'], endedAfterLong: 1, endedAfterShort: 0, idleAfterShort: expect.any(Number) })
    expect(f.workerKept.idleAfterShort).toBeGreaterThanOrEqual(1)
  })

  it('lone surrogates in errors and thrown strings become U+FFFD, never an empty text', () => {
    expect(f.surrogates.error).toContain('bad \ufffd surrogate')
    expect(f.surrogates.thrown).toContain('thrown \ufffd text')
  })

  it("a 25 MB final value is parsed and captured off the event loop, as the gateway's own capture would make it", () => {
    expect(f.sharedValue).toMatchObject({ status: 'completed', same: true, kind: 'prefix' })
    // In place, parsing and capturing it held the event loop 2 to 3 s on the machine this was
    // written on; what remains on it (copying text) took 60 to 120 ms.
    expect(f.sharedValue.longestStallMs).toBeLessThan(1000)
  })

  it("a short cell's >1M-character value is not held past its deadline by other cells' huge values", () => {
    // Captured while hostile captures wait or run: earliest deadline first, two at a time.
    expect(f.headOfLine.victim.status === 'completed' || f.headOfLine.victim.code === 'timeout').toBe(true)
    if (f.headOfLine.victim.status === 'completed') expect(f.headOfLine.victim.same).toBe(true)
    // Its watchdog is 5 s; one shared worker, first come first served, captured it after every
    // hostile value (6 to 10 s here). Measured: 0.3 to 2 s.
    expect(f.headOfLine.victimMs).toBeLessThan(5000 + 2000)
    // Captured ahead of a hostile value (a loaded machine may end it at its deadline instead).
    if (f.headOfLine.victim.status === 'completed') expect(f.headOfLine.hostileAfterVictim).toBeGreaterThan(0)
    expect(f.headOfLine.hostile).toEqual(Array(6).fill('completed'))
  })

  it("a capture past its deadline fails timeout with the cell's output, its worker is ended, and the next capture is the gateway's own", () => {
    expect(f.deadline.late).toMatchObject({ status: 'failed', code: 'timeout', failurePhase: 'guest', output: 1 })
    expect(f.deadline.late.error).toMatch(/final value .* not captured before the cell's deadline/)
    // At its watchdog (4.5 s), not once the capture is done (about 6.5 s); measured 4.51 s.
    expect(f.deadline.ms).toBeLessThan(4500 + 1500)
    expect(f.deadline.expired).toBe(1)
    expect(f.deadline.terminated).toBeGreaterThanOrEqual(1)
    expect(f.deadline.next).toMatchObject({ status: 'completed', same: true })
  })

  it('the final values waiting for a capture are bounded: past the bound a cell fails at once, naming it', () => {
    expect(f.bound.over).toMatchObject({ status: 'failed', code: 'runtime_unavailable', failurePhase: 'host', output: 1 })
    expect(f.bound.over.error).toMatch(/at most 3145728 characters of final values at once/)
    expect(f.bound.ms).toBeLessThan(3000)
    expect(f.bound.within).toEqual({ status: 'completed', same: true })
  })

  it('a capture worker that dies fails only its capture, as runtime_unavailable; a text too long for its heap fails at once', () => {
    expect(f.workerDeath.died).toMatchObject({ status: 'failed', code: 'runtime_unavailable', failurePhase: 'host', output: 1 })
    expect(f.workerDeath.died.error).toMatch(/value capture worker exited/)
    expect(f.workerDeath.next).toEqual({ status: 'completed', same: true })
    expect(f.workerDeath.long).toMatchObject({ status: 'failed', code: 'output_limit_exceeded', failurePhase: 'guest' })
    expect(f.workerDeath.long.error).toMatch(/at most 2097152 characters of one final value/)
    // Nothing left waiting, running or held.
    expect(f.workerDeath.state).toMatchObject({ running: 0, waiting: 0, heldChars: 0 })
  })

  it("a cell never waits for other cells' busy loops to reach their deadlines, even with every worker held", () => {
    expect(f.fairness.small).toEqual({ status: 'completed', value: { kind: 'complete', json: '2' } })
    expect(f.fairness.spun).toEqual(['timeout', 'timeout', 'timeout', 'timeout'])
    expect(f.fairness.order[0]).toBe('small')
  })

  it('a native loop that never polls fails timeout in an executor cell too; the thread is given up on', () => {
    expect(f.nonPolling).toMatchObject({ status: 'failed', code: 'timeout', failurePhase: 'guest', after: 'completed' })
    expect(f.nonPolling.givenUp).toBeGreaterThan(0)
  })

  it('a value too long to send fails its own cell; its process and the cells parked there live on', () => {
    expect(f.longValue.huge).toMatchObject({ status: 'failed', code: 'output_limit_exceeded' })
    expect(f.longValue.huge.error).toMatch(/too large to return \(more than 67108864 bytes of JSON\)/)
    expect(f.longValue.resumed).toEqual({ status: 'completed', value: { kind: 'complete', json: '10' } })
  })

  it('a crash fails the executor leg it ran and loses the continuation parked there, as runtime_unavailable (host), and frees its parked slot', () => {
    expect(f.crash.probe).toMatch(/^ended: /)
    expect(f.crash.leg).toEqual({ status: 'failed', code: 'runtime_unavailable', failurePhase: 'host' })
    expect(f.crash.parked).toBe('waiting')
    expect(f.crash.another).toMatchObject({ status: 'waiting' })
    expect(f.crash.resumed).toEqual({ status: 'failed', code: 'runtime_unavailable', failurePhase: 'host' })
    expect(f.crash.next).toBe('completed')
  })

  it('maxActiveCells and maxSuspendedCells hold for executor cells', () => {
    expect(f.caps.admission).toEqual([1, 1])
    expect(f.caps.both).toEqual(['completed', 'completed'])
    expect(f.caps.first).toBe('waiting')
    expect(f.caps.second).toMatchObject({ status: 'failed', code: 'runtime_unavailable' })
    expect(f.caps.second.error).toMatch(/maxSuspendedCells/)
    expect(f.caps.third).toBe('waiting')
  })

  it('a cell aborted or refused while it waits for a slot never runs; a refused cell already running is stopped at once', () => {
    expect(f.caps.queued[0]).toMatchObject({ status: 'failed', code: 'aborted' })
    expect(f.caps.queued[1]).toMatchObject({ status: 'failed', code: 'invalid_input' })
    expect(f.caps.queued[1].error).toMatch(/module access is disabled/)
    // Neither took the slot when it freed: nothing is active and nothing waits.
    expect(f.caps.afterQueued).toEqual([0, 0])
    expect(f.caps.refusedRunning).toMatchObject({ status: 'failed', code: 'invalid_input' })
    expect(f.caps.freed).toBe(true)
  })

  it("a refused source's tool request never reaches the host, though its cell started before the checks", () => {
    expect(f.refusedCall).toMatchObject({ status: 'failed', code: 'invalid_input', boundaries: 0 })
    expect(f.refusedCall.error).toMatch(/module access is disabled/)
  })

  it('a process that dies with legs waiting for a slot fails each of them, runtime_unavailable (host)', () => {
    expect(f.queuedOnDeath.waiting).toEqual([1, 2])
    expect(f.queuedOnDeath.probe).toMatch(/^ended: /)
    expect(f.queuedOnDeath.settled).toEqual(Array(3).fill({ status: 'failed', code: 'runtime_unavailable', failurePhase: 'host' }))
    expect(f.queuedOnDeath.after).toBe('completed')
  })

  it('an aborted leg stuck in a native loop that never polls is given up on soon after the abort, not at its deadline', () => {
    // Its budget was 30 s; the watchdog gives it up about 0.5 s of CPU time after the abort.
    expect(f.abortedNative).toMatchObject({ status: 'failed', code: 'timeout' })
    expect(f.abortedNative.ms).toBeLessThan(12_000)
    // A refused source that started early holds its slot no longer either (at once when it never
    // got to run, soon after the refusal when it was in such a loop).
    expect(f.refusedNative).toMatchObject({ status: 'failed', code: 'invalid_input', freed: true })
  })

  it('disposing an executor cell stops the leg it is running', () => {
    expect(f.disposedRunning).toMatchObject({ running: true, status: 'failed', code: 'aborted' })
    // The loop runs 20 s; stopped, the leg answers at its next deadline poll.
    expect(f.disposedRunning.ms).toBeLessThan(10_000)
  })
})
