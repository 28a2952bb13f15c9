import ts from 'typescript'
import { afterAll, describe, expect, it } from 'vitest'
import type { CodeModeRun, ToolCatalogEntry } from '../index.js'
import { COMPLETION_CORPUS, TYPESCRIPT_CORPUS } from './fixtures/typescript-corpus.js'
import { expectStatus, makeRun } from './helpers.js'

type CellFunction = (...args: unknown[]) => Promise<unknown>
const AsyncFunction = Object.getPrototypeOf(async function () {}).constructor as new (...args: string[]) => CellFunction

/** JSON as a result carries it: what both sides of a comparison are reduced to. */
const asJson = (value: unknown): unknown => JSON.parse(JSON.stringify(value ?? null))

/** `tsc`'s own output for a cell; a syntax error in the corpus fails here, not as a mismatch. */
function transpile(code: string): string {
  const out = ts.transpileModule(code, {
    reportDiagnostics: true,
    compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext },
  })
  const problems = (out.diagnostics ?? []).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'))
  if (problems.length > 0) throw new Error(`tsc rejects the snippet: ${problems.join('; ')}`)
  return out.outputText
}

/**
 * The guest globals the corpus uses, rebuilt in Node over the same catalog and with the same
 * tool results as `makeRun`'s default executor (`{ tool: name, input }`, through JSON).
 */
function guestGlobals(catalog: ToolCatalogEntry[]): Record<string, unknown> {
  const call = async (id: string, input?: unknown) => {
    const entry = catalog.find((t) => t.id === id)
    if (!entry) throw new Error(`no tool ${id}`)
    return asJson({ tool: entry.name, input: input === undefined ? {} : input })
  }
  const tools: Record<string, unknown> = { call }
  for (const entry of catalog) {
    const name = entry.name.replace(/-/g, '_')
    if (/^[A-Za-z_$][\w$]*$/.test(name)) tools[name] = (input?: unknown) => call(entry.id, input)
  }
  const quiet = () => {}
  return {
    tools: Object.freeze(tools),
    ALL_TOOLS: Object.freeze(asJson(catalog) as unknown[]),
    text: quiet,
    json: quiet,
    console: Object.freeze({ log: quiet, info: quiet, warn: quiet, error: quiet, debug: quiet }),
  }
}

/** Runs `tsc`'s output the way code mode runs a cell: the body of a strict async function. */
async function oracle(code: string, globals: Record<string, unknown>): Promise<unknown> {
  const body = `return (async function () {\n'use strict';\n${transpile(code)}\n})()`
  const cell = new AsyncFunction(...Object.keys(globals), body)
  return asJson(await cell(...Object.values(globals)))
}

/**
 * The corpus again with its final top-level `return expr` turned into a bare `expr`: the
 * completion value must be the same. Skipped where dropping `return` changes the parse (an
 * object literal would become a block; a line not closed by `;` or `}` would run on).
 */
function asCompletion(code: string): string | undefined {
  const lines = code.split('\n')
  let at = lines.length - 1
  while (at >= 0 && !lines[at].startsWith('return ')) at--
  if (at < 1 || /^return (\{|function|class|async function)/.test(lines[at])) return undefined
  if (!/[;}]$/.test(lines.slice(0, at).join('\n').trimEnd())) return undefined
  return [...lines.slice(0, at), lines[at].slice('return '.length), ...lines.slice(at + 1)].join('\n')
}

const COMPLETION_VARIANTS = TYPESCRIPT_CORPUS.flatMap(({ name, code }) => {
  const completion = asCompletion(code)
  return completion === undefined ? [] : [{ name, code, completion }]
})

async function value(run: CodeModeRun, code: string): Promise<unknown> {
  const result = await run.exec({ code, language: 'typescript' })
  return expectStatus(result, 'completed').value
}

