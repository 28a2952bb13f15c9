// Hostile data across the bridge: prototype pollution in both directions, oversized and
// non-JSON tool results, guessed or foreign runIds, and failures dressed up as success. Each
// case checks the host side too: Node's prototypes, what the executor received, the result.
import { afterEach, describe, expect, it } from 'vitest'
import type { CodeModeRun, NestedToolCall } from '../index.js'
import { deferred, expectStatus, makeRun, sleep } from './helpers.js'

const POLLUTION = '{"__proto__": {"polluted": "yes"}, "constructor": {"prototype": {"polluted": "yes"}}, "safe": 1}'

function hostIsClean() {
  const probe: Record<string, unknown> = {}
  expect(probe.polluted).toBeUndefined()
  expect(Object.getOwnPropertyNames(Object.prototype)).not.toContain('polluted')
  expect(Object.getOwnPropertyNames(Array.prototype)).not.toContain('polluted')
  expect(({} as Record<string, unknown>).toJSON).toBeUndefined()
}

function isPlainData(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return typeof value !== 'function'
  const proto = Object.getPrototypeOf(value)
  if (proto !== Object.prototype && proto !== Array.prototype) return false
  return Reflect.ownKeys(value).every((k) => typeof k === 'string' && isPlainData((value as Record<string, unknown>)[k]))
}

const runs: CodeModeRun[] = []
afterEach(() => {
  for (const run of runs.splice(0)) run.abort()
  hostIsClean()
})

describe('prototype pollution', () => {
  it('a tool result with __proto__ and constructor keys gives the guest own data keys only', async () => {
    const { run } = makeRun({ executor: () => JSON.parse(POLLUTION) })
    const result = await run.exec({
      code: `const r = await tools.message({});
        [Object.keys(r).sort(), ({}).polluted, Object.getPrototypeOf(r) === Object.prototype, r.__proto__.polluted, r.polluted, Object.prototype.polluted]`,
    })
    expect(expectStatus(result, 'completed').value).toEqual([['__proto__', 'constructor', 'safe'], null, true, 'yes', null, null])
    hostIsClean()
  })

  it('a guest tool input with __proto__ keys reaches the executor as plain data with own keys', async () => {
    const { run, calls } = makeRun()
    const result = await run.exec({
      code: `const input = JSON.parse(${JSON.stringify(POLLUTION)});
        input.nested = JSON.parse('{"__proto__": {"isAdmin": true}}');
        await tools.message(input)`,
    })
    expectStatus(result, 'completed')
    const input = calls[0].input as Record<string, unknown>
    expect(Object.getPrototypeOf(input)).toBe(Object.prototype)
    expect(Object.prototype.hasOwnProperty.call(input, '__proto__')).toBe(true)
    expect(Object.keys(input).sort()).toEqual(['__proto__', 'constructor', 'nested', 'safe'])
    expect((input as { polluted?: unknown }).polluted).toBeUndefined()
    expect((input.nested as { isAdmin?: unknown }).isAdmin).toBeUndefined()
    expect(isPlainData(calls[0].input)).toBe(true)
    hostIsClean()
  })

  it('a guest result and json() output with __proto__ keys do not pollute the host', async () => {
    const { run } = makeRun()
    const result = expectStatus(
      await run.exec({ code: `json(JSON.parse(${JSON.stringify(POLLUTION)})); JSON.parse(${JSON.stringify(POLLUTION)})` }),
      'completed',
    )
    const value = result.value as Record<string, unknown>
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype)
    expect(Object.keys(value).sort()).toEqual(['__proto__', 'constructor', 'safe'])
    const item = result.output?.[0]
    expect(item?.type).toBe('json')
    expect(Object.getPrototypeOf((item as { value: object }).value)).toBe(Object.prototype)
    hostIsClean()
  })

  it('a guest that pollutes its own prototypes changes nothing the host receives', async () => {
    const { run, calls } = makeRun()
    const result = await run.exec({
      code: `Object.prototype.polluted = 'guest'; Array.prototype.extra = 'guest';
        Object.defineProperty(Object.prototype, 'then', { value: undefined, configurable: true });
        await tools.message({ list: [1] });
        ({ list: [1] })`,
    })
    expect(expectStatus(result, 'completed').value).toEqual({ list: [1] })
    expect(calls[0].input).toEqual({ list: [1] })
    expect(isPlainData(calls[0].input)).toBe(true)
    hostIsClean()
  })

  it('every NestedToolCall field is host-made: the guest controls only input', async () => {
    const { run, calls } = makeRun({ sessionId: 'session-9', agentId: 'agent-9' })
    await run.exec({ code: `await tools.call("openclaw:core:message", { name: "exec", id: "openclaw:core:exec", runId: "other", sessionId: "x", toolCallId: "forged" })` }, { toolCallId: 'exec-1' })
    const call = calls[0]
    expect(call).toMatchObject({
      id: 'openclaw:core:message',
      name: 'message',
      source: 'openclaw',
      sourceName: 'core',
      runId: 'run-1',
      sessionId: 'session-9',
      agentId: 'agent-9',
      parentToolCallId: 'exec-1',
    })
    expect(call.toolCallId).toMatch(/^cm_[0-9a-f]{8}_\d+_\d+$/)
    expect(call.input).toEqual({ name: 'exec', id: 'openclaw:core:exec', runId: 'other', sessionId: 'x', toolCallId: 'forged' })
  })
})

