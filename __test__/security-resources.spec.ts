// Hostile cells trying to exhaust the host: CPU (ReDoS, job and timer floods, serialisation
// traps, builtins that loop natively), memory (string and array bombs), output and result size.
// Each case asserts the failure code a user sees, that the event loop was never blocked for
// long, and that the runtime still runs the next cell.
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { __testStall, testingBuild } from './support/native-testing.js'
import { createCodeModeAgentTools } from '../index.js'
import { expectStatus, makeRun } from './helpers.js'

const TIMEOUT = { enabled: true, timeoutMs: 250 }
const { run } = makeRun({ config: TIMEOUT })

async function failsWith(code: string, expected: string, config: unknown = TIMEOUT) {
  const { run: r } = makeRun({ config })
  const result = expectStatus(await r.exec({ code }), 'failed')
  expect(result.code, result.error).toBe(expected)
  return result
}

const BUILDS_A_STRING = new Set(['Array.prototype.join.call(huge)', "'' + new Array(2 ** 32 - 1)", 'String.raw({ raw: huge })'])

async function stillAlive() {
  expect(expectStatus(await run.exec({ code: '"alive"' }), 'completed').value).toBe('alive')
}

describe('CPU: everything is stopped by the deadline', () => {
  it('catastrophic regex backtracking (ReDoS) times out', async () => {
    await failsWith('/^(a+)+$/.test("a".repeat(40) + "!")', 'timeout')
    await failsWith('"x".repeat(30).replace(/(x|x)*y/g, "")', 'timeout')
    await stillAlive()
  })

  it('a microtask that re-queues itself forever times out', async () => {
    await failsWith('queueMicrotask(function again() { queueMicrotask(again) }); await new Promise(() => {})', 'timeout')
  })

  it('a thenable chain that never ends times out', async () => {
    await failsWith('const t = { then(r) { r(t) } }; await t', 'timeout')
  })

  it('a promise-job flood hits the memory cap, not the host', async () => {
    await failsWith('for (;;) Promise.resolve().then(() => {})', 'memory_limit_exceeded', { ...TIMEOUT, memoryLimitBytes: 4 << 20 })
    await failsWith('const f = () => { Promise.resolve().then(f); Promise.resolve().then(f) }; f(); await new Promise(() => {})', 'memory_limit_exceeded', {
      enabled: true,
      timeoutMs: 5000,
      memoryLimitBytes: 4 << 20,
    })
  })

  it('zero-delay timers that re-arm themselves time out', async () => {
    await failsWith('(function again() { setTimeout(again, 0) })(); await new Promise(() => {})', 'timeout')
    await failsWith('for (let i = 0; i < 1000; i++) setTimeout(function again() { setTimeout(again, 0) }, 0); await new Promise(() => {})', 'timeout')
  })

  it('a timer flood is capped at 1000 pending timers with a catchable error', async () => {
    const { run: r } = makeRun({ config: TIMEOUT })
    const result = await r.exec({
      code: `let error; try { for (;;) setTimeout(() => {}, 1e9) } catch (e) { error = e.message }
             error`,
    })
    expect(expectStatus(result, 'completed').value).toBe('Too many pending timers: at most 1000 may be scheduled at once.')
  })

  it('toJSON, getters and Proxy traps that spin while the result is serialised time out', async () => {
    for (const code of [
      '({ toJSON() { for (;;) {} } })',
      '({ get x() { for (;;) {} } })',
      'new Proxy({}, { ownKeys() { for (;;) {} } })',
      'new Proxy([], { get(t, k) { return k === "length" ? 2 ** 32 - 1 : undefined } })',
    ]) {
      await failsWith(code, 'timeout')
    }
  })

  it('traps that spin while output or a rejection is printed time out', async () => {
    await failsWith('json({ toJSON() { for (;;) {} } })', 'timeout')
    await failsWith('console.log({ get x() { for (;;) {} } })', 'timeout')
    await failsWith('Promise.reject({ __proto__: Error.prototype, get name() { for (;;) {} } }); 1', 'timeout')
  })

  it('spinning inside a tool input or a catch-all loop times out', async () => {
    const { run: r, calls } = makeRun({ config: TIMEOUT })
    const result = expectStatus(await r.exec({ code: 'await tools.message({ get x() { for (;;) {} } })' }), 'failed')
    expect(result.code).toBe('timeout')
    expect(calls).toHaveLength(0)
    await failsWith('for (;;) { try { for (;;) {} } catch { } finally { continue } }', 'timeout')
  })

  it('builtins that loop natively over a huge length stop at the deadline', async () => {
    // They used to refuse lengths over 2^24 with a RangeError, which JavaScript does not allow
    // (__test__/conformance.spec.ts); now their loops poll the deadline.
    for (const attempt of [
      'Array.prototype.join.call(huge)', "'' + new Array(2 ** 32 - 1)", 'Array.prototype.sort.call(huge)',
      'Array.prototype.reverse.call(huge)', 'Array.prototype.splice.call(huge, 0, 1)', 'Array.prototype.unshift.call(huge, 0)',
      '[new Array(2 ** 32 - 1)].flat()', 'JSON.stringify({}, new Array(2 ** 32 - 1))', 'String.raw({ raw: huge })',
    ]) {
      const code = `const huge = { length: 2 ** 40 }; ${attempt}`
      if (!BUILDS_A_STRING.has(attempt)) {
        await failsWith(code, 'timeout')
        continue
      }
      // These build a string of 2^40 parts: the deadline or the memory cap stops them, whichever
      // comes first (String.raw reaches 64 MiB in about 0.5 s here, twice its 250 ms budget).
      const result = expectStatus(await makeRun({ config: TIMEOUT }).run.exec({ code }), 'failed')
      expect(['timeout', 'memory_limit_exceeded'], result.error).toContain(result.code)
    }
    await stillAlive()
  })

  it.runIf(testingBuild)('a slice stuck in native code still ends in timeout, and other cells keep running', async () => {
    const { run: stuck } = makeRun({ config: TIMEOUT, runId: 'stuck-run' })
    __testStall(5000, 'stuck-run')
    const started = performance.now()
    const parallel = Array.from({ length: 4 }, (_, n) => run.exec({ code: `${n} + 1` }))
    const result = expectStatus(await stuck.exec({ code: 'text("started"); 1' }), 'failed')
    expect(result.code).toBe('timeout')
    expect(performance.now() - started).toBeLessThan(4500)
    expect((await Promise.all(parallel)).map((r) => expectStatus(r, 'completed').value)).toEqual([1, 2, 3, 4])
    await stillAlive()
  })

  it('Atomics.wait cannot block the worker, and waitAsync does not exist', async () => {
    const result = await run.exec({
      code: `const i32 = new Int32Array(new SharedArrayBuffer(8));
        const out = [Atomics.add(i32, 0, 2), Atomics.load(i32, 0), Atomics.notify(i32, 0, 1), typeof Atomics.waitAsync];
        try { Atomics.wait(i32, 0, 2, 60000) } catch (e) { out.push(e.message) }
        out`,
    })
    expect(expectStatus(result, 'completed').value).toEqual([0, 2, 0, 'undefined', 'cannot block in this thread'])
  })

  it('a FinalizationRegistry callback runs only as a guest job, under the deadline', async () => {
    const { run: r } = makeRun({ config: TIMEOUT })
    const first = await r.exec({
      code: `const registry = new FinalizationRegistry(() => { for (;;) {} });
        (() => { registry.register({}, 'held') })();
        await yield_control();
        'resumed'`,
    })
    // The collection before parking (or an earlier one) queues the callback; it spins in a leg.
    const end = first.status === 'waiting' ? await r.wait({ runId: first.runId }) : first
    expect(expectStatus(end, 'failed').code).toBe('timeout')
  })

  it('WeakRef and FinalizationRegistry hold nothing of the host', async () => {
    const result = await run.exec({
      code: `const target = {};
        const ref = new WeakRef(target);
        const registry = new FinalizationRegistry(() => {});
        registry.register(target, 'x');
        [Object.getPrototypeOf(ref) === WeakRef.prototype, ref.deref() === target, Object.getOwnPropertyNames(registry), registry.unregister(target)]`,
    })
    expect(expectStatus(result, 'completed').value).toEqual([true, true, [], false])
  })
})

