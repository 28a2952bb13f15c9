// Faults around the sandbox: executors that throw, reject, hang or settle too late; Node
// exiting with parked cells; panics injected inside the runtime; many VMs failing at once.
// The runtime must answer every leg, clean up, and keep Node alive and responsive.
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { __testPanic, __testStall, testingBuild } from './support/native-testing.js'
import type { CodeModeRun, NestedToolCall } from '../index.js'
import { deferred, expectStatus, makeRun, sleep } from './helpers.js'
import { captureWarnings } from './support/warnings.js'

const INDEX = fileURLToPath(new URL('../index.js', import.meta.url))

const runs: CodeModeRun[] = []
function track<T extends { run: CodeModeRun }>(value: T): T {
  runs.push(value.run)
  return value
}

afterEach(() => {
  if (testingBuild) __testPanic('off')
  for (const run of runs.splice(0)) run.abort()
})

async function alive() {
  const { run } = makeRun()
  expect(expectStatus(await run.exec({ code: '"alive"' }), 'completed').value).toBe('alive')
}

describe('executor faults', () => {
  it('a synchronous throw of any value becomes a catchable guest Error', async () => {
    const thrown: Record<string, () => unknown> = {
      error: () => new RangeError('range'),
      string: () => 'plain string',
      object: () => ({ code: 'E_DENIED' }),
      nothing: () => undefined,
      nul: () => null,
      number: () => 7,
      messageGetterThrows: () => Object.defineProperty(new Error(), 'message', { get() { throw new Error('trap') } }),
      revokedProxy: () => {
        const p = Proxy.revocable({}, {})
        p.revoke()
        return p.proxy
      },
    }
    const { run } = makeRun({
      executor: (call: NestedToolCall) => {
        throw thrown[(call.input as { k: string }).k]()
      },
    })
    const result = await run.exec({
      code: `const out = {};
        for (const k of ${JSON.stringify(Object.keys(thrown))}) {
          try { await tools.message({ k }); out[k] = 'resolved' } catch (e) { out[k] = [e instanceof Error, e.message] }
        }
        out`,
    })
    expect(expectStatus(result, 'completed').value).toEqual({
      error: [true, 'range'],
      string: [true, 'plain string'],
      object: [true, '{"code":"E_DENIED"}'],
      nothing: [true, 'undefined'],
      nul: [true, 'null'],
      number: [true, '7'],
      messageGetterThrows: [true, 'tool call failed'],
      revokedProxy: [true, 'tool call failed'],
    })
  })

  it('a rejection, or a thenable that throws or rejects, becomes a catchable guest Error', async () => {
    const { run } = makeRun({
      executor: (call: NestedToolCall) => {
        const k = (call.input as { k: string }).k
        if (k === 'reject') return Promise.reject(new Error('async no'))
        // Thenables on purpose: what the run makes of an executor's thenable is the test.
        // oxlint-disable-next-line unicorn/no-thenable
        if (k === 'thenThrows') return { then() { throw new Error('then threw') } }
        // oxlint-disable-next-line unicorn/no-thenable
        return { then(_: unknown, fail: (e: unknown) => void) { fail('thenable no') } }
      },
    })
    const result = await run.exec({
      code: `const out = [];
        for (const k of ['reject', 'thenThrows', 'thenRejects']) { try { await tools.message({ k }) } catch (e) { out.push(e.message) } }
        out`,
    })
    expect(expectStatus(result, 'completed').value).toEqual(['async no', 'then threw', 'thenable no'])
  })

  it('an executor that never settles: the leg returns waiting, expiry aborts its signal and frees the slot', async () => {
    const signals: AbortSignal[] = []
    const { run, events } = track(
      makeRun({
        config: { enabled: true, timeoutMs: 100, snapshotTtlSeconds: 1 },
        executor: (call: NestedToolCall) => {
          signals.push(call.signal)
          return new Promise(() => {})
        },
      }),
    )
    const first = expectStatus(await run.exec({ code: 'await tools.slow({})' }), 'waiting')
    expect(signals[0].aborted).toBe(false)
    await sleep(1400)
    expect(signals[0].aborted).toBe(true)
    expect(events.map((e) => e.type)).toContain('cell_expired')
    expect(run.telemetry).toMatchObject({ liveCells: 0, expiredCells: 1 })
    expect(expectStatus(await run.wait({ runId: first.runId }), 'failed').error).toBe('code mode run is unavailable or expired.')
  })

  it('an executor that settles after expiry is ignored without a crash', async () => {
    const late = deferred()
    const { run } = track(makeRun({ config: { enabled: true, timeoutMs: 100, snapshotTtlSeconds: 1 }, executor: () => late.promise }))
    expectStatus(await run.exec({ code: 'await tools.slow({})' }), 'waiting')
    await sleep(1300)
    late.resolve({ too: 'late' })
    await sleep(20)
    await alive()
  })

  it('an executor that settles or rejects after abort is ignored, and onUpdate after it is harmless', async () => {
    const settle = deferred()
    let seen: NestedToolCall | undefined
    const { run, events } = makeRun({
      config: { enabled: true, timeoutMs: 5000 },
      executor: (call: NestedToolCall) => {
        seen = call
        return settle.promise
      },
    })
    const controller = new AbortController()
    const leg = run.exec({ code: 'await tools.slow({})' }, { signal: controller.signal })
    await sleep(30)
    controller.abort()
    expect(expectStatus(await leg, 'failed').code).toBe('aborted')
    expect(seen?.signal.aborted).toBe(true)
    seen?.onUpdate({ after: 'abort' })
    settle.reject(new Error('too late'))
    await sleep(20)
    expect(events.some((e) => e.type === 'tool_call_end' && e.aborted)).toBe(true)
    await alive()
  })

  it('a call still running when the cell completes keeps running and its late result is dropped', async () => {
    const late = deferred()
    let seen: NestedToolCall | undefined
    const { run } = makeRun({
      executor: (call: NestedToolCall) => {
        seen = call
        return late.promise
      },
    })
    expect(expectStatus(await run.exec({ code: 'tools.slow({}); "done first"' }), 'completed').value).toBe('done first')
    late.resolve('x'.repeat(1 << 20))
    await sleep(20)
    seen?.onUpdate('after completion')
    expect(run.telemetry.liveCells).toBe(0)
    await alive()
  })

  it('an onEvent listener and executor that throw everywhere do not break the run', async () => {
    const { CodeModeRun } = await import('../index.js')
    const { warnings } = await captureWarnings(async () => {
      const run = CodeModeRun.create({
        config: true,
        runId: 'r',
        tools: [{ name: 'message' }],
        executor: (call: NestedToolCall) => {
          call.onUpdate({ toJSON() { throw new Error('bad partial') } })
          return 'ok'
        },
        onEvent: () => {
          throw new Error('listener broke')
        },
      })
      expect(expectStatus(await run.exec({ code: 'await tools.message({})' }), 'completed').value).toBe('ok')
    })
    // The listener's first throw is a process warning (lib/run.js), expected here.
    expect(warnings.map((w) => (w as Error & { code?: string }).code)).toEqual(['OPENCLAW_CODE_MODE_ON_EVENT'])
  })

  it('run.abort() while calls are in flight aborts every signal and answers every leg', async () => {
    const signals: AbortSignal[] = []
    const { run } = makeRun({
      config: { enabled: true, timeoutMs: 5000 },
      executor: (call: NestedToolCall) => {
        signals.push(call.signal)
        return new Promise(() => {})
      },
    })
    const legs = Array.from({ length: 5 }, () => run.exec({ code: 'await Promise.all([tools.slow({}), tools.slow({})])' }))
    await sleep(50)
    run.abort()
    expect((await Promise.all(legs)).map((r) => expectStatus(r, 'failed').code)).toEqual(Array(5).fill('aborted'))
    await sleep(10)
    expect(signals).toHaveLength(10)
    expect(signals.every((s) => s.aborted)).toBe(true)
  })
})

