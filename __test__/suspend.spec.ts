import { afterEach, describe, expect, it } from 'vitest'
import { CodeModeRun, configureCodeModeRuntime, type NestedToolCall } from '../index.js'
import { TOOLS, deferred, expectStatus, makeRun, sleep } from './helpers.js'

const runs: CodeModeRun[] = []
function track<T extends { run: CodeModeRun }>(value: T): T {
  runs.push(value.run)
  return value
}

afterEach(() => {
  // Free this file's suspended slots so tests stay independent.
  for (const run of runs.splice(0)) run.abort()
})

describe('waiting and wait', () => {
  it('returns waiting when a tool outlives the leg and delivers its result on wait', async () => {
    const slow = deferred<unknown>()
    const { run, events } = track(makeRun({ config: { enabled: true, timeoutMs: 150 }, executor: () => slow.promise }))
    const started = performance.now()
    const first = expectStatus(
      await run.exec({ code: 'text("asked");\nconst r = await tools.slow({});\ntext(`got ${r.n}`);\nr.n * 2' }, { toolCallId: 'exec-1' }),
      'waiting',
    )
    expect(performance.now() - started).toBeLessThan(2000)
    expect(first).toMatchObject({
      reason: 'pending_tools',
      pendingToolCalls: [{ method: 'call', toolId: 'openclaw:lab:slow' }],
      output: [{ type: 'text', text: 'asked' }],
    })
    expect(first.runId).toMatch(/^cm_[0-9a-f]{32}$/)
    slow.resolve({ n: 21 })
    await sleep(20)
    const second = expectStatus(await run.wait({ runId: first.runId }, { toolCallId: 'wait-1' }), 'completed')
    expect(second.value).toBe(42)
    expect(second.output).toEqual([{ type: 'text', text: 'got 21' }])
    expect(events.filter((e) => e.type.startsWith('cell_')).map((e) => e.type)).toEqual(['cell_suspended', 'cell_resumed'])
    expect(run.telemetry).toMatchObject({ suspendedCells: 1, resumedCells: 1, liveCells: 0 })
  })

  it('keeps waiting across legs until the tool settles, with a fresh runId each time', async () => {
    const slow = deferred<unknown>()
    const { run } = track(makeRun({ config: { enabled: true, timeoutMs: 100 }, executor: () => slow.promise }))
    const first = expectStatus(await run.exec({ code: 'await tools.slow({})' }), 'waiting')
    const second = expectStatus(await run.wait({ run_id: first.runId }), 'waiting')
    expect(second.runId).not.toBe(first.runId)
    const reused = expectStatus(await run.wait({ runId: first.runId }), 'failed')
    expect(reused).toMatchObject({ code: 'invalid_input', error: 'code mode run is unavailable or expired.' })
    slow.resolve('finally')
    expect(expectStatus(await run.wait({ runId: second.runId }), 'completed').value).toBe('finally')
  })

  it('resumes a call that settles during the wait leg itself', async () => {
    const slow = deferred<unknown>()
    const { run } = track(makeRun({ config: { enabled: true, timeoutMs: 300 }, executor: () => slow.promise }))
    const first = expectStatus(await run.exec({ code: 'await tools.slow({})' }), 'waiting')
    const waiting = run.wait({ runId: first.runId })
    await sleep(50)
    slow.resolve('mid-leg')
    expect(expectStatus(await waiting, 'completed').value).toBe('mid-leg')
  })

  it('fails unknown, wrong-session and in-flight runIds with invalid_input', async () => {
    const slow = deferred<unknown>()
    const { run } = track(makeRun({ config: { enabled: true, timeoutMs: 100 }, executor: () => slow.promise }))
    const unknown = expectStatus(await run.wait({ runId: 'cm_00000000000000000000000000000000' }), 'failed')
    expect(unknown).toMatchObject({ code: 'invalid_input', error: 'code mode run is unavailable or expired.' })
    expect(expectStatus(await run.wait({} as never), 'failed').error).toBe('wait requires a runId string.')

    const first = expectStatus(await run.exec({ code: 'await tools.slow({})' }), 'waiting')
    for (const other of [
      makeRun({ sessionId: 'session-2' }),
      makeRun({ runId: 'run-2' }),
      makeRun({ agentId: 'other-agent' }),
      makeRun({ sessionKey: 'agent:other:chat' }),
    ]) {
      const denied = expectStatus(await other.run.wait({ runId: first.runId }), 'failed')
      expect(denied).toMatchObject({ code: 'invalid_input', error: 'code mode run belongs to a different session.' })
    }

    const inFlight = run.wait({ runId: first.runId })
    const again = expectStatus(await run.wait({ runId: first.runId }), 'failed')
    expect(again).toMatchObject({ code: 'invalid_input', error: 'code mode run is already being resumed.' })
    slow.resolve('ok')
    expect(expectStatus(await inFlight, 'completed').value).toBe('ok')
  })

  it('lets a rebuilt run with the same scope resume the cell', async () => {
    const slow = deferred<unknown>()
    const first = track(makeRun({ config: { enabled: true, timeoutMs: 100 }, executor: () => slow.promise }))
    const waiting = expectStatus(await first.run.exec({ code: 'const a = await tools.slow({}); a + await tools.message({})' }), 'waiting')
    const rebuilt = track(makeRun({ config: { enabled: true, timeoutMs: 1000 }, executor: () => '!' }))
    slow.resolve('hi')
    await sleep(10)
    expect(expectStatus(await rebuilt.run.wait({ runId: waiting.runId }), 'completed').value).toBe('hi!')
    expect(rebuilt.calls.map((c) => c.name)).toEqual(['message'])
  })

  it('fires a timer that fell due while the cell was parked', async () => {
    const { run } = track(makeRun({ config: { enabled: true, timeoutMs: 100 } }))
    const first = expectStatus(await run.exec({ code: 'await new Promise((r) => setTimeout(() => r("tick"), 300))' }), 'waiting')
    expect(first.pendingToolCalls).toEqual([{ id: expect.stringMatching(/^timer_/), method: 'timer' }])
    await sleep(350)
    expect(expectStatus(await run.wait({ runId: first.runId }), 'completed').value).toBe('tick')
  })
})