describe('hostile source', () => {
  it('deeply nested source fails invalid_input instead of overflowing the parser stack and killing Node', () => {
    // In a child process: before the fix each of these aborted Node with SIGSEGV.
    const index = fileURLToPath(new URL('../index.js', import.meta.url))
    const script = `
      const { CodeModeRun } = require(${JSON.stringify(index)})
      const run = CodeModeRun.create({ config: { enabled: true, timeoutMs: 5000 }, runId: 'r', tools: [{ name: 'm' }], executor: () => 1 })
      const n = 100000
      const shapes = {
        brackets: '['.repeat(n) + ']'.repeat(n), parens: '('.repeat(n) + '1' + ')'.repeat(n), blocks: '{'.repeat(n) + '}'.repeat(n),
        unary: '!'.repeat(n) + '1', arrows: '() => '.repeat(n / 10) + '1', binary: '1' + '+1'.repeat(n),
        member: 'a' + '.b'.repeat(n), calls: 'f' + '()'.repeat(n), templates: '\`\${'.repeat(n / 2) + '1' + '}\`'.repeat(n / 2),
      }
      ;(async () => {
        const out = []
        for (const [shape, code] of Object.entries(shapes)) {
          for (const language of ['javascript', 'typescript']) {
            const r = await run.exec({ code, language })
            out.push(shape + ' ' + language + ' ' + r.code + ' ' + /nested too deeply/.test(r.error))
          }
        }
        const ts = await run.exec({ code: 'let x: ' + 'Array<'.repeat(n / 4) + 'number' + '>'.repeat(n / 4) + ' = []', language: 'typescript' })
        out.push('generics ' + ts.code + ' ' + /nested too deeply/.test(ts.error))
        const ok = await run.exec({ code: '[[[[[[[[[[1]]]]]]]]]].flat(Infinity)[0]' })
        out.push('shallow ' + ok.status + ' ' + ok.value)
        console.log(out.join('\\n'))
      })()`
    const child = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 60_000 })
    expect(child.signal, child.stderr).toBeNull()
    expect(child.status, child.stderr).toBe(0)
    const lines = child.stdout.trim().split('\n')
    expect(lines).toHaveLength(20)
    for (const line of lines.slice(0, 19)) expect(line).toMatch(/ invalid_input true$/)
    expect(lines[19]).toBe('shallow completed 1')
  })
})