describe('Node exiting', () => {
  function node(script: string) {
    const started = performance.now()
    const child = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 20_000 })
    return { ...child, elapsed: performance.now() - started }
  }

  it('exits promptly with status 0 while cells are suspended on tools, yields and timers', () => {
    const child = node(`
      const { CodeModeRun } = require(${JSON.stringify(INDEX)})
      const run = CodeModeRun.create({ config: { enabled: true, timeoutMs: 100 }, runId: 'r',
        tools: [{ name: 'slow' }], executor: () => new Promise(() => {}) })
      ;(async () => {
        const legs = await Promise.all([
          run.exec({ code: 'await tools.slow({})' }),
          run.exec({ code: 'await yield_control()' }),
          run.exec({ code: 'await new Promise((r) => setTimeout(r, 1e9))' }),
        ])
        console.log(JSON.stringify(legs.map((r) => r.status)))
      })()`)
    expect(child.error).toBeUndefined()
    expect(child.signal).toBeNull()
    expect(child.status).toBe(0)
    expect(child.stdout.trim()).toBe('["waiting","waiting","waiting"]')
    expect(child.elapsed).toBeLessThan(15_000)
  })

  it.runIf(testingBuild)('exits on process.exit while a cell spins or a slice is stuck in native code', () => {
    const child = node(`
      const { CodeModeRun } = require(${JSON.stringify(INDEX)})
      const { __testStall } = require(${JSON.stringify(INDEX.replace(/index\.js$/, 'binding.js'))})
      const run = CodeModeRun.create({ config: { enabled: true, timeoutMs: 60000 }, runId: 'r', tools: [{ name: 'm' }], executor: () => 1 })
      run.exec({ code: 'while (true) {}' })
      __testStall(60000)
      run.exec({ code: '1' })
      setTimeout(() => { console.log('exiting'); process.exit(0) }, 200)`)
    expect(child.signal).toBeNull()
    expect(child.status).toBe(0)
    expect(child.stdout.trim()).toBe('exiting')
    expect(child.elapsed).toBeLessThan(15_000)
  })

  it('a pending exec keeps Node alive until it settles, then Node exits on its own', () => {
    const child = node(`
      const { CodeModeRun } = require(${JSON.stringify(INDEX)})
      const run = CodeModeRun.create({ config: { enabled: true, timeoutMs: 300 }, runId: 'r', tools: [{ name: 'm' }], executor: () => 1 })
      run.exec({ code: 'while (true) {}' }).then((r) => console.log(r.code))`)
    expect(child.status).toBe(0)
    expect(child.stdout.trim()).toBe('timeout')
    expect(child.elapsed).toBeLessThan(15_000)
  })
})

