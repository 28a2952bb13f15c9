import { describe, expect, it } from 'vitest'
import type { CatalogTool } from '../index.js'
import { expectStatus, makeRun } from './helpers.js'

const MCP_TOOLS: CatalogTool[] = [
  { name: 'read', description: 'Read a file' },
  {
    name: 'create_issue',
    source: 'mcp',
    sourceName: 'github',
    description: 'Create a GitHub issue.',
    parameters: {
      type: 'object',
      required: ['owner', 'repo', 'title'],
      properties: {
        owner: { type: 'string', description: 'Repository owner' },
        repo: { type: 'string', description: 'Repository name' },
        title: { type: 'string', description: 'Issue title' },
        body: { type: 'string' },
        labels: { type: 'array', items: { type: 'string' }, default: [] },
      },
    },
  },
  { name: 'list_issues', source: 'mcp', sourceName: 'github', parameters: { type: 'object', properties: { state: { enum: ['open', 'closed'], default: 'open' } } } },
  { name: 'take_snapshot', source: 'mcp', sourceName: 'chrome-devtools', description: 'Snapshot the page.', parameters: { type: 'object', properties: { output: { type: 'string' } } } },
  { name: 'navigate_page', source: 'mcp', sourceName: 'chrome-devtools' },
  { name: 'docs_read_resource', source: 'mcp', sourceName: 'docs', mcp: { serverName: 'docs', toolName: 'read_resource', operation: 'resources_read' }, parameters: { type: 'object', required: ['uri'], properties: { uri: { type: 'string' } } } },
  { name: 'docs_list_resources', source: 'mcp', sourceName: 'docs', mcp: { serverName: 'docs', toolName: 'list_resources', operation: 'resources_list' } },
  { name: 'docs_get_prompt', source: 'mcp', sourceName: 'docs', mcp: { serverName: 'docs', toolName: 'get_prompt', operation: 'prompts_get' }, parameters: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, arguments: { type: 'object' } } } },
  { name: 'x', source: 'mcp', sourceName: 'constructor' },
]

const echo = (call: { id: string; input: unknown; mcp?: unknown }) => ({ content: [{ type: 'text', text: JSON.stringify({ id: call.id, input: call.input, mcp: call.mcp }) }] })