describe('memory and size bombs', () => {
  const SMALL = { enabled: true, timeoutMs: 2000, memoryLimitBytes: 4 << 20 }

  it('string bombs hit the memory cap terminally (try/catch cannot keep the cell alive)', async () => {
    await failsWith('try { "x".repeat(2 ** 28) } catch (e) {} "survived"', 'memory_limit_exceeded', SMALL)
    await failsWith('let s = "ab"; const keep = []; try { for (;;) { s = s + s; keep.push(s.slice(1)) } } catch (e) {} "survived"', 'memory_limit_exceeded', SMALL)
    await failsWith('try { "x".repeat(1e6).split("") } catch (e) {} "survived"', 'memory_limit_exceeded', SMALL)
  })

  it('array and buffer bombs hit the memory cap terminally', async () => {
    await failsWith('try { new Array(1e7).fill(0) } catch (e) {} "survived"', 'memory_limit_exceeded', SMALL)
    await failsWith('try { Array.from({ length: 2 ** 32 - 1 }) } catch (e) {} "survived"', 'memory_limit_exceeded', SMALL)
    await failsWith('try { new Uint8Array(64 << 20) } catch (e) {} "survived"', 'memory_limit_exceeded', SMALL)
    await failsWith('const m = new Map(); try { for (let i = 0; ; i++) m.set(i, [i]) } catch (e) {} "survived"', 'memory_limit_exceeded', SMALL)
  })

  it('typed arrays first touched at the memory cap end the cell terminally', async () => {
    // Building the typed-array builtins on first use needs memory too (vendored QuickJS patch).
    await failsWith('const a = []; try { for (;;) a.push([a.length]) } catch (e) {} [typeof Uint8Array, new Uint8Array(4).length]', 'memory_limit_exceeded', SMALL)
    await failsWith('const a = []; try { for (;;) a.push([a.length]) } catch (e) {} try { atob("%") } catch (e) { e.name }', 'memory_limit_exceeded', SMALL)
  })

  it('a cell over the memory cap cannot reach the gateway from its catch block', async () => {
    const { run: r, calls } = makeRun({ config: SMALL })
    const result = expectStatus(
      await r.exec({ code: 'try { const a = []; for (;;) a.push(new Array(1e5).fill(0)) } catch (e) { await tools.exec({ command: "rm -rf /" }) }' }),
      'failed',
    )
    expect(result.code).toBe('memory_limit_exceeded')
    expect(calls).toEqual([])
  })

  it('a rope that outgrows the string length limit is a plain failure', async () => {
    const result = await failsWith('let s = "ab"; for (;;) s += s', 'internal_error', SMALL)
    expect(result.error).toMatch(/^InternalError: string too long/)
  })

  it('deep recursion is a catchable RangeError, also inside getters and toJSON', async () => {
    const result = await run.exec({
      code: `const out = [];
        const f = (n) => f(n + 1) + 1;
        try { f(0) } catch (e) { out.push(e.name) }
        const o = { get x() { return this.x } };
        try { o.x } catch (e) { out.push(e.name) }
        try { JSON.stringify({ toJSON() { return { a: this } } }) } catch (e) { out.push(e.name) }
        out`,
    })
    expect(expectStatus(result, 'completed').value).toEqual(['RangeError', 'RangeError', 'RangeError'])
  })

  it('a result nested too deep fails with a clear message; one QuickJS can serialise the host can too', async () => {
    const tooDeep = await failsWith('let a = []; for (let i = 0; i < 1e5; i++) a = [a]; a', 'internal_error')
    expect(tooDeep.error).toBe('RangeError: result is not JSON-serialisable: Maximum call stack size exceeded')
    const { run: r } = makeRun({ config: { enabled: true, timeoutMs: 2000 } })
    const [exec] = createCodeModeAgentTools(r)
    const deep = await exec.execute('call-1', { code: 'let a = 0; for (let i = 0; i < 3000; i++) a = { a }; a' })
    expect(deep.details.status).toBe('completed')
    expect(deep.content[0].text.length).toBeGreaterThan(3000)
  })

  it('a huge result counts against maxOutputBytes', async () => {
    await failsWith('"x".repeat(2000)', 'output_limit_exceeded', { enabled: true, maxOutputBytes: 1024 })
    await failsWith('Array.from({ length: 500 }, (_, i) => i)', 'output_limit_exceeded', { enabled: true, maxOutputBytes: 1024 })
  })
})

