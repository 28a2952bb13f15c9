// Hostile cells trying to leave the sandbox: reach the host through constructors, eval,
// Reflect, stack-trace hooks, prototype chains, module loaders or enumeration. Each case
// asserts what the cell could see and that the host stayed as it was.
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { CodeModeResult } from '../index.js'
import { expectStatus, makeRun } from './helpers.js'

const SECRET = `sekrit-${Math.random().toString(36).slice(2)}`
const HOST_KEYS = ['process', 'require', 'module', 'exports', '__filename', '__dirname', 'Buffer', 'fetch', 'XMLHttpRequest',
  'WebSocket', 'Deno', 'Bun', 'std', 'os', 'fs', 'scriptArgs', 'print', 'host', 'global', 'setInterval', 'setImmediate', 'importScripts']

beforeAll(() => {
  process.env.CODE_MODE_SECRET = SECRET
})
afterAll(() => {
  delete process.env.CODE_MODE_SECRET
})

const { run } = makeRun({ config: { enabled: true, timeoutMs: 2000 } })

async function value(code: string): Promise<unknown> {
  return expectStatus(await run.exec({ code }), 'completed').value
}

function failed(result: CodeModeResult) {
  return expectStatus(result, 'failed')
}

const JSON_CASES = readFileSync(new URL('./fixtures/json-stringify-cases.js', import.meta.url), 'utf8')

describe('constructors, Function and eval', () => {
  it('constructor.constructor of a bridge function is the guest Function, and its global has no host', async () => {
    expect(
      await value(`const F = tools.call.constructor.constructor;
        const g = F('return this')();
        [F === Function, g === globalThis, ${JSON.stringify(HOST_KEYS)}.filter((k) => k in g)]`),
    ).toEqual([true, true, []])
  })

  it('Function built from every reachable function source sees no host bindings', async () => {
    expect(
      await value(`const sources = [text, json, console.log, setTimeout, clearTimeout, yield_control, tools.search, tools.call, API.read];
        sources.map((f) => f.constructor('return [typeof host, typeof process, typeof require, typeof hooks].join()')())`),
    ).toEqual(Array(9).fill('undefined,undefined,undefined,undefined'))
  })

  it('direct and indirect eval run in the guest global only', async () => {
    expect(
      await value(`const host = 'shadow';
        [eval('host'), (0, eval)('typeof host'), (0, eval)('this === globalThis'), eval('typeof process'), new Function('return typeof require')()]`),
    ).toEqual(['shadow', 'undefined', true, 'undefined', 'undefined'])
  })

  it('async, generator and async-generator Function constructors reach nothing either', async () => {
    expect(
      await value(`const AsyncF = (async () => {}).constructor;
        const GenF = (function* () {}).constructor;
        const AsyncGenF = (async function* () {}).constructor;
        [await AsyncF('return typeof process')(), GenF('yield typeof require')().next().value,
         (await AsyncGenF('yield typeof fetch')().next()).value]`),
    ).toEqual(['undefined', 'undefined', 'undefined'])
  })

  it('Reflect.construct/apply on Function and bound functions stay in the guest', async () => {
    expect(
      await value(`const f = Reflect.construct(Function, ['return typeof host']);
        const bound = Function.prototype.bind.call(Function, null, 'return Object.keys(this)');
        [Reflect.apply(f, null, []), bound()().filter((k) => !['performance'].includes(k))]`),
    ).toEqual(['undefined', []])
  })

  it('setTimeout never evaluates a string', async () => {
    const result = await run.exec({
      code: `let error = null;
        try { setTimeout('globalThis.pwned = true', 0) } catch (e) { error = e.message }
        await new Promise((r) => setTimeout(r, 5));
        [error, typeof globalThis.pwned]`,
    })
    expect(expectStatus(result, 'completed').value).toEqual(['setTimeout callback must be a function.', 'undefined'])
  })
})

