// Real MCP servers from npm, end to end: server-memory, server-filesystem, server-everything.
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { CodeModeRun } from '../index.js'
import { expectStatus, makeRun } from './helpers.js'
import { closeAll, connect, forward, type ConnectedServer } from './support/mcp-servers.js'

const require = createRequire(import.meta.url)
const workspace = mkdtempSync(join(tmpdir(), 'code-mode-mcp-'))
let servers: ConnectedServer[] = []
let run: CodeModeRun

beforeAll(async () => {
  writeFileSync(join(workspace, 'hello.txt'), 'hello from the filesystem server\n')
  servers = await Promise.all([
    connect({ name: 'memory', pkg: '@modelcontextprotocol/server-memory', env: { MEMORY_FILE_PATH: join(workspace, 'memory.jsonl') } }),
    connect({ name: 'filesystem', pkg: '@modelcontextprotocol/server-filesystem', args: [workspace] }),
    connect({ name: 'everything', pkg: '@modelcontextprotocol/server-everything', args: ['stdio'] }),
  ])
  run = makeRun({
    tools: [{ name: 'note', description: 'Take a note' }, ...servers.flatMap((s) => s.tools)],
    config: { enabled: true, timeoutMs: 10_000 },
    executor: (call) => (call.source === 'mcp' ? forward(servers, call) : 'noted'),
  }).run
})

afterAll(async () => {
  await closeAll(servers)
  rmSync(workspace, { recursive: true, force: true })
})

describe('server-memory', () => {
  it('creates and reads a knowledge graph', async () => {
    const result = await run.exec({
      code: `await MCP.memory.createEntities({ entities: [
               { name: "OpenClaw", entityType: "project", observations: ["an agent gateway"] },
               { name: "QuickJS", entityType: "engine", observations: ["small JavaScript engine"] } ] });
             await MCP.memory.createRelations({ relations: [{ from: "OpenClaw", to: "QuickJS", relationType: "runs code in" }] });
             await MCP.memory.addObservations({ observations: [{ entityName: "QuickJS", contents: ["embeddable"] }] });
             const graph = await MCP.memory.readGraph();
             const found = await MCP.memory.searchNodes({ query: "engine" });
             ({ graph: graph.structuredContent ?? JSON.parse(graph.content[0].text), found: (found.structuredContent ?? JSON.parse(found.content[0].text)).entities.map((e) => e.name) })`,
    })
    const value = expectStatus(result, 'completed').value as { graph: { entities: { name: string; observations: string[] }[]; relations: unknown[] }; found: string[] }
    expect(value.graph.entities.map((e) => e.name).sort()).toEqual(['OpenClaw', 'QuickJS'])
    expect(value.graph.entities.find((e) => e.name === 'QuickJS')?.observations).toEqual(['small JavaScript engine', 'embeddable'])
    expect(value.graph.relations).toEqual([{ from: 'OpenClaw', to: 'QuickJS', relationType: 'runs code in' }])
    expect(value.found).toEqual(['QuickJS'])
  })
})

describe('server-filesystem', () => {
  it('reads and writes files, in parallel', async () => {
    const root = JSON.stringify(workspace)
    const result = await run.exec({
      code: `const root = ${root};
             await Promise.all([1, 2, 3].map((n) => MCP.filesystem.writeFile({ path: root + "/note-" + n + ".txt", content: "note " + n })));
             const [hello, ...notes] = await Promise.all(["hello.txt", "note-1.txt", "note-2.txt", "note-3.txt"]
               .map((f) => MCP.filesystem.readTextFile({ path: root + "/" + f })));
             const listing = await MCP.filesystem.listDirectory({ path: root });
             ({ hello: hello.content[0].text, notes: notes.map((n) => n.content[0].text), listing: listing.content[0].text })`,
    })
    const value = expectStatus(result, 'completed').value as { hello: string; notes: string[]; listing: string }
    expect(value.hello).toBe('hello from the filesystem server\n')
    expect(value.notes).toEqual(['note 1', 'note 2', 'note 3'])
    expect(value.listing).toContain('[FILE] note-2.txt')
    expect(readFileSync(join(workspace, 'note-3.txt'), 'utf8')).toBe('note 3')
  })

  it('surfaces a server-side refusal to the guest', async () => {
    const result = await run.exec({
      code: `const r = await MCP.filesystem.readTextFile({ path: "/etc/passwd" }); [r.isError, r.content[0].text]`,
    })
    const [isError, message] = expectStatus(result, 'completed').value as [boolean, string]
    expect(isError).toBe(true)
    expect(message).toMatch(/outside allowed directories|Access denied/)
  })
})

describe('server-everything', () => {
  it('calls tools, reads resources and gets prompts', async () => {
    const result = await run.exec({
      code: `const echo = await MCP.everything.echo({ message: "hi" });
             const sum = await MCP.everything.getSum({ a: 2, b: 40 });
             const resources = await MCP.everything.resources.list();
             const first = await MCP.everything.resources.read({ uri: resources.resources[0].uri });
             const prompts = await MCP.everything.prompts.list();
             ({ echo: echo.content[0].text, sum: sum.content[0].text, uri: first.contents[0].uri === resources.resources[0].uri, prompts: prompts.prompts.length > 0 })`,
    })
    const value = expectStatus(result, 'completed').value as Record<string, unknown>
    expect(value.echo).toBe('Echo: hi')
    expect(value.sum).toContain('42')
    expect(value.uri).toBe(true)
    expect(value.prompts).toBe(true)
  })
})

describe('declaration files from the real servers', () => {
  it('are valid declaration files (tsc --noEmit)', async () => {
    const result = await run.exec({ code: 'await Promise.all((await API.list("mcp")).map(async (f) => [f.path, await API.read(f.path)]))' })
    const files = expectStatus(result, 'completed').value as [string, string][]
    expect(files.map(([path]) => path)).toEqual(['mcp/index.d.ts', 'mcp/memory.d.ts', 'mcp/filesystem.d.ts', 'mcp/everything.d.ts'])
    const dir = mkdtempSync(join(tmpdir(), 'code-mode-dts-'))
    for (const [path, content] of files) {
      mkdirSync(dirname(join(dir, path)), { recursive: true })
      writeFileSync(join(dir, path), content)
    }
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { noEmit: true, strict: true, types: [] }, include: ['mcp/*.d.ts'] }))
    const tsc = require.resolve('typescript/bin/tsc')
    let output: string
    try {
      output = execFileSync(process.execPath, [tsc, '--noEmit', '-p', dir], { encoding: 'utf8' })
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
    expect(output).toBe('')
    const memory = files.find(([p]) => p === 'mcp/memory.d.ts')![1]
    expect(memory).toContain('declare namespace MCP.memory {')
    expect(memory).toContain('function createEntities(input: {')
    expect(memory).toContain('function readGraph(input?: Record<string, never>): Promise<McpToolResult>;')
  })
})