describe('output floods', () => {
  const CAPPED = { enabled: true, timeoutMs: 2000, maxOutputBytes: 1024 }

  it('text() in a loop stops at the cap, keeps what fits, and cannot be caught', async () => {
    const result = await failsWith('for (;;) { try { text("y".repeat(100)) } catch (e) {} }', 'output_limit_exceeded', CAPPED)
    const kept = (result.output ?? []).map((o) => (o.type === 'text' ? o.text : '')).join('')
    // Eight items of 100 bytes and their 26-byte places in the output.
    expect(kept).toBe('y'.repeat(800))
    expect(JSON.stringify(result.output).length).toBeLessThanOrEqual(1024)
  })

  it('json() of one big value is all or nothing', async () => {
    const result = await failsWith('json({ big: "z".repeat(5000) }); "never"', 'output_limit_exceeded', CAPPED)
    expect(result.output ?? []).toEqual([])
  })

  it('console methods with many arguments count every byte', async () => {
    for (const method of ['log', 'info', 'warn', 'error', 'debug']) {
      const result = await failsWith(`console.${method}(...Array(5000).fill("w")); "never"`, 'output_limit_exceeded', CAPPED)
      expect(JSON.stringify(result.output).length).toBeLessThan(4096)
    }
  })

  it('floating rejections in a loop cannot flood past the cap', async () => {
    await failsWith('for (let i = 0; i < 1e4; i++) Promise.reject(new Error("e".repeat(50))); await null; "never"', 'output_limit_exceeded', CAPPED)
  })

  it('a yield_control flood is one pending entry, not a megabyte of pendingToolCalls', async () => {
    const { run: r } = makeRun({ config: CAPPED })
    const first = expectStatus(await r.exec({ code: 'for (let i = 0; i < 5000; i++) yield_control(); await yield_control(); "resumed"' }), 'waiting')
    expect(first.pendingToolCalls).toHaveLength(1)
    expect(JSON.stringify(first).length).toBeLessThan(2048)
    expect(expectStatus(await r.wait({ runId: first.runId }), 'completed').value).toBe('resumed')
  })

  it('the output cap resets per leg but each leg is capped', async () => {
    const { run: r } = makeRun({ config: { ...CAPPED, timeoutMs: 200 } })
    const first = expectStatus(await r.exec({ code: 'text("a".repeat(990)); await yield_control(); for (;;) text("b".repeat(100))' }), 'waiting')
    const second = expectStatus(await r.wait({ runId: first.runId }), 'failed')
    expect(second.code).toBe('output_limit_exceeded')
  })
})
