// Tool Search (`tools.toolSearch`, issue 17): config, the three modes, the shared catalog, the
// `tool_search_code` sandbox, failing closed, telemetry and events, and large catalogs (the
// content-keyed catalog cache and search work, counted by the addon's test-only exports; the
// timings are `npm run bench` rows).
import { runInNewContext } from 'node:vm'
import { describe, expect, it } from 'vitest'

import {
  CodeModeRun,
  ToolSearchRun,
  createToolSearchAgentTools,
  resolveToolSearchConfig,
  type CatalogTool,
  type CodeModeEvent,
  type NestedToolCall,
  type ToolSearchBatch,
  type ToolSearchResult,
} from '../index.js'
import { TOOLS, deferred, sleep } from './helpers.js'
import { __testCatalogBuilds, __testSearchWork, clearCatalogCache, testingBuild } from './support/native-testing.js'

function makeSearch(
  options: {
    config?: unknown
    codeMode?: unknown
    tools?: CatalogTool[]
    executor?: (call: NestedToolCall) => unknown
    runId?: string
  } = {},
) {
  const calls: NestedToolCall[] = []
  const events: CodeModeEvent[] = []
  const executor = options.executor ?? ((call: NestedToolCall) => ({ tool: call.name, input: call.input }))
  const run = ToolSearchRun.create({
    config: options.config ?? true,
    codeMode: options.codeMode,
    runId: options.runId ?? 'ts-run',
    sessionId: 'session-1',
    agentId: 'main',
    tools: options.tools ?? TOOLS,
    executor: (call) => {
      calls.push(call)
      return executor(call)
    },
    onEvent: (event) => events.push(event),
  })
  return { run, calls, events }
}

function completed(result: ToolSearchResult): unknown {
  if (result.status !== 'completed') throw new Error(`expected completed, got ${JSON.stringify(result)}`)
  return result.value
}

function failed(result: ToolSearchResult) {
  if (result.status !== 'failed') throw new Error(`expected failed, got ${JSON.stringify(result)}`)
  return result
}


describe('resolveToolSearchConfig', () => {
  it('takes the shorthand, modes, defaults and clamps, and never throws', () => {
    expect(resolveToolSearchConfig(true)).toEqual({
      enabled: true,
      mode: 'code',
      codeTimeoutMs: 10_000,
      searchDefaultLimit: 8,
      maxSearchLimit: 20,
    })
    expect(resolveToolSearchConfig(false).enabled).toBe(false)
    expect(resolveToolSearchConfig(undefined).enabled).toBe(false)
    expect(resolveToolSearchConfig().mode).toBe('tools')
    expect(resolveToolSearchConfig({}).mode).toBe('code')
    expect(resolveToolSearchConfig({ mode: 'tools' })).toMatchObject({ enabled: true, mode: 'tools' })
    expect(resolveToolSearchConfig({ mode: 'directory' }).mode).toBe('directory')
    expect(resolveToolSearchConfig({ enabled: false, mode: 'code' }).enabled).toBe(false)
    expect(resolveToolSearchConfig({ codeTimeoutMs: 1, maxSearchLimit: 500, searchDefaultLimit: 400 })).toMatchObject({
      codeTimeoutMs: 1_000,
      maxSearchLimit: 50,
      searchDefaultLimit: 50,
    })
    expect(resolveToolSearchConfig({ codeTimeoutMs: 1e9, maxSearchLimit: 4, searchDefaultLimit: 'x' })).toMatchObject({
      codeTimeoutMs: 60_000,
      maxSearchLimit: 4,
      searchDefaultLimit: 4,
    })
    for (const weird of [null, 7, 'code', [], { mode: 5, codeTimeoutMs: -3 }, Symbol('x'), () => 1]) {
      expect(() => resolveToolSearchConfig(weird)).not.toThrow()
    }
  })
})

describe('ToolSearchRun surface', () => {
  it('is inactive when off, without tools, or when code mode is engaged', () => {
    expect(makeSearch({ config: false }).run.active).toBe(false)
    expect(makeSearch({ config: undefined as unknown as boolean, tools: [] }).run.active).toBe(false)
    expect(makeSearch({ tools: [] }).run.active).toBe(false)
    const shadowed = makeSearch({ codeMode: true }).run
    expect(shadowed.active).toBe(false)
    expect(shadowed.modelTools).toEqual([])
    expect(makeSearch({ codeMode: { enabled: false } }).run.active).toBe(true)
  })

  it('exposes tool_search_code or the three structured tools, with the capability directory in every mode', () => {
    const code = makeSearch().run
    expect(code.mode).toBe('code')
    expect(code.modelTools.map((t) => t.name)).toEqual(['tool_search_code'])
    const tools = makeSearch({ config: { mode: 'tools' } }).run
    expect(tools.modelTools.map((t) => t.name)).toEqual(['tool_search', 'tool_describe', 'tool_call'])
    const directory = makeSearch({ config: { mode: 'directory' } }).run
    expect(directory.modelTools.map((t) => t.name)).toEqual(['tool_search', 'tool_describe', 'tool_call'])
    // Upstream gives the bounded directory in all three modes, naming the mode's own tools.
    for (const run of [code, tools, directory]) {
      expect(run.prompt).toContain('- read_file: Read a text file from the workspace')
      // Untrusted (MCP, client) names and descriptions stay out of the prompt.
      expect(run.prompt).not.toContain('create_issue')
      expect(run.prompt).not.toContain('select_file')
      expect(run.prompt).toContain('2 MCP or client tools are not listed here')
    }
    expect(code.prompt).toMatch(/^Tool directory: 8 tools are available through tool_search_code \(openclaw\.tools\.search, describe and call\)\./)
    expect(tools.prompt).toMatch(/^Tool directory: 8 tools are available through tool_search, tool_describe and tool_call\./)
    expect(directory.prompt).toBe(tools.prompt)
    // Cache-stable: the catalog and mode decide it, not the run, session or time.
    expect(makeSearch({ runId: 'another-run' }).run.prompt).toBe(code.prompt)
    expect(makeSearch({ config: false }).run.prompt).toBe('')
    for (const run of [code, tools, directory]) {
      const bytes = Buffer.byteLength(JSON.stringify(run.modelTools)) + Buffer.byteLength(run.prompt)
      expect(run.telemetry.promptBytes).toBe(bytes)
      expect(run.telemetry.modelToolCount).toBe(run.modelTools.length)
    }
  })

  it('bounds the directory, sorted by name, descriptions shortened before names go', async () => {
    const many: CatalogTool[] = Array.from({ length: 3_000 }, (_, i) => ({
      name: `zz_tool_${String(i).padStart(4, '0')}`,
      description: 'A long description of what this tool does, repeated. '.repeat(4),
    }))
    many.push({ name: 'aa_first', description: 'first' })
    const { run } = makeSearch({ config: { mode: 'directory' }, tools: many })
    expect(run.prompt.length).toBeLessThanOrEqual(18_000)
    expect(run.prompt.indexOf('aa_first')).toBeLessThan(run.prompt.indexOf('zz_tool_0000'))
    expect(run.prompt).toMatch(/more OpenClaw tools not listed; use tool_search/)
    expect(run.prompt).not.toContain('zz_tool_2999')
    const code = makeSearch({ tools: many }).run.prompt
    expect(code.length).toBeLessThanOrEqual(18_000)
    expect(code).toMatch(/more OpenClaw tools not listed; use openclaw\.tools\.search in tool_search_code/)
    // Every entry stays searchable.
    const hits = completed(await run.call('tool_search', { query: 'zz_tool_2999' })) as { id: string }[]
    expect(hits[0].id).toBe('openclaw:core:zz_tool_2999')
  })
})

