// Guest work runs in sandbox processes the addon supervises (ARCHITECTURE.md, "Sandbox
// processes"; SECURITY.md): a native loop that never polls the deadline is given up on and costs
// no CPU afterwards, other sessions keep running, the process is locked down, and a crash fails
// only the legs it held, as data.
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { CodeModeRun, ToolSearchRun, configureCodeModeRuntime, type NestedToolCall } from '../index.js'
import { __testAbandonedWorkers, __testProbe, __testSandboxCounts, __testSandboxPids, __testSandboxPolicy, __testSilence, testingBuild } from './support/native-testing.js'
import { deferred, expectStatus, sleep } from './helpers.js'

const linux = process.platform === 'linux'

// One process of four workers: every run of this file shares it until it is replaced, which is
// what these tests watch.
configureCodeModeRuntime({ sandboxProcesses: 1, workerThreads: 4 })

let runs = 0
function session(timeoutMs = 200, executor?: (call: NestedToolCall) => unknown) {
  const id = `session-${++runs}`
  return CodeModeRun.create({
    config: { enabled: true, timeoutMs },
    runId: id,
    sessionId: id,
    tools: [{ name: 'echo' }, { name: 'slow' }],
    executor: executor ?? ((call) => call.input),
  })
}

/** CPU time (ms) the sandbox processes alive now have used, summed. */
function sandboxCpuMs(): number {
  let ticks = 0
  for (const pid of __testSandboxPids()) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      ticks += Number(fields[11]) + Number(fields[12])
    } catch {
      // Ended meanwhile: it spends nothing any more.
    }
  }
  return ticks * 10
}

/** Three seconds on, nothing spends CPU on a given-up loop: its thread is frozen, its process ended. */
async function noCpuLater() {
  await sleep(3000)
  if (linux && testingBuild) {
    const before = sandboxCpuMs()
    await sleep(1000)
    expect(sandboxCpuMs() - before).toBeLessThan(100)
  }
}

// Loops over QuickJS builtins that run natively without polling the interrupt handler, each far
// past any deadline: a single call that never returns in time, or a loop around a native call
// long enough that the interpreter's poll (once every 10,000 ticks) never comes.
const NON_POLLING = {
  'BigInt multiplication of half-million-bit numbers in a loop': 'const a = 3n ** 320000n; for (;;) a * a',
  'BigInt division of a million-bit number in a loop': 'const n = 3n ** 650000n, d = 7n ** 120000n; for (;;) n / d',
  'BigInt.prototype.toString of a 950,000-bit number in a loop': 'const a = 3n ** 600000n; for (;;) a.toString()',
  'String.prototype.toUpperCase of 8 MB in a loop': "const s = 'ab'.repeat(4e6); for (;;) s.toUpperCase()",
  'TypedArray.prototype.reverse of 40 MB in a loop': 'const t = new Float64Array(5e6); for (;;) t.reverse()',
}

