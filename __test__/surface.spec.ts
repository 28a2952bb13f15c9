// What code mode must show about activation, the model surface and the catalog, and the
// OpenClaw drop-in adapter.
import { execFileSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { CodeModeRun, assertCodeModePayload, createCodeModeAgentTools, type CatalogTool } from '../index.js'
import { TOOLS, expectStatus, makeRun } from './helpers.js'

const base = { runId: 'r', tools: TOOLS, executor: () => null }

describe('activation', () => {
  it('disabled config leaves the tool surface to the gateway', () => {
    for (const config of [undefined, false, { enabled: false }, { timeoutMs: 5000 }, 'true']) {
      const run = CodeModeRun.create({ ...base, config })
      expect(run.active).toBe(false)
      expect(run.modelTools).toEqual([])
      expect(createCodeModeAgentTools(run)).toEqual([])
    }
  })

  it('no-tool runs never activate the surface', () => {
    for (const extra of [{ tools: [] }, { disableTools: true }, { rawModelCall: true }, { tools: [{ name: 'wait' }, { name: 'tool_search' }] }]) {
      expect(CodeModeRun.create({ ...base, config: true, ...extra }).active).toBe(false)
    }
  })

  it('enabled config exposes only exec and wait', () => {
    const run = CodeModeRun.create({ ...base, config: { enabled: true } })
    expect(run.modelTools.map((t) => t.name)).toEqual(['exec', 'wait'])
    expect(() => assertCodeModePayload(run.modelTools.map((t) => t.name))).not.toThrow()
  })
})

describe('model surface', () => {
  it('exec takes code, the command alias and a flat language enum', () => {
    const [exec, wait] = makeRun().run.modelTools
    expect(exec.parameters).toEqual({
      type: 'object',
      properties: {
        code: { type: 'string', description: expect.any(String) },
        command: { type: 'string', description: expect.stringMatching(/Alias of code/) },
        language: { type: 'string', enum: ['javascript', 'typescript'], description: expect.any(String) },
      },
      additionalProperties: false,
    })
    expect(JSON.stringify(exec.parameters)).not.toMatch(/oneOf|anyOf/)
    expect(wait.parameters).toMatchObject({ properties: { runId: { type: 'string' } }, required: ['runId'] })
  })

  it('the exec description teaches the guest API in under 2 KB', () => {
    const description = makeRun().run.modelTools[0].description
    expect(Buffer.byteLength(description)).toBeLessThan(2048)
    for (const needle of ['tools.search', 'tools.describe', 'tools.call', 'ALL_TOOLS', 'last expression', 'Promise.all', 'wait', 'import']) {
      expect(description).toContain(needle)
    }
  })

  it('typescript disappears from the surface when disabled', async () => {
    const { run } = makeRun({ config: { enabled: true, languages: ['javascript'] } })
    expect(run.modelTools[0].parameters).toMatchObject({ properties: { language: { enum: ['javascript'] } } })
    expect(run.modelTools[0].description).not.toMatch(/typescript/i)
    const refused = expectStatus(await run.exec({ code: 'const x: number = 1', language: 'typescript' }), 'failed')
    expect(refused).toMatchObject({ code: 'invalid_input', error: 'code mode typescript input is disabled.' })
  })

  it('assertCodeModePayload accepts exactly exec and wait', () => {
    expect(() => assertCodeModePayload(['exec', 'wait'])).not.toThrow()
    expect(() => assertCodeModePayload(['wait', 'exec'])).not.toThrow()
    expect(() => assertCodeModePayload(['exec', 'wait', 'read'])).toThrow('Code mode payload tool surface violation: expected exec,wait; got exec,wait,read')
    expect(() => assertCodeModePayload(['exec'])).toThrow('Code mode payload tool surface violation: expected exec,wait; got exec')
    expect(() => assertCodeModePayload([])).toThrow('got ')
  })

  it('wait accepts run_id as an alias', async () => {
    const { run } = makeRun()
    const result = expectStatus(await run.wait({ run_id: 'cm_ffffffffffffffffffffffffffffffff' }), 'failed')
    expect(result.error).toBe('code mode run is unavailable or expired.')
  })
})

describe('catalog', () => {
  const tools: CatalogTool[] = [
    { name: 'pick', source: 'client', sourceName: 'app' },
    { name: 'create_issue', source: 'mcp', sourceName: 'github' },
    { name: 'external_tool', sourceName: 'external-plugin' },
    { name: 'bundled_tool', sourceName: 'bundled-plugin' },
    { name: 'read' },
    { name: 'exec', description: 'Run a shell command' },
    { name: 'read' },
    { name: 'tool_search_code' }, { name: 'tool_search' }, { name: 'tool_describe' }, { name: 'tool_call' }, { name: 'wait' },
    { name: 'web-search' }, { name: 'web_search', sourceName: 'bundled-plugin' },
  ]

  it('orders core, plugins (input order), client; counts duplicates; hides MCP and controls', () => {
    const { run } = makeRun({ tools })
    expect(run.catalog.map((t) => t.id)).toEqual([
      'openclaw:core:read', 'openclaw:core:exec', 'openclaw:core:web-search',
      'openclaw:external-plugin:external_tool', 'openclaw:bundled-plugin:bundled_tool', 'openclaw:bundled-plugin:web_search',
      'client:app:pick',
    ])
    expect(run.telemetry).toMatchObject({ catalogSize: 8, duplicateTools: 1, excludedTools: 5 })
    expect(run.telemetry.nameCollisions).toEqual([{ name: 'web_search', ids: ['openclaw:core:web-search', 'openclaw:bundled-plugin:web_search'] }])
  })

  it('keeps ids stable for equivalent tool sets', () => {
    const a = makeRun({ tools }).run.catalog
    const b = makeRun({ tools: [...tools] }).run.catalog
    expect(a).toEqual(b)
  })

  it('shell exec is hidden from the model but callable by id; control tools are not callable', async () => {
    const { run, calls } = makeRun({ tools })
    expect(run.modelTools.filter((t) => t.name === 'exec')).toHaveLength(1)
    const result = await run.exec({
      code: `const out = [await tools.call("openclaw:core:exec", { command: "ls" }), typeof tools.exec];
             for (const id of ["openclaw:core:wait", "openclaw:core:tool_search", "openclaw:core:tool_call", "exec", "wait"]) {
               try { await tools.call(id, {}) } catch (e) { out.push(e.message) }
             }
             out.push(typeof tools.web_search, typeof tools.wait)
             out`,
    })
    expect(expectStatus(result, 'completed').value).toEqual([
      { tool: 'exec', input: { command: 'ls' } },
      'function',
      'Unknown tool id: openclaw:core:wait',
      'Unknown tool id: openclaw:core:tool_search',
      'Unknown tool id: openclaw:core:tool_call',
      'Unknown tool id: exec',
      'Unknown tool id: wait',
      'undefined',
      'undefined',
    ])
    expect(calls.map((c) => c.id)).toEqual(['openclaw:core:exec'])
  })

  it('never shadows the catalog helpers or prototype members', async () => {
    const { run, calls } = makeRun({ tools: [{ name: 'search' }, { name: 'call' }, { name: 'describe' }, { name: 'toString' }, { name: 'then' }, { name: '__proto__' }] })
    const result = await run.exec({
      code: `[typeof await tools.search(""), (await tools.search("")).length, typeof tools.toString, await tools.call("openclaw:core:then"), Object.keys(tools)]`,
    })
    expect(expectStatus(result, 'completed').value).toEqual(['object', 6, 'function', { tool: 'then', input: {} }, ['search', 'describe', 'call']])
    expect(calls).toHaveLength(1)
    expect(run.telemetry.nameCollisions.map((c) => c.name)).toEqual(['search', 'call', 'describe', 'toString', 'then', '__proto__'])
  })
})

describe('tools.<name> on demand (issue 27)', () => {
  // A cell that only searches no longer builds a function per tool (the bench's fresh-cell rows);
  // whatever looks at `tools` whole still sees the frozen object, in catalog order.
  it('resolves a name when used, and behaves as the frozen object with every name', async () => {
    const { run, calls } = makeRun()
    const result = await run.exec({
      code: `const read = tools.read_file;
const before = ['read_file' in tools, 'nope' in tools, typeof tools.nope, typeof tools.then];
await read({ path: 'a' });
const keys = Object.keys(tools);
try { tools.read_file = 1 } catch {}
try { delete tools.search } catch {}
try { Object.defineProperty(tools, 'extra', { value: 1 }) } catch {}
return [before, read === tools.read_file, keys, Object.isFrozen(tools), typeof tools.search, 'extra' in tools,
  Object.getOwnPropertyDescriptor(tools, 'web_search').enumerable, JSON.stringify(tools)]`,
    })
    expect(expectStatus(result, 'completed').value).toEqual([
      [true, false, 'undefined', 'undefined'],
      true,
      ['search', 'describe', 'call', 'read_file', 'write_file', 'exec', 'message', 'web_search', 'slow', 'select_file'],
      true,
      'function',
      false,
      true,
      '{}',
    ])
    expect(calls.map((c) => c.id)).toEqual(['openclaw:core:read_file'])
    // Looked at whole first: the same names, frozen, and each name one function.
    const whole = await run.exec({ code: `const keys = Object.keys(tools); return [keys.length, Object.isFrozen(tools), tools.exec === tools.exec, 'slow' in tools]` })
    expect(expectStatus(whole, 'completed').value).toEqual([10, true, true, true])
    // A tool's name still comes before whatever the prototype chain has, as an own property did.
    const shadowed = await run.exec({
      code: `Object.prototype.message = () => 'not the tool'; Object.prototype.other = 1;
return [await tools.message({ text: 'hi' }), tools.other, 'other' in tools, typeof tools.toString]`,
    })
    expect(expectStatus(shadowed, 'completed').value).toEqual([{ tool: 'message', input: { text: 'hi' } }, 1, true, 'function'])
  })

  it('searches the first part of an over-long query and says so on the hits, which stay an array', async () => {
    const { run } = makeRun()
    const result = await run.exec({
      code: `const long = await tools.search('read a file' + ' '.repeat(600) + 'and much more', { limit: 3 });
const short = await tools.search('read a file', { limit: 3 });
return [Array.isArray(long), JSON.stringify(long) === JSON.stringify(short), Object.keys(long).length === long.length,
  long.queryTruncated, short.queryTruncated === undefined, long.map((h) => h.id)[0]]`,
    })
    const done = expectStatus(result, 'completed')
    // The output says so too, for a cell that returns the hits without looking.
    expect(done.output).toEqual([
      { type: 'text', text: 'tools.search: The query was over 512 characters; only its first part was searched: "read a file". Search with a shorter query.' },
    ])
    const [isArray, same, onlyHits, truncated, shortWhole, first] = done.value as unknown[]
    expect([isArray, same, onlyHits, shortWhole, first]).toEqual([true, true, true, true, 'openclaw:core:read_file'])
    expect(truncated).toMatchObject({ searched: 'read a file', reason: 'chars' })
    expect((truncated as { message: string }).message).toMatch(/over 512 characters; only its first part was searched: "read a file"/)
  })
})

describe('OpenClaw adapter', () => {
  it('wraps exec and wait as agent tools with hook metadata', async () => {
    const { run, calls } = makeRun()
    const [exec, wait] = createCodeModeAgentTools(run)
    expect([exec.name, exec.label, exec.toolKind, wait.toolKind]).toEqual(['exec', 'Code mode exec', 'code_mode_exec', 'code_mode_wait'])
    expect(exec.hookMetadata({ code: '1' })).toEqual({ toolKind: 'code_mode_exec', toolInputKind: 'javascript' })
    expect(exec.hookMetadata({ code: '1', language: 'typescript' })).toEqual({ toolKind: 'code_mode_exec', toolInputKind: 'typescript' })
    expect(wait.hookMetadata({ runId: 'x' })).toEqual({ toolKind: 'code_mode_wait' })
    const out = await exec.execute('call_1', { code: 'await tools.message({ text: "hi" })' })
    expect(out.details).toMatchObject({ status: 'completed', value: { tool: 'message', input: { text: 'hi' } } })
    expect(out.content).toEqual([{ type: 'text', text: JSON.stringify(out.details, null, 2) }])
    expect(calls[0].parentToolCallId).toBe('call_1')
    const bad = await wait.execute('call_2', { runId: 'nope' })
    expect(bad.details).toMatchObject({ status: 'failed', code: 'invalid_input' })
  })

  it('refuses anything but a CodeModeRun', () => {
    expect(() => createCodeModeAgentTools({} as CodeModeRun)).toThrow(/must be a CodeModeRun/)
  })
})

describe('package entry', () => {
  it('gives ESM importers every CommonJS export by name', () => {
    // Plain Node, not vitest's loader: named exports come from Node's cjs-module-lexer.
    const index = fileURLToPath(new URL('../index.js', import.meta.url))
    const names = Object.keys(createRequire(import.meta.url)(index))
    const script = `import * as m from ${JSON.stringify(index)}; console.log(JSON.stringify(Object.keys(m)))`
    const imported = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }))
    expect(names.length).toBeGreaterThan(0)
    // Node 23+ also names the whole CommonJS value `module.exports`.
    expect(imported.filter((n: string) => n !== 'default' && n !== 'module.exports').sort()).toEqual([...names].sort())
  })
})
