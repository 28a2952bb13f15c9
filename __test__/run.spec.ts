import { describe, expect, it } from 'vitest'
import { CodeModeRun, ToolSearchRun, type NestedToolCall } from '../index.js'
import { TOOLS, deferred, expectStatus, makeRun, sleep } from './helpers.js'

describe('CodeModeRun.create', () => {
  it('stays inactive when the config is off, there are no tools, or tools are disabled', () => {
    const base = { runId: 'r', tools: TOOLS, executor: () => null }
    expect(CodeModeRun.create({ ...base }).active).toBe(false)
    expect(CodeModeRun.create({ ...base, config: { timeoutMs: 5000 } }).active).toBe(false)
    expect(CodeModeRun.create({ ...base, config: true, tools: [] }).active).toBe(false)
    expect(CodeModeRun.create({ ...base, config: true, disableTools: true }).active).toBe(false)
    expect(CodeModeRun.create({ ...base, config: true, rawModelCall: true }).active).toBe(false)
    const off = CodeModeRun.create({ ...base })
    expect(off.modelTools).toEqual([])
  })

  it('exposes exactly exec and wait when active', () => {
    const { run } = makeRun()
    expect(run.active).toBe(true)
    expect(run.modelTools.map((t) => t.name)).toEqual(['exec', 'wait'])
    const exec = run.modelTools[0]
    expect(exec.parameters).toMatchObject({
      type: 'object',
      properties: { code: { type: 'string' }, language: { type: 'string', enum: ['javascript', 'typescript'] } },
    })
  })

  it('builds ids and order per ARCHITECTURE.md decision 1 and keeps MCP out of ALL_TOOLS', () => {
    const { run } = makeRun({
      tools: [
        { name: 'pick', source: 'client', sourceName: 'app' },
        { name: 'create_issue', source: 'mcp', sourceName: 'github' },
        { name: 'browse', source: 'openclaw', sourceName: 'browser' },
        { name: 'message' },
        { name: 'exec' },
        { name: 'wait' },
        { name: 'tool_search' },
        { name: 'tool_search_code' },
        { name: 'tool_describe' },
        { name: 'tool_call' },
      ],
    })
    expect(run.catalog.map((t) => t.id)).toEqual([
      'openclaw:core:message',
      'openclaw:core:exec',
      'openclaw:browser:browse',
      'client:app:pick',
    ])
    expect(run.telemetry).toMatchObject({ catalogSize: 5, sources: { openclaw: 3, mcp: 1, client: 1 }, excludedTools: 5 })
  })

  it('throws only on misuse', () => {
    expect(() => CodeModeRun.create({ runId: 'r', tools: TOOLS } as never)).toThrow(/executor must be a function/)
    expect(() => CodeModeRun.create({ runId: 'r', tools: {} as never, executor: () => 1 })).toThrow(/tools must be an array/)
    const cyclic: Record<string, unknown> = { type: 'object' }
    cyclic.self = cyclic
    const run = CodeModeRun.create({
      runId: 'r',
      config: true,
      tools: [{ name: 'ok' }, { name: 'bad', parameters: cyclic }, 5 as never, { name: 'big', parameters: { n: 1n } } as never],
      executor: () => 1,
    })
    expect(run.catalog.map((t) => t.name)).toEqual(['ok'])
    expect(run.telemetry.invalidTools).toBe(3)
  })

  it('skips a tool whose schema is too deep to read, and keeps the others (ToolSearchRun too)', () => {
    let deep: Record<string, unknown> = { type: 'string' }
    for (let i = 0; i < 70; i++) deep = { type: 'object', properties: { a: deep } }
    const tools = [{ name: 'read_file' }, { name: 'deep_tool', parameters: deep }, { name: 'write_file' }]
    const run = CodeModeRun.create({ runId: 'r', config: true, tools, executor: () => 1 })
    expect(run.active).toBe(true)
    expect(run.catalog.map((t) => t.name)).toEqual(['read_file', 'write_file'])
    expect(run.telemetry.invalidTools).toBe(1)
    expect(ToolSearchRun.create({ runId: 'r', config: { mode: 'tools' }, tools, executor: () => 1 }).active).toBe(true)
  })
})