describe('a native loop that never polls the deadline', () => {
  for (const [name, code] of Object.entries(NON_POLLING)) {
    it(name, { timeout: 60_000 }, async () => {
      const hostile = session(300)
      const givenUp = testingBuild ? __testAbandonedWorkers() : 0
      const started = performance.now()
      const leg = hostile.exec({ code })
      // Another session, started meanwhile, completes normally.
      await sleep(100)
      const other = session(5000, async (call) => {
        await sleep(50)
        return { echoed: call.input }
      })
      const answered = await other.exec({ code: 'const r = await tools.echo({ n: 1 }); r.echoed.n + 1' })
      expect(expectStatus(answered, 'completed').value).toBe(2)
      const result = expectStatus(await leg, 'failed')
      const elapsed = performance.now() - started
      expect(result).toMatchObject({ code: 'timeout', failurePhase: 'guest' })
      // The deadline, the watchdog's grace (half a second) and its scan; generous for a loaded runner.
      expect(elapsed).toBeLessThan(300 + 2500)
      await sleep(300)
      if (testingBuild) expect(__testAbandonedWorkers()).toBeGreaterThan(givenUp)
      await noCpuLater()
      // And the runtime serves the next cell of any session.
      expect(expectStatus(await session().exec({ code: '"next"' }), 'completed').value).toBe('next')
    })
  }

  it('eight at once, in eight sessions, each fail by their deadline and a second: a loaded machine does not defer the answer', { timeout: 60_000 }, async () => {
    // Eight spinning threads share two cores here: none has used its CPU budget by its deadline,
    // and the leg still fails then (the thread is frozen once it shows it spins).
    const code = NON_POLLING['String.prototype.toUpperCase of 8 MB in a loop']
    const timings = await Promise.all(
      Array.from({ length: 8 }, async () => {
        const started = performance.now()
        const result = await session(500).exec({ code })
        return { code: expectStatus(result, 'failed').code, ms: performance.now() - started }
      }),
    )
    for (const { code } of timings) expect(code).toBe('timeout')
    // Deadline 500 ms, a second past it, and half a second for a leg waiting its turn on a
    // worker (a stand-in comes 100 ms into a long slice) on a loaded runner.
    expect(Math.max(...timings.map((t) => t.ms))).toBeLessThan(500 + 1000 + 500)
    await noCpuLater()
    expect(expectStatus(await session().exec({ code: '"next"' }), 'completed').value).toBe('next')
  })

  it('20 in a row, over several sessions, never keep another session waiting 2 s', { timeout: 120_000 }, async () => {
    const probe = session(5000)
    let stop = false
    const waits: number[] = []
    const failures: unknown[] = []
    const probing = (async () => {
      while (!stop) {
        const started = performance.now()
        const result = await probe.exec({ code: 'await tools.echo({ ok: 1 }); 1' })
        waits.push(performance.now() - started)
        if (result.status !== 'completed') failures.push(result)
        await sleep(20)
      }
    })()
    const hostile = Object.values(NON_POLLING)
    const sessions = [session(100), session(100), session(100), session(100)]
    // Two at a time: both workers of a process stuck at once, twice as often as one.
    for (let i = 0; i < 20; i += 2) {
      const pair = await Promise.all([
        sessions[i % 4].exec({ code: hostile[i % hostile.length] }),
        sessions[(i + 1) % 4].exec({ code: hostile[(i + 1) % hostile.length] }),
      ])
      for (const result of pair) expect(expectStatus(result, 'failed').code).toBe('timeout')
    }
    stop = true
    await probing
    expect(failures).toEqual([])
    expect(waits.length).toBeGreaterThan(10)
    expect(Math.max(...waits)).toBeLessThan(2000)
  })
})

// An abort is a kill the guest sees at its next poll of the interrupt handler, which a native
// loop never makes: the watchdog gives such a slice up soon after the kill, whichever host's
// cell it is (crates/engine/src/watchdog.rs), not at its deadline 20 s on.
describe('an abort reaches a native loop that never polls', () => {
  const loop = Object.values(NON_POLLING)[0]
  /** Starts `start`, aborts it 300 ms on with `abort`, and says how long after the abort it settled and how. */
  async function abortedAfter(start: () => Promise<unknown>, abort: () => void) {
    const settled = start()
    await sleep(300)
    abort()
    const aborted = performance.now()
    const result = await settled
    return { result, ms: performance.now() - aborted }
  }

  it("an exec aborted by its signal ends 'aborted' soon after the abort", { timeout: 60_000 }, async () => {
    const run = session(20_000)
    const controller = new AbortController()
    const { result, ms } = await abortedAfter(() => run.exec({ code: loop }, { signal: controller.signal }), () => controller.abort())
    expect(result).toMatchObject({ status: 'failed', code: 'aborted' })
    expect(ms).toBeLessThan(8000)
    await noCpuLater()
    expect(expectStatus(await run.exec({ code: '"next"' }), 'completed').value).toBe('next')
  })

  it("run.abort() ends a cell in such a loop 'aborted' soon after", { timeout: 60_000 }, async () => {
    const run = session(20_000)
    const { result, ms } = await abortedAfter(() => run.exec({ code: loop }), () => run.abort())
    expect(result).toMatchObject({ status: 'failed', code: 'aborted' })
    expect(ms).toBeLessThan(8000)
    await noCpuLater()
    expect(expectStatus(await session().exec({ code: '"next"' }), 'completed').value).toBe('next')
  })

  it("a tool_search_code call aborted by its signal ends 'aborted' soon after", { timeout: 60_000 }, async () => {
    const search = ToolSearchRun.create({
      config: { mode: 'code', codeTimeoutMs: 20_000 },
      runId: 'tool-search-aborted-loop',
      sessionId: 'tool-search-aborted-loop',
      tools: [{ name: 'echo', description: 'Echo the input' }],
      executor: (call) => call.input,
    })
    const controller = new AbortController()
    const { result, ms } = await abortedAfter(
      () => search.call('tool_search_code', { code: loop }, { signal: controller.signal }),
      () => controller.abort(),
    )
    expect(result).toMatchObject({ status: 'failed', code: 'aborted' })
    expect(ms).toBeLessThan(8000)
    await noCpuLater()
    expect(await search.call('tool_search_code', { code: 'return 1 + 1' })).toMatchObject({ status: 'completed', value: 2 })
  })
})