describe('tool results the bridge must refuse or reshape', () => {
  it('a huge tool result fails the call with a clear error over the bridge payload cap; the cell goes on', async () => {
    const { run } = makeRun({
      config: { enabled: true, memoryLimitBytes: 4 << 20 },
      executor: (call: NestedToolCall) => (call.name === 'read_file' ? 'x'.repeat(2 << 20) : 'small'),
    })
    const result = await run.exec({
      code: `let error; try { await tools.read_file({ path: 'big' }) } catch (e) { error = e.message }
        [error, await tools.message({})]`,
    })
    expect(expectStatus(result, 'completed').value).toEqual([
      `tool result is ${(2 << 20) + 2} bytes, over the bridge payload cap of ${1 << 20} bytes (memoryLimitBytes / 4).`,
      'small',
    ])
  })

  it('a huge executor error message is capped the same way', async () => {
    const { run } = makeRun({
      config: { enabled: true, memoryLimitBytes: 4 << 20 },
      executor: () => {
        throw new Error('e'.repeat(2 << 20))
      },
    })
    const result = await run.exec({ code: 'try { await tools.message({}) } catch (e) { return e.message.length < 200 }' })
    expect(expectStatus(result, 'completed').value).toBe(true)
  })

  it('results that are not JSON become JSON-safe values or guest errors, never host objects', async () => {
    const revoked = Proxy.revocable({}, {})
    revoked.revoke()
    const results: Record<string, () => unknown> = {
      fn: () => () => 'host function',
      symbol: () => Symbol('host'),
      bigint: () => ({ n: 2n ** 70n }),
      cyclic: () => {
        const o: Record<string, unknown> = { a: 1 }
        o.self = o
        return o
      },
      revoked: () => revoked.proxy,
      toJSONThrows: () => ({ toJSON() { throw new Error('nope') } }),
      getterThrows: () => ({ get x() { throw new Error('nope') } }),
      map: () => new Map([[1, 2]]),
      error: () => new Error('as value'),
      undef: () => undefined,
      nan: () => [NaN, Infinity, -0],
    }
    const { run } = makeRun({ executor: (call: NestedToolCall) => results[(call.input as { k: string }).k]() })
    const result = await run.exec({
      code: `const out = {};
        for (const k of ${JSON.stringify(Object.keys(results))}) {
          try { out[k] = await tools.message({ k }) } catch (e) { out[k] = 'error: ' + e.message }
        }
        out`,
    })
    expect(expectStatus(result, 'completed').value).toEqual({
      fn: null,
      symbol: null,
      bigint: { n: '1180591620717411303424' },
      cyclic: { a: 1, self: '[Circular]' },
      revoked: "error: Cannot perform 'get' on a proxy that has been revoked",
      toJSONThrows: 'error: tool result is not JSON-serialisable: nope',
      getterThrows: 'error: tool result is not JSON-serialisable: nope',
      map: {},
      error: {},
      undef: null,
      nan: [null, null, 0],
    })
  })

  it('tool results nested deeper than either side can handle are catchable errors', async () => {
    const nest = (depth: number) => {
      let deep: unknown = 1
      for (let i = 0; i < depth; i++) deep = [deep]
      return deep
    }
    const { run } = makeRun({ executor: (call: NestedToolCall) => nest((call.input as { depth: number }).depth) })
    const result = await run.exec({
      code: `const out = [];
        for (const depth of [100, 4000, 20000, 200000]) {
          try { const r = await tools.message({ depth }); out.push(Array.isArray(r) ? 'parsed' : 'odd') } catch (e) { out.push(e.message) }
        }
        out`,
    })
    const [shallow, deep, deeper, deepest] = expectStatus(result, 'completed').value as string[]
    expect(shallow).toBe('parsed')
    expect(deep).toMatch(/^parsed$|^tool result is not/)
    for (const message of [deeper, deepest]) expect(message).toMatch(/^tool result is not (valid JSON|JSON-serialisable)/)
  })
})

