// `code-mode check`: type-checks cells as the runtime runs them, against guest.d.ts, the run's
// tools.<name> typed from their parameters and the MCP declarations the runtime renders for the
// given tools, and reports errors at the cell's own lines and columns (TypeScript 5 and 7).
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { CodeModeRun, type CatalogTool } from '../index.js'

const require = createRequire(import.meta.url)
const bin = resolve(__dirname, '../bin/code-mode.js')
const examples = resolve(__dirname, '../examples/cli')
const memoryServer = require.resolve('@modelcontextprotocol/server-memory/dist/index.js')

const dir = mkdtempSync(join(tmpdir(), 'code-mode-check-spec-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const toolsFile = join(dir, 'tools.json')
const catalog = {
  tools: [
    { name: 'read_file', description: 'Read a file', parameters: { type: 'object', required: ['path'], properties: { path: { type: 'string' } } } },
    {
      name: 'create_issue', source: 'mcp', sourceName: 'github', description: 'Open an issue',
      parameters: { type: 'object', required: ['owner', 'repo', 'title'], properties: { owner: { type: 'string' }, repo: { type: 'string' }, title: { type: 'string' }, labels: { type: 'array', items: { type: 'string' } } } },
    },
  ],
  responses: {
    read_file: { path: 'README.md', content: 'a\nb\n' },
    create_issue: { content: [{ type: 'text', text: 'opened #7' }] },
  } as Record<string, unknown>,
}
writeFileSync(toolsFile, JSON.stringify(catalog))

/** Runs a cell in the runtime with the catalog above (MCP calls answered from `responses` too). */
async function runCell(code: string, language: 'javascript' | 'typescript') {
  const run = CodeModeRun.create({
    config: { enabled: true },
    runId: 'check-spec',
    tools: catalog.tools as CatalogTool[],
    executor: (call) => catalog.responses[call.name],
  })
  return run.exec({ code, language })
}

function cli(...args: string[]) {
  const result = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', timeout: 60_000 })
  return { status: result.status, stdout: result.stdout, stderr: result.stderr }
}

function cell(name: string, code: string) {
  writeFileSync(join(dir, name), code)
  return join(dir, name)
}

/** 1-based line and column of the first `needle` in `code`. */
function position(code: string, needle: string) {
  const before = code.slice(0, code.indexOf(needle))
  const lines = before.split('\n')
  return { line: lines.length, column: lines[lines.length - 1].length + 1 }
}

// Real cells: top-level await and return, tools.* shortcuts and helpers, MCP calls with the
// rendered shapes, local types, output helpers.
const GOOD_TS = `interface Issue { number: number; title: string }
const hits = await tools.search('read a file', { limit: 3 })
const file = await tools.read_file({ path: 'README.md' })
const issue = await MCP.github.createIssue({ owner: 'openclaw', repo: 'openclaw', title: 'Ship it', labels: ['release'] })
if (issue.isError) return { failed: true }
const issues: Issue[] = [{ number: 7, title: 'Ship it' }]
text(\`\${hits.length} hits, \${issues.length} issue\`)
json({ lines: file.content.split('\\n').length })
return { lines: file.content.split('\\n').length, issue: issue.content }
`

const GOOD_JS = `const tool = await tools.describe('openclaw:core:read_file')
const out = await tools.call(tool.id, { path: 'README.md' })
await MCP.github.createIssue({ owner: 'o', repo: 'r', title: 't' })
console.log('read', out.content.length)
out.content.length
`

describe('code-mode check', () => {
  it('passes real cells (top-level await and return, tools.*, MCP calls), which the runtime also runs', async () => {
    const ts = cell('good.ts', GOOD_TS)
    const checked = cli('check', ts, '--tools', toolsFile)
    expect(checked.stderr).toBe('')
    expect(checked.stdout).toContain('good.ts: no type errors')
    expect(checked.stdout).toContain('guest.d.ts, mcp/index.d.ts, mcp/github.d.ts')
    expect(checked.status).toBe(0)
    expect(await runCell(GOOD_TS, 'typescript')).toMatchObject({ status: 'completed', value: { lines: 3, issue: [{ text: 'opened #7' }] } })

    const js = cell('good.js', GOOD_JS)
    expect(cli('check', js, '--tools', toolsFile)).toMatchObject({ status: 0, stderr: '' })
    expect(await runCell(GOOD_JS, 'javascript')).toMatchObject({ status: 'completed', value: 4 })

    expect(cli('check', join(examples, 'cell.ts'), '--tools', join(examples, 'tools.json')).status).toBe(0)
  }, 120_000)

  it('fails an MCP call with the wrong argument shape, at the cell line and column', () => {
    const code = `const file = await tools.read_file({ path: 'README.md' })
// the server wants strings
    const issue = await MCP.github.createIssue({ owner: 'openclaw', repo: 'openclaw', title: 42 })
return issue.content
`
    const bad = cell('bad.ts', code)
    const at = position(code, 'title: 42')
    const { status, stdout } = cli('check', bad, '--tools', toolsFile)
    expect(status).toBe(1)
    expect(stdout).toContain(`${bad}:${at.line}:${at.column} - error TS2322: Type 'number' is not assignable to type 'string'.`)
    expect(stdout).toContain(`${at.line}     const issue = await MCP.github.createIssue(`)
    expect(stdout).toContain('Found 1 error in')

    const report = JSON.parse(cli('check', bad, '--tools', toolsFile, '--json').stdout)
    expect(report).toMatchObject({ errors: 1, diagnostics: [{ category: 'error', code: 2322, line: 3, column: 87 }] })
    expect(at).toEqual({ line: 3, column: 87 })

    const missing = 'await MCP.github.createIssue({ owner: "o" })'
    const out = cli('check', cell('missing.js', `text("x")\n${missing}`), '--tools', toolsFile, '--json')
    expect(out.status).toBe(1)
    expect(JSON.parse(out.stdout).diagnostics).toMatchObject([{ code: 2345, line: 2, column: missing.indexOf('{') + 1, message: expect.stringMatching(/missing the following properties.*repo, title/) }])
  }, 120_000)

  it('reports what the sandbox lacks and wrong helper arguments, in JavaScript cells too', () => {
    const code = 'const hits = await tools.search(42)\nconst r = await fetch("https://example.com")\nreturn [hits, r, process.env.HOME]'
    const report = JSON.parse(cli('check', cell('lacks.js', code), '--json').stdout)
    expect(report.declarations).toEqual(['guest.d.ts'])
    expect(report.diagnostics.map((d: { line: number; column: number; code: number }) => [d.line, d.column, d.code])).toEqual([
      [1, 33, 2345],
      [2, 17, 2304],
      [3, 18, 2591],
    ])
  }, 120_000)

  it('types MCP servers started with --mcp', () => {
    const server = `memory=${process.execPath} ${memoryServer}`
    const good = cell('memory.ts', 'await MCP.memory.createEntities({ entities: [{ name: "a", entityType: "t", observations: [] }] })\nreturn 1')
    expect(cli('check', good, '--mcp', server)).toMatchObject({ status: 0, stderr: '' })
    const bad = cell('memory-bad.ts', 'return await MCP.memory.createEntities({ entities: "a" })')
    const report = JSON.parse(cli('check', bad, '--mcp', server, '--json').stdout)
    expect(report.declarations).toEqual(['guest.d.ts', 'mcp/index.d.ts', 'mcp/memory.d.ts'])
    expect(report.diagnostics).toMatchObject([{ category: 'error', line: 1, column: 'return await MCP.memory.createEntities({ '.length + 1 }])
  }, 120_000)

  it('types every tool of --tools: a misspelt tool and a wrong argument are errors', () => {
    const code = 'await tools.read_fil({ path: "README.md" })\nawait tools.read_file({ path: 42 })\nawait tools.read_file()\nreturn await tools.read_file({ path: "README.md" })\n'
    const report = JSON.parse(cli('check', cell('tools.js', code), '--tools', toolsFile, '--json').stdout)
    expect(report.declarations).toEqual(['guest.d.ts', 'mcp/index.d.ts', 'mcp/github.d.ts', 'tools.d.ts'])
    expect(report.diagnostics.map((d: { line: number; column: number; code: number }) => [d.line, d.column, d.code])).toEqual([
      [1, 13, 2551],
      [2, 'await tools.read_file({ '.length + 1, 2322],
      [3, 13, 2554],
    ])
    expect(report.diagnostics[0].message).toBe("Property 'read_fil' does not exist on type 'ToolCatalogHelpers & CodeModeRunTools'. Did you mean 'read_file'?")
    // Without a catalog no tools.<name> exists, so none type-checks.
    expect(JSON.parse(cli('check', cell('none.js', 'await tools.read_file({ path: "x" })'), '--json').stdout).diagnostics).toMatchObject([{ code: 2339, line: 1, column: 13 }])
  }, 120_000)

  it('checks with TypeScript 7 (typescript/unstable/sync) as with 5, and names the supported versions for any other', () => {
    const code = 'const f = await tools.read_file({ path: 42 })\nconst s = "h\u00e9llo \u{1F600}"; await MCP.github.createIssue({ owner: "o", repo: "r", title: 1 })\nreturn [f, s]\n'
    const file = cell('ts7.js', code)
    const project = mkdtempSync(join(dir, 'ts7-'))
    mkdirSync(join(project, 'node_modules'))
    symlinkSync(resolve(__dirname, '../node_modules/typescript-7'), join(project, 'node_modules', 'typescript'), 'dir')
    const inProject = (...args: string[]) => spawnSync(process.execPath, [bin, ...args], { cwd: project, encoding: 'utf8', timeout: 60_000 })
    const seven = JSON.parse(inProject('check', file, '--tools', toolsFile, '--json').stdout)
    const five = JSON.parse(cli('check', file, '--tools', toolsFile, '--json').stdout)
    expect(seven.typescript).toBe(require('typescript-7/package.json').version)
    expect(seven.typescript).toMatch(/^7\./)
    expect(five.typescript).toMatch(/^5\./)
    expect(seven.diagnostics).toEqual(five.diagnostics)
    expect(seven.diagnostics.map((d: { line: number; column: number; code: number }) => [d.line, d.column, d.code])).toEqual([
      [1, 'const f = await tools.read_file({ '.length + 1, 2322],
      [2, code.split('\n')[1].indexOf('title: 1') + 1, 2322],
    ])

    const old = mkdtempSync(join(dir, 'ts4-'))
    mkdirSync(join(old, 'node_modules', 'typescript'), { recursive: true })
    writeFileSync(join(old, 'node_modules', 'typescript', 'package.json'), JSON.stringify({ name: 'typescript', version: '4.9.5', main: 'index.js' }))
    writeFileSync(join(old, 'node_modules', 'typescript', 'index.js'), 'exports.version = "4.9.5"')
    const refused = spawnSync(process.execPath, [bin, 'check', file], { cwd: old, encoding: 'utf8', timeout: 60_000 })
    expect(refused.status).toBe(2)
    expect(refused.stderr).toBe(
      `code-mode: check supports TypeScript 5.x and 6.x (the compiler API) and 7.x (typescript/unstable/sync); found TypeScript 4.9.5 in ${realpathSync(join(old, 'node_modules', 'typescript'))}. Install a supported one: npm install --save-dev typescript@latest\n`,
    )
    // The peer range says the same.
    expect(JSON.parse(readFileSync(resolve(__dirname, '../package.json'), 'utf8')).peerDependencies.typescript).toBe(require('../lib/check.js').SUPPORTED_TYPESCRIPT)
  }, 120_000)

  it('treats module syntax as the runtime does (an error) and usage mistakes as status 2', () => {
    const report = JSON.parse(cli('check', cell('module.ts', 'import fs from "fs"\nreturn fs'), '--json').stdout)
    expect(report.errors).toBeGreaterThan(0)
    expect(report.diagnostics[0]).toMatchObject({ line: 1, column: 1 })
    expect(cli('check').status).toBe(2)
    expect(cli('check', 'x.ts', '--language', 'python').status).toBe(2)
    expect(cli('--help').stdout).toContain('code-mode check <cell.js|cell.ts>')
  }, 120_000)
})