describe('fair shares of the workers', () => {
  it("one session's busy loops, twice as many as there are workers, never hold up another session", { timeout: 60_000 }, async () => {
    const order: string[] = []
    const sessionId = `busy-${++runs}`
    const create = (timeoutMs: number, runId: string) =>
      CodeModeRun.create({ config: { enabled: true, timeoutMs }, runId, sessionId, tools: [{ name: 'echo' }], executor: (call) => call.input })
    const busy = create(2000, `${sessionId}-spinners`)
    const spinners = Array.from({ length: 8 }, () => busy.exec({ code: 'for (;;) {}' }).then((r) => (order.push('spinner'), r)))
    // The same session's own small cell, with a shorter deadline, queues behind its spinners (a
    // session runs at most as many cells as there are workers); the time it waits is not its own.
    const queued = create(1000, `${sessionId}-small`).exec({ code: '1 + 1' }).then((r) => (order.push('same session'), r))
    await sleep(50)
    // Another session's cell, with a nested call, runs while every worker is held by a spinner.
    const other = session(5000)
    const answered = await other.exec({ code: 'const r = await tools.echo({ n: 1 }); r.n + 1' })
    order.push('other session')
    expect(expectStatus(answered, 'completed').value).toBe(2)
    for (const result of await Promise.all(spinners)) expect(expectStatus(result, 'failed').code).toBe('timeout')
    expect(expectStatus(await queued, 'completed').value).toBe(2)
    // The other session finished before any spinner reached its deadline; the same session's small
    // cell only after its spinners gave their workers back.
    expect(order[0]).toBe('other session')
    expect(order.indexOf('same session')).toBeGreaterThan(order.indexOf('spinner'))
  })
})

describe.runIf(testingBuild)('blast radius', () => {
  it("a stuck cell does not fail another session's parked cell: its process keeps serving it", async () => {
    const parked = session(2000)
    const waiting = expectStatus(await parked.exec({ code: 'text("parked"); await yield_control(); "resumed"' }), 'waiting')
    const hostile = session(200)
    expect(expectStatus(await hostile.exec({ code: NON_POLLING['TypedArray.prototype.reverse of 40 MB in a loop'] }), 'failed').code).toBe('timeout')
    await sleep(300)
    // The process that holds the parked cell stopped taking work; it still answers its wait.
    expect(__testSandboxCounts()[1]).toBeGreaterThanOrEqual(1)
    expect(expectStatus(await parked.wait({ runId: waiting.runId }), 'completed').value).toBe('resumed')
    // Its last cell ended: the retired process goes, and a fresh one serves new work.
    await sleep(500)
    expect(__testSandboxCounts()[1]).toBe(0)
    expect(expectStatus(await session().exec({ code: '5' }), 'completed').value).toBe(5)
  })

  const hostileCode = NON_POLLING['TypedArray.prototype.reverse of 40 MB in a loop']
  /** Parks a cell in the process accepting work now, then makes that process retire. */
  async function parkThenRetire() {
    const parker = session(5000)
    const waiting = expectStatus(await parker.exec({ code: 'await yield_control(); "resumed"' }), 'waiting')
    expect(expectStatus(await session(200).exec({ code: hostileCode }), 'failed').code).toBe('timeout')
    await sleep(300)
    return { parker, runId: waiting.runId }
  }

  it('a retired process keeps its parked cells until its bound, then they are lost and their wait says so', { timeout: 60_000 }, async () => {
    __testSandboxPolicy(1500)
    try {
      const { parker, runId } = await parkThenRetire()
      await sleep(2500)
      const lost = expectStatus(await parker.wait({ runId }), 'failed')
      expect(lost).toMatchObject({ code: 'runtime_unavailable', failurePhase: 'host' })
      expect(lost.error).toMatch(/lost/)
      expect(expectStatus(await session().exec({ code: '6' }), 'completed').value).toBe(6)
    } finally {
      __testSandboxPolicy()
    }
  })

  it('past two retiring processes the oldest goes, with its parked cells; the others keep theirs', { timeout: 60_000 }, async () => {
    const first = await parkThenRetire()
    const second = await parkThenRetire()
    const third = await parkThenRetire()
    const lost = expectStatus(await first.parker.wait({ runId: first.runId }), 'failed')
    expect(lost).toMatchObject({ code: 'runtime_unavailable', failurePhase: 'host' })
    for (const kept of [second, third]) {
      expect(expectStatus(await kept.parker.wait({ runId: kept.runId }), 'completed').value).toBe('resumed')
    }
  })

  it('a process holding work that stops answering is killed; its legs fail runtime_unavailable (host)', { timeout: 60_000 }, async () => {
    __testSandboxPolicy(undefined, 1000)
    try {
      const called = deferred<void>()
      const waiting = session(10_000, () => {
        called.resolve()
        return new Promise(() => {})
      })
      const leg = waiting.exec({ code: 'await tools.slow({}); "never"' })
      await called.promise
      __testSilence(30_000, 0)
      const failed = expectStatus(await leg, 'failed')
      expect(failed).toMatchObject({ code: 'runtime_unavailable', failurePhase: 'host' })
      expect(failed.error).toMatch(/stopped answering/)
      expect(expectStatus(await session().exec({ code: '7' }), 'completed').value).toBe(7)
    } finally {
      __testSandboxPolicy()
    }
  })
})