describe('MCP namespace', () => {
  it('calls visible MCP tools with one object argument, by exact catalog id', async () => {
    const { run, calls } = makeRun({ tools: MCP_TOOLS, executor: echo })
    const result = await run.exec({
      code: `const issue = await MCP.github.createIssue({ owner: "openclaw", repo: "openclaw", title: "Investigate" });
             const snap = await MCP.chromeDevtools.takeSnapshot({ output: "markdown" });
             const resource = await MCP.docs.resources.read({ uri: "memo://one" });
             const prompt = await MCP.docs.prompts.get({ name: "brief", arguments: { topic: "release" } });
             const listed = await MCP.docs.resources.list();
             [issue, snap, resource, prompt, listed].map((r) => JSON.parse(r.content[0].text).id)`,
    })
    expect(expectStatus(result, 'completed').value).toEqual([
      'mcp:github:create_issue',
      'mcp:chrome-devtools:take_snapshot',
      'mcp:docs:docs_read_resource',
      'mcp:docs:docs_get_prompt',
      'mcp:docs:docs_list_resources',
    ])
    expect(calls[0]).toMatchObject({
      source: 'mcp',
      sourceName: 'github',
      input: { owner: 'openclaw', repo: 'openclaw', title: 'Investigate', labels: [] },
      mcp: { serverName: 'github', toolName: 'create_issue', operation: 'tool' },
    })
    expect(calls[2].mcp).toEqual({ serverName: 'docs', toolName: 'read_resource', operation: 'resources_read' })
  })

  it('applies schema defaults and names missing required arguments', async () => {
    const { run, calls } = makeRun({ tools: MCP_TOOLS, executor: echo })
    const result = await run.exec({
      code: `const out = [];
             await MCP.github.listIssues();
             for (const args of [[{ owner: "o" }], [], ["text"], [null], [[1]], [{ owner: "o", repo: "r", title: "t" }, 2]]) {
               try { await MCP.github.createIssue(...args) } catch (e) { out.push(e.message) }
             }
             out`,
    })
    expect(expectStatus(result, 'completed').value).toEqual([
      'Missing required MCP namespace argument(s): repo, title',
      'Missing required MCP namespace argument(s): owner, repo, title',
      'MCP namespace tools accept one object argument.',
      'MCP namespace tools accept one object argument.',
      'MCP namespace tools accept one object argument.',
      'MCP namespace tools accept one object argument.',
    ])
    expect(calls.map((c) => c.input)).toEqual([{ state: 'open' }])
  })

  it('camelCases server and tool names, suffixing reserved ones', async () => {
    const { run } = makeRun({ tools: MCP_TOOLS, executor: echo })
    const result = await run.exec({
      code: `[Object.keys(MCP), Object.keys(MCP.chromeDevtools), Object.keys(MCP.docs), Object.keys(MCP.docs.resources), Object.isFrozen(MCP.github)]`,
    })
    expect(expectStatus(result, 'completed').value).toEqual([
      ['$api', 'github', 'chromeDevtools', 'docs', 'constructor2'],
      ['$api', 'takeSnapshot', 'navigatePage'],
      ['$api', 'resources', 'prompts'],
      ['read', 'list'],
      true,
    ])
  })

  it('keeps MCP entries out of ALL_TOOLS and tools.*', async () => {
    const { run, calls } = makeRun({ tools: MCP_TOOLS, executor: echo })
    const result = await run.exec({
      code: `const out = [ALL_TOOLS.map((t) => t.id), (await tools.search("issue")).map((t) => t.id), typeof tools.create_issue];
             for (const f of [() => tools.call("mcp:github:create_issue", {}), () => tools.describe("mcp:github:create_issue")]) {
               try { await f() } catch (e) { out.push(e.message) }
             }
             out`,
    })
    expect(expectStatus(result, 'completed').value).toEqual([
      ['openclaw:core:read'],
      [],
      'undefined',
      'Unknown tool id: mcp:github:create_issue',
      'Unknown tool id: mcp:github:create_issue',
    ])
    expect(calls).toHaveLength(0)
  })

  it('answers $api without a tool call', async () => {
    const { run, calls } = makeRun({ tools: MCP_TOOLS, executor: echo })
    const result = await run.exec({
      code: `const all = await MCP.$api();
             const server = await MCP.github.$api();
             const tool = await MCP.github.$api("createIssue", { schema: true });
             const resource = await MCP.docs.$api("resources.read");
             let missing; try { await MCP.github.$api("nope") } catch (e) { missing = e.message }
             ({ servers: all.servers.map((s) => s.server), path: server.path, tools: server.tools,
                declaration: tool.declaration, schema: tool.schema.required, resource: resource.tool, missing })`,
    })
    const value = expectStatus(result, 'completed').value as Record<string, unknown>
    expect(value).toMatchObject({
      servers: ['github', 'chromeDevtools', 'docs', 'constructor2'],
      path: 'mcp/github.d.ts',
      tools: ['createIssue', 'listIssues'],
      schema: ['owner', 'repo', 'title'],
      resource: 'resources.read',
      missing: 'Unknown MCP tool: github.nope',
    })
    expect(value.declaration).toContain('function createIssue(input: {\n  owner: string;\n  repo: string;\n  title: string;\n  body?: string;')
    expect(value.declaration).toContain('@param owner Repository owner')
    expect(calls).toHaveLength(0)
  })

  it('describes MCP in the exec description only when the run has MCP tools', () => {
    expect(makeRun({ tools: MCP_TOOLS }).run.modelTools[0].description).toContain('MCP.<server>.<tool>')
    expect(makeRun({ tools: [{ name: 'read' }] }).run.modelTools[0].description).not.toContain('MCP.')
  })
})