describe('structured tools', () => {
  it('tool_search returns compact entries; tool_describe the full entry; tool_call the executor', async () => {
    const { run, calls, events } = makeSearch({ config: { mode: 'tools' } })
    const hits = completed(await run.call('tool_search', { query: 'read a file' })) as Record<string, unknown>[]
    expect(hits[0]).toEqual({
      id: 'openclaw:core:read_file',
      name: 'read_file',
      label: 'Read file',
      description: 'Read a text file from the workspace',
      source: 'openclaw',
      sourceName: 'core',
      input: '{ path: string }',
    })
    for (const hit of hits) expect(hit).not.toHaveProperty('parameters')
    // The model reads these as JSON: the keys come in the catalog's order, an absent label is
    // left out (not null).
    expect(Object.keys(hits[0])).toEqual(['id', 'name', 'label', 'description', 'source', 'sourceName', 'input'])
    for (const hit of hits) expect(hit.label === undefined ? !('label' in hit) : typeof hit.label === 'string').toBe(true)
    expect(hits.some((hit) => !('label' in hit))).toBe(true)
    expect((completed(await run.call('tool_search', { query: 'file', limit: 1 })) as unknown[]).length).toBe(1)
    const described = completed(await run.call('tool_describe', { id: 'mcp:github:create_issue' })) as Record<string, unknown>
    expect(described).toMatchObject({ id: 'mcp:github:create_issue', source: 'mcp', parameters: { type: 'object' } })
    const readFile = completed(await run.call('tool_describe', { id: 'openclaw:core:read_file' })) as Record<string, unknown>
    expect(readFile.parameters).toEqual(TOOLS[0].parameters)
    expect(Object.keys(readFile)).toEqual(['id', 'name', 'label', 'description', 'source', 'sourceName', 'input', 'parameters'])
    expect(readFile.input).toBe('{ path: string }')
    expect(described.input).toBe('unknown')
    expect(JSON.stringify(readFile.parameters)).toBe(JSON.stringify(TOOLS[0].parameters))
    const called = completed(
      await run.call('tool_call', { id: 'openclaw:core:read_file', args: { path: 'a.txt' } }, { toolCallId: 'model-1' }),
    )
    expect(called).toEqual({
      tool: { id: 'openclaw:core:read_file', name: 'read_file', source: 'openclaw', sourceName: 'core' },
      result: { tool: 'read_file', input: { path: 'a.txt' } },
    })
    expect(calls).toHaveLength(1)
    expect(calls[0]).toMatchObject({ id: 'openclaw:core:read_file', input: { path: 'a.txt' }, parentToolCallId: 'model-1', runId: 'ts-run', sessionId: 'session-1' })
    expect(events.map((e) => e.type)).toEqual(['tool_call_start', 'tool_call_end'])
    expect(events[0]).toMatchObject({ toolId: 'openclaw:core:read_file', parentToolCallId: 'model-1', source: 'openclaw' })
    // MCP and client tools are called through the same path.
    completed(await run.call('tool_call', { id: 'mcp:github:create_issue', args: { title: 't' } }))
    completed(await run.call('tool_call', { id: 'client:app:select_file' }))
    expect(calls.map((c) => c.source)).toEqual(['openclaw', 'mcp', 'client'])
    expect(calls[1].mcp).toEqual({ serverName: 'github', toolName: 'create_issue', operation: 'tool' })
  })

  it('refuses bad input as failed results, never a rejection', async () => {
    const { run, calls } = makeSearch({ config: { mode: 'directory' } })
    for (const [name, input, message] of [
      ['tool_search', 'read', /input must be an object, not string/],
      ['tool_search', {}, /query string/],
      ['tool_search', { query: 'x', limit: 0 }, /positive integer/],
      ['tool_search', { query: 'x', limit: 1.5 }, /positive integer/],
      ['tool_describe', { id: 3 }, /id string/],
      ['tool_call', { id: 'openclaw:core:read_file', args: [1] }, /args must be an object/],
      ['tool_search_code', { code: '1' }, /Unknown Tool Search tool "tool_search_code"/],
      ['exec', { code: '1' }, /Unknown Tool Search tool "exec"/],
    ] as const) {
      const result = failed(await run.call(name, input))
      expect(result.code).toBe('invalid_input')
      expect(result.error).toMatch(message)
    }
    expect(calls).toHaveLength(0)
    const off = makeSearch({ config: false }).run
    expect(failed(await off.call('tool_search', { query: 'x' })).error).toMatch(/not active/)
  })

  it('clamps the limit and uses the default limit', async () => {
    const tools: CatalogTool[] = Array.from({ length: 40 }, (_, i) => ({ name: `note_${i}`, description: 'write a note' }))
    const { run } = makeSearch({ config: { mode: 'tools', searchDefaultLimit: 3, maxSearchLimit: 5 }, tools })
    expect((completed(await run.call('tool_search', { query: 'note' })) as unknown[]).length).toBe(3)
    expect((completed(await run.call('tool_search', { query: 'note', limit: 50 })) as unknown[]).length).toBe(5)
  })
})