describe.runIf(testingBuild)('a sandbox process is locked down', () => {
  it.runIf(linux)('seccomp filter mode, no new privileges, an empty environment, first to go when memory runs out', async () => {
    expect(expectStatus(await session().exec({ code: '1' }), 'completed').value).toBe(1)
    const pids = __testSandboxPids()
    expect(pids.length).toBeGreaterThan(0)
    for (const pid of pids) {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8')
      expect(status).toMatch(/^Seccomp:\s+2$/m)
      expect(status).toMatch(/^NoNewPrivs:\s+1$/m)
      // No capabilities, though the gateway runs as root (as the test suites do here), in
      // every thread: each one's own sets.
      for (const thread of readdirSync(`/proc/${pid}/task`)) {
        const own = readFileSync(`/proc/${pid}/task/${thread}/status`, 'utf8')
        for (const set of ['CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb']) expect(own, `${set} of thread ${thread}`).toMatch(new RegExp(`^${set}:\\s+0+$`, 'm'))
      }
      expect(readFileSync(`/proc/${pid}/oom_score_adj`, 'utf8').trim()).toBe('1000')
      if (existsSync(`/proc/${pid}/environ`)) {
        try {
          expect(readFileSync(`/proc/${pid}/environ`, 'utf8')).toBe('')
        } catch {
          // Not dumpable: only root reads it.
        }
      }
    }
  })

  it.runIf(linux)('its background threads run in the idle scheduling class, its workers below the gateway', async () => {
    // A cell takes a warm VM, which starts the background threads that build the next one.
    expect(expectStatus(await session().exec({ code: '3' }), 'completed').value).toBe(3)
    /** Each thread of the sandbox processes: its name, nice value and scheduling policy. */
    const threads = () =>
      __testSandboxPids().flatMap((pid) => {
        try {
          return readdirSync(`/proc/${pid}/task`).flatMap((tid) => {
            const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')
            const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
            // Fields 19 (nice) and 41 (policy) of proc(5), counted from field 3 here.
            return [{ name: readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim(), nice: Number(fields[16]), policy: Number(fields[38]) }]
          })
        } catch {
          // A process or thread that ended meanwhile.
          return []
        }
      })
    const SCHED_IDLE = 5
    const named = (prefix: string) => threads().filter((t) => t.name.startsWith(prefix))
    // Threads lower themselves as they start: the background ones into the idle class, under the
    // seccomp filter, which allows just that; workers to nice 5.
    const settled = () => {
      const idle = named('code-mode-idle')
      const workers = named('code-mode-worke')
      return idle.length > 0 && idle.every((t) => t.policy === SCHED_IDLE) && workers.length > 0 && workers.every((t) => t.nice >= 5)
    }
    const deadline = performance.now() + 5000
    while (!settled() && performance.now() < deadline) await sleep(50)
    const idle = named('code-mode-idle')
    expect(idle.length).toBeGreaterThan(0)
    expect(idle.map((t) => t.policy)).toEqual(idle.map(() => SCHED_IDLE))
    const workers = named('code-mode-worke')
    expect(workers.length).toBeGreaterThan(0)
    for (const worker of workers) expect(worker.nice).toBeGreaterThanOrEqual(5)
  })

  for (const operation of ['open', 'connect', 'execve', 'ptrace', 'fork']) {
    it.runIf(linux)(`${operation} from inside is refused or kills the process, never done`, async () => {
      const outcome = await __testProbe(operation, 0)
      expect(outcome).toMatch(/^(refused|ended): /)
      expect(outcome).not.toMatch(/^succeeded/)
      // Whatever it did to its process, the next cell runs.
      expect(expectStatus(await session().exec({ code: '2' }), 'completed').value).toBe(2)
    })
  }
})