describe('exec', () => {
  it('fails with invalid_input on bad input instead of throwing', async () => {
    const { run } = makeRun()
    for (const [input, message] of [
      [undefined, /exec input must be an object/],
      ['1 + 1', /exec input must be an object/],
      [{}, /exec requires a non-empty code string/],
      [{ code: 42 }, /code must be a string, not number/],
      [{ code: 'a', command: 'b' }, /code and command must match/],
      [{ code: '1', language: 'python' }, /language must be/],
    ] as const) {
      const result = expectStatus(await run.exec(input as never), 'failed')
      expect(result.code).toBe('invalid_input')
      expect(result.error).toMatch(message)
    }
    expect(expectStatus(await run.exec({ command: '40 + 2' }), 'completed').value).toBe(42)
    expect(expectStatus(await run.exec({ code: '7', command: '7' }), 'completed').value).toBe(7)
  })

  it('names a null input, and an input whose code cannot be read, with what was passed', async () => {
    const { run } = makeRun()
    const boom = () => {
      throw new Error('boom')
    }
    const getter = (key: string, get: () => never) => Object.defineProperty({}, key, { get }) as never
    const revoked = () => {
      const { proxy, revoke } = Proxy.revocable({}, {})
      revoke()
      return proxy as never
    }
    for (const [leg, message] of [
      [() => run.exec(null as never), 'exec input must be an object like { code: string, language?: "javascript" | "typescript" }, not null.'],
      [() => run.wait(null as never), 'wait input must be an object like { runId: string }, not null.'],
      [() => run.exec(Object.defineProperty({}, 'code', { get: boom }) as never), 'exec input could not be read: reading its code threw: boom'],
      [() => run.exec(new Proxy({ code: '1' }, { get: boom }) as never), 'exec input could not be read: reading its code threw: boom'],
      [() => run.exec(new Proxy({}, { getOwnPropertyDescriptor: boom }) as never), 'exec input could not be read: reading its code threw: boom'],
      [() => run.wait(Object.defineProperty({}, 'runId', { get: boom }) as never), 'wait input could not be read: reading its runId threw: boom'],
      [() => run.wait(Object.defineProperty({}, 'run_id', { get: boom }) as never), 'wait input could not be read: reading its run_id threw: boom'],
      [() => run.exec(revoked()), /^exec input could not be read: reading its code threw: .*revoked/],
      [() => run.exec(getter('language', () => { throw 42 })), 'exec input could not be read: reading its language threw: a value of type number without a message'],
      [() => run.exec(getter('code', () => { throw new Error('x'.repeat(5000)) })), `exec input could not be read: reading its code threw: ${'x'.repeat(1000)}…`],
      // A message the thrown value inherits (a DOMException's is a getter on its prototype).
      [() => run.exec(getter('code', () => { throw new DOMException('stopped', 'AbortError') })), 'exec input could not be read: reading its code threw: stopped'],
      // The thrown Error's own `message` getter throws in turn: that is not read further.
      [() => run.exec(getter('code', () => { throw Object.defineProperty(new Error(), 'message', { get: boom }) })), 'exec input could not be read: reading its code threw: a value of type object without a message'],
    ] as const) {
      const result = expectStatus(await leg(), 'failed')
      expect(result).toMatchObject({ code: 'invalid_input', failurePhase: 'input' })
      if (typeof message === 'string') expect(result.error).toBe(message)
      else expect(result.error).toMatch(message)
    }
    // Read as before otherwise: own keys only, through a Proxy too (a key a Proxy does not own is
    // not read, whatever its `get` trap would say).
    expect(expectStatus(await run.exec(new Proxy({}, { get: boom }) as never), 'failed').error).toBe('exec requires a non-empty code string.')
    expect(expectStatus(await run.exec(new Proxy({ code: '6 * 7' }, {}) as never), 'completed').value).toBe(42)
    expect(expectStatus(await run.exec(Object.create({ code: '1' })), 'failed').error).toBe('exec requires a non-empty code string.')
    // The run's own state still comes first.
    run.abort()
    expect(expectStatus(await run.exec(null as never), 'failed').code).toBe('aborted')
  })

  it("settles every leg whatever the host's options and signal do", async () => {
    const { run } = makeRun()
    const unsettled = Symbol('unsettled')
    const settle = <T>(p: Promise<T>) => Promise.race([p, sleep(5000).then(() => unsettled)])
    // A signal that cannot stop listening (no removeEventListener, or one that throws) still lets the leg settle.
    for (const signal of [{ aborted: false, addEventListener() {} }, { aborted: false, addEventListener() {}, removeEventListener() { throw 1 } }]) {
      expect(expectStatus(await settle(run.exec({ code: '6 * 7' }, { signal } as never)) as never, 'completed').value).toBe(42)
    }
    // Getters and methods that throw are the host's bad input: a failed result naming it, not a rejection.
    for (const [options, message] of [
      [{ signal: { get aborted() { throw new Error('boom') } } }, /options could not be read.*boom/],
      [{ signal: { aborted: false, addEventListener() { throw new Error('nope') } } }, /addEventListener threw: nope/],
      [new Proxy({}, { get() { throw new Error('trap') } }), /options could not be read.*trap/],
    ] as const) {
      for (const leg of [run.exec({ code: '1' }, options as never), run.wait({ runId: 'x' }, options as never)]) {
        const result = expectStatus((await settle(leg)) as never, 'failed')
        expect(result).toMatchObject({ code: 'invalid_input', failurePhase: 'input' })
        expect(result.error).toMatch(message)
      }
    }
    // A signal that calls its listener at once, inside addEventListener: the leg is aborted at its start.
    const eager = { aborted: false, addEventListener: (_: string, listener: () => void) => listener() }
    expect(expectStatus((await settle(run.exec({ code: 'await new Promise((r) => setTimeout(r, 300)); 1' }, { signal: eager } as never))) as never, 'failed').code).toBe('aborted')
    // A signal the host's input aborts while the leg is being read (a getter): aborted too.
    const during = new AbortController()
    const input = { get code() { during.abort(); return 'await new Promise((r) => setTimeout(r, 2000)); 1' } }
    expect(expectStatus((await settle(run.exec(input, { signal: during.signal }))) as never, 'failed').code).toBe('aborted')
    // A real signal still aborts.
    const controller = new AbortController()
    const leg = run.exec({ code: 'await new Promise((r) => setTimeout(r, 2000)); 1' }, { signal: controller.signal })
    setTimeout(() => controller.abort(), 50)
    expect(expectStatus(await leg, 'failed').code).toBe('aborted')
  })

  it('is disabled on an inactive run', async () => {
    const run = CodeModeRun.create({ runId: 'r', tools: TOOLS, executor: () => null })
    const result = expectStatus(await run.exec({ code: '1' }), 'failed')
    expect(result).toMatchObject({ code: 'invalid_input', error: 'code mode is disabled.' })
  })

  it('fails closed on an unknown runtime', async () => {
    const { run } = makeRun({ config: { enabled: true, runtime: 'v8' } })
    expect(run.active).toBe(true)
    const result = expectStatus(await run.exec({ code: '1' }), 'failed')
    expect(result.code).toBe('runtime_unavailable')
    const legacy = makeRun({ config: { enabled: true, runtime: 'quickjs-wasi' } })
    expect(expectStatus(await legacy.run.exec({ code: '2' }), 'completed').value).toBe(2)
  })

  it('returns the completion value REPL-style', async () => {
    const { run } = makeRun()
    const value = async (code: string) => expectStatus(await run.exec({ code }), 'completed').value
    expect(await value('1 + 1')).toBe(2)
    expect(await value('const a = 5;\na * 2;\n// trailing comment')).toBe(10)
    expect(await value('return { ok: true }')).toEqual({ ok: true })
    expect(await value('const x = 1;')).toBe(null)
    expect(await value('undefined')).toBe(null)
    expect(await value('await new Promise((r) => setTimeout(() => r("later"), 5))')).toBe('later')
    expect(await value('if (true) { return "early" }\n"late"')).toBe('early')
    expect(await value('const tools = "shadowed"; tools')).toBe('shadowed')
    expect(await value('[1, "two", { three: 3n }]')).toEqual([1, 'two', { three: '3' }])
    expect(await value('const o = { a: 1 }; o.self = o; o')).toEqual({ a: 1, self: '[Circular]' })
    expect(await value('new Date(0)')).toBe('1970-01-01T00:00:00.000Z')
  })

  it('reports an uncaught guest error with its line in the user source', async () => {
    const { run } = makeRun()
    const result = expectStatus(await run.exec({ code: 'const list = null;\n\nlist.map((x) => x)' }), 'failed')
    expect(result.code).toBe('internal_error')
    expect(result.error).toBe("TypeError: cannot read property 'map' of null (line 3, column 1)")
    const thrown = expectStatus(await run.exec({ code: 'throw new RangeError("nope")' }), 'failed')
    expect(thrown.error).toMatch(/^RangeError: nope/)
  })

  it('rejects module access without false positives', async () => {
    const { run } = makeRun()
    for (const code of [
      'import fs from "fs"',
      'const fs = require("fs")',
      'const m = await import("node:fs")',
      'import.meta.url',
      'export const x = 1',
    ]) {
      const result = expectStatus(await run.exec({ code }), 'failed')
      expect(result.code).toBe('invalid_input')
      expect(result.error).toMatch(/^module access is not allowed in code mode/)
    }
    const ok = await run.exec({ code: 'const important = "import docs"; const requirement = 1; [important, requirement]' })
    expect(expectStatus(ok, 'completed').value).toEqual(['import docs', 1])
  })

  it('exposes no require, process, fetch or host objects', async () => {
    const { run } = makeRun()
    const result = await run.exec({
      code: `[typeof require, typeof process, typeof fetch, typeof globalThis.Deno, typeof module, typeof __dirname,
              typeof setTimeout, typeof console.log, typeof ALL_TOOLS, typeof tools.call]`,
    })
    expect(expectStatus(result, 'completed').value).toEqual([
      'undefined', 'undefined', 'undefined', 'undefined', 'undefined', 'undefined',
      'function', 'function', 'object', 'function',
    ])
  })

  it('freezes the guest globals', async () => {
    const { run } = makeRun()
    const result = await run.exec({
      code: `'use strict';
        const attempts = [];
        for (const f of [() => { tools.call = 1 }, () => { ALL_TOOLS.push(1) }, () => { ALL_TOOLS[0].id = 'x' },
                         () => { globalThis.tools = 1 }, () => { delete globalThis.text }, () => { console.log = null }]) {
          try { f(); attempts.push('changed') } catch (e) { attempts.push(e.constructor.name) }
        }
        [attempts, Object.isFrozen(tools), Object.isFrozen(ALL_TOOLS), typeof tools.call]`,
    })
    const [attempts, toolsFrozen, listFrozen, call] = expectStatus(result, 'completed').value as [string[], boolean, boolean, string]
    expect(attempts.every((a) => a === 'TypeError')).toBe(true)
    expect([toolsFrozen, listFrozen, call]).toEqual([true, true, 'function'])
  })

  it('collects text, json and console output in order', async () => {
    const { run } = makeRun()
    const result = await run.exec({
      code: 'text("one"); json({ two: 2 }); console.log("three", 3, [3]); console.error(new Error("four")); text({ five: 5 }); "done"',
    })
    expect(expectStatus(result, 'completed').output).toEqual([
      { type: 'text', text: 'one' },
      { type: 'json', value: { two: 2 } },
      { type: 'text', text: 'three 3 [3]' },
      { type: 'text', text: 'Error: four' },
      { type: 'text', text: '{"five":5}' },
    ])
  })

  it('reports floating promise rejections as output without failing', async () => {
    const { run } = makeRun()
    const result = await run.exec({ code: 'Promise.reject(new Error("forgotten")); "fine"' })
    const done = expectStatus(result, 'completed')
    expect(done.value).toBe('fine')
    expect(done.output).toEqual([{ type: 'text', text: 'Unhandled promise rejection: Error: forgotten' }])
  })
})