describe('runId tokens', () => {
  it('guessed, malformed and prototype-named runIds are all unavailable', async () => {
    const slow = deferred()
    const { run } = makeRun({ config: { enabled: true, timeoutMs: 100 }, executor: () => slow.promise })
    runs.push(run)
    const real = expectStatus(await run.exec({ code: 'await tools.slow({})' }), 'waiting')
    const guesses = [
      ...Array.from({ length: 100 }, () => `cm_${Array.from({ length: 32 }, () => Math.floor(Math.random() * 16).toString(16)).join('')}`),
      real.runId.toUpperCase(), real.runId.slice(0, -1), `${real.runId} `, real.runId.slice(3), `cm_${'0'.repeat(32)}`,
      '__proto__', 'constructor', 'toString', 'hasOwnProperty', '1', 'cm_', 'x'.repeat(100_000),
    ]
    for (const runId of guesses) {
      const denied = expectStatus(await run.wait({ runId }), 'failed')
      expect(denied).toMatchObject({ code: 'invalid_input', error: 'code mode run is unavailable or expired.' })
    }
    for (const input of [{ runId: 42 }, { runId: { toString: () => real.runId } }, { runId: [real.runId] }]) {
      expect(expectStatus(await run.wait(input as never), 'failed').code).toBe('invalid_input')
    }
    slow.resolve('owner')
    await sleep(10)
    expect(expectStatus(await run.wait({ runId: real.runId }), 'completed').value).toBe('owner')
  })

  it('a foreign run, session, session key or agent cannot resume, consume or disturb the token', async () => {
    const slow = deferred()
    const { run, events } = makeRun({ config: { enabled: true, timeoutMs: 100 }, executor: () => slow.promise })
    runs.push(run)
    const first = expectStatus(await run.exec({ code: 'text("secret output"); await tools.slow({})' }), 'waiting')
    for (const other of [{ runId: 'run-2' }, { sessionId: 'other' }, { sessionKey: 'agent:other:chat' }, { agentId: 'intruder' }]) {
      const intruder = makeRun({ ...other, config: { enabled: true, timeoutMs: 100 } })
      runs.push(intruder.run)
      for (let i = 0; i < 3; i++) {
        const denied = expectStatus(await intruder.run.wait({ runId: first.runId }), 'failed')
        expect(denied).toMatchObject({ code: 'invalid_input', error: 'code mode run belongs to a different session.' })
        expect(denied.output).toBeUndefined()
      }
      expect(intruder.events).toEqual([])
      expect(intruder.run.telemetry.resumedCells).toBe(0)
    }
    expect(events.filter((e) => e.type === 'cell_resumed')).toHaveLength(0)
    slow.resolve('mine')
    await sleep(10)
    expect(expectStatus(await run.wait({ runId: first.runId }), 'completed').value).toBe('mine')
  })

  it('a token is single-use: a resumed or finished cell cannot be resumed again', async () => {
    const { run } = makeRun({ config: { enabled: true, timeoutMs: 100 } })
    const first = expectStatus(await run.exec({ code: 'await yield_control(); await yield_control(); "end"' }), 'waiting')
    const second = expectStatus(await run.wait({ runId: first.runId }), 'waiting')
    expect(second.runId).not.toBe(first.runId)
    expect(expectStatus(await run.wait({ runId: first.runId }), 'failed').error).toBe('code mode run is unavailable or expired.')
    expect(expectStatus(await run.wait({ runId: second.runId }), 'completed').value).toBe('end')
    expect(expectStatus(await run.wait({ runId: second.runId }), 'failed').error).toBe('code mode run is unavailable or expired.')
  })

  it('tokens are 128-bit random and never repeat', async () => {
    // Two sessions: one may park at most a quarter of the gateway's 64 cells.
    const pair = ['tokens-a', 'tokens-b'].map((sessionId) => makeRun({ sessionId, config: { enabled: true, timeoutMs: 100 } }).run)
    runs.push(...pair)
    const tokens = new Set<string>()
    for (let i = 0; i < 20; i++) {
      const r = expectStatus(await pair[i % 2].exec({ code: 'await yield_control()' }), 'waiting')
      expect(r.runId).toMatch(/^cm_[0-9a-f]{32}$/)
      tokens.add(r.runId)
    }
    expect(tokens.size).toBe(20)
  })

  it('a cell cannot learn or use its own or another cell\'s runId from inside', async () => {
    const { run } = makeRun({ config: { enabled: true, timeoutMs: 100 } })
    runs.push(run)
    const first = expectStatus(await run.exec({ code: 'await yield_control()' }), 'waiting')
    const result = await run.exec({
      code: `const found = [];
        const walk = (o, d) => { if (d > 4 || o === null || typeof o !== 'object') return; for (const k of Reflect.ownKeys(o)) { const v = o[k]; if (typeof v === 'string' && v.startsWith('cm_')) found.push(v); walk(v, d + 1) } };
        walk(globalThis, 0);
        [found, typeof wait, typeof globalThis.exec]`,
    })
    expect(expectStatus(result, 'completed').value).toEqual([[], 'undefined', 'undefined'])
    expect(JSON.stringify(result)).not.toContain(first.runId)
  })
})