describe('host callbacks that return promises', () => {
  // Each script runs in a process of its own with Node's default handling: a rejection left
  // unhandled ends it with status 1 before it prints its line.
  function survives(script: string): unknown {
    const child = spawnSync(process.execPath, ['-e', `
      const codeMode = require(${JSON.stringify(INDEX)})
      const settle = () => new Promise((resolve) => setTimeout(resolve, 50))
      ;(async () => { ${script} })().then((value) => console.log(JSON.stringify(value)))`], { encoding: 'utf8', timeout: 20_000 })
    expect(child.stderr.split('\n').filter((line) => line && !/OPENCLAW_CODE_MODE_ON_EVENT|--trace-warnings/.test(line))).toEqual([])
    expect(child.status).toBe(0)
    return JSON.parse(child.stdout)
  }

  // Rejected, a `then` getter or method that throws, and a rejected promise whose `then` was
  // replaced by one that never calls back.
  const HOSTILE = `[
    async () => { throw new Error('async listener') },
    () => ({ get then() { throw new Error('then getter') } }),
    () => ({ then() { throw new Error('then method') } }),
    () => Object.assign(Promise.reject(new Error('replaced then')), { then() {} }),
  ]`

  it('an onEvent listener that rejects, of a code-mode or Tool Search run, is counted like a throw', () => {
    expect(
      survives(`
        const counts = []
        for (const listener of ${HOSTILE}) {
          const run = codeMode.CodeModeRun.create({ config: true, runId: 'r', tools: [{ name: 'echo' }], executor: () => 1, onEvent: listener })
          const result = await run.exec({ code: 'await tools.echo({}); 2' })
          const search = codeMode.ToolSearchRun.create({ config: { mode: 'tools' }, runId: 's', tools: [{ name: 'echo' }], executor: () => 1, onEvent: listener })
          const called = await search.call('tool_call', { id: 'openclaw:core:echo', args: {} })
          await settle()
          counts.push([result.value, run.eventListenerErrors, called.status])
        }
        return counts`),
    ).toEqual(Array(4).fill([2, 2, 'completed']))
  })

  it('a createScope or input mapper that returns a promise hides the namespace or fails the call, naming it', () => {
    expect(
      survives(`
        const events = []
        codeMode.registerCodeModeNamespaceForPlugin('plug', { id: 'scope', globalName: 'Scoped', description: 'd', requiredToolNames: ['issue_get'],
          createScope: async () => { throw new Error('no token') } })
        codeMode.registerCodeModeNamespaceForPlugin('plug', { id: 'mapped', globalName: 'Issues', description: 'd', requiredToolNames: ['issue_get'],
          createScope: () => ({ get: codeMode.createCodeModeNamespaceTool('issue_get', async () => { throw new Error('mapper') }) }) })
        const run = codeMode.CodeModeRun.create({ config: true, runId: 'r', tools: [{ name: 'issue_get', sourceName: 'plug' }], executor: () => 1,
          onEvent: (event) => events.push(event) })
        const result = await run.exec({ code: 'let m; try { await Issues.get(1) } catch (e) { m = e.message }; m' })
        await settle()
        return [events.filter((e) => e.type === 'namespace_hidden').map((e) => e.reason), result.value]`),
    ).toEqual([
      ['createScope failed: createScope must return a plain object, not a promise: it runs synchronously, once per run'],
      'namespace input mapper returned a promise; it must return the tool input itself',
    ])
  })

  it("an executor's promise whose then was replaced is still followed; the agent tools' onUpdate may reject", () => {
    expect(
      survives(`
        const run = codeMode.CodeModeRun.create({ config: true, runId: 'r', tools: [{ name: 'echo' }],
          executor: () => Object.assign(Promise.reject(new Error('denied')), { then() {} }) })
        const result = await run.exec({ code: 'let m; try { await tools.echo({}) } catch (e) { m = e.message }; m' })
        const [exec] = codeMode.createCodeModeAgentTools(run)
        const parked = await exec.execute('t', { code: 'await yield_control(); 1' }, undefined, async () => { throw new Error('update') })
        await settle()
        return [result.value, parked.details.status]`),
    ).toEqual(['denied', 'waiting'])
  })
})