describe('tool_search batches (OpenClaw 2026.9.6)', () => {
  type Group = { query: string; candidates: { id: string; description: string }[]; truncated?: true; queryTruncated?: unknown }
  type Batch = { results: Group[]; truncated?: true }
  const ids = (hits: unknown) => (hits as { id: string }[]).map((hit) => hit.id)
  const batch = (result: ToolSearchResult) => completed(result) as Batch

  it('answers { results: [{ query, candidates }] } in request order, one search per query, an empty group for no match', async () => {
    const { run } = makeSearch({ config: { mode: 'tools' } })
    const value = batch(
      await run.call('tool_search', { queries: [{ query: 'read a file', limit: 1 }, { query: 'github issue' }, { query: 'zzzz qqqq' }] }),
    )
    expect(Object.keys(value)).toEqual(['results'])
    expect(value.results.map((group) => group.query)).toEqual(['read a file', 'github issue', 'zzzz qqqq'])
    expect(ids(value.results[0].candidates)).toEqual(['openclaw:core:read_file'])
    expect(ids(value.results[1].candidates)[0]).toBe('mcp:github:create_issue')
    // A valid query with no matches: an empty group, not a truncated one.
    expect(value.results[2]).toEqual({ query: 'zzzz qqqq', candidates: [] })
    // Each query ranks, filters and limits as an ordinary search does.
    expect(value.results[1].candidates).toEqual(completed(await run.call('tool_search', { query: 'github issue' })))
    expect(run.telemetry.searchCount).toBe(4)
  })

  it('runs a non-empty query first with the top-level limit, then the batch in order with repeats', async () => {
    const tools: CatalogTool[] = Array.from({ length: 30 }, (_, i) => ({ name: `note_${i}`, description: 'write a note' }))
    const { run } = makeSearch({ config: { mode: 'tools', searchDefaultLimit: 4 }, tools })
    const value = batch(
      await run.call('tool_search', { query: 'note', limit: 2, queries: [{ query: 'write' }, { query: 'note', limit: 1 }, { query: 'write', limit: null }] }),
    )
    expect(value.results.map((group) => [group.query, group.candidates.length])).toEqual([
      ['note', 2],
      ['write', 4],
      ['note', 1],
      ['write', 4],
    ])
  })

  it('ignores a blank, null or omitted query beside a batch; refuses a non-null top-level limit there', async () => {
    const { run, calls } = makeSearch({ config: { mode: 'tools' } })
    const queries = [{ query: 'read a file', limit: 1 }]
    for (const scalar of [{}, { query: null }, { query: '' }, { query: ' \n\t' }, { query: '  ', limit: null }]) {
      const value = batch(await run.call('tool_search', { ...scalar, queries }))
      expect(value.results.map((group) => group.query)).toEqual(['read a file'])
    }
    for (const scalar of [{ limit: 3 }, { query: '', limit: 3 }, { query: null, limit: 1 }]) {
      const result = failed(await run.call('tool_search', { ...scalar, queries }))
      expect(result.code).toBe('invalid_input')
      expect(result.error).toMatch(/limit applies to query only/)
    }
    expect(calls).toHaveLength(0)
  })

  it('keeps the scalar shape for queries omitted, null, or [] beside a non-empty query', async () => {
    const tools: CatalogTool[] = Array.from({ length: 30 }, (_, i) => ({ name: `note_${i}`, description: 'write a note' }))
    const { run } = makeSearch({ config: { mode: 'tools', searchDefaultLimit: 4 }, tools })
    for (const input of [{ query: 'note', limit: 2 }, { query: 'note', limit: 2, queries: null }, { query: 'note', limit: 2, queries: [] }]) {
      const value = completed(await run.call('tool_search', input))
      expect(Array.isArray(value)).toBe(true)
      expect((value as unknown[]).length).toBe(2)
    }
    // `limit: null` is the default limit, like an omitted one.
    expect((completed(await run.call('tool_search', { query: 'note', limit: null })) as unknown[]).length).toBe(4)
    // A blank query without a batch still searches, and finds nothing.
    expect(completed(await run.call('tool_search', { query: '   ' }))).toEqual([])
    expect(completed(await run.call('tool_search', { query: '', queries: null }))).toEqual([])
  })

  it('refuses every invalid shape as one invalid_input failure, searching nothing', async () => {
    const { run, calls } = makeSearch({ config: { mode: 'tools' } })
    const one = [{ query: 'file' }]
    for (const [input, message] of [
      [{}, /requires a query string, not undefined/],
      [{ query: null }, /requires a query string, not null/],
      [{ query: null, queries: null }, /requires a query string, not null/],
      [{ queries: [] }, /queries is empty and query is blank/],
      [{ query: '  ', queries: [] }, /queries is empty and query is blank/],
      [{ query: null, queries: [] }, /queries is empty and query is blank/],
      [{ query: 3, queries: one }, /query string, not number/],
      [{ queries: 'file' }, /queries must be an array of \{ query, limit\? \} objects, not string/],
      [{ queries: { query: 'file' } }, /queries must be an array .* not object/],
      [{ queries: [{ query: 'file' }, 'file'] }, /queries\[1\] must be a \{ query, limit\? \} object, not string/],
      [{ queries: [null] }, /queries\[0\] must be .* not null/],
      [{ queries: [{}] }, /queries\[0\]\.query must be a non-empty string, not undefined/],
      [{ queries: [{ query: 7 }] }, /queries\[0\]\.query must be a non-empty string, not number/],
      [{ queries: [{ query: 'a' }, { query: ' ' }] }, /queries\[1\]\.query must be a non-empty string, not a blank one/],
      [{ queries: [{ query: 'a', limit: 0 }] }, /queries\[0\]\.limit must be a positive integer/],
      [{ queries: [{ query: 'a', limit: 1.5 }] }, /queries\[0\]\.limit must be a positive integer/],
      [{ queries: [{ query: 'a', limit: '3' }] }, /queries\[0\]\.limit must be a positive integer/],
      [{ query: 'a', limit: -1, queries: one }, /limit must be a positive integer/],
    ] as const) {
      const result = failed(await run.call('tool_search', input))
      expect(result.code, JSON.stringify(input)).toBe('invalid_input')
      expect(result.error).toMatch(message)
    }
    expect(calls).toHaveLength(0)
    expect(run.telemetry.searchCount).toBe(0)
  })

  it('caps a batch at 16 queries, 512 characters a query, 512 bytes of query list and 50 results', async () => {
    const tools: CatalogTool[] = Array.from({ length: 60 }, (_, i) => ({ name: `note_${i}`, description: 'write a note' }))
    const { run } = makeSearch({ config: { mode: 'tools', searchDefaultLimit: 3 }, tools })
    const queries = (n: number, limit?: number) => Array.from({ length: n }, (_, i) => ({ query: `note ${i}`, ...(limit ? { limit } : {}) }))
    const refused = async (input: unknown, message: RegExp) => {
      const result = failed(await run.call('tool_search', input))
      expect(result.code).toBe('invalid_input')
      expect(result.error).toMatch(message)
    }
    // 16 queries.
    expect(batch(await run.call('tool_search', { queries: queries(16) })).results).toHaveLength(16)
    await refused({ queries: queries(17) }, /at most 16 queries in one call, not 17/)
    // The non-empty query beside the batch counts.
    await refused({ query: 'note', queries: queries(16) }, /at most 16 queries in one call, not 17/)
    // 512 characters a query (UTF-16 code units), then 512 UTF-8 bytes of `["...",...]`.
    await refused({ queries: [{ query: 'n'.repeat(513) }] }, /queries\[0\]\.query has 513 characters; a query in a batch may have at most 512/)
    await refused({ query: 'n'.repeat(513), queries: one() }, /tool_search query has 513 characters/)
    expect(batch(await run.call('tool_search', { queries: [{ query: 'n'.repeat(508) }] })).results).toHaveLength(1)
    await refused({ queries: [{ query: 'n'.repeat(509) }] }, /513 bytes of JSON together; a batch may have at most 512/)
    await refused({ queries: [{ query: 'é'.repeat(200) }, { query: 'note '.repeat(22) }] }, /bytes of JSON together/)
    // 50 results in all, each limit as it applies (default 3; clamped to maxSearchLimit 20).
    expect(batch(await run.call('tool_search', { queries: queries(16, 3) })).results).toHaveLength(16)
    await refused({ queries: queries(16, 4) }, /ask for 64 results in all .*; a batch may ask for at most 50/)
    // 20 + 20 + the default 3: within 50.
    expect(batch(await run.call('tool_search', { queries: [{ query: 'note', limit: 25 }, { query: 'note', limit: 25 }, { query: 'note' }] })).results).toHaveLength(3)
    expect(batch(await run.call('tool_search', { queries: [{ query: 'note', limit: 25 }, { query: 'note', limit: 25 }, { query: 'note', limit: 10 }] })).results).toHaveLength(3)
    await refused({ queries: [{ query: 'note', limit: 25 }, { query: 'note', limit: 25 }, { query: 'note', limit: 11 }] }, /ask for 51 results/)
    await refused({ query: 'note', limit: 20, queries: [{ query: 'note', limit: 20 }, { query: 'note', limit: 11 }] }, /ask for 51 results/)
    function one() {
      return [{ query: 'note' }]
    }
  })

  it('keeps a batch within 4,000 characters, dropping the lowest-ranked candidates first and flagging the groups', async () => {
    const tools: CatalogTool[] = Array.from({ length: 40 }, (_, i) => ({
      name: `widget_${String(i).padStart(2, '0')}`,
      // Every description is cut to the same 200 characters' length: every candidate is as long.
      description: `Widget tool ${String(i).padStart(2, '0')} manages widgets. ` + 'd'.repeat(300),
    }))
    tools.push({ name: 'lone_gadget', description: 'The only gadget' })
    const { run } = makeSearch({ config: { mode: 'tools' }, tools })
    const queries = [{ query: 'widget', limit: 10 }, { query: 'zzzz qqqq' }, { query: 'gadget', limit: 1 }, { query: 'manages widgets', limit: 10 }, { query: 'widget tool', limit: 10 }]
    const value = batch(await run.call('tool_search', { queries }))
    expect(JSON.stringify(value).length).toBeLessThanOrEqual(4_000)
    expect(value.truncated).toBe(true)
    expect(Object.keys(value)).toEqual(['results', 'truncated'])
    // Each group keeps a prefix of its own ranking.
    for (const [i, group] of value.results.entries()) {
      const whole = completed(await run.call('tool_search', queries[i])) as { id: string }[]
      expect(ids(group.candidates)).toEqual(ids(whole).slice(0, group.candidates.length))
      // Flagged exactly when it lost candidates.
      expect(group.truncated === true).toBe(group.candidates.length < whole.length)
      // Descriptions are compacted before output.
      for (const hit of group.candidates) expect(hit.description.length).toBeLessThanOrEqual(200)
    }
    // A group with no matches is not truncated; the one-candidate group keeps its best hit.
    expect(value.results[1]).toEqual({ query: 'zzzz qqqq', candidates: [] })
    expect(ids(value.results[2].candidates)).toEqual(['openclaw:core:lone_gadget'])
    // Lowest rank across the batch first: the ten-candidate groups differ by at most one, the
    // earlier group keeping more on a tie.
    const kept = [0, 3, 4].map((i) => value.results[i].candidates.length)
    expect(Math.max(...kept) - Math.min(...kept)).toBeLessThanOrEqual(1)
    expect(kept).toEqual([...kept].sort((a, b) => b - a))
    // And only as many as needed: one more candidate would not have fit.
    const next = { results: value.results.map((group) => ({ ...group, candidates: [...group.candidates] })), truncated: true }
    const fuller = completed(await run.call('tool_search', queries[3])) as Group['candidates']
    next.results[3].candidates.push(fuller[next.results[3].candidates.length])
    expect(JSON.stringify(next).length).toBeGreaterThan(4_000)
    // Within the budget: nothing is cut, and there are no flags.
    const small = batch(await run.call('tool_search', { queries: [{ query: 'widget', limit: 2 }, { query: 'gadget' }] }))
    expect('truncated' in small).toBe(false)
    for (const group of small.results) expect('truncated' in group).toBe(false)
  })

  it('the model tool takes query or queries', () => {
    const [search, describeTool] = makeSearch({ config: { mode: 'tools' } }).run.modelTools
    const parameters = search.parameters as { properties: Record<string, any>; required?: string[] }
    expect(Object.keys(parameters.properties)).toEqual(['query', 'limit', 'queries'])
    expect(parameters.required ?? []).not.toContain('query')
    expect(parameters.properties.queries.maxItems).toBe(16)
    expect(parameters.properties.queries.items.required).toEqual(['query'])
    expect(search.description).toContain('queries: [{ query, limit? }]')
    expect(search.description).toContain('{ results: [{ query, candidates }] }')
    expect(search.description).toMatch(/shortened to 200 characters/)
    expect(describeTool.description).toMatch(/4000 characters.*32768 bytes/)
  })
})