describe('expiry, abort and caps', () => {
  it('expires a suspended cell after snapshotTtlSeconds, cancelling its call and freeing the slot', async () => {
    let seen: NestedToolCall | undefined
    const { run, events } = track(
      makeRun({
        config: { enabled: true, timeoutMs: 100, snapshotTtlSeconds: 1 },
        executor: (call) => {
          seen = call
          return new Promise(() => {})
        },
      }),
    )
    const first = expectStatus(await run.exec({ code: 'await tools.slow({})' }), 'waiting')
    expect(run.telemetry.suspendedCellsInProcess).toBe(1)
    await sleep(1300)
    expect(seen?.signal.aborted).toBe(true)
    expect(run.telemetry).toMatchObject({ expiredCells: 1, suspendedCellsInProcess: 0, liveCells: 0 })
    expect(events.some((e) => e.type === 'cell_expired')).toBe(true)
    const late = expectStatus(await run.wait({ runId: first.runId }), 'failed')
    expect(late.error).toBe('code mode run is unavailable or expired.')
  })

  it('fails the 65th concurrent suspension', async () => {
    // Five sessions: four fill their shares (16 each, a quarter of 64), the fifth finds none left.
    const runs = Array.from({ length: 5 }, (_, i) =>
      track(makeRun({ runId: `full-${i}`, sessionId: `full-${i}`, config: { enabled: true, timeoutMs: 100 }, executor: () => new Promise(() => {}) })).run,
    )
    const first = await Promise.all(Array.from({ length: 64 }, (_, i) => runs[i % 4].exec({ code: 'await tools.slow({})' })))
    expect(first.filter((r) => r.status === 'waiting')).toHaveLength(64)
    const late = expectStatus(await runs[4].exec({ code: 'await tools.slow({})' }), 'failed')
    expect(late).toMatchObject({ code: 'invalid_input', error: 'too many suspended code mode runs.' })
    for (const run of runs) run.abort()
    await sleep(20)
    expect(runs[0].telemetry.suspendedCellsInProcess).toBe(0)
  })

  it("keeps one session from taking the other sessions' parked slots", async () => {
    const slow = () => new Promise(() => {})
    const hostile = track(makeRun({ runId: 'hostile', sessionId: 'hostile', config: { enabled: true, timeoutMs: 100 }, executor: slow })).run
    // A new run of the same session shares its share.
    const again = track(makeRun({ runId: 'hostile-2', sessionId: 'hostile', config: { enabled: true, timeoutMs: 100 }, executor: slow })).run
    const victim = track(makeRun({ runId: 'victim', sessionId: 'victim', config: { enabled: true, timeoutMs: 100 }, executor: slow })).run
    const parked = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? again : hostile).exec({ code: 'await yield_control()' })))
    expect(parked.filter((r) => r.status === 'waiting')).toHaveLength(16)
    const refused = parked.filter((r) => r.status === 'failed')
    expect(refused).toHaveLength(4)
    expect(refused[0]).toMatchObject({ code: 'invalid_input', failurePhase: 'host' })
    expect((refused[0] as { error: string }).error).toMatch(/for this session: it holds 16, its share of the gateway's 64 \(maxSuspendedCells\)/)
    // The other session still parks, and the hostile one parks again once it frees a slot.
    expectStatus(await victim.exec({ code: 'await tools.slow({})' }), 'waiting')
    const one = parked.find((r) => r.status === 'waiting') as { runId: string }
    expectStatus(await hostile.wait({ runId: one.runId }), 'completed')
    expectStatus(await hostile.exec({ code: 'await yield_control()' }), 'waiting')
    for (const run of [hostile, again, victim]) run.abort()
  })

  it('honours configureCodeModeRuntime({ maxSuspendedCells })', async () => {
    configureCodeModeRuntime({ maxSuspendedCells: 2 })
    try {
      // Three sessions (each may hold a quarter of the cap, at least one): the third finds none left.
      const runs = [1, 2, 3].map((i) => track(makeRun({ runId: `cap-${i}`, sessionId: `cap-${i}`, config: { enabled: true, timeoutMs: 100 }, executor: () => new Promise(() => {}) })).run)
      const results = await Promise.all(runs.map((run) => run.exec({ code: 'await tools.slow({})' })))
      expect(results.map((r) => r.status).sort()).toEqual(['failed', 'waiting', 'waiting'])
      expect(results.find((r) => r.status === 'failed')).toMatchObject({ error: 'too many suspended code mode runs.' })
    } finally {
      configureCodeModeRuntime({ maxSuspendedCells: 64 })
    }
  })

  it('run.abort() drops suspended cells, aborts their calls, and fails later exec/wait', async () => {
    const signals: AbortSignal[] = []
    const { run, events } = makeRun({
      config: { enabled: true, timeoutMs: 100 },
      executor: (call) => {
        signals.push(call.signal)
        return new Promise(() => {})
      },
    })
    const first = expectStatus(await run.exec({ code: 'await tools.slow({})' }), 'waiting')
    run.abort()
    await sleep(10)
    expect(signals[0].aborted).toBe(true)
    expect(events.some((e) => e.type === 'cell_aborted')).toBe(true)
    expect(expectStatus(await run.wait({ runId: first.runId }), 'failed').code).toBe('aborted')
    expect(expectStatus(await run.exec({ code: '1' }), 'failed')).toMatchObject({ code: 'aborted', error: 'code mode run was aborted.' })
  })

  it('an exec signal aborts a running or idle cell', async () => {
    const { run } = track(makeRun({ config: { enabled: true, timeoutMs: 5000 }, executor: () => new Promise(() => {}) }))
    const spinning = new AbortController()
    const spin = run.exec({ code: 'while (true) {}' }, { signal: spinning.signal })
    const idle = new AbortController()
    const parked = run.exec({ code: 'await tools.slow({})' }, { signal: idle.signal })
    await sleep(50)
    spinning.abort()
    idle.abort()
    expect(expectStatus(await spin, 'failed').code).toBe('aborted')
    expect(expectStatus(await parked, 'failed').code).toBe('aborted')
    const already = new AbortController()
    already.abort()
    expect(expectStatus(await run.exec({ code: '1' }, { signal: already.signal }), 'failed').code).toBe('aborted')
  })

  it('ignores results that settle after the cell is gone', async () => {
    const late = deferred<unknown>()
    const { run } = makeRun({ config: { enabled: true, timeoutMs: 100 }, executor: () => late.promise })
    expectStatus(await run.exec({ code: 'await tools.slow({})' }), 'waiting')
    run.abort()
    late.resolve('too late')
    await sleep(20)
    const { run: fresh } = makeRun()
    expect(expectStatus(await fresh.exec({ code: '"still alive"' }), 'completed').value).toBe('still alive')
  })
})