describe.runIf(testingBuild)('panics inside the runtime', () => {
  it('a panic in a synchronous entry point is a thrown JS error, not an abort', async () => {
    expect(() => __testPanic('sync')).toThrow('test fault: panic injected in a synchronous entry point')
    expect(() => __testPanic('no-such-fault')).toThrow(/unknown fault/)
    await alive()
  })

  it('a panic in a VM slice fails the cell internal_error; Node and the next exec are fine', async () => {
    const { run } = makeRun({ runId: 'panic-slice' })
    __testPanic('slice', 'panic-slice')
    const result = expectStatus(await run.exec({ code: '1' }), 'failed')
    expect(result).toMatchObject({ code: 'internal_error', failurePhase: 'host', error: 'code mode runtime failed: test fault: panic injected in a VM slice' })
    expect(expectStatus(await run.exec({ code: '2' }), 'completed').value).toBe(2)
  })

  it('a panic in a bridge call is terminal even when the guest catches everything', async () => {
    const { run, calls } = makeRun({ runId: 'panic-bridge' })
    __testPanic('bridge', 'panic-bridge')
    const result = expectStatus(
      await run.exec({ code: 'text("before"); for (;;) { try { await tools.message({}); break } catch (e) {} }\n"never"' }),
      'failed',
    )
    expect(result).toMatchObject({
      code: 'internal_error',
      failurePhase: 'bridge',
      error: 'code mode runtime failed: test fault: panic injected in a bridge call',
      output: [{ type: 'text', text: 'before' }],
    })
    expect(calls).toHaveLength(0)
    expect(expectStatus(await run.exec({ code: 'await tools.message({ n: 1 })' }), 'completed').value).toEqual({ tool: 'message', input: { n: 1 } })
  })

  it('a panic while a cell resumes fails that wait leg only', async () => {
    const { run } = track(makeRun({ runId: 'panic-wait' }))
    const first = expectStatus(await run.exec({ code: 'await yield_control(); "resumed"' }), 'waiting')
    __testPanic('slice', 'panic-wait')
    expect(expectStatus(await run.wait({ runId: first.runId }), 'failed').code).toBe('internal_error')
    expect(expectStatus(await run.wait({ runId: first.runId }), 'failed').error).toBe('code mode run is unavailable or expired.')
    await alive()
  })

  it('an abort reaches a slice stuck in native code: the leg ends aborted once the watchdog gives up', async () => {
    const { run } = makeRun({ config: { enabled: true, timeoutMs: 200 }, runId: 'stuck-abort' })
    __testStall(4000, 'stuck-abort')
    const controller = new AbortController()
    const leg = run.exec({ code: '1' }, { signal: controller.signal })
    await sleep(50)
    controller.abort()
    const started = performance.now()
    expect(expectStatus(await leg, 'failed').code).toBe('aborted')
    expect(performance.now() - started).toBeLessThan(3500)
    await alive()
  })
})