describe.runIf(testingBuild)('a sandbox process that crashes', () => {
  for (const crash of ['segfault', 'abort']) {
    it(`fails the legs it held runtime_unavailable (phase host) on ${crash}; the gateway lives on`, async () => {
      const called = deferred<void>()
      const run = session(5000, () => {
        called.resolve()
        return new Promise(() => {})
      })
      const leg = run.exec({ code: 'await tools.slow({}); "never"' })
      const parker = session(2000)
      const parked = expectStatus(await parker.exec({ code: 'await yield_control(); 1' }), 'waiting')
      await Promise.race([
        called.promise,
        leg.then((result) => {
          throw new Error(`the leg ended before its tool was called: ${JSON.stringify(result)}`)
        }),
      ])
      const outcome = await __testProbe(crash, 0)
      expect(outcome).toMatch(/^ended: /)
      const failed = expectStatus(await leg, 'failed')
      expect(failed).toMatchObject({ code: 'runtime_unavailable', failurePhase: 'host' })
      expect(failed.error).toMatch(/sandbox process .* ended/)
      expect(failed.error).not.toMatch(/\//)
      // A cell parked there is lost, and its wait says so.
      const lost = expectStatus(await parker.wait({ runId: parked.runId }), 'failed')
      expect(lost).toMatchObject({ code: 'runtime_unavailable', failurePhase: 'host' })
      expect(lost.error).toMatch(/lost/)
      expect(expectStatus(await session().exec({ code: '3' }), 'completed').value).toBe(3)
    })
  }
})

// Tool Search's cells run in the same sandbox processes as code mode's, in VMs of their own kind:
// the same watchdog and the same crash containment hold for them.
describe('Tool Search in the sandbox', () => {
  let searches = 0
  const toolSearch = (codeTimeoutMs: number, executor: (call: NestedToolCall) => unknown = (call) => call.input) =>
    ToolSearchRun.create({
      config: { mode: 'code', codeTimeoutMs },
      runId: `tool-search-${++searches}`,
      sessionId: `tool-search-${searches}`,
      tools: [{ name: 'echo', description: 'Echo the input' }, { name: 'slow', description: 'Answer later' }],
      executor,
    })

  it('a tool_search_code cell looping natively fails timeout; the thread is given up on, Tool Search serves on', { timeout: 60_000 }, async () => {
    const search = toolSearch(1000)
    const givenUp = testingBuild ? __testAbandonedWorkers() : 0
    const result = await search.call('tool_search_code', { code: Object.values(NON_POLLING)[0] })
    expect(result).toMatchObject({ status: 'failed', code: 'timeout' })
    expect((result as { error: string }).error).toMatch(/codeTimeoutMs/)
    await sleep(300)
    if (testingBuild) expect(__testAbandonedWorkers()).toBeGreaterThan(givenUp)
    expect(await search.call('tool_search_code', { code: 'return 1 + 1' })).toMatchObject({ status: 'completed', value: 2 })
  })

  it.runIf(testingBuild)('a crash fails the tool_search_code call it held runtime_unavailable (phase host); the next call runs', { timeout: 60_000 }, async () => {
    const called = deferred<void>()
    const search = toolSearch(10_000, () => {
      called.resolve()
      return new Promise(() => {})
    })
    const pending = search.call('tool_search_code', { code: "return await openclaw.tools.call('openclaw:core:slow', {})" })
    await called.promise
    expect(await __testProbe('segfault', 0)).toMatch(/^ended: /)
    const failed = await pending
    expect(failed).toMatchObject({ status: 'failed', code: 'runtime_unavailable', failurePhase: 'host' })
    expect(await toolSearch(5000).call('tool_search_code', { code: 'return 3' })).toMatchObject({ status: 'completed', value: 3 })
  })
})