describe('the executor contract', () => {
  it('completes while a floating call is still running and drops its result', async () => {
    const slow = deferred<unknown>()
    let signal: AbortSignal | undefined
    const { run } = makeRun({
      executor: (call) => {
        signal = call.signal
        return slow.promise
      },
    })
    const done = expectStatus(await run.exec({ code: 'tools.slow({}); "not waiting"' }), 'completed')
    expect(done.value).toBe('not waiting')
    expect(signal?.aborted).toBe(false)
    slow.resolve('ignored')
    await sleep(10)
  })

  it("run.abort() aborts a completed cell's floating calls too", async () => {
    const signals: AbortSignal[] = []
    const { run } = makeRun({
      executor: (call) => {
        signals.push(call.signal)
        return new Promise(() => {})
      },
    })
    const done = expectStatus(await run.exec({ code: 'for (let i = 0; i < 3; i++) tools.slow({ i }).catch(() => {}); "not waiting"' }), 'completed')
    expect(done.value).toBe('not waiting')
    await sleep(10)
    expect(signals.map((s) => s.aborted)).toEqual([false, false, false])
    run.abort()
    expect(signals.map((s) => s.aborted)).toEqual([true, true, true])
  })

  it('accepts a synchronous executor', async () => {
    const { run } = makeRun({ tools: TOOLS, executor: () => 'sync' })
    expect(expectStatus(await run.exec({ code: 'await tools.message()' }), 'completed').value).toBe('sync')
  })
})