describe('many VMs failing at once', () => {
  it('a dozen cells hitting the memory limit together all fail memory_limit_exceeded; neighbours complete', async () => {
    const { run } = makeRun({ config: { enabled: true, timeoutMs: 5000, memoryLimitBytes: 2 << 20 } })
    const heapBefore = process.memoryUsage().rss
    const bombs = Array.from({ length: 12 }, (_, i) =>
      run.exec({ code: `const a = []; try { for (;;) a.push("${i}".repeat(1000) + a.length) } catch (e) {} "survived"` }),
    )
    const neighbours = Array.from({ length: 4 }, (_, i) => run.exec({ code: `await new Promise((r) => setTimeout(r, 5)); ${i}` }))
    const results = await Promise.all(bombs)
    for (const result of results) {
      expect(expectStatus(result, 'failed')).toMatchObject({
        code: 'memory_limit_exceeded',
        error: 'code mode cell exceeded memoryLimitBytes (2097152 bytes).',
      })
    }
    expect((await Promise.all(neighbours)).map((r) => expectStatus(r, 'completed').value)).toEqual([0, 1, 2, 3])
    expect(run.telemetry.liveCells).toBe(0)
    // Each VM's heap is capped: 12 bombs cannot have cost the process more than a few caps.
    expect(process.memoryUsage().rss - heapBefore).toBeLessThan(256 << 20)
    await alive()
  })

  it('memory bombs suspended alongside healthy cells do not disturb them', async () => {
    const gate = deferred()
    const { run } = track(makeRun({ config: { enabled: true, timeoutMs: 150, memoryLimitBytes: 2 << 20 }, executor: () => gate.promise }))
    // The bombs get CPU time to spare (a loaded machine must not turn them into timeouts); they
    // share the engine, its workers and its parked-cell store with the healthy cells.
    const bombRun = track(makeRun({ config: { enabled: true, timeoutMs: 10_000, memoryLimitBytes: 2 << 20 }, executor: () => gate.promise })).run
    const healthy = await Promise.all(Array.from({ length: 4 }, (_, i) => run.exec({ code: `const r = await tools.slow({}); [r, ${i}]` })))
    const bombs = await Promise.all(Array.from({ length: 6 }, () => bombRun.exec({ code: 'const a = []; for (;;) a.push({ x: a.length })' })))
    for (const bomb of bombs) expect(expectStatus(bomb, 'failed').code).toBe('memory_limit_exceeded')
    gate.resolve('ok')
    await sleep(20)
    const resumed = await Promise.all(healthy.map((h) => run.wait({ runId: expectStatus(h, 'waiting').runId })))
    expect(resumed.map((r) => expectStatus(r, 'completed').value)).toEqual([['ok', 0], ['ok', 1], ['ok', 2], ['ok', 3]])
  })
})