describe('input and output hints (OpenClaw 2026.9.6)', () => {
  const closedOutput = {
    type: 'object',
    properties: { ok: { type: 'boolean' }, count: { type: 'integer', minimum: 0 } },
    required: ['ok'],
    additionalProperties: false,
  }
  const input = {
    type: 'object',
    properties: { id: { type: 'string' }, mode: { type: 'string', enum: ['drip', 'flood'] } },
    required: ['id'],
  }
  const HINTED: CatalogTool[] = [
    { name: 'drip_feed', description: 'Feed the drip', parameters: input, outputSchema: closedOutput } as CatalogTool,
    { name: 'drip_open', description: 'Feed the drip with an open result', parameters: input, outputSchema: { type: 'object' } } as CatalogTool,
    { name: 'drip_partial', description: 'Feed the drip, result partly declared', parameters: input, outputSchema: { ...closedOutput, properties: { ok: { $ref: '#/defs/ok' } } } } as CatalogTool,
    { name: 'drip_mcp', source: 'mcp', sourceName: 'srv', description: 'Feed the drip over MCP', parameters: input, outputSchema: closedOutput } as CatalogTool,
    { name: 'drip_client', source: 'client', sourceName: 'app', description: 'Feed the drip in the app', parameters: input },
  ]
  const byName = (hits: Record<string, unknown>[]) => new Map(hits.map((hit) => [hit.name as string, hit]))

  it('structured hits carry input; output only for a complete trusted output schema; MCP and client say unknown', async () => {
    const { run } = makeSearch({ config: { mode: 'tools' }, tools: HINTED })
    const hits = byName(completed(await run.call('tool_search', { query: 'drip', limit: 10 })) as Record<string, unknown>[])
    expect(hits.size).toBe(5)
    const feed = hits.get('drip_feed')!
    expect(feed.input).toBe('{ id: string; mode?: "drip" | "flood" }')
    expect(feed.output).toBe('{ ok: boolean; count?: number }')
    // After sourceName (upstream writes them after description; the catalog keeps its order).
    expect(Object.keys(feed)).toEqual(['id', 'name', 'description', 'source', 'sourceName', 'input', 'output'])
    expect(hits.get('drip_open')).not.toHaveProperty('output')
    expect(hits.get('drip_partial')).not.toHaveProperty('output')
    for (const name of ['drip_mcp', 'drip_client']) {
      expect(hits.get(name)!.input, name).toBe('unknown')
      expect(hits.get(name), name).not.toHaveProperty('output')
    }
    // Batches carry them too.
    const value = completed(await run.call('tool_search', { queries: [{ query: 'drip', limit: 5 }, { query: 'feed' }] })) as {
      results: { candidates: Record<string, unknown>[] }[]
    }
    for (const group of value.results) for (const hit of group.candidates) expect(typeof hit.input).toBe('string')
    expect(byName(value.results[0].candidates).get('drip_feed')?.output).toBe('{ ok: boolean; count?: number }')
    // tool_describe carries them beside the schema, as upstream's describe does, and a trusted
    // tool's declared output schema whole (open or partial too); never an MCP or client tool's.
    const describe = async (name: string) => completed(await run.call('tool_describe', { id: hits.get(name)!.id })) as Record<string, unknown>
    expect(await describe('drip_feed')).toMatchObject({ input: feed.input, output: feed.output, parameters: input, outputSchema: closedOutput })
    expect(Object.keys(await describe('drip_feed')).slice(-2)).toEqual(['parameters', 'outputSchema'])
    expect((await describe('drip_open')).outputSchema).toEqual({ type: 'object' })
    expect((await describe('drip_partial')).outputSchema).toEqual({ ...closedOutput, properties: { ok: { $ref: '#/defs/ok' } } })
    for (const name of ['drip_mcp', 'drip_client']) expect(await describe(name), name).not.toHaveProperty('outputSchema')
  })

  it('tool_describe leaves out an output schema too large to show, and says so', async () => {
    const huge = { type: 'object', properties: { note: { type: 'string', description: 'n'.repeat(40_000) } } }
    const { run } = makeSearch({ config: { mode: 'tools' }, tools: [{ name: 'huge_result', description: 'Huge result', parameters: input, outputSchema: huge } as CatalogTool] })
    const described = completed(await run.call('tool_describe', { id: 'openclaw:core:huge_result' })) as Record<string, unknown>
    expect(described).not.toHaveProperty('outputSchema')
    expect(described.parameters).toEqual(input)
    expect(described.outputSchemaOmitted).toMatch(/^This tool's output schema is \d+ bytes of JSON, more than the 32768 bytes tool_describe shows/)
    expect(described).not.toHaveProperty('parametersOmitted')
  })

  it('tool_search_code hits carry them too', async () => {
    const { run } = makeSearch({ tools: HINTED })
    const value = completed(
      await run.call('tool_search_code', {
        code: `const hits = await openclaw.tools.search("drip", { limit: 10 });
const d = await openclaw.tools.describe("openclaw:core:drip_feed");
const m = await openclaw.tools.describe("mcp:srv:drip_mcp");
const { tool } = await openclaw.tools.call("openclaw:core:drip_feed", { id: "a" });
return { hits: hits.map((h) => [h.name, h.input, h.output ?? null]), d: [d.input, d.output], schemas: [d.outputSchema, "outputSchema" in m], tool }`,
      }),
    ) as { hits: [string, string, string | null][]; d: [string, string]; schemas: [unknown, boolean]; tool: Record<string, unknown> }
    const hits = new Map(value.hits.map(([name, ...rest]) => [name, rest]))
    expect(hits.get('drip_feed')).toEqual(['{ id: string; mode?: "drip" | "flood" }', '{ ok: boolean; count?: number }'])
    expect(hits.get('drip_open')).toEqual(['{ id: string; mode?: "drip" | "flood" }', null])
    expect(hits.get('drip_mcp')).toEqual(['unknown', null])
    expect(hits.get('drip_client')).toEqual(['unknown', null])
    expect(value.d).toEqual(['{ id: string; mode?: "drip" | "flood" }', '{ ok: boolean; count?: number }'])
    expect(value.schemas).toEqual([closedOutput, false])
    // A call's envelope names its tool with the hit a search shows.
    expect(value.tool).toEqual({
      id: 'openclaw:core:drip_feed',
      name: 'drip_feed',
      description: 'Feed the drip',
      source: 'openclaw',
      sourceName: 'core',
      input: '{ id: string; mode?: "drip" | "flood" }',
      output: '{ ok: boolean; count?: number }',
    })
  })

  it('a batch stays within 4,000 characters counting the hints', async () => {
    const wide = {
      type: 'object',
      properties: Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`field_${i}`, { type: 'string', enum: ['alpha', 'beta', 'gamma'] }])),
      additionalProperties: false,
    }
    const tools: CatalogTool[] = Array.from({ length: 40 }, (_, i) => ({
      name: `widget_${String(i).padStart(2, '0')}`,
      description: `Widget tool ${i} manages widgets.`,
      parameters: wide,
      outputSchema: wide,
    }) as CatalogTool)
    const { run } = makeSearch({ config: { mode: 'tools' }, tools })
    const single = completed(await run.call('tool_search', { query: 'widget', limit: 10 })) as Record<string, unknown>[]
    // The input hint is cut at 300 characters (`; ...`); the output hint, within 800, is whole.
    expect((single[0].input as string).length).toBeGreaterThan(200)
    expect(single[0].input).toMatch(/; \.\.\. \}$/)
    expect((single[0].output as string).length).toBeGreaterThan(400)
    expect(single[0].output).not.toContain('...')
    const value = completed(await run.call('tool_search', { queries: [{ query: 'widget', limit: 10 }, { query: 'manages widgets', limit: 10 }] })) as {
      results: { candidates: Record<string, unknown>[] }[]
      truncated?: boolean
    }
    expect(JSON.stringify(value).length).toBeLessThanOrEqual(4_000)
    expect(value.truncated).toBe(true)
    // Without the hints the same candidates would have fitted many more: they are what was counted.
    const kept = value.results.reduce((n, group) => n + group.candidates.length, 0)
    expect(kept).toBeLessThan(8)
    for (const group of value.results) for (const hit of group.candidates) expect(hit.input).toBe(single[0].input)
  })
})

