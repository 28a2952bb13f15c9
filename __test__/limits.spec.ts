import { describe, expect, it } from 'vitest'
import { expectStatus, makeRun, sleep, watchEventLoop } from './helpers.js'

describe('limits', () => {
  it('stops while(true){} with timeout near timeoutMs without blocking the event loop', async () => {
    const { run } = makeRun({ config: { enabled: true, timeoutMs: 500 } })
    const loop = watchEventLoop(10)
    const started = performance.now()
    const result = expectStatus(await run.exec({ code: 'while (true) {}' }), 'failed')
    const elapsed = performance.now() - started
    loop.stop()
    expect(result.code).toBe('timeout')
    expect(result.error).toBe('code mode cell exceeded timeoutMs (500 ms of guest CPU time).')
    expect(elapsed).toBeGreaterThanOrEqual(450)
    expect(elapsed).toBeLessThan(3000)
    expect(loop.ticks).toBeGreaterThan(10)
    expect(loop.longestGap).toBeLessThan(250)
  })

  it('stops loops that catch everything, and loops inside promise jobs', async () => {
    const { run } = makeRun({ config: { enabled: true, timeoutMs: 200 } })
    const caught = await run.exec({ code: 'for (;;) { try { while (true) {} } catch (e) {} }' })
    expect(expectStatus(caught, 'failed').code).toBe('timeout')
    const job = await run.exec({ code: 'await Promise.resolve().then(() => { for (;;) {} })' })
    expect(expectStatus(job, 'failed').code).toBe('timeout')
    const microtasks = await run.exec({ code: 'const spin = () => Promise.resolve().then(spin); spin(); await new Promise(() => {})' })
    expect(expectStatus(microtasks, 'failed').code).toBe('timeout')
  })

  it('makes an allocation bomb fail memory_limit_exceeded terminally, and the next exec works', async () => {
    const { run } = makeRun({ config: { enabled: true, memoryLimitBytes: 8 * 1024 * 1024 } })
    const bomb = await run.exec({
      code: `try { const a = []; for (;;) a.push(new Array(100000).fill(a.length)) }
             catch (e) { text("caught " + e.message) }
             "survived"`,
    })
    const failed = expectStatus(bomb, 'failed')
    expect(failed.code).toBe('memory_limit_exceeded')
    expect(failed.error).toBe('code mode cell exceeded memoryLimitBytes (8388608 bytes).')
    expect(expectStatus(await run.exec({ code: '"next"' }), 'completed').value).toBe('next')
  })

  it('keeps stack overflow a catchable RangeError', async () => {
    const { run } = makeRun()
    const result = await run.exec({ code: 'function f(n) { return f(n + 1) + 1 }\ntry { f(0) } catch (e) { return [e.name, e.message] }' })
    expect(expectStatus(result, 'completed').value).toEqual(['RangeError', 'Maximum call stack size exceeded'])
  })

  it('caps output as produced; crossing is terminal and keeps output up to the cap', async () => {
    const { run } = makeRun({ config: { enabled: true, maxOutputBytes: 1024 } })
    const result = await run.exec({
      code: 'try { for (let i = 0; i < 1000; i++) text("x".repeat(100)) } catch (e) { text("caught") }\n"never"',
    })
    const failed = expectStatus(result, 'failed')
    expect(failed.code).toBe('output_limit_exceeded')
    expect(failed.error).toBe('code mode output exceeded maxOutputBytes (1024 bytes).')
    // Each item costs its text and its place in the output, {"type":"text","text":""} and a
    // comma (26 bytes): eight items of 126 bytes fit, and the ninth's 16 bytes of room hold none.
    const kept = (failed.output ?? []).map((o) => (o.type === 'text' ? o.text : '')).join('')
    expect(kept).toBe('x'.repeat(800))
    expect(JSON.stringify(failed.output).length).toBeLessThanOrEqual(1024)
  })

  it('counts the final value against the output cap', async () => {
    const { run } = makeRun({ config: { enabled: true, maxOutputBytes: 1024 } })
    const result = await run.exec({ code: 'text("x".repeat(600)); "y".repeat(600)' })
    expect(expectStatus(result, 'failed').code).toBe('output_limit_exceeded')
    expect(expectStatus(await run.exec({ code: '"y".repeat(600)' }), 'completed')).toBeTruthy()
  })

  it('fails a suspension over maxSnapshotBytes with snapshot_limit_exceeded', async () => {
    const { run } = makeRun({
      config: { enabled: true, timeoutMs: 100, maxSnapshotBytes: 200_000 },
      executor: () => new Promise(() => {}),
    })
    const result = await run.exec({ code: 'const keep = "z".repeat(300000);\nawait tools.slow({});\nkeep.length' })
    const failed = expectStatus(result, 'failed')
    expect(failed.code).toBe('snapshot_limit_exceeded')
    expect(failed.error).toMatch(/over maxSnapshotBytes \(200000 bytes\)/)
  })

  it('keeps timers out of maxPendingToolCalls but caps them at 1000', async () => {
    const { run } = makeRun({ config: { enabled: true, maxPendingToolCalls: 1 } })
    const result = await run.exec({
      code: `const ids = [];
             let error = null;
             try { for (let i = 0; i < 1001; i++) ids.push(setTimeout(() => {}, 60000)) } catch (e) { error = e.message }
             ids.forEach(clearTimeout);
             [ids.length, error]`,
    })
    expect(expectStatus(result, 'completed').value).toEqual([1000, 'Too many pending timers: at most 1000 may be scheduled at once.'])
  })

  it('runs many cells at once without interference', async () => {
    const { run } = makeRun({ executor: async (call) => {
      await sleep(5)
      return (call.input as { n: number }).n
    } })
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, n) => run.exec({ code: `(await tools.message({ n: ${n} })) * 2` })),
    )
    expect(results.map((r) => expectStatus(r, 'completed').value)).toEqual(Array.from({ length: 50 }, (_, n) => n * 2))
  })
})
