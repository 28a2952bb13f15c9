// The cells the OpenClaw executor suite runs through the real gateway with the bundled
// QuickJS-WASI executor and with this package's plugin, comparing outcomes. Each covers a piece
// of the guest API (docs/plugin-authors.md, "The guest API"): `runtime` picks the gateway
// configuration (see driver.mjs), `waits` how many `wait` calls may follow, `abortAfterMs` aborts
// the exec call's signal.
export const cells = [
  // tool globals and values
  { name: 'trivial', code: 'return 1 + 1' },
  { name: 'undefined value', code: 'return undefined' },
  { name: 'no return', code: 'const x = 1' },
  { name: 'object value', code: 'return { a: [1, 2, { b: null }], s: "x" }' },
  { name: 'non-JSON value', code: 'return { f() {}, m: new Map([[1, 2]]), d: new Date(0), n: NaN, big: [Infinity] }' },
  { name: 'nested call', code: 'return (await add_one({ x: 41 })).x' },
  { name: 'ten sequential calls', code: 'let x = 0; for (let i = 0; i < 10; i++) x = (await add_one({ x })).x; return x' },
  { name: 'parallel calls', code: 'const r = await Promise.all([1, 2, 3].map((x) => add_one({ x }))); return r.map((v) => v.x)' },
  { name: 'text-only tool', code: 'return await text_only({})' },
  { name: 'tool returning a big value', code: 'const r = await big_value({ n: 20000 }); return r.items.length' },
  { name: 'big final value', code: 'return Array.from({ length: 5000 }, (_, i) => ({ i, s: "item " + i }))' },
  { name: 'tool handles are functions', code: 'return [typeof add_one, add_one.callableName, add_one.source]' },
  // catalog
  { name: 'catalog.search', code: 'const hits = await catalog.search("add one"); return hits.map((h) => h.callableName)' },
  { name: 'catalog.search limit', code: 'const hits = await catalog.search("tool", { limit: 1 }); return hits.length' },
  { name: 'catalog.search handle is callable', code: 'const [h] = await catalog.search("add one to x"); return (await h({ x: 1 })).x' },
  { name: 'catalog.search no match', code: 'return await catalog.search("zzzz qqqq nothing")' },
  { name: 'catalog.search serialised', code: 'return await catalog.search("slow")' },
  { name: 'catalog.all', code: 'return catalog.all().map((h) => h.callableName).sort()' },
  { name: 'describe()', code: 'const d = await add_one.describe(); return [d.name, d.parameters]' },
  { name: 'describe() via search', code: 'const [h] = await catalog.search("fail"); return (await h.describe()).name' },
  // API files
  { name: 'API.list', code: 'return await API.list()' },
  { name: 'API.read results.d.ts', code: 'const t = await API.read("results.d.ts"); return typeof t === "string" ? t.length > 100 : t' },
  { name: 'API.read missing', code: 'return await API.read("nope.d.ts")' },
  // MCP namespace
  { name: 'MCP namespace shape', code: 'return Object.keys(MCP)' },
  { name: 'MCP call', code: 'return await MCP.docs.lookup({ q: "hello" })' },
  { name: 'MCP via search', code: 'const hits = await catalog.search("lookup docs"); return hits.map((h) => h.callableName)' },
  // results
  { name: 'results.save', code: 'const r = await results.save({ a: [1, 2, 3] }); return [typeof r.id, r.count, r.bytes]' },
  { name: 'results.load', code: 'const r = await results.save([1, 2, 3]); return await results.load(r.id)' },
  { name: 'results.delete', code: 'const r = await results.save({ x: 1 }); return [await results.delete(r.id), await results.delete(r.id).catch((e) => "rejected")]' },
  { name: 'results.load missing', code: 'return await results.load("missing-id")' },
  // console and output
  { name: 'console levels', code: 'console.log("a", 1, { b: 2 }); console.info("i"); console.warn("w"); console.error("e"); console.debug("d"); return "ok"' },
  { name: 'console formats', code: 'console.log("%s literal", [1, [2, [3, [4, [5]]]]], new Error("E"), null, undefined); return 1' },
  { name: 'console cycles', code: 'const a = {}; a.self = a; console.log(a); return 1' },
  { name: 'console limit', code: 'for (let i = 0; i < 3000; i++) console.log("line " + i + " " + "x".repeat(20)); return "done"' },
  { name: 'console long string', code: 'console.log("y".repeat(10000)); return 1' },
  { name: 'text and json', code: 'text("hello"); json({ a: 1 }); text({ toString() { return "t" } }); return null' },
  { name: 'output before throw', code: 'console.log("before"); throw new Error("after output")' },
  { name: 'output limit', code: 'for (let i = 0; i < 200; i++) text("z".repeat(1000)); return "end"' },
  { name: 'big error text', code: 'throw new Error("e".repeat(100000))' },
  // timers and yielding
  { name: 'setTimeout', code: 'await new Promise((r) => setTimeout(r, 20)); return "slept"' },
  { name: 'setTimeout args', code: 'return await new Promise((r) => setTimeout((a, b) => r(a + b), 5, 2, 3))' },
  { name: 'clearTimeout', code: 'let fired = false; const t = setTimeout(() => { fired = true }, 10); clearTimeout(t); await new Promise((r) => setTimeout(r, 30)); return fired' },
  { name: 'yield_control', code: 'console.log("before"); await yield_control("check"); console.log("after"); return "resumed"', waits: 2 },
  { name: 'yield twice', code: 'await yield_control("a"); await yield_control("b"); return 2', waits: 3 },
  { name: 'timer across wait', code: 'let fired = 0; setTimeout(() => { fired++ }, 10); await yield_control("x"); await new Promise((r) => setTimeout(r, 30)); return fired', waits: 2 },
  { name: 'clearTimeout across wait', code: 'let fired = 0; const t = setTimeout(() => { fired++ }, 50); await yield_control("x"); clearTimeout(t); await new Promise((r) => setTimeout(r, 80)); return fired', waits: 2 },
  { name: 'state across wait', code: 'const enc = new TextEncoder(); const m = new Map([["k", 1]]); await yield_control("x"); return [m.get("k"), Array.from(enc.encode("é"))]', waits: 2 },
  // slow tools and draining
  { name: 'slow tool then wait', runtime: 'short', code: 'return (await slow({ ms: 1500 })).slept', waits: 3 },
  { name: 'slow tool and output', runtime: 'short', code: 'console.log("started"); const r = await slow({ ms: 1500 }); console.log("done"); return r', waits: 3 },
  { name: 'fire and forget', code: 'add_one({ x: 1 }); return "sent"' },
  { name: 'fire and forget failing', code: 'fail_tool({}).catch(() => {}); return "sent"' },
  { name: 'many parallel calls', code: 'const r = await Promise.all(Array.from({ length: 40 }, (_, x) => add_one({ x }))); return r.reduce((s, v) => s + v.x, 0)' },
  { name: 'calls past the queue', code: 'const r = await Promise.allSettled(Array.from({ length: 200 }, (_, x) => add_one({ x }))); return r.filter((s) => s.status === "fulfilled").length' },
  // errors
  { name: 'guest throw', code: 'throw new Error("boom")' },
  { name: 'guest throw string', code: 'throw "plain"' },
  { name: 'guest throw object', code: 'throw { code: 1 }' },
  { name: 'TypeError', code: 'null.x' },
  { name: 'caught error', code: 'try { null.x } catch (e) { return [e.name, e.message] }' },
  { name: 'tool error uncaught', code: 'await fail_tool({})' },
  { name: 'tool error caught', code: 'try { await fail_tool({}) } catch (e) { return String(e.message) }' },
  { name: 'unknown function', code: 'return await no_such_tool({})' },
  { name: 'syntax error', code: 'return (' },
  // A raw NUL is source text to upstream's QuickJS (in a literal and in a comment).
  { name: 'NUL character in the source', code: 'return "a\u0000b" // \u0000' },
  { name: 'shell-like input', code: 'ls -la' },
  { name: 'rejected import', code: 'import fs from "fs"; return 1' },
  { name: 'rejected require', code: 'const fs = require("fs"); return 1' },
  { name: 'rejected dynamic import', code: 'const m = await import("fs"); return 1' },
  { name: 'process is absent', code: 'return typeof process + typeof require + typeof globalThis.fetch' },
  { name: 'global names', code: 'return Object.getOwnPropertyNames(globalThis).sort()' },
  { name: 'unhandled rejection', code: 'Promise.reject(new Error("nobody catches")); return "value"' },
  { name: 'rejection handled late', code: 'const p = Promise.reject(new Error("late")); await new Promise((r) => setTimeout(r, 5)); return await p.catch(() => "handled")' },
  { name: 'replaced result promise', code: 'await 0; globalThis.__openclawResult = { a: 1 }; return 1' },
  { name: 'replaced result number', code: 'await 0; globalThis.__openclawResult = 42; return 1' },
  { name: 'forged stack', code: "throw Object.assign(new Error('x'), { stack: '    at f (openclaw-code-mode:user.js:02:5)' })" },
  { name: 'lone surrogate argument', code: "return (await add_one({ x: 1, q: '\u{1F600}'.slice(0, 1) })).x" },
  // limits
  { name: 'infinite loop', runtime: 'short', code: 'while (true) {}' },
  { name: 'infinite loop after output', runtime: 'short', code: 'console.log("spinning"); for (;;) {}' },
  { name: 'memory bomb', code: 'const a = []; for (;;) a.push("x".repeat(1 << 16) + a.length)' },
  // Fits upstream's 32-bit VM in the default 64 MiB, and this package's 64-bit one in twice that
  // (docs/executor-contract.md, "Memory").
  { name: 'forty megabytes of objects', code: 'const a = []; for (let i = 0; i < 450000; i++) a.push({ a: i, b: "x" + i }); return a.length' },
  { name: 'string bomb', code: 'let s = "x"; for (;;) s += s' },
  { name: 'deep recursion', code: 'const f = (n) => f(n + 1) + 1; return f(0)' },
  { name: 'snapshot limit', code: 'const keep = []; for (let i = 0; i < 200; i++) keep.push("k".repeat(65536) + i); await yield_control("big"); return keep.length', waits: 2 },
  // encoding
  { name: 'TextEncoder', code: 'return Array.from(new TextEncoder().encode("hé€😀"))' },
  { name: 'TextDecoder', code: 'return new TextDecoder().decode(new Uint8Array([104, 195, 169, 226, 130, 172, 240, 159, 152, 128]))' },
  { name: 'TextDecoder invalid bytes', code: 'return new TextDecoder().decode(new Uint8Array([0xff, 0x61, 0xc3]))' },
  { name: 'TextDecoder maximal subparts', code: 'return new TextDecoder().decode(new Uint8Array([0xe0, 0x80, 0xed, 0xa0, 0x80, 0xf4, 0x90, 0x61, 0xe2, 0x82]))' },
  { name: 'TextDecoder fatal', code: 'try { new TextDecoder("utf-8", { fatal: true }).decode(new Uint8Array([0xc3])) } catch (e) { return e.name }' },
  { name: 'encodeInto', code: 'const b = new Uint8Array(4); const r = new TextEncoder().encodeInto("abcdef", b); return [r.read, r.written, Array.from(b)]' },
  // abort
  { name: 'abort a running cell', runtime: 'short', code: 'while (true) {}', abortAfterMs: 200 },
  { name: 'abort while a tool runs', code: 'return await slow({ ms: 2000 })', abortAfterMs: 200 },
]