describe('failures never look like success', () => {
  it('a floating rejection is reported, and a cell that then throws is failed', async () => {
    const { run } = makeRun()
    const result = expectStatus(await run.exec({ code: 'Promise.reject(new Error("floating")); await null; throw new Error("real")' }), 'failed')
    expect(result.code).toBe('internal_error')
    expect(result.error).toMatch(/^Error: real/)
    expect(result.output).toEqual([{ type: 'text', text: 'Unhandled promise rejection: Error: floating' }])
  })

  it('an awaited rejection fails the cell even when other rejections were handled', async () => {
    const { run } = makeRun()
    const result = expectStatus(
      await run.exec({ code: 'Promise.reject(1).catch(() => {}); const p = Promise.reject(new TypeError("late")); await null; await p' }),
      'failed',
    )
    expect(result.error).toMatch(/^TypeError: late/)
  })

  it('rejecting with values that are not errors, or that throw when printed, still fails', async () => {
    const { run } = makeRun()
    for (const thrown of ['undefined', 'null', '42', '{ toString() { throw new Error("x") } }', 'new Proxy({}, { get() { throw 1 } })', 'Object.create(null)']) {
      const result = expectStatus(await run.exec({ code: `throw ${thrown}` }), 'failed')
      expect(result.code).toBe('internal_error')
      expect(result.error.length).toBeGreaterThan(0)
    }
  })

  it('an async function rejection inside a tool callback chain surfaces as output, never as the value', async () => {
    const { run } = makeRun()
    const result = expectStatus(
      await run.exec({ code: 'tools.message({}).then(() => { throw new Error("in callback") }); await tools.message({}); "value"' }),
      'completed',
    )
    expect(result.value).toBe('value')
    expect(result.output).toEqual([{ type: 'text', text: 'Unhandled promise rejection: Error: in callback' }])
  })

  it('a cell that awaits nothing it can settle fails instead of completing', async () => {
    const { run } = makeRun()
    const result = expectStatus(await run.exec({ code: 'Promise.reject(new Error("x")); await new Promise(() => {})' }), 'failed')
    expect(result.error).toMatch(/can never finish/)
    expect(result.output).toEqual([{ type: 'text', text: 'Unhandled promise rejection: Error: x' }])
  })
})
