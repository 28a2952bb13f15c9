// guest.d.ts types cells the way the runtime runs them; with the runtime's own MCP declaration
// files it types MCP calls too. guest-openclaw.d.ts types the API OpenClaw's gateway gives cells,
// as an editor sees it (no per-run declarations).
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { expectStatus, makeRun } from './helpers.js'

const require = createRequire(import.meta.url)
const tsc = require.resolve('typescript/bin/tsc')
const guest = resolve(__dirname, '../guest.d.ts')

const GOOD = [
  `const hits = await tools.search("read a file", { limit: 3 });
   if (hits.queryTruncated) text(hits.queryTruncated.searched + hits.queryTruncated.reason);
   const tool = await tools.describe(hits[0].id);
   const out = await tools.call<{ content: string }>(tool.id, { path: "README.md" });
   text(out.content.length);
   return ALL_TOOLS.map((t) => t.id)`,
  `const page = await tools.web_search({ query: "OpenClaw" });
   json(page);
   console.log("found", page);
   setTimeout((a: number) => text(String(a)), 10, 1);
   await yield_control("checkpoint");
   const files = await API.list("mcp");
   return (await API.read(files[0].path)).length`,
  `const issue = await MCP.github.createIssue({ owner: "openclaw", repo: "openclaw", title: "t" });
   const header = await MCP.github.$api("createIssue", { schema: true });
   const all = await MCP.$api();
   return [issue.isError, header.declaration, all.declaration, namespaces.Issues]`,
]

const BAD: [string, RegExp][] = [
  ['await fetch("https://example.com")', /Cannot find name 'fetch'/],
  ['process.env.SECRET', /Cannot find name 'process'/],
  ['await tools.search(42)', /not assignable to parameter of type 'string'/],
  ['ALL_TOOLS.push({ id: "x" } as any)', /Property 'push' does not exist/],
  ['await MCP.github.createIssue({ owner: "o" })', /missing the following properties/],
  ['require("fs")', /Cannot find name 'require'/],
]

function typecheck(cells: string[], extra: [string, string][], types = guest): string {
  const dir = mkdtempSync(join(tmpdir(), 'guest-types-'))
  const files = [types]
  cells.forEach((code, i) => {
    const path = join(dir, `cell${i}.ts`)
    writeFileSync(path, `export {}\nasync function cell() {\n${code}\n}\nvoid cell\n`)
    files.push(path)
  })
  for (const [name, content] of extra) {
    writeFileSync(join(dir, name), content)
    files.push(join(dir, name))
  }
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { lib: ['es2023'], types: [], strict: true, noEmit: true, target: 'es2022', module: 'esnext', moduleResolution: 'bundler' },
    files,
  }))
  try {
    execFileSync(process.execPath, [tsc, '-p', dir], { encoding: 'utf8' })
    return ''
  } catch (error) {
    return String((error as { stdout?: string }).stdout)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

describe('guest.d.ts', () => {
  it('type-checks sample cells, with the MCP declarations the runtime renders', async () => {
    const { run } = makeRun({
      tools: [{ name: 'create_issue', source: 'mcp', sourceName: 'github', parameters: { type: 'object', required: ['owner', 'repo', 'title'], properties: { owner: { type: 'string' }, repo: { type: 'string' }, title: { type: 'string' } } } }],
    })
    const rendered = expectStatus(await run.exec({ code: '[await API.read("mcp/index.d.ts"), await API.read("mcp/github.d.ts")]' }), 'completed').value as [string, string]
    const mcp: [string, string][] = [['index.d.ts', rendered[0]], ['github.d.ts', rendered[1]]]
    expect(typecheck(GOOD, mcp)).toBe('')
    for (const [code, error] of BAD) expect(typecheck([code], mcp)).toMatch(error)
  }, 60_000)
})

const OPENCLAW_GOOD = [
  `const [handle] = await catalog.search("read a file", { limit: 1 });
   const described = await handle.describe();
   const content = await handle<{ text: string }>({ path: "README.md" });
   text(content.text);
   json({ callable: handle.callableName, kind: "kind" in described ? described.kind : described.name, all: catalog.all().length });
   const saved = await results.save({ rows: [1, 2] });
   const back = await results.load(saved.id);
   await results.delete(saved.id);
   const files = await API.list("mcp");
   const first = await API.read(files.files[0].path);
   const node = await nodes.get((await nodes.list())[0].id);
   await node.invoke("device.status");
   const bytes = new TextEncoder().encode("h\u00e9");
   console.warn(new TextDecoder().decode(bytes), first.content.length, back, namespaces.MCP);
   setTimeout(() => text("later"), 10);
   await yield_control("checkpoint");
   return saved.preview`,
]

const OPENCLAW_BAD: [string, RegExp][] = [
  ['await catalog.serch("x")', /Property 'serch' does not exist on type 'ToolCatalog'/],
  ['await tools.search("x")', /Cannot find name 'tools'/],
  ['ALL_TOOLS.length', /Cannot find name 'ALL_TOOLS'/],
  ['await results.save()', /Expected 1 arguments, but got 0/],
  ['await fetch("https://example.com")', /Cannot find name 'fetch'/],
  ['(await API.read("results.d.ts")).length', /Property 'length' does not exist on type 'ApiFile'/],
]

describe('guest-openclaw.d.ts', () => {
  const types = resolve(__dirname, '../guest-openclaw.d.ts')

  it('type-checks cells written against the gateway guest API, and rejects the library API', () => {
    expect(typecheck(OPENCLAW_GOOD, [], types)).toBe('')
    for (const [code, error] of OPENCLAW_BAD) expect(typecheck([code], [], types)).toMatch(error)
  }, 60_000)
})