describe('API virtual files', () => {
  it('lists and reads declaration files without a bridge call', async () => {
    const { run, calls } = makeRun({ tools: MCP_TOOLS, executor: echo })
    const result = await run.exec({
      code: `const files = await API.list("mcp");
             const again = await API.list("mcp/");
             const everything = await API.list();
             const github = await API.read("mcp/github.d.ts");
             const index = await API.read("mcp/index.d.ts");
             ({ paths: files.map((f) => f.path), same: JSON.stringify(files) === JSON.stringify(again) && JSON.stringify(files) === JSON.stringify(everything),
                bytes: files[1].bytes === github.length, github, index })`,
    })
    const value = expectStatus(result, 'completed').value as { paths: string[]; same: boolean; bytes: boolean; github: string; index: string }
    expect(value.paths).toEqual(['mcp/index.d.ts', 'mcp/github.d.ts', 'mcp/chromeDevtools.d.ts', 'mcp/docs.d.ts', 'mcp/constructor2.d.ts'])
    expect(value.same && value.bytes).toBe(true)
    expect(value.github).toContain('declare namespace MCP.github {')
    expect(value.github).toContain('function listIssues(input?: {\n    state?: "open" | "closed";\n  }): Promise<McpToolResult>;')
    expect(value.index).toContain('interface McpToolResult')
    expect(calls).toHaveLength(0)
  })

  it('rejects dot segments, empty segments and unknown files', async () => {
    const { run } = makeRun({ tools: MCP_TOOLS })
    const result = await run.exec({
      code: `const out = [];
             for (const p of ["mcp/../secrets", "./mcp/index.d.ts", "mcp//github.d.ts", "", "mcp/nope.d.ts", "/etc/passwd"]) {
               try { await API.read(p) } catch (e) { out.push(e.message) }
             }
             try { await API.list("mcp/..") } catch (e) { out.push(e.message) }
             out`,
    })
    expect(expectStatus(result, 'completed').value).toEqual([
      'Invalid API path: "mcp/../secrets"',
      'Invalid API path: "./mcp/index.d.ts"',
      'Invalid API path: "mcp//github.d.ts"',
      'Invalid API path: ""',
      'Unknown API file: mcp/nope.d.ts',
      'Invalid API path: "/etc/passwd"',
      'Invalid API path: "mcp/.."',
    ])
  })

  it('renders valid declaration files for awkward schemas', async () => {
    const ts = await import('typescript')
    const { run } = makeRun({
      tools: [
        { name: 'a', source: 'mcp', sourceName: 'weird-server', description: 'Ends a comment */ early', parameters: {
          type: 'object',
          properties: {
            'kebab-key': { type: ['string', 'number', 'null'] },
            nested: { type: 'object', properties: { deep: { anyOf: [{ type: 'integer' }, { type: 'array', items: { enum: [1, 'two', true, null] } }] } } },
            ref: { $ref: '#/$defs/Node' },
            tuple: { type: 'array', items: [{ type: 'string' }, { type: 'number' }] },
            open: { type: 'object', additionalProperties: true, properties: { x: { type: 'string' } } },
            all: { allOf: [{ type: 'object', properties: { a: { type: 'string' } } }, { type: 'object', properties: { b: { type: 'number' } } }] },
            constant: { const: 'fixed' },
          },
          $defs: { Node: { type: 'object', properties: { next: { $ref: '#/$defs/Node' } } } },
        } },
        { name: 'delete', source: 'mcp', sourceName: 'weird-server' },
        { name: 'no_params', source: 'mcp', sourceName: 'weird-server', parameters: { type: 'object', properties: {} } },
        { name: 'junk', source: 'mcp', sourceName: 'weird-server', parameters: 'not a schema' },
      ],
    })
    const result = await run.exec({ code: 'const files = await API.list(); await Promise.all(files.map(async (f) => [f.path, await API.read(f.path)]))' })
    const files = expectStatus(result, 'completed').value as [string, string][]
    const host = ts.createCompilerHost({ noEmit: true, strict: true })
    const sources = new Map(files.map(([p, text]) => [`/virtual/${p}`, text]))
    const readFile = host.readFile
    host.readFile = (name) => sources.get(name) ?? readFile(name)
    host.fileExists = (name) => sources.has(name) || ts.sys.fileExists(name)
    const program = ts.createProgram([...sources.keys()], { noEmit: true, strict: true, types: [] }, host)
    const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'))
    expect(diagnostics).toEqual([])
    const server = sources.get('/virtual/mcp/weirdServer.d.ts')!
    expect(server).toContain('Ends a comment *\\/ early')
    expect(server).toContain('function delete2(')
    expect(server).toContain('function noParams(input?: Record<string, never>)')
  })
})