describe('bounded structured output', () => {
  // 10 MB of words: indexed to their first 16 KiB (MAX_INDEXED_BYTES in crates/catalog), so the index builds at once.
  const huge = 'Fetch the weather for a city. ' + 'and more words '.repeat(700_000)
  const bigSchema = { type: 'object', properties: { city: { type: 'string', description: 'y'.repeat(40_000) } } }
  const tools: CatalogTool[] = [
    { name: 'weather', description: huge, parameters: bigSchema },
    { name: 'emoji_weather', description: '\u{1f600}'.repeat(300) + ' weather' },
    { name: 'small_weather', description: 'Weather, briefly', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
    { name: 'hostile', source: 'mcp', sourceName: 'evil', description: 'weather ' + '.'.repeat(1_000_000) },
  ]

  it('tool_search cuts each description to 200 characters, between characters, with a marker', async () => {
    const { run } = makeSearch({ config: { mode: 'tools' }, tools })
    const hits = completed(await run.call('tool_search', { query: 'weather' })) as { id: string; description: string }[]
    const byId = Object.fromEntries(hits.map((hit) => [hit.id, hit.description]))
    const weather = byId['openclaw:core:weather']
    // Cut to 199 characters, a space it ends with dropped, and the marker.
    expect(weather).toBe(`${huge.slice(0, 199).trimEnd()}…`)
    expect(Array.from(weather).length).toBeLessThanOrEqual(200)
    expect(Array.from(byId['mcp:evil:hostile'])).toHaveLength(200)
    // Characters, not bytes or UTF-16 units: 199 whole emoji and the marker.
    expect(byId['openclaw:core:emoji_weather']).toBe('\u{1f600}'.repeat(199) + '…')
    expect(byId['openclaw:core:small_weather']).toBe('Weather, briefly')
    expect(JSON.stringify(hits).length).toBeLessThan(4_000)
    const value = completed(await run.call('tool_search', { queries: [{ query: 'weather' }, { query: 'city' }] })) as ToolSearchBatch
    for (const group of value.results) for (const hit of group.candidates) expect(Array.from(hit.description).length).toBeLessThanOrEqual(200)
  })

  it('tool_describe cuts the description to 4,000 characters and replaces a schema over 32 KiB by a note', async () => {
    const { run } = makeSearch({ config: { mode: 'tools' }, tools })
    const weather = completed(await run.call('tool_describe', { id: 'openclaw:core:weather' })) as Record<string, any>
    expect(weather.description).toBe(`${huge.slice(0, 3_999).trimEnd()}…`)
    expect(Array.from(weather.description).length).toBeLessThanOrEqual(4_000)
    expect(weather.parameters).toEqual({ type: 'object' })
    expect(weather.parametersOmitted).toMatch(/input schema is \d+ bytes of JSON, more than the 32768 bytes tool_describe shows/)
    expect(Object.keys(weather)).toEqual(['id', 'name', 'description', 'source', 'sourceName', 'input', 'parameters', 'parametersOmitted'])
    expect(JSON.stringify(weather).length).toBeLessThan(5_000)
    const small = completed(await run.call('tool_describe', { id: 'openclaw:core:small_weather' })) as Record<string, any>
    expect(small.parameters).toEqual(tools[2].parameters)
    expect('parametersOmitted' in small).toBe(false)
    const hostile = completed(await run.call('tool_describe', { id: 'mcp:evil:hostile' })) as Record<string, any>
    expect(Array.from(hostile.description)).toHaveLength(4_000)
  })
})

describe('tool_call args', () => {
  it('must serialise to a JSON object: a toJSON giving anything else is invalid_input', async () => {
    const { run, calls } = makeSearch({ config: { mode: 'tools' } })
    for (const [toJSON, message] of [
      [() => undefined, /args must serialise to a JSON object, not nothing \(undefined\)/],
      [() => 'path=a.txt', /not a string/],
      [() => [1], /not an array/],
      [() => null, /not null/],
      [() => 3, /not a number/],
      [() => true, /not a boolean/],
    ] as const) {
      const result = failed(await run.call('tool_call', { id: 'openclaw:core:read_file', args: { toJSON } }))
      expect(result.code).toBe('invalid_input')
      expect(result.error).toMatch(message)
    }
    expect(calls).toHaveLength(0)
    const called = completed(await run.call('tool_call', { id: 'openclaw:core:read_file', args: { toJSON: () => ({ path: 'a.txt' }) } }))
    expect(called).toMatchObject({ result: { input: { path: 'a.txt' } } })
    expect(calls).toHaveLength(1)
  })

  it('over maxToolInputBytes (as text, or once parsed) is invalid_input, and the tool is not called', async () => {
    const { run, calls } = makeSearch({ config: { mode: 'tools' } })
    for (const [args, message] of [
      [{ s: 'x'.repeat(9e6) }, /^tool input is 9000008 bytes, over the tool input limit \(8388608 bytes\)\.$/],
      [{ a: Array(1e6).fill(0) }, /^tool input is \d+ bytes of JSON but about \d+ bytes once parsed \(it has many small values\), over the tool input limit \(8388608 bytes\)\.$/],
    ] as const) {
      const result = failed(await run.call('tool_call', { id: 'openclaw:core:read_file', args }))
      expect(result).toMatchObject({ code: 'invalid_input', failurePhase: 'input' })
      expect(result.error).toMatch(message)
    }
    expect(calls).toHaveLength(0)
  })
})

describe('shared catalog', () => {
  const policy: CatalogTool[] = [
    ...TOOLS,
    { name: 'tool_search', description: 'control tool' },
    { name: 'tool_call', description: 'control tool' },
    { name: 'tool_describe', description: 'control tool' },
    { name: 'tool_search_code', description: 'control tool' },
    { name: 'wait', description: 'control tool' },
    { name: 'exec', toolKind: 'code_mode_exec', description: 'the code mode exec' } as CatalogTool,
  ]

  it('has code mode ids, ranking and exclusions', async () => {
    const { run } = makeSearch({ config: { mode: 'tools' }, tools: policy })
    const codeMode = CodeModeRun.create({ config: true, runId: 'cm', tools: policy, executor: () => null })
    for (const query of ['read a file', 'send a message', 'search the web', 'shell command', 'tool', 'control tool']) {
      const ours = (completed(await run.call('tool_search', { query, limit: 20 })) as { id: string; source: string }[])
        .filter((hit) => hit.source !== 'mcp')
        .map((hit) => hit.id)
      const theirs = await codeMode.exec({ code: `(await tools.search(${JSON.stringify(query)}, { limit: 20 })).map((h) => h.id)` })
      expect(theirs.status).toBe('completed')
      expect(ours).toEqual((theirs as { value: string[] }).value)
      for (const id of ours) expect(id).not.toMatch(/tool_search|tool_call|tool_describe|:wait$/)
    }
    expect(run.telemetry.catalogSize).toBe(TOOLS.length)
    expect(run.telemetry.sources).toEqual({ openclaw: 6, mcp: 1, client: 1 })
    for (const id of ['openclaw:core:tool_search', 'openclaw:core:wait', 'openclaw:core:denied_tool']) {
      expect(failed(await run.call('tool_describe', { id })).error).toMatch(/not available in this run/)
      expect(failed(await run.call('tool_call', { id })).error).toMatch(/not available in this run/)
    }
    // The model's id is echoed up to a bound, never whole.
    const long = 'é'.repeat(1 << 20)
    for (const tool of ['tool_describe', 'tool_call']) {
      const error = failed(await run.call(tool, { id: long })).error as string
      expect(error).toMatch(/^Tool é{256}… \(2097152 bytes\) is not available in this run/)
      expect(error.length).toBeLessThan(1000)
    }
  })

  it('a tool absent from a later run cannot be found or called there', async () => {
    const narrowed = makeSearch({ config: { mode: 'tools' }, tools: TOOLS.filter((t) => t.name !== 'write_file') })
    const hits = completed(await narrowed.run.call('tool_search', { query: 'write a file' })) as { id: string }[]
    expect(hits.map((h) => h.id)).not.toContain('openclaw:core:write_file')
    const result = failed(await narrowed.run.call('tool_call', { id: 'openclaw:core:write_file', args: {} }))
    expect(result.error).toMatch(/openclaw:core:write_file is not available in this run/)
    const code = makeSearch({ tools: TOOLS.filter((t) => t.name !== 'write_file') })
    const inCode = completed(
      await code.run.call('tool_search_code', {
        code: `try { await openclaw.tools.call('openclaw:core:write_file', {}) } catch (e) { return e.message }`,
      }),
    )
    expect(inCode).toMatch(/not available in this run/)
    expect(code.calls).toHaveLength(0)
  })
})

describe('tool_search_code', () => {
  it('a query without a word finds nothing, in a cell and in a batch, as OpenClaw scores it', async () => {
    const { run } = makeSearch({ config: { mode: 'code' } })
    const counts = completed(
      await run.call('tool_search_code', { code: `return [await openclaw.tools.search(''), await openclaw.tools.search('!!!'), await openclaw.tools.search('\u200b')].map((hits) => hits.length)` }),
    )
    expect(counts).toEqual([0, 0, 0])
    const structured = makeSearch({ config: { mode: 'tools' } }).run
    const answer = completed(await structured.call('tool_search', { queries: [{ query: '...' }, { query: 'create issue' }] })) as { results: { candidates: unknown[] }[] }
    expect(answer.results[0].candidates).toEqual([])
    expect(answer.results[1].candidates.length).toBeGreaterThan(0)
  })

  it('calls a tool only with an object, as the structured tool_call does', async () => {
    const { run, calls } = makeSearch()
    const refused = completed(
      await run.call('tool_search_code', {
        code: `const said = []
for (const args of [5, 'hello', [1, 2], null, true, { toJSON() { return 42 } }]) {
  try { await openclaw.tools.call('mcp:github:create_issue', args); said.push('called') } catch (e) { said.push(e.message) }
}
return said`,
      }),
    )
    expect(refused).toEqual(
      ['a number', 'a string', 'an array', 'null', 'a boolean', 'a number'].map((kind) => `tool args must serialise to a JSON object, not ${kind}.`),
    )
    expect(calls).toHaveLength(0)
    // No args is an empty object.
    expect(completed(await run.call('tool_search_code', { code: `return (await openclaw.tools.call('mcp:github:create_issue')).result` }))).toEqual({ tool: 'create_issue', input: {} })
  })

  it('searches, describes and calls through openclaw.tools', async () => {
    const { run, calls, events } = makeSearch()
    const result = await run.call(
      'tool_search_code',
      {
        code: `const hits = await openclaw.tools.search("create a GitHub issue");
const tool = await openclaw.tools.describe(hits[0].id);
console.log('found', tool.id);
console.warn('warned');
console.error('errored');
return await openclaw.tools.call(tool.id, { title: "Crash" });`,
      },
      { toolCallId: 'model-7' },
    )
    // OpenClaw's envelope: the tool's hit (not counted as a describe) and what it returned.
    expect(completed(result)).toEqual({
      tool: {
        id: 'mcp:github:create_issue',
        name: 'create_issue',
        description: expect.any(String),
        source: 'mcp',
        sourceName: 'github',
        input: 'unknown',
      },
      result: { tool: 'create_issue', input: { title: 'Crash' } },
    })
    expect(result.output).toEqual([
      { type: 'text', text: 'found mcp:github:create_issue' },
      { type: 'text', text: 'warned' },
      { type: 'text', text: 'errored' },
    ])
    expect(calls[0]).toMatchObject({ id: 'mcp:github:create_issue', parentToolCallId: 'model-7' })
    expect(events.filter((e) => e.type.startsWith('tool_call')).map((e) => e.type)).toEqual(['tool_call_start', 'tool_call_end'])
    expect(result.telemetry).toMatchObject({ searchCount: 1, describeCount: 1, callCount: 1 })
  })

  it('searches the first part of an over-long query and says so on the hits (issue 27)', async () => {
    const { run } = makeSearch()
    const result = await run.call('tool_search_code', {
        code: `const long = await openclaw.tools.search('create issue' + ' '.repeat(700) + 'x'.repeat(1 << 20));
const short = await openclaw.tools.search('create issue');
return [Array.isArray(long), JSON.stringify(long) === JSON.stringify(short), Object.keys(long).length === long.length,
  long.queryTruncated, 'queryTruncated' in short, long[0].id]`,
    })
    const value = completed(result) as unknown[]
    expect(result.output).toEqual([
      { type: 'text', text: 'openclaw.tools.search: The query was over 512 characters; only its first part was searched: "create issue". Search with a shorter query.' },
    ])
    expect(value.slice(0, 3)).toEqual([true, true, true])
    expect(value[3]).toMatchObject({ searched: 'create issue', reason: 'chars' })
    expect(value[4]).toBe(false)
    expect(value[5]).toBe('mcp:github:create_issue')
    // The structured tool_search answers a megabyte query with the same candidates.
    const structured = makeSearch({ config: { mode: 'tools' } }).run
    const longResult = await structured.call('tool_search', { query: `create issue ${'distinct words '.repeat(70_000)}` })
    const shortResult = await structured.call('tool_search', { query: 'create issue distinct words' })
    expect(completed(longResult)).toEqual(completed(shortResult))
    // ... and tells the model, beside the hits, that only the first part was searched.
    const truncation = (longResult as { queryTruncated?: { searched: string; reason: string; message: string } }).queryTruncated!
    expect(truncation.reason).toBe('chars')
    expect(truncation.searched.startsWith('create issue distinct words')).toBe(true)
    expect(truncation.searched.length).toBeLessThanOrEqual(512)
    expect(truncation.searched.endsWith('words')).toBe(true)
    expect(truncation.message).toMatch(/^The query was over 512 characters; only its first part was searched: "create issue distinct words/)
    expect('queryTruncated' in shortResult).toBe(false)
    // Characters past a UTF-16 pair: a query of 100,000 emoji is searched as its first 512, as
    // one of 513 is.
    const emoji = (n: number) => '\u{1f600}'.repeat(n)
    const searched = async (query: string) => ((await structured.call('tool_search', { query })) as { queryTruncated?: { searched: string } }).queryTruncated?.searched
    expect(await searched(emoji(100_000))).toBe(emoji(512))
    expect(await searched(emoji(513))).toBe(emoji(512))
    expect(await searched(`a${emoji(100_000)}`)).toBe(`a${emoji(511)}`)
  })

  it('has console.log/warn/error and openclaw.tools as its only globals', async () => {
    const { run } = makeSearch()
    const value = completed(
      await run.call('tool_search_code', {
        code: `return {
  absent: ['tools', 'ALL_TOOLS', 'MCP', 'API', 'namespaces', 'text', 'json', 'yield_control', 'setTimeout', 'clearTimeout',
    'require', 'process', 'fetch', 'module', 'exports', 'Deno', 'Bun', 'read_file', 'web_search']
    .filter((name) => typeof globalThis[name] !== 'undefined'),
  console: Object.keys(console).sort(),
  openclaw: Object.keys(openclaw),
  tools: Object.keys(openclaw.tools).sort(),
  frozen: Object.isFrozen(openclaw) && Object.isFrozen(openclaw.tools),
}`,
      }),
    )
    expect(value).toEqual({
      absent: [],
      console: ['error', 'log', 'warn'],
      openclaw: ['tools'],
      tools: ['call', 'describe', 'search'],
      frozen: true,
    })
  })

  it('makes bad input, module access and guest errors failed results', async () => {
    const { run } = makeSearch()
    expect(failed(await run.call('tool_search_code', {})).code).toBe('invalid_input')
    expect(failed(await run.call('tool_search_code', { code: '  ' })).code).toBe('invalid_input')
    expect(failed(await run.call('tool_search_code', null)).code).toBe('invalid_input')
    expect(failed(await run.call('tool_search', { query: 'x' })).error).toMatch(/Unknown Tool Search tool/)
    for (const code of [`import fs from 'fs'; return 1`, `return await import('fs')`, `export const x = 1`]) {
      const result = failed(await run.call('tool_search_code', { code }))
      expect(result.code).toBe('invalid_input')
      expect(result.error).toMatch(/module access/)
    }
    const thrown = failed(await run.call('tool_search_code', { code: `throw new Error('boom')` }))
    expect(thrown.code).toBe('internal_error')
    expect(thrown.error).toMatch(/boom/)
    const syntax = failed(await run.call('tool_search_code', { code: `return (` }))
    expect(syntax.code).toBe('invalid_input')
    const badLimit = failed(await run.call('tool_search_code', { code: `return await openclaw.tools.search('x', { limit: -1 })` }))
    expect(badLimit.error).toMatch(/limit must be a positive integer/)
  })

  it('ends at codeTimeoutMs with timeout, never waiting, and cancels pending calls', async () => {
    let signal: AbortSignal | undefined
    const { run } = makeSearch({
      config: { codeTimeoutMs: 1_000 },
      executor: (call) => {
        signal = call.signal as AbortSignal
        return new Promise(() => {})
      },
    })
    const started = performance.now()
    const pending = failed(await run.call('tool_search_code', { code: `return await openclaw.tools.call('openclaw:lab:slow', {})` }))
    expect(pending).toMatchObject({ code: 'timeout', failurePhase: 'guest' })
    expect(pending.error).toMatch(/1000 ms \(codeTimeoutMs\)/)
    expect(performance.now() - started).toBeLessThan(5_000)
    await sleep(50)
    expect(signal?.aborted).toBe(true)
    const spin = failed(await run.call('tool_search_code', { code: `while (true) {}` }))
    expect(spin).toMatchObject({ code: 'timeout', failurePhase: 'guest' })
    // Named as Tool Search's users know it: `codeTimeoutMs`, never code mode's `timeoutMs`.
    expect(spin.error).toBe('tool_search_code exceeded codeTimeoutMs (1000 ms of guest CPU time).')
    const hog = failed(await run.call('tool_search_code', { code: `const parts = []; for (;;) parts.push('x'.repeat(1 << 20) + parts.length)` }))
    expect(hog.code).toBe('memory_limit_exceeded')
    expect(hog.error).toMatch(/^tool_search_code exceeded its memory limit \(\d+ bytes\)\.$/)
  })

  it('reports an executor refusal as that refusal', async () => {
    const refuse = (call: NestedToolCall) => {
      if (call.name === 'exec') throw new Error('Tool call blocked by policy: exec is denied for this agent')
      return Promise.reject(new Error('approval denied by the user'))
    }
    const code = makeSearch({ executor: refuse }).run
    const caught = completed(
      await code.call('tool_search_code', {
        code: `try { await openclaw.tools.call('openclaw:core:exec', { command: 'ls' }) } catch (e) { return e.message }`,
      }),
    )
    expect(caught).toBe('Tool call blocked by policy: exec is denied for this agent')
    const uncaught = failed(await code.call('tool_search_code', { code: `await openclaw.tools.call('openclaw:core:message', {})` }))
    expect(uncaught.error).toMatch(/approval denied by the user/)
    const structured = makeSearch({ config: { mode: 'tools' }, executor: refuse }).run
    const refused = failed(await structured.call('tool_call', { id: 'openclaw:core:exec', args: { command: 'ls' } }))
    expect(refused.error).toBe('Tool call blocked by policy: exec is denied for this agent')
  })

  it('aborts: a signal fails the call, abort() fails later calls', async () => {
    const gate = deferred()
    const { run } = makeSearch({ executor: () => gate.promise })
    const controller = new AbortController()
    const call = run.call('tool_search_code', { code: `return await openclaw.tools.call('openclaw:lab:slow', {})` }, { signal: controller.signal })
    await sleep(100)
    controller.abort()
    expect(failed(await call).code).toBe('aborted')
    run.abort()
    expect(failed(await run.call('tool_search_code', { code: '1' })).code).toBe('aborted')
  })

  it('abort() fails every later call aborted: search and describe too, in every mode', async () => {
    for (const mode of ['tools', 'directory']) {
      const { run, calls } = makeSearch({ config: { mode } })
      expect(completed(await run.call('tool_describe', { id: 'openclaw:core:message' }))).toMatchObject({ name: 'message' })
      // A search under way when the run is aborted ends aborted too.
      const searching = run.call('tool_search', { query: 'file' })
      run.abort()
      for (const [tool, input] of [
        ['tool_search', { query: 'file' }],
        ['tool_describe', { id: 'openclaw:core:message' }],
        ['tool_call', { id: 'openclaw:core:message', args: {} }],
      ] as const) {
        expect(failed(await run.call(tool, input))).toMatchObject({ code: 'aborted', error: 'Tool Search run was aborted.', failurePhase: 'host' })
      }
      expect(failed(await searching).code).toBe('aborted')
      expect(calls).toHaveLength(0)
    }
  })
})

describe('telemetry', () => {
  it('counts searches, describes and calls and lists the calls executed with ids and sources', async () => {
    const { run } = makeSearch({ config: { mode: 'tools' } })
    await run.call('tool_search', { query: 'file' })
    await run.call('tool_search', { query: 'issue' })
    await run.call('tool_describe', { id: 'mcp:github:create_issue' })
    await run.call('tool_call', { id: 'mcp:github:create_issue', args: {} }, { toolCallId: 'm1' })
    await run.call('tool_call', { id: 'client:app:select_file', args: {} }, { toolCallId: 'm2' })
    const telemetry = run.telemetry
    expect(telemetry).toMatchObject({
      mode: 'tools',
      catalogSize: 8,
      sources: { openclaw: 6, mcp: 1, client: 1 },
      searchCount: 2,
      describeCount: 1,
      callCount: 2,
    })
    expect(telemetry.toolCalls.map(({ id, source, sourceName, parentToolCallId }) => ({ id, source, sourceName, parentToolCallId }))).toEqual([
      { id: 'mcp:github:create_issue', source: 'mcp', sourceName: 'github', parentToolCallId: 'm1' },
      { id: 'client:app:select_file', source: 'client', sourceName: 'app', parentToolCallId: 'm2' },
    ])
    expect(telemetry.promptBytes).toBeGreaterThan(0)
  })
})

describe('createToolSearchAgentTools', () => {
  it('wraps the model tools as agent tools', async () => {
    const { run } = makeSearch({ config: { mode: 'tools' } })
    const tools = createToolSearchAgentTools(run)
    expect(tools.map((t) => t.name)).toEqual(['tool_search', 'tool_describe', 'tool_call'])
    expect(tools[2].hookMetadata({ id: 'openclaw:core:exec' })).toEqual({
      toolKind: 'tool_search',
      toolSearchOperation: 'tool_call',
      targetToolId: 'openclaw:core:exec',
    })
    const out = await tools[0].execute('call-1', { query: 'read a file', limit: 1 })
    expect(out.details.status).toBe('completed')
    expect(JSON.parse(out.content[0].text).value[0].id).toBe('openclaw:core:read_file')
    expect(() => createToolSearchAgentTools({} as ToolSearchRun)).toThrow(TypeError)
    expect(createToolSearchAgentTools(makeSearch().run).map((t) => t.name)).toEqual(['tool_search_code'])
  })
})

// Counted through the testing build's exports (catalogs built, search work).
describe.runIf(testingBuild)('large catalogs', () => {
  function bigCatalog(size: number, salt: string): CatalogTool[] {
    const verbs = ['read', 'write', 'list', 'send', 'sync']
    const nouns = ['file', 'issue', 'ticket', 'event', 'note', 'user', 'page']
    return Array.from({ length: size }, (_, i) => ({
      name: `${verbs[i % 5]}_${nouns[i % 7]}_${i}`,
      description: `Tool number ${i}: ${verbs[i % 5]}s ${nouns[i % 5]}s for team ${i % 97} ${salt}`,
      parameters: { type: 'object', properties: { path: { type: 'string' }, limit: { type: 'integer' } }, required: ['path'] },
    }))
  }

  const schema = () => ({ type: 'object', properties: { path: { type: 'string' }, limit: { type: 'integer' } }, required: ['path'] })

  // Timing belongs to `npm run bench` (cold against cached creation at 10,000 tools): here, what
  // the cache does, counted in catalogs built.
  it('a second run over the same 10,000 tools (a new array) reuses the built catalog; any change builds anew', () => {
    clearCatalogCache()
    const executor = () => null
    const builds = () => __testCatalogBuilds()
    let before = builds()
    CodeModeRun.create({ config: true, runId: 'first', tools: bigCatalog(10_000, 'cache'), executor })
    expect(builds() - before).toBe(1)
    // Gateways build a new array of new objects every turn: same content, same catalog.
    before = builds()
    CodeModeRun.create({ config: true, runId: 'second', tools: bigCatalog(10_000, 'cache'), executor })
    ToolSearchRun.create({ config: { mode: 'tools' }, runId: 'ts-cached', tools: bigCatalog(10_000, 'cache'), executor })
    expect(builds() - before).toBe(0)
    // A change deep inside one schema is a different catalog, and runs see it.
    const changed = bigCatalog(10_000, 'cache')
    ;(changed[5_000].parameters as any).properties.path.type = 'number'
    before = builds()
    const { run } = makeSearch({ config: { mode: 'tools' }, tools: changed })
    expect(builds() - before).toBe(1)
    return run.call('tool_describe', { id: `openclaw:core:${changed[5_000].name}` }).then((r) => {
      expect((completed(r) as any).parameters.properties.path.type).toBe('number')
      // The same objects again, one changed in place: no stale entry either.
      changed[7].description = 'changed in place'
      before = builds()
      CodeModeRun.create({ config: true, runId: 'in-place', tools: changed, executor })
      expect(builds() - before).toBe(1)
    })
  }, 120_000)

  // The cache compares a new array with a record of the old one instead of serialising it: it
  // must reuse a catalog exactly when the JSON text is the same.
  it('reuses a catalog exactly when the tools serialise to the same JSON', async () => {
    class Box {
      value = 1
    }
    class List extends Array {}
    // An object JSON writes as something else, whose Symbol.toStringTag claims it is plain.
    const tagged = <T extends object>(value: T) => Object.defineProperty(value, Symbol.toStringTag, { value: 'Object' })
    // A proxy whose key list leaves `b` out after a getPrototypeOf, until `a` is read (JSON
    // never asks for a prototype).
    const hiding = () => {
      let hide = false
      return new Proxy<Record<string, number>>(
        { a: 1, b: 2 },
        {
          getPrototypeOf: (t) => ((hide = true), Reflect.getPrototypeOf(t)),
          ownKeys: (t) => (hide ? ['a'] : Reflect.ownKeys(t)),
          get: (t, k, r) => ((hide = hide && k !== 'a'), Reflect.get(t, k, r)),
        },
      )
    }
    // Lends every object an enumerable key (for…in would list it) until `unlend`.
    const proto = Object.prototype as Record<string, unknown>
    const lend = () => void (proto.lent = 1)
    const unlend = () => void delete proto.lent
    const cyclic: Record<string, unknown> = { type: 'object' }
    cyclic.self = cyclic
    const sparse: unknown[] = ['a']
    sparse[2] = 'c'
    // Each case: what tool 3's `parameters` is in the first run and in the second.
    const cases: [string, () => unknown, () => unknown][] = [
      ['equal objects', schema, schema],
      ['another key order', () => ({ a: 1, b: 2 }), () => ({ b: 2, a: 1 })],
      ['integer keys go first either way', () => ({ b: 1, 2: 'x' }), () => ({ 2: 'x', b: 1 })],
      ['an undefined property is left out', () => ({ a: 1, b: undefined }), () => ({ a: 1 })],
      ['a function property is left out', () => ({ a: 1, f() {} }), () => ({ a: 1 })],
      ['undefined in an array is null', () => [1, undefined, () => 0], () => [1, null, null]],
      ['a hole in an array is null', () => sparse, () => ['a', null, 'c']],
      ['NaN and Infinity are null', () => [NaN, Infinity], () => [null, null]],
      ['-0 is 0', () => ({ n: -0 }), () => ({ n: 0 })],
      ['1 is not "1"', () => ({ n: 1 }), () => ({ n: '1' })],
      ['true is not 1', () => ({ n: true }), () => ({ n: 1 })],
      ['null is not a missing key', () => ({ n: null }), () => ({})],
      ['[] is not {}', () => ({ n: [] }), () => ({ n: {} })],
      ['toJSON is honoured', () => ({ toJSON: () => ({ a: 1 }) }), () => ({ a: 1 })],
      ['a Date is its ISO text', () => ({ at: new Date(0) }), () => ({ at: '1970-01-01T00:00:00.000Z' })],
      ['a class instance is its own fields', () => new Box(), () => ({ value: 1 })],
      ['an array of a subclass is an array', () => ({ n: List.from([1, 2]) }), () => ({ n: [1, 2] })],
      ['a null prototype object is an object', () => Object.assign(Object.create(null), { a: 1 }), () => ({ a: 1 })],
      ['a lone surrogate survives', () => ({ s: '\ud800' }), () => ({ s: '\ud800' })],
      ['a lone surrogate is not U+FFFD', () => ({ s: '\ud800' }), () => ({ s: '\ufffd' })],
      ['quotes and backslashes', () => ({ 's"\\': 'a"\\b' }), () => ({ 's"\\': 'a"\\b' })],
      ['a cyclic schema (the tool goes as null) both times', () => cyclic, () => cyclic],
      ['a bigint (the tool goes as null) against a cyclic schema', () => ({ n: 1n }), () => cyclic],
      ['one more nested key', schema, () => ({ ...schema(), extra: { deep: [1, { x: 'y' }] } })],
      // Values JSON writes its own way.
      ['a function with toJSON is written', () => ({}), () => ({ f: Object.assign(() => 0, { toJSON: () => 'y' }) })],
      ['…in an array too', () => ({ a: [null] }), () => ({ a: [Object.assign(() => 0, { toJSON: () => 'y' })] })],
      ['a boxed number made with a plain prototype', () => ({ n: {} }), () => ({ n: Reflect.construct(Number, [5], Object) })],
      ['a boxed string made with a plain prototype', () => ({ s: { 0: 'a', 1: 'b' } }), () => ({ s: Reflect.construct(String, ['ab'], Object) })],
      ['an object with key "0" is still an object', () => ({ s: { 0: 'a' } }), () => ({ s: { 0: 'a' } })],
      ['an empty object is still an object', () => ({ s: {} }), () => ({ s: {} })],
      ['an array read to its length once', () => ({ tags: ['a', null] }), () => ({ tags: new Proxy(['a', null], { get: (t, k) => (k === 'length' ? 1.5 : Reflect.get(t, k)) }) })],
      ['a raw JSON look-alike is an object', () => ({ n: { rawJSON: '5' } }), () => ({ n: Object.assign(Object.create(null), { rawJSON: '5' }) })],
      // Boxed primitives are told by their internal slot, as JSON tells them, whatever their
      // prototype, keys or Symbol.toStringTag say.
      ['a boxed string whose toStringTag says Object', () => ({ s: { 0: 'a', 1: 'b' } }), () => ({ s: tagged(Reflect.construct(String, ['ab'], Object)) })],
      ['a boxed string of another realm', () => ({ s: { 0: 'a', 1: 'b' } }), () => ({ s: tagged(Object.setPrototypeOf(runInNewContext('new String("ab")'), Object.prototype)) })],
      ['a boxed number with keys of its own', () => ({ n: { a: 1 } }), () => ({ n: Object.assign(Reflect.construct(Number, [5], Object), { a: 1 }) })],
      ['a boxed boolean with keys of its own', () => ({ n: { a: 1 } }), () => ({ n: Object.assign(Reflect.construct(Boolean, [true], Object), { a: 1 }) })],
      ['a boxed bigint with keys of its own (the tool goes as null)', () => ({ n: { a: 1 } }), () => ({ n: Object.assign(Object.setPrototypeOf(Object(1n), Object.prototype), { a: 1 }) })],
      ['a boxed number whose toStringTag says Object', () => ({ n: {} }), () => ({ n: tagged(Reflect.construct(Number, [5], Object)) })],
      // A proxy's traps need not answer JSON what they answered the walk.
      ['a proxy that hides a key from whoever asks for its prototype', () => ({ a: 1 }), hiding],
      ['a proxy of a plain object', () => ({ a: 1, b: [2] }), () => new Proxy({ a: 1, b: [2] }, {})],
      // What JSON reads, the walk reads, in JSON's order: own keys only, each value once.
      ['getters that lend every object a key while b is read', () => ({ a: 1, b: { lent: 1 }, c: 3 }), () => ({ get a() { lend(); return 1 }, b: {}, get c() { unlend(); return 3 } })],
      ['a getter is read as JSON reads it', () => ({ a: 1, b: 'x' }), () => ({ get a() { return 1 }, b: 'x' })],
      ['an array of another realm is an array', () => ({ n: [1, { a: 2 }] }), () => ({ n: runInNewContext('[1, { a: 2 }]') })],
      ['an arguments object is an object', () => ({ n: { 0: 1, 1: 'b' } }), () => ({ n: (function (..._: unknown[]) { return arguments })(1, 'b') })],
    ]
    try {
      await everyCase(cases)
    } finally {
      delete proto.lent
    }
  })

  async function everyCase(cases: [string, () => unknown, () => unknown][]) {
    const executor = () => null
    const base = (i: number): Record<string, unknown> => ({ name: `json_case_${i}`, description: 'does things', parameters: schema() })
    const serialised = (parameters: unknown) => {
      try {
        return JSON.stringify(parameters)
      } catch {
        return 'not JSON'
      }
    }
    for (const [label, first, second] of cases) {
      clearCatalogCache()
      const tools = (parameters: unknown) => Array.from({ length: 70 }, (_, i) => (i === 3 ? { ...base(i), parameters } : base(i)))
      const a = first()
      const b = second()
      CodeModeRun.create({ config: true, runId: 'first', tools: tools(a) as unknown as CatalogTool[], executor })
      const before = __testCatalogBuilds()
      const { run } = makeSearch({ config: { mode: 'tools' }, tools: tools(b) as unknown as CatalogTool[] })
      const same = serialised(a) === serialised(b)
      expect({ label, built: __testCatalogBuilds() - before }).toEqual({ label, built: same ? 0 : 1 })
      // Whatever was reused, describe shows the second run's tool as JSON has it.
      expect({ label, active: run.active }).toEqual({ label, active: true })
      const described = completed(await run.call('tool_describe', { id: 'openclaw:core:json_case_4' })) as any
      expect(described.name).toBe('json_case_4')
      if (serialised(b) !== 'not JSON') {
        const three = completed(await run.call('tool_describe', { id: 'openclaw:core:json_case_3' })) as any
        // (A lone surrogate reaches the catalog as U+FFFD.)
        const expected = serialised(b).replace(/\\ud[89a-f][0-9a-f]{2}/g, '\ufffd')
        expect({ label, parameters: JSON.stringify(three.parameters ?? null) }).toEqual({ label, parameters: expected })
      }
    }
  }

  it('keys Object.prototype lends every object do not make a match', () => {
    const executor = () => null
    const tools = (extra: boolean) =>
      Array.from({ length: 70 }, (_, i) => ({ name: `polluted_${i}`, description: 'does things', ...(extra && i === 0 ? { polluted: 1 } : {}) }))
    clearCatalogCache()
    const proto = Object.prototype as Record<string, unknown>
    try {
      proto.polluted = 1
      CodeModeRun.create({ config: true, runId: 'a', tools: tools(false), executor })
      const before = __testCatalogBuilds()
      CodeModeRun.create({ config: true, runId: 'b', tools: tools(true), executor })
      expect(__testCatalogBuilds() - before).toBe(1)
      CodeModeRun.create({ config: true, runId: 'c', tools: tools(false), executor })
      expect(__testCatalogBuilds() - before).toBe(1)
    } finally {
      delete proto.polluted
    }
  })

  it('the catalog cache is bounded: the least recently used catalog goes first', () => {
    clearCatalogCache()
    const executor = () => null
    const tools = (tag: string) => Array.from({ length: 70 }, (_, i) => ({ name: `${tag}_tool_${i}`, description: 'does things', parameters: schema() }))
    CodeModeRun.create({ config: true, runId: 'a', tools: tools('lru_a'), executor })
    let before = __testCatalogBuilds()
    CodeModeRun.create({ config: true, runId: 'a', tools: tools('lru_a'), executor })
    expect(__testCatalogBuilds() - before).toBe(0)
    for (let i = 0; i < 16; i++) CodeModeRun.create({ config: true, runId: `fill-${i}`, tools: tools(`lru_fill_${i}`), executor })
    before = __testCatalogBuilds()
    CodeModeRun.create({ config: true, runId: 'a-again', tools: tools('lru_a'), executor })
    expect(__testCatalogBuilds() - before).toBe(1)
  })

  // Search work, counted natively (postings read, candidates scored) rather than timed: speed
  // belongs to `npm run bench`. A word every tool says ("team" in the bench's catalog) must not
  // make every tool a candidate, and where each word names a bounded number of tools the work
  // follows the matches, not the catalog.
  it('searches score the tools their words reach, not the whole catalog', () => {
    type Work = { ids: string[]; postings: number; candidates: number }
    const work = (tools: CatalogTool[], query: string, limit = 10): Work => JSON.parse(__testSearchWork(JSON.stringify(tools), query, limit))
    const big = bigCatalog(10_000, 'work')
    const send = work(big, 'send an event to the team')
    // `send_event_*` tools first (name hits on both words), ties by id.
    expect(send.ids).toHaveLength(10)
    for (const id of send.ids) expect(id).toMatch(/^openclaw:core:send_event_\d+$/)
    // Not every tool that says "send" or "team": the first blocks of 64 fill the top, and the
    // rest tie at best, which later ids lose.
    expect(send.candidates).toBeLessThan(1_000)
    expect(send.postings).toBeLessThan(2_000)
    // Bounded matches (each word names a few tools): the work is the matches', a few dozen
    // postings and candidates, not a pass over 10,000 tools.
    const letters = 'bcdfghjklmnpqrstvwxz'
    const vocabulary = Array.from({ length: 4_000 }, (_, i) => {
      let word = 'qu'
      for (let n = i, k = 0; k < 3; k++, n = Math.floor(n / 20)) word += letters[n % 20] + 'o'
      return word
    })
    const catalog = (size: number): CatalogTool[] =>
      Array.from({ length: size }, (_, i) => ({
        name: `${vocabulary[(i * 7) % vocabulary.length]}_${vocabulary[(i * 11 + 5) % vocabulary.length]}`,
        description: [0, 1, 2, 3].map((k) => vocabulary[(i * 13 + k * 977) % vocabulary.length]).join(' '),
      }))
    const small = catalog(100)
    const large = catalog(10_000)
    for (let i = 0; i < 20; i++) {
      const j = i * 5
      const query = `${vocabulary[(j * 13) % vocabulary.length]} ${vocabulary[(j * 13 + 977) % vocabulary.length]}`
      expect(work(small, query, 1).ids).toHaveLength(1)
      const b = work(large, query, 1)
      expect(b.ids).toHaveLength(1)
      expect(b.postings).toBeLessThan(100)
      expect(b.candidates).toBeLessThanOrEqual(b.postings)
    }
  })
})