describe('stack traces and prototype chains', () => {
  it('Error.prepareStackTrace is inert: no call sites, no prelude functions', async () => {
    expect(
      await value(`let called = 0;
        Error.prepareStackTrace = (e, sites) => { called++; return sites };
        let stack;
        try { await tools.call('nope') } catch (e) { stack = e.stack }
        const own = new Error('x').stack;
        [called, typeof stack, typeof own, own.includes('cell.js')]`),
    ).toEqual([0, 'string', 'string', true])
  })

  it('Error.stackTraceLimit accepts only a number fixed at assignment', async () => {
    expect(
      await value(`let reads = 0;
        Error.stackTraceLimit = { valueOf() { reads++; return 0 } };
        const before = reads;
        new Error('a'); new RangeError('b');
        try { await tools.call('nope') } catch (e) {}
        [before, reads, Error.stackTraceLimit, new Error('c').stack]`),
    ).toEqual([1, 1, 0, ''])
  })

  it('Error.captureStackTrace builds a plain string stack', async () => {
    expect(
      await value(`const o = {}; Error.captureStackTrace(o);
        [typeof o.stack, Object.getPrototypeOf(o) === Object.prototype]`),
    ).toEqual(['string', true])
  })

  it('bridge functions are ordinary guest functions: no caller, arguments or prototype to climb', async () => {
    expect(
      await value(`const f = tools.call;
        const attempts = ['caller', 'arguments'].map((k) => { try { return typeof f[k] } catch (e) { return e.name } });
        const chain = []; let p = Object.getPrototypeOf(f);
        while (p) { chain.push(p === Function.prototype ? 'Function.prototype' : p === Object.prototype ? 'Object.prototype' : 'other'); p = Object.getPrototypeOf(p) }
        [attempts, chain, Object.getOwnPropertyNames(f).sort(), f.prototype]`),
    ).toEqual([['TypeError', 'TypeError'], ['Function.prototype', 'Object.prototype'], ['length', 'name'], null])
  })

  it('values returned by tools have guest prototypes only', async () => {
    const { run: echo } = makeRun({ executor: () => ({ list: [1], when: new Date(0), nested: { deep: true } }) })
    const result = await echo.exec({
      code: `const r = await tools.message({});
        [Object.getPrototypeOf(r) === Object.prototype, Object.getPrototypeOf(r.list) === Array.prototype,
         typeof r.when, r.constructor === Object, r.constructor.constructor('return typeof process')(),
         Object.getOwnPropertyNames(Object.getPrototypeOf(r.nested)).includes('__lookupGetter__')]`,
    })
    expect(expectStatus(result, 'completed').value).toEqual([true, true, 'string', true, 'undefined', true])
  })

  it('an Error thrown by the executor arrives as a bare guest Error: no host stack, fields or prototype', async () => {
    const { run: thrower } = makeRun({
      executor: () => {
        throw Object.assign(new TypeError('denied by policy'), { env: process.env, secret: SECRET })
      },
    })
    const result = await thrower.exec({
      code: `try { await tools.message({}) } catch (e) {
          return [e.constructor === Error, e.message, Object.keys(e), e.env === undefined, String(e.stack).includes('node:'), JSON.stringify(e).includes('sekrit')]
        }`,
    })
    expect(expectStatus(result, 'completed').value).toEqual([true, 'denied by policy', [], true, false, false])
  })

  it('tool errors created in Rust carry only guest stack frames', async () => {
    const stack = (await value(`try { await tools.call('nope') } catch (e) { return e.stack }`)) as string
    expect(stack).not.toMatch(/\.rs|node:|native|\/work\//)
  })
})

describe('module loaders', () => {
  it('rejects import declarations, import(), import.meta and require in the source', async () => {
    for (const code of [
      'import * as fs from "node:fs"',
      'import("fs")',
      'const x = await import(`./${"x"}.js`)',
      'const m = import.meta',
      'module.require("fs")',
      'globalThis.require("fs")',
      'export default 1',
    ]) {
      const result = failed(await run.exec({ code }))
      expect(result.code).toBe('invalid_input')
      expect(result.error).toMatch(/^module access is not allowed in code mode/)
    }
  })

  it('dynamic import built at runtime never loads any module spelling', async () => {
    const specs = ['fs', 'node:fs', 'node:child_process', './index.js', '/etc/passwd', 'file:///etc/passwd',
      'data:text/javascript,export default globalThis', 'https://example.com/x.js', '\\u0066s']
    const results = await value(`const load = new Function('s', 'return import(s)');
      const out = [];
      for (const s of ${JSON.stringify(specs)}) { try { await load(s); out.push('loaded ' + s) } catch (e) { out.push(e.name) } }
      try { await eval('imp' + 'ort("fs")'); out.push('loaded eval') } catch (e) { out.push(e.name) }
      out`)
    expect(results).toEqual(Array(specs.length + 1).fill('ReferenceError'))
  })

  it('import.meta through eval or Function is a SyntaxError', async () => {
    expect(
      await value(`const out = [];
        for (const f of [() => eval('import.meta'), () => new Function('return import.meta')(), () => (0, eval)('import.meta.url')]) {
          try { f(); out.push('ran') } catch (e) { out.push(e.name) }
        }
        out`),
    ).toEqual(['SyntaxError', 'SyntaxError', 'SyntaxError'])
  })

  it('API.read and API.list serve only the in-memory declaration files (no path reaches the disk)', async () => {
    const result = (await value(`const out = [];
      for (const p of ['/etc/passwd', '../../../../etc/passwd', 'mcp/../../package.json', 'mcp/../index.js', '~/.ssh/id_rsa', 'file:///etc/hostname', 'C:\\\\Windows\\\\win.ini', 'mcp/%2e%2e/x', '']) {
        try { const text = await API.read(p); out.push('read ' + p + ' ' + text.length) } catch (e) { out.push(e.message.slice(0, 40)) }
      }
      const listed = [];
      for (const prefix of [undefined, '/', '..', '../..', 'mcp/..']) { try { listed.push(...(await API.list(prefix)).map((f) => f.path)) } catch (e) {} }
      [out, [...new Set(listed)]]`)) as [string[], string[]]
    const [reads, listed] = result
    expect(reads).toHaveLength(9)
    expect(reads.filter((r) => r.startsWith('read '))).toEqual([])
    expect(listed).toContain('mcp/github.d.ts')
    for (const path of listed) expect(path).toMatch(/^mcp\/[\w.-]+\.d\.ts$/)
  })

  it('require, process and friends are absent however they are spelled', async () => {
    expect(
      await value(`const names = ['req' + 'uire', 'pro' + 'cess', 'mod' + 'ule', 'fet' + 'ch', 'Buf' + 'fer', '__dirname', 'std', 'os'];
        names.map((n) => [n in globalThis, typeof globalThis[n], (() => { try { return typeof eval(n) } catch (e) { return e.name } })()])`),
    ).toEqual(Array(8).fill([false, 'undefined', 'ReferenceError']))
  })
})

describe('enumeration', () => {
  it('globalThis holds exactly the language builtins and the code-mode globals', async () => {
    const keys = (await value('Reflect.ownKeys(globalThis).map(String).sort()')) as string[]
    const codeMode = ['ALL_TOOLS', 'API', 'MCP', 'clearTimeout', 'console', 'json', 'namespaces', 'setTimeout', 'text', 'tools', 'yield_control']
    const language = ['AggregateError', 'Array', 'ArrayBuffer', 'AsyncDisposableStack', 'Atomics', 'BigInt', 'BigInt64Array',
      'BigUint64Array', 'Boolean', 'DOMException', 'DataView', 'Date', 'DisposableStack', 'Error', 'EvalError',
      'FinalizationRegistry', 'Float16Array', 'Float32Array', 'Float64Array', 'Function', 'Infinity', 'Int16Array',
      'Int32Array', 'Int8Array', 'InternalError', 'Iterator', 'JSON', 'Map', 'Math', 'NaN', 'Number', 'Object', 'Promise',
      'Proxy', 'RangeError', 'ReferenceError', 'Reflect', 'RegExp', 'Set', 'SharedArrayBuffer', 'String', 'SuppressedError',
      'Symbol', 'Symbol(Symbol.toStringTag)', 'SyntaxError', 'TypeError', 'URIError', 'Uint16Array', 'Uint32Array',
      'Uint8Array', 'Uint8ClampedArray', 'WeakMap', 'WeakRef', 'WeakSet', 'atob', 'btoa', 'decodeURI', 'decodeURIComponent',
      'encodeURI', 'encodeURIComponent', 'escape', 'eval', 'globalThis', 'isFinite', 'isNaN', 'parseFloat', 'parseInt',
      'performance', 'queueMicrotask', 'undefined', 'unescape']
    expect(keys).toEqual([...codeMode, ...language].sort())
  })

  it('a walk of every reachable object finds no host object, host key or host secret', async () => {
    const result = (await value(`const seen = new Set();
      const queue = [[globalThis, 'globalThis']];
      // ('global' is also RegExp.prototype.global.)
      const hostKeys = new Set(${JSON.stringify(HOST_KEYS.filter((k) => k !== 'global'))}.concat(['env', 'argv', 'pid', 'cwd', 'mainModule', 'binding', 'dlopen']));
      const bridgeShape = ['call', 'search', 'describe', 'out', 'done', 'timer'];
      const found = []; let strings = 0;
      const look = (v, path) => {
        if (typeof v === 'string') { strings++; if (v.includes('sekrit') || v.includes('/work/')) found.push('string at ' + path) }
        else if (v !== null && (typeof v === 'object' || typeof v === 'function') && !seen.has(v)) { seen.add(v); queue.push([v, path]) }
      };
      // Touch the lazy globals so their objects are built and walked too.
      void [tools, MCP, API, ALL_TOOLS, namespaces];
      while (queue.length) {
        const [o, path] = queue.shift();
        if (typeof o === 'function') { const src = Function.prototype.toString.call(o); if (src.includes('sekrit')) found.push('source ' + path) }
        look(Object.getPrototypeOf(o), path + '.[[Prototype]]');
        const keys = Reflect.ownKeys(o);
        if (bridgeShape.every((k) => keys.includes(k))) found.push('bridge-shaped object at ' + path);
        for (const k of keys) {
          if (hostKeys.has(String(k))) found.push('key ' + path + '.' + String(k));
          const d = Reflect.getOwnPropertyDescriptor(o, k);
          if ('value' in d) look(d.value, path + '.' + String(k));
          else { look(d.get, path + '.get ' + String(k)); look(d.set, path + '.set ' + String(k)) }
        }
      }
      [found, seen.size > 500, strings > 50]`)) as [string[], boolean, boolean]
    expect(result).toEqual([[], true, true])
  })

  it('ALL_TOOLS and search results carry catalog data only (no executor, schemas or host fields)', async () => {
    const [keys, hits] = (await value(`[[...new Set(ALL_TOOLS.flatMap((t) => Object.keys(t)))].sort(),
      (await tools.search('file')).map((h) => Object.keys(h).sort().join())]`)) as [string[], string[]]
    expect(keys).toEqual(['description', 'id', 'label', 'name', 'source', 'sourceName'])
    expect(new Set(hits).size).toBeGreaterThan(0)
    for (const h of hits) expect(h).not.toMatch(/executor|parameters|signal/)
  })

  it('guest globals are frozen or non-configurable all the way down', async () => {
    expect(
      await value(`const frozen = (o) => Object.isFrozen(o) && Object.getOwnPropertyNames(o).every((k) => { const v = o[k]; return v === null || typeof v !== 'object' || frozen(v) });
        const names = ['ALL_TOOLS', 'tools', 'MCP', 'API', 'namespaces', 'text', 'json', 'console', 'setTimeout', 'clearTimeout', 'yield_control'];
        [names.every((n) => !Object.getOwnPropertyDescriptor(globalThis, n).configurable), frozen(ALL_TOOLS), frozen(tools), frozen(console), frozen(API), frozen(MCP)]`),
    ).toEqual([true, true, true, true, true, true])
  })

  it('redefining or shadowing a guest global cannot change what the host receives', async () => {
    const { run: r, calls } = makeRun()
    const result = await r.exec({
      code: `const attempts = [];
        for (const f of [() => Object.defineProperty(globalThis, 'tools', { value: {} }), () => { delete globalThis.tools },
                         () => Object.setPrototypeOf(tools, {}), () => { tools.message = () => 'forged' }]) {
          try { f(); attempts.push('changed') } catch (e) { attempts.push(e.name) }
        }
        [attempts, await tools.message({ n: 1 })]`,
    })
    expect(expectStatus(result, 'completed').value).toEqual([
      ['TypeError', 'TypeError', 'TypeError', 'TypeError'],
      { tool: 'message', input: { n: 1 } },
    ])
    expect(calls).toHaveLength(1)
  })
})

// Date, Map, Set, WeakMap, WeakSet, typed arrays and DOMException are built when a cell first
// touches them (vendored QuickJS patch: most cells never do, and building them was a quarter of
// a VM's cost). Whenever they are built, they must be exactly the language's, whatever the cell
// did first.
describe('builtins built on first use', () => {
  it('typed arrays, DataView, Atomics and DOMException are the language builtins', async () => {
    expect(
      await value(`const d = Object.getOwnPropertyDescriptor(globalThis, 'Uint8Array');
        const TA = Object.getPrototypeOf(Int8Array);
        const i32 = new Int32Array(new SharedArrayBuffer(8));
        let error; try { atob('%') } catch (e) { error = e }
        [d.writable, d.enumerable, d.configurable, typeof d.value, TA === Object.getPrototypeOf(Float64Array), TA.name,
         TA.prototype.toString === Array.prototype.toString, String(new Float32Array([1.5, 2])),
         new Uint8Array([1, 2, 3]).toBase64(), Uint8Array.fromBase64('AQID').join(), new DataView(new ArrayBuffer(8)).byteLength,
         Atomics.add(i32, 0, 5), i32[0], error instanceof DOMException, error.name, error.code, Object.prototype.toString.call(error)]`),
    ).toEqual([true, false, true, 'function', true, 'TypedArray', true, '1.5,2', 'AQID', '1,2,3', 8, 0, 5, true, 'InvalidCharacterError', 5, '[object DOMException]'])
  })

  it('a cell that rewrites Array.prototype or the globals first gets the real builtins all the same', async () => {
    expect(
      await value(`const toString = Array.prototype.toString;
        Object.defineProperty(Array.prototype, 'toString', { get() { throw new Error('guest getter ran') } });
        globalThis.Uint8Array = 'replaced';
        delete globalThis.DOMException;
        let error; try { btoa('\\u{1F600}') } catch (e) { error = e }
        [Uint8Array, Object.getPrototypeOf(Int8Array).prototype.toString === toString, new Int8Array([1, -1]).join(),
         typeof DOMException, error.constructor.name, error.name, error instanceof Error]`),
    ).toEqual(['replaced', true, '1,-1', 'undefined', 'DOMException', 'InvalidCharacterError', true])
  })

  it('Date, Map, Set and their iterators are the language builtins', async () => {
    expect(
      await value(`const d = Object.getOwnPropertyDescriptor(globalThis, 'Map');
        const iteratorProto = Object.getPrototypeOf(Object.getPrototypeOf([].keys()));
        [d.writable, d.enumerable, d.configurable, new Date(0).toISOString(), Date.UTC(2020, 0, 2), typeof Date.now(),
         [...new Map([[1, 'a']]).entries()], [...new Set([1, 1, 2]).union(new Set([3]))], [...Map.groupBy([1, 2, 3], (x) => x % 2).keys()],
         Object.getPrototypeOf(Object.getPrototypeOf(new Set().values())) === iteratorProto, new WeakMap([[d, 1]]).get(d), new WeakSet([d]).has(d),
         Object.prototype.toString.call(new Map().entries()), new Date(2020, 0) instanceof Date]`),
    ).toEqual([true, false, true, '1970-01-01T00:00:00.000Z', 1577923200000, 'number', [[1, 'a']], [1, 2, 3], [1, 0], true, 1, true, '[object Map Iterator]', true])
  })

  it('a cell that replaces Map, Set and Date before first use cannot break timers or the real builtins', async () => {
    expect(
      await value(`globalThis.Map = globalThis.Date = function () { throw new Error('replaced') };
        Object.prototype.set = Object.prototype.get = Object.prototype.delete = () => { throw new Error('guest method ran') };
        const fired = await new Promise((resolve) => { const t = setTimeout(() => resolve('never'), 50); clearTimeout(t); setTimeout(resolve, 1, 'fired') });
        [fired, [...new Set([1, 1, 2])], new WeakMap([[globalThis, 1]]).get(globalThis), typeof Map.groupBy]`),
    ).toEqual(['fired', [1, 2], 1, 'undefined'])
  })

  it('a frozen global object still yields its builtins on first use', async () => {
    expect(
      await value(`Object.freeze(globalThis); [typeof ArrayBuffer, new Uint16Array(3).length, typeof DOMException, new Map([[1, 2]]).size, typeof Date.now(), Object.isFrozen(globalThis)]`),
    ).toEqual(['function', 3, 'function', 1, 'number', true])
  })
})

// JSON.stringify has a fast path for plain data (vendored QuickJS patch). It must write exactly
// what the general algorithm writes (the general one runs for JSON.stringify(v, null)), and
// step aside for getters, toJSON anywhere on a prototype chain, proxies, holes, index keys,
// cycles and BigInt.
describe('JSON.stringify fast path', () => {
  it('writes the same text as the general algorithm for every kind of value', async () => {
    expect(await value(JSON_CASES)).toBe('same')
  })

  it('never runs a getter, a toJSON or a proxy trap it should not, and runs those it should once', async () => {
    expect(
      await value(`const log = [];
        const o = { get g() { log.push('getter'); return 1 }, t: { toJSON() { log.push('toJSON'); return 2 } } };
        const p = new Proxy({ a: 1 }, { ownKeys(t) { log.push('ownKeys'); return Reflect.ownKeys(t) } });
        [JSON.stringify(o), JSON.stringify(p), JSON.stringify({ plain: [1, 'x'] }), log]`),
    ).toEqual(['{"g":1,"t":2}', '{"a":1}', '{"plain":[1,"x"]}', ['getter', 'toJSON', 'ownKeys']])
  })
})

describe('rewritten builtins only break the cell itself', () => {
  it('a cell that rewrites Promise.prototype.then, JSON and Object.prototype still fails honestly', async () => {
    const result = failed(
      await run.exec({
        code: `Promise.prototype.then = function (ok) { ok('forged success') };
          JSON.stringify = () => '"forged"';
          JSON.parse = () => 'forged';
          Object.prototype.toJSON = undefined;
          throw new Error('the real failure')`,
      }),
    )
    expect(result).toMatchObject({ code: 'internal_error', error: 'Error: the real failure (line 5, column 21)' })
  })

  it('a rewritten JSON.stringify does not change the result the host receives', async () => {
    expect(await value(`JSON.stringify = () => '"forged"'; Array.prototype.toJSON = undefined; ({ real: [1, 2] })`)).toEqual({ real: [1, 2] })
  })

  it('a rewritten Map, Reflect.apply or Promise does not stop tool results arriving', async () => {
    const { run: r } = makeRun({ executor: () => 'real' })
    const result = await r.exec({
      code: `Map.prototype.get = () => undefined; Map.prototype.set = () => {}; Reflect.apply = () => 'forged';
        globalThis.Promise = function () { throw new Error('no') };
        await tools.message({})`,
    })
    expect(expectStatus(result, 'completed').value).toBe('real')
  })
})