describe('the TypeScript oracle', () => {
  const { run } = makeRun()
  const globals = guestGlobals(run.catalog)
  afterAll(() => run.abort())

  it('has a corpus of at least 200 uniquely named snippets covering the contract', () => {
    expect(TYPESCRIPT_CORPUS.length).toBeGreaterThanOrEqual(200)
    const names = [...TYPESCRIPT_CORPUS, ...COMPLETION_CORPUS].map((s) => s.name)
    expect(new Set(names).size).toBe(names.length)
    const source = TYPESCRIPT_CORPUS.map((s) => s.code).join('\n')
    const features: Record<string, RegExp> = {
      annotation: /\(\w+: number\)/,
      interface: /^interface \w+/m,
      'type alias': /^type \w+/m,
      generics: /<T,?>/,
      as: /\) as \{/,
      satisfies: / satisfies /,
      'non-null': /\w!\./,
      'as const': /as const/,
      enum: /^enum \w+/m,
      'const enum': /^const enum /m,
      namespace: /^namespace \w+/m,
      'dotted namespace': /^namespace \w+\.\w+/m,
      'import alias': /^import \w+ = \w+\.\w+/m,
      'parameter properties': /constructor\((public|private|protected|readonly) /,
      'abstract class': /^abstract class /m,
      overloads: /^function (\w+)\(.*\): \w+;\nfunction \1\(/m,
      'optional chaining': /\?\.\w/,
      declare: /^declare (const|let|var|function|class|enum|namespace|global|module) /m,
      'auto-accessor': /\baccessor \w+/,
      'top-level await': /^const \w+ = await /m,
    }
    const missing = Object.entries(features).filter(([, pattern]) => !pattern.test(source)).map(([name]) => name)
    expect(missing).toEqual([])
  })

  it.each(TYPESCRIPT_CORPUS)('$name', async ({ code }) => {
    const expected = await oracle(code, globals)
    expect(await value(run, code)).toEqual(expected)
  })

  it.each(COMPLETION_CORPUS)('completion: $name', async ({ code, expected }) => {
    expect(await value(run, code)).toEqual(expected)
  })

  it('turns most of the corpus into completion-value cells too', () => {
    expect(COMPLETION_VARIANTS.length).toBeGreaterThanOrEqual(150)
  })

  it.each(COMPLETION_VARIANTS)('as last expression: $name', async ({ code, completion }) => {
    const expected = await oracle(code, globals)
    expect(await value(run, completion)).toEqual(expected)
  })
})

describe('TypeScript diagnostics', () => {
  const { run } = makeRun()
  afterAll(() => run.abort())

  const fail = async (code: string) => {
    const result = expectStatus(await run.exec({ code, language: 'typescript' }), 'failed')
    expect(result.code).toBe('invalid_input')
    return result.error
  }

  it('reports syntax errors with the line and column in the user source', async () => {
    expect(await fail('const total: number = 1;\nconst next = total +;')).toBe(
      'typescript transform failed: SyntaxError: Expression expected (line 2, column 21)',
    )
    expect(await fail('let list: Array<number = [];')).toBe(
      "typescript transform failed: SyntaxError: Expected ',', got '=' (line 1, column 24)",
    )
    expect(await fail('function f(x: number {\n  return x\n}')).toBe(
      "typescript transform failed: SyntaxError: Expected ',', got '{' (line 1, column 22)",
    )
    expect(await fail('const label = "unterminated\nlabel')).toBe(
      'typescript transform failed: SyntaxError: Unterminated string constant (line 1, column 15)',
    )
    expect(await fail('enum Color { Red, Green,, Blue }')).toBe(
      'typescript transform failed: SyntaxError: Expected ident (line 1, column 25)',
    )
    // Columns count characters, not bytes.
    expect(await fail('const café = "x";\nconst obj = { a: café, b: 2 ;')).toBe(
      "typescript transform failed: SyntaxError: Expected ',', got ';' (line 2, column 29)",
    )
  })

  it('reports unclosed blocks and stray braces inside the cell', async () => {
    expect(await fail('interface Job {\n  id: number\n\nconst j: Job = { id: 1 };')).toMatch(
      /^typescript transform failed: SyntaxError: .* \(line 4, column 7\)$/,
    )
    expect(await fail('namespace N {\n  export const x = 1\n')).toMatch(
      /^typescript transform failed: SyntaxError: .* \(line 3, column 1\)$/,
    )
    expect(await fail('const a: number = 1;\nif (a) {\n  })')).toMatch(
      /^typescript transform failed: SyntaxError: .* \(line 3, column 4\)$/,
    )
    const escape = await run.exec({ code: '}); (async function () {', language: 'typescript' })
    expect(expectStatus(escape, 'failed').error).toMatch(/^SyntaxError/)
  })

  it('names what it cannot run instead of failing on it later', async () => {
    expect(await fail('const tag = "x";\n@sealed\nclass Report {}')).toBe(
      'typescript transform failed: decorators are not supported (line 2, column 1)',
    )
    expect(await fail('const key = "k";\nclass A {\n  accessor [key] = 1;\n}')).toBe(
      'typescript transform failed: `accessor` fields with computed names are not supported (line 3, column 3)',
    )
  })

  it('rejects type-only imports and exports as module access', async () => {
    for (const [code, what, at] of [
      ['import type { Tool } from "./tools";\nconst t: Tool = {};', 'import declaration', 'line 1, column 1'],
      ['import { type A, type B } from "ab";', 'import declaration', 'line 1, column 1'],
      ['const x = 1;\nexport type { X } from "./x";', 'export declaration', 'line 2, column 1'],
      ['export type Shape = { kind: string };', 'export declaration', 'line 1, column 1'],
      ['export interface Shape { kind: string }', 'export declaration', 'line 1, column 1'],
      ['interface A {}\n\n  export {};', 'export declaration', 'line 3, column 3'],
      ['import type X = NS.Y;', 'import declaration', 'line 1, column 1'],
      ['import fs = require("fs");', 'import declaration', 'line 1, column 1'],
      ['export import X = NS.Y;', 'export declaration', 'line 1, column 1'],
      ['const x = 1;\nexport = x;', 'export declaration', 'line 2, column 1'],
      ['type Mod = typeof import("./mod");\nconst m = await import("./mod");', 'import()', 'line 2, column 17'],
      ['declare const require: (id: string) => unknown;\nconst fs = require("fs");', 'require()', 'line 2, column 12'],
      ['const u: string = import.meta.url;', 'import.meta', 'line 1, column 19'],
    ]) {
      expect(await fail(code)).toBe(`module access is not allowed in code mode: ${what} (${at})`)
    }
  })

  it('refuses TypeScript cells when only JavaScript is enabled', async () => {
    const { run: jsOnly } = makeRun({ config: { enabled: true, languages: ['javascript'] } })
    const result = expectStatus(await jsOnly.exec({ code: 'const x: number = 1; x', language: 'typescript' }), 'failed')
    expect(result).toMatchObject({ code: 'invalid_input', error: 'code mode typescript input is disabled.' })
    expect(expectStatus(await jsOnly.exec({ code: '1 + 1', language: 'javascript' }), 'completed').value).toBe(2)
    expect(jsOnly.telemetry.typescriptTransforms).toBe(0)
    jsOnly.abort()
  })

  it('transforms TypeScript cells only', async () => {
    const { run: fresh } = makeRun()
    await fresh.exec({ code: 'const a = 1; a' })
    await fresh.exec({ code: 'const a = 2; a', language: 'javascript' })
    // Type syntax in a JavaScript cell is a JavaScript syntax error, not a transform.
    const typed = expectStatus(await fresh.exec({ code: 'const a: number = 1;', language: 'javascript' }), 'failed')
    expect(typed.error).toBe("SyntaxError: 'const' declarations must be initialized (line 1, column 7)")
    expect(fresh.telemetry.typescriptTransforms).toBe(0)
    expect(expectStatus(await fresh.exec({ code: 'const a: number = 3; a', language: 'typescript' }), 'completed').value).toBe(3)
    await fresh.exec({ code: 'enum E { A } E.A', language: 'typescript' })
    expect(fresh.telemetry.typescriptTransforms).toBe(2)
    fresh.abort()
  })
})

describe('runtime error positions', () => {
  const { run } = makeRun()
  afterAll(() => run.abort())

  const error = async (language: 'typescript' | 'javascript', code: string) => {
    const result = expectStatus(await run.exec({ code, language }), 'failed')
    expect(result.code).toBe('internal_error')
    return result.error
  }

  it('points at the user line after enums and namespaces that swc re-emits', async () => {
    const code = [
      'enum Level { Low, High }',
      'namespace Api { export const base = "/v1"; export enum Verb { Get = "GET" } }',
      'const data: { items: string[] } | null = JSON.parse("null");',
      'const count: number = data!.items.length;',
    ].join('\n')
    expect(await error('typescript', code)).toBe("TypeError: cannot read property 'items' of null (line 4, column 23)")
  })

  it('points inside functions called later, in TypeScript and JavaScript alike', async () => {
    const ts = [
      'interface Job { id: number }',
      'function process(job: Job | null): number {',
      '  const id: number = job!.id;',
      '  return id * 2;',
      '}',
      '',
      'const jobs: Array<Job | null> = [{ id: 1 }, null];',
      'jobs.map(process);',
    ].join('\n')
    expect(await error('typescript', ts)).toBe("TypeError: cannot read property 'id' of null (line 3, column 22)")
    const js = ['function process(job) {', '  const id = job.id;', '  return id * 2;', '}', '', 'const jobs = [{ id: 1 }, null];', 'jobs.map(process);'].join('\n')
    expect(await error('javascript', js)).toBe("TypeError: cannot read property 'id' of null (line 2, column 14)")
  })

  it('points at the line after await', async () => {
    const ts = [
      'const res = await tools.read_file({ path: "a" }) as { tool: string };',
      'await new Promise<void>((r) => setTimeout(r, 1));',
      'const handler = undefined as unknown as (x: string) => void;',
      'handler(res.tool);',
    ].join('\n')
    expect(await error('typescript', ts)).toBe('TypeError: not a function (line 4, column 9)')
    const js = ts.replace(' as { tool: string }', '').replace('<void>', '').replace(' as unknown as (x: string) => void', '')
    expect(await error('javascript', js)).toBe('TypeError: not a function (line 4, column 9)')
  })

  it('points at a throw inside an async function after its await', async () => {
    const ts = [
      'async function load(path: string): Promise<string> {',
      '  await null;',
      '  throw new Error("cannot load " + path);',
      '}',
      'const text: string = await load("x.json");',
    ].join('\n')
    expect(await error('typescript', ts)).toBe('Error: cannot load x.json (line 3, column 36)')
    const js = ts.replace('(path: string): Promise<string>', '(path)').replace('const text: string', 'const text')
    expect(await error('javascript', js)).toBe('Error: cannot load x.json (line 3, column 36)')
  })

  it('points into namespace functions, merged namespaces and classes with parameter properties', async () => {
    const merged = [
      'namespace Store {',
      '  export const cache = JSON.parse("null") as Map<string, number>;',
      '}',
      'namespace Store {',
      '  export function size(): number {',
      '    return cache.size;',
      '  }',
      '}',
      'Store.size()',
    ].join('\n')
    expect(await error('typescript', merged)).toBe("TypeError: cannot read property 'size' of null (line 6, column 12)")
    const client = [
      'class Client {',
      '  constructor(private base: string, private opts?: { retries: number }) {}',
      '  retries(): number {',
      '    const o = this.opts;',
      '    return o!.retries;',
      '  }',
      '}',
      'new Client("x").retries()',
    ].join('\n')
    expect(await error('typescript', client)).toBe("TypeError: cannot read property 'retries' of undefined (line 5, column 12)")
    const accessor = ['class Lazy {', '  accessor value: { n: number } | null = null;', '}', 'const l = new Lazy();', 'l.value!.n;'].join('\n')
    expect(await error('typescript', accessor)).toBe("TypeError: cannot read property 'n' of null (line 5, column 1)")
  })

  it('points into callbacks, undefined functions and import aliases', async () => {
    const callback = [
      'const items: number[] = [1, 2, 3];',
      'const total = items.reduce((sum: number, n: number) => {',
      '  if (n === 3) throw new Error(`bad item ${n}`);',
      '  return sum + n;',
      '}, 0);',
    ].join('\n')
    expect(await error('typescript', callback)).toBe('Error: bad item 3 (line 3, column 44)')
    expect(await error('javascript', callback.replace(/: number(\[\])?/g, ''))).toBe('Error: bad item 3 (line 3, column 44)')
    expect(await error('typescript', 'const x: number = 1;\n  missingFunction(x);')).toBe(
      'ReferenceError: missingFunction is not defined (line 2, column 3)',
    )
    expect(await error('typescript', 'import Alias = Missing.Thing;\nAlias.go();')).toBe(
      'ReferenceError: Missing is not defined (line 1, column 16)',
    )
  })

  it('counts columns in characters of the user source', async () => {
    const code = 'const é: string = "é";\nconst obj: any = null;\nconst v = `${é}` + obj.field;'
    expect(await error('typescript', code)).toBe("TypeError: cannot read property 'field' of null (line 3, column 20)")
    expect(await error('javascript', code.replace(/: (string|any)/g, ''))).toBe(
      "TypeError: cannot read property 'field' of null (line 3, column 20)",
    )
  })

  it('reports the calling line when QuickJS has no position inside the method', async () => {
    // `this.opts.retries` records no position in QuickJS; the frame that has one is the call.
    const ts = [
      'class Client {',
      '  constructor(private opts: { retries: number } | null) {}',
      '  retries(): number {',
      '    return this.opts!.retries;',
      '  }',
      '}',
      'new Client(null).retries()',
    ].join('\n')
    expect(await error('typescript', ts)).toBe("TypeError: cannot read property 'retries' of null (line 7, column 18)")
    const js = ts.replace('private opts: { retries: number } | null) {}', 'opts) { this.opts = opts }').replace('(): number', '()').replace('!', '')
    expect(await error('javascript', js)).toBe("TypeError: cannot read property 'retries' of null (line 7, column 18)")
  })

  it('adds no position when QuickJS recorded none', async () => {
    expect(await error('typescript', 'const x: number = (null as any).foo;')).toBe("TypeError: cannot read property 'foo' of null")
    expect(await error('javascript', 'const x = null.foo;')).toBe("TypeError: cannot read property 'foo' of null")
  })
})
