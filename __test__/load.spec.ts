// Load, with generous bounds: no leak over many execs, bounded threads under many parked
// cells, and a free event loop while cells spin. Exact figures live in `npm run bench`.
import { readFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { describe, expect, it } from 'vitest'
import { CodeModeRun } from '../index.js'
import { TOOLS, expectStatus, makeRun, sleep, watchEventLoop } from './helpers.js'

const threads = () => Number(/Threads:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1])

describe('load', () => {
  it('10,000 sequential execs do not leak', async () => {
    // No recording helper here: its lists of calls and events would be the growth measured.
    const run = CodeModeRun.create({
      config: { enabled: true },
      runId: 'run-leak',
      tools: TOOLS,
      executor: (call) => (call.input as { n: number }).n,
    })
    // Warm up with the measured cell: the allocators' pools for its sizes fill here, not below.
    const cell = (i: number) => `const r = await tools.message({ n: ${i} });\ntext("x");\nr + 1`
    for (let i = 0; i < 500; i++) await run.exec({ code: cell(i) })
    global.gc?.()
    await sleep(50)
    const before = process.memoryUsage().rss
    for (let i = 0; i < 10_000; i++) {
      const result = await run.exec({ code: cell(i) })
      if (result.status !== 'completed' || result.value !== i + 1) throw new Error(JSON.stringify(result))
    }
    global.gc?.()
    await sleep(50)
    const growth = process.memoryUsage().rss - before
    expect(growth).toBeLessThan(50 * 1024 * 1024)
    expect(run.telemetry.liveCells).toBe(0)
  }, 180_000)

  it('1,000 concurrent cells awaiting a slow tool complete, on a bounded number of threads', async () => {
    const baseline = threads()
    let peak = baseline
    const probe = setInterval(() => (peak = Math.max(peak, threads())), 5)
    const { run } = makeRun({
      executor: async (call) => {
        await sleep(300)
        return (call.input as { n: number }).n
      },
    })
    const results = await Promise.all(
      Array.from({ length: 1000 }, (_, n) => run.exec({ code: `(await tools.message({ n: ${n} })) * 2` })),
    )
    clearInterval(probe)
    results.forEach((result, n) => expect(expectStatus(result, 'completed').value).toBe(n * 2))
    // Cells park without a thread: only the worker pool (sized to the CPUs) and a clock thread,
    // started on first use, may appear.
    expect(peak - baseline).toBeLessThanOrEqual(availableParallelism() + 2)
  }, 60_000)

  it('keeps the event loop free while two CPU-bound cells spin', async () => {
    const { run } = makeRun({ config: { enabled: true, timeoutMs: 1500 } })
    const loop = watchEventLoop(5)
    const [a, b] = await Promise.all([run.exec({ code: 'for (;;) {}' }), run.exec({ code: 'let x = 0; while (true) x++' })])
    loop.stop()
    expect([a.status, b.status]).toEqual(['failed', 'failed'])
    expect(loop.longestGap).toBeLessThan(100)
  }, 30_000)
})