describe('the tool bridge', () => {
  it('searches, describes and calls with the run, session and agent ids', async () => {
    const { run, calls } = makeRun({ executor: (call) => ({ read: (call.input as { path: string }).path }) })
    const result = await run.exec(
      {
        code: `const hits = await tools.search("read a file from the workspace");
               const tool = await tools.describe(hits[0].id);
               const out = await tools.call(tool.id, { path: "README.md" });
               ({ id: tool.id, required: tool.parameters.required, out })`,
      },
      { toolCallId: 'call_exec_1' },
    )
    expect(expectStatus(result, 'completed').value).toEqual({
      id: 'openclaw:core:read_file',
      required: ['path'],
      out: { read: 'README.md' },
    })
    expect(calls).toHaveLength(1)
    expect(calls[0]).toMatchObject({
      id: 'openclaw:core:read_file',
      name: 'read_file',
      source: 'openclaw',
      sourceName: 'core',
      input: { path: 'README.md' },
      parentToolCallId: 'call_exec_1',
      runId: 'run-1',
      sessionId: 'session-1',
      sessionKey: 'agent:main:chat',
      agentId: 'main',
    })
    expect(calls[0].signal).toBeInstanceOf(AbortSignal)
    expect(result.telemetry).toMatchObject({ searchCount: 1, describeCount: 1, callCount: 1, visibleTools: ['exec', 'wait'] })
  })

  it('runs ten calls in parallel with unique nested toolCallIds', async () => {
    const gate = deferred()
    const { run, calls } = makeRun({
      executor: async (call) => {
        await gate.promise
        return (call.input as { n: number }).n * 2
      },
    })
    const pending = run.exec({ code: 'await Promise.all(Array.from({ length: 10 }, (_, n) => tools.call("openclaw:core:message", { n })))' })
    await sleep(50)
    expect(calls).toHaveLength(10)
    gate.resolve(undefined)
    expect(expectStatus(await pending, 'completed').value).toEqual([0, 2, 4, 6, 8, 10, 12, 14, 16, 18])
    expect(new Set(calls.map((c) => c.toolCallId)).size).toBe(10)
  })

  it('gives each of many parallel calls its own outcome, across batches', async () => {
    const { run, calls } = makeRun({
      config: { enabled: true, maxPendingToolCalls: 128 },
      executor: (call) => {
        const { n } = call.input as { n: number }
        // Texts of every width in one batch: the outcomes travel joined, cut by UTF-16 length.
        if (n % 3 === 0) throw new Error(`no ${n} é \ud800`)
        return n % 3 === 1 ? { n, s: 'ü😀'.repeat(n % 4) } : Promise.resolve(`ok ${n} ✓`)
      },
    })
    const result = await run.exec({
      code: `const all = await Promise.allSettled(Array.from({ length: 100 }, (_, n) => tools.message({ n })));
             all.map((r) => (r.status === "fulfilled" ? r.value : r.reason.message))`,
    })
    const expected = Array.from({ length: 100 }, (_, n) =>
      n % 3 === 0 ? `no ${n} é \ufffd` : n % 3 === 1 ? { n, s: 'ü😀'.repeat(n % 4) } : `ok ${n} ✓`,
    )
    expect(expectStatus(result, 'completed').value).toEqual(expected)
    expect(new Set(calls.map((c) => c.toolCallId)).size).toBe(100)
  })

  it('delivers large results of one batch in several native calls', async () => {
    const big = 'x'.repeat(6_000_000)
    const { run } = makeRun({
      config: { enabled: true, memoryLimitBytes: 128 * 1024 * 1024 },
      executor: (call) => `${(call.input as { n: number }).n}${big}`,
    })
    // The first call goes alone; the next three come back together, 18 M characters: over the
    // 16 M one native call takes, so two go in one call and the last in another.
    const result = await run.exec({
      code: 'const all = await Promise.all([1, 2, 3, 4].map((n) => tools.message({ n }))); all.map((s) => [s[0], s.length])',
    })
    expect(expectStatus(result, 'completed').value).toEqual([1, 2, 3, 4].map((n) => [String(n), 6_000_001]))
  })

  it('starts calls while the cell is still computing, not when it next awaits', async () => {
    const startedAt: number[] = []
    const { run } = makeRun({
      executor: () => {
        startedAt.push(Date.now())
        return 'ok'
      },
    })
    // The first call goes alone; the next two are batched and must not wait for the loop.
    const result = await run.exec({
      code: `const calls = [tools.message({}), tools.message({}), tools.message({})];
             const until = Date.now() + 400;
             while (Date.now() < until) {}
             await Promise.all(calls)`,
    })
    const endedAt = Date.now()
    expect(expectStatus(result, 'completed').value).toEqual(['ok', 'ok', 'ok'])
    expect(startedAt).toHaveLength(3)
    for (const at of startedAt) expect(endedAt - at).toBeGreaterThan(250)
  })

  it('installs convenience functions only for unambiguous safe names', async () => {
    const { run, calls } = makeRun()
    const result = await run.exec({
      code: `[typeof tools.read_file, typeof tools.web_search, typeof tools.exec, typeof tools.create_issue,
              await tools.web_search({ q: "x" })]`,
    })
    expect(expectStatus(result, 'completed').value).toEqual(['function', 'function', 'function', 'undefined', { tool: 'web-search', input: { q: 'x' } }])
    expect(calls[0].id).toBe('openclaw:web:web-search')
  })

  it('makes executor failures catchable guest errors', async () => {
    const { run } = makeRun({
      executor: (call) => {
        if (call.name === 'message') throw new Error('policy denied message')
        if (call.name === 'write_file') return Promise.reject('disk full')
        return null
      },
    })
    const result = await run.exec({
      code: `const out = [];
             for (const id of ["openclaw:core:message", "openclaw:core:write_file", "openclaw:core:nope", "mcp:github:create_issue"]) {
               try { await tools.call(id, {}) } catch (e) { out.push([e instanceof Error, e.message]) }
             }
             out`,
    })
    expect(expectStatus(result, 'completed').value).toEqual([
      [true, 'policy denied message'],
      [true, 'disk full'],
      [true, 'Unknown tool id: openclaw:core:nope'],
      [true, 'Unknown tool id: mcp:github:create_issue'],
    ])
  })

  it('makes an executor error catchable whatever its message and name hold', async () => {
    const thrown = [
      Object.assign(new Error('x'), { message: 403 }),
      Object.assign(new Error('x'), { message: { status: 403 } }),
      Object.assign(new Error('x'), { message: Symbol('denied') }),
      Object.assign(new Error('x'), { message: '', name: ['Policy'] }),
      Object.assign(new Error('x'), { message: { toJSON() { throw 1 }, toString() { throw 2 } } }),
    ]
    let next = 0
    const { run } = makeRun({
      executor: () => {
        throw thrown[next++]
      },
    })
    const result = await run.exec({
      code: `const out = [];
             for (let i = 0; i < ${thrown.length}; i++) { try { await tools.message({}) } catch (e) { out.push(e.message) } }
             out`,
    })
    expect(expectStatus(result, 'completed').value).toEqual(['403', '{"status":403}', 'Symbol(denied)', '["Policy"]', 'Error'])
  })

  it('handles executor values that are not JSON', async () => {
    const cyclic: Record<string, unknown> = { name: 'loop' }
    cyclic.self = cyclic
    const { run } = makeRun({
      executor: (call) => {
        if (call.name === 'message') return cyclic
        if (call.name === 'write_file') return () => 'a function'
        return { big: 10n, when: new Date(0), skip: undefined }
      },
    })
    const result = await run.exec({
      code: `[await tools.message(), await tools.write_file(), await tools.read_file({ path: "x" })]`,
    })
    expect(expectStatus(result, 'completed').value).toEqual([
      { name: 'loop', self: '[Circular]' },
      null,
      { big: '10', when: '1970-01-01T00:00:00.000Z' },
    ])
  })

  it('queues calls past maxPendingToolCalls, and rejects one past the queue with a catchable error', async () => {
    const gate = deferred()
    let started = 0
    const { run } = makeRun({
      config: { enabled: true, maxPendingToolCalls: 3 },
      executor: () => {
        started++
        return gate.promise.then(() => 'ok')
      },
    })
    const pending = run.exec({
      code: `const running = Array.from({ length: 3 + 128 }, () => tools.message({}));
             let error = null;
             try { await tools.message({}) } catch (e) { error = e.message }
             [error, (await Promise.all(running)).length]`,
    })
    await sleep(30)
    expect(started).toBe(3)
    gate.resolve(undefined)
    expect(expectStatus(await pending, 'completed').value).toEqual([
      'Too many pending tool calls: 3 are running (maxPendingToolCalls) and 128 more are queued. Await some before starting more.',
      131,
    ])
    expect(started).toBe(131)
  })

  it('turns a guest input that is not JSON into a guest error', async () => {
    const { run, calls } = makeRun()
    const result = await run.exec({
      code: `const a = {}; a.a = a;
             const out = [];
             for (const input of [a, { n: 1n }]) { try { await tools.message(input) } catch (e) { out.push(e.name) } }
             out`,
    })
    expect(expectStatus(result, 'completed').value).toEqual(['TypeError', 'TypeError'])
    expect(calls).toHaveLength(0)
  })

  it('reports nested calls and their parent through onEvent before the result', async () => {
    const { run, events } = makeRun()
    const result = await run.exec({ code: 'await tools.message({ text: "hi" })' }, { toolCallId: 'parent-1' })
    expectStatus(result, 'completed')
    expect(events.map((e) => e.type)).toEqual(['tool_call_start', 'tool_call_end'])
    expect(events[1]).toMatchObject({
      type: 'tool_call_end',
      parentToolCallId: 'parent-1',
      toolId: 'openclaw:core:message',
      ok: true,
    })
    expect((events[1] as { durationMs: number }).durationMs).toBeGreaterThanOrEqual(0)
  })

  it('forwards onUpdate partials as events', async () => {
    const { run, events } = makeRun({
      executor: (call: NestedToolCall) => {
        call.onUpdate({ progress: 0.5 })
        return 'done'
      },
    })
    await run.exec({ code: 'await tools.message()' })
    expect(events.find((e) => e.type === 'tool_call_update')).toMatchObject({ partial: { progress: 0.5 } })
  })
})

describe('timers and yield_control', () => {
  it('runs setTimeout callbacks in due order and honours clearTimeout', async () => {
    const { run } = makeRun()
    const result = await run.exec({
      code: `const order = [];
             setTimeout(() => order.push("late"), 30);
             setTimeout((x) => order.push(x), 10, "early");
             const t = setTimeout(() => order.push("never"), 20);
             clearTimeout(t);
             await new Promise((r) => setTimeout(r, 60));
             order`,
    })
    expect(expectStatus(result, 'completed').value).toEqual(['early', 'late'])
  })

  it('returns waiting/yield on yield_control and continues on wait', async () => {
    const { run } = makeRun()
    const first = expectStatus(await run.exec({ code: 'text("a"); await yield_control("let the model look"); text("b"); 42' }), 'waiting')
    expect(first.reason).toBe('yield')
    expect(first.pendingToolCalls?.[0]?.method).toBe('yield')
    expect(first.output).toEqual([{ type: 'text', text: 'a' }])
    const second = expectStatus(await run.wait({ runId: first.runId }), 'completed')
    expect(second).toMatchObject({ value: 42, output: [{ type: 'text', text: 'b' }] })
  })
})
