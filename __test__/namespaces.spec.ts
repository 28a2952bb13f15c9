import { afterEach, describe, expect, it } from 'vitest'
import {
  CodeModeRun,
  clearCodeModeNamespacesForPlugin,
  clearCodeModeNamespacesForTest,
  createCodeModeNamespaceTool,
  registerCodeModeNamespaceForPlugin,
  unregisterCodeModeNamespace,
  type CatalogTool,
  type CodeModeNamespaceRegistration,
} from '../index.js'
import { deferred, expectStatus, makeRun, sleep } from './helpers.js'

const GITHUB_TOOLS: CatalogTool[] = [
  { name: 'github_list_issues', sourceName: 'github', description: 'List issues' },
  { name: 'github_update_issue', sourceName: 'github', description: 'Update an issue' },
  { name: 'github_delete_repo', sourceName: 'github', description: 'Delete the repository' },
  { name: 'read_file', description: 'Read a file' },
]

function issues(overrides: Partial<CodeModeNamespaceRegistration> = {}): CodeModeNamespaceRegistration {
  return {
    id: 'github-issues',
    globalName: 'Issues',
    description: 'GitHub issue helpers for the current repository.',
    requiredToolNames: ['github_list_issues', 'github_update_issue'],
    prompt: 'Use Issues.list(params) and Issues.update(number, patch).',
    createScope: (ctx) => ({
      repository: ctx.config as string,
      list: createCodeModeNamespaceTool('github_list_issues', ([params]) => params ?? {}),
      update: createCodeModeNamespaceTool('github_update_issue', ([number, patch]) => ({ number, patch })),
    }),
    ...overrides,
  }
}

function run(tools = GITHUB_TOOLS, executor?: NonNullable<Parameters<typeof makeRun>[0]>['executor']) {
  return makeRun({
    tools,
    executor: executor ?? ((call) => ({ tool: call.name, input: call.input })),
  })
}

afterEach(() => clearCodeModeNamespacesForTest())

describe('registration', () => {
  it('validates ids, global names and required tools', () => {
    registerCodeModeNamespaceForPlugin('github', issues())
    expect(() => registerCodeModeNamespaceForPlugin('github', issues())).toThrow(/already registered/)
    expect(() => registerCodeModeNamespaceForPlugin('github', issues({ id: 'other' }))).toThrow(/already used by "github-issues"/)
    for (const globalName of ['tools', 'namespaces', 'text', 'json', 'yield_control', 'MCP', 'API', 'ALL_TOOLS', '__openclawInternal', 'JSON']) {
      expect(() => registerCodeModeNamespaceForPlugin('github', issues({ id: `x-${globalName}`, globalName }))).toThrow(/reserved/)
    }
    for (const globalName of ['not-an-identifier', '1abc', '', 'a b']) {
      expect(() => registerCodeModeNamespaceForPlugin('github', issues({ id: 'y', globalName }))).toThrow(/not a JavaScript identifier/)
    }
    expect(() => registerCodeModeNamespaceForPlugin('github', issues({ id: 'z', globalName: 'Z', requiredToolNames: [] }))).toThrow(/requiredToolNames/)
    expect(() => registerCodeModeNamespaceForPlugin('', issues({ id: 'w', globalName: 'W' }))).toThrow(/pluginId/)
    expect(() => registerCodeModeNamespaceForPlugin('github', { ...issues({ id: 'v', globalName: 'V' }), createScope: 5 as never })).toThrow(/createScope/)
  })
})

describe('visibility and prompts', () => {
  it('appends the prompt only when the backing tools are visible', () => {
    registerCodeModeNamespaceForPlugin('github', issues())
    const visible = run()
    expect(visible.run.modelTools[0].description).toContain('Issues: GitHub issue helpers for the current repository. Use Issues.list(params)')
    expect(visible.run.telemetry.visibleNamespaces).toEqual(['github-issues'])
    const missing = run(GITHUB_TOOLS.filter((t) => t.name !== 'github_update_issue'))
    expect(missing.run.modelTools[0].description).not.toContain('Issues')
    expect(missing.run.telemetry.visibleNamespaces).toEqual([])
  })

  it('does not expose the namespace for same-named tools from another sourceName', async () => {
    registerCodeModeNamespaceForPlugin('github', issues())
    const impostor = run(GITHUB_TOOLS.map((t) => ({ ...t, sourceName: t.sourceName === 'github' ? 'evil-plugin' : t.sourceName })))
    expect(impostor.run.modelTools[0].description).not.toContain('Issues')
    const result = await impostor.run.exec({ code: '[typeof Issues, Object.keys(namespaces)]' })
    expect(expectStatus(result, 'completed').value).toEqual(['undefined', []])
  })

  it('plugin rollback clears the owning registrations', async () => {
    registerCodeModeNamespaceForPlugin('github', issues())
    registerCodeModeNamespaceForPlugin('calendar', issues({ id: 'cal', globalName: 'Calendar', requiredToolNames: ['read_file'] }))
    clearCodeModeNamespacesForPlugin('github')
    const after = run()
    expect(after.run.modelTools[0].description).not.toContain('Issues')
    expect(expectStatus(await after.run.exec({ code: 'typeof Issues' }), 'completed').value).toBe('undefined')
    registerCodeModeNamespaceForPlugin('github', issues())
    unregisterCodeModeNamespace('github-issues')
    expect(expectStatus(await run().run.exec({ code: 'typeof Issues' }), 'completed').value).toBe('undefined')
  })
})

describe('one registry per realm', () => {
  it("a worker thread's registrations are its own, with their createScope: the main thread sees none of them", async () => {
    const { Worker } = await import('node:worker_threads')
    const index = new URL('../index.js', import.meta.url).pathname
    const worker = new Worker(
      `const { parentPort } = require('node:worker_threads')
      const { CodeModeRun, registerCodeModeNamespaceForPlugin, createCodeModeNamespaceTool } = require(${JSON.stringify(index)})
      registerCodeModeNamespaceForPlugin('github', {
        id: 'worker-issues', globalName: 'Issues', description: 'From the worker.', requiredToolNames: ['github_list_issues'],
        createScope: () => ({ list: createCodeModeNamespaceTool('github_list_issues') }),
      })
      const run = CodeModeRun.create({ config: { enabled: true }, runId: 'worker-run',
        tools: [{ name: 'github_list_issues', sourceName: 'github' }], executor: (call) => call.name })
      run.exec({ code: 'await Issues.list({})' }).then((result) => parentPort.postMessage({ status: result.status, value: result.value }))`,
      { eval: true },
    )
    const fromWorker = await new Promise((resolve, reject) => {
      worker.once('message', resolve)
      worker.once('error', reject)
    })
    await worker.terminate()
    expect(fromWorker).toEqual({ status: 'completed', value: 'github_list_issues' })
    // This realm registered nothing: no Issues here, and the id is free to register.
    const here = run()
    expect(expectStatus(await here.run.exec({ code: 'typeof Issues' }), 'completed').value).toBe('undefined')
    registerCodeModeNamespaceForPlugin('github', issues({ id: 'worker-issues' }))
  })
})

describe('scopes', () => {
  it('calls createScope once per run with the run context', () => {
    const seen: unknown[] = []
    registerCodeModeNamespaceForPlugin('github', issues({
      createScope: (ctx) => {
        seen.push({ ...ctx, signal: ctx.signal instanceof AbortSignal })
        return { list: createCodeModeNamespaceTool('github_list_issues') }
      },
    }))
    CodeModeRun.create({
      config: true,
      runId: 'run-ctx',
      sessionId: 's',
      sessionKey: 'k',
      agentId: 'a',
      context: { repo: 'openclaw/openclaw' },
      tools: GITHUB_TOOLS,
      executor: () => null,
    })
    expect(seen).toEqual([{ agentId: 'a', sessionKey: 'k', sessionId: 's', runId: 'run-ctx', config: { repo: 'openclaw/openclaw' }, signal: true }])
  })

  it('rejects raw scope functions, cycles and unsafe keys, hiding only that namespace', async () => {
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    const bad: [string, () => Record<string, unknown>, RegExp][] = [
      ['raw', () => ({ list: async () => [] }), /raw function at list/],
      ['cycle', () => ({ data: cyclic }), /circular reference at data.self/],
      ['proto', () => JSON.parse('{"__proto__": {"x": 1}}'), /unsafe scope path segment "__proto__"/],
      ['ctor', () => ({ constructor: { x: 1 } }), /unsafe scope path segment "constructor"/],
      ['dot', () => ({ 'a.b': 1 }), /unsafe scope path segment "a.b"/],
      ['empty', () => ({ '': 1 }), /unsafe scope path segment ""/],
      ['throws', () => { throw new Error('auth missing') }, /createScope failed: auth missing/],
    ]
    bad.forEach(([id, createScope], i) =>
      registerCodeModeNamespaceForPlugin('github', issues({ id, globalName: `Bad${i}`, createScope })),
    )
    registerCodeModeNamespaceForPlugin('github', issues())
    const { run: r, events } = run()
    const hidden = r.telemetry.hiddenNamespaces
    bad.forEach(([id, , reason]) => expect(hidden.find((h) => h.id === id)?.reason).toMatch(reason))
    expect(events.filter((e) => e.type === 'namespace_hidden')).toHaveLength(bad.length)
    expect(r.telemetry.visibleNamespaces).toEqual(['github-issues'])
    const result = await r.exec({ code: '[typeof Bad0, typeof Bad6, typeof Issues.list]' })
    expect(expectStatus(result, 'completed').value).toEqual(['undefined', 'undefined', 'function'])
  })

  it('serialises nested objects and shared references', async () => {
    const shared = { owner: 'openclaw', labels: ['bug'] }
    registerCodeModeNamespaceForPlugin('github', issues({
      createScope: () => ({
        a: shared,
        b: shared,
        nested: { deep: { list: createCodeModeNamespaceTool('github_list_issues'), n: 1, when: new Date(0), big: 3n } },
        items: [1, createCodeModeNamespaceTool('github_update_issue')],
      }),
    }))
    const result = await run().run.exec({
      code: `[Issues.a, Issues.b, Issues.nested.deep.n, Issues.nested.deep.when, Issues.nested.deep.big,
              typeof Issues.nested.deep.list, typeof Issues.items[1], namespaces.Issues === Issues,
              Object.isFrozen(Issues.nested.deep)]`,
    })
    expect(expectStatus(result, 'completed').value).toEqual([
      shared, shared, 1, '1970-01-01T00:00:00.000Z', '3', 'function', 'function', true, true,
    ])
  })

  it('hides a scope past its bounds, naming its size, instead of failing every cell as the guest', async () => {
    // Each would fill a 64 MiB VM (a 100 MB string; 340,000 objects, 1 MB as JSON), and the scope
    // is copied into every cell's VM.
    const large: [string, () => Record<string, unknown>, RegExp][] = [
      ['text', () => ({ s: 'x'.repeat(100e6) }), /^scope too large: its data is 100000008 bytes as JSON; a namespace scope holds at most 1048576 bytes as JSON and 100000 objects and arrays$/],
      ['many', () => ({ rows: Array.from({ length: 340_000 }, () => ({})) }), /^scope too large: its data has more than 100000 objects and arrays \(a shared one counts at each place it appears\); /],
      // 41 objects that share each other stand for 2^40 copies: the walk stops at the bound
      // (before, it went on for 2^40 steps on the main thread, and 25 of them took 46 s and 2 GB).
      ['shared', () => {
        let o: Record<string, unknown> = { leaf: 1 }
        for (let i = 0; i < 40; i++) o = { l: o, r: o }
        return { o }
      }, /^scope too large: its data has more than 100000 objects and arrays /],
      // The same inside a class instance, whose JSON form is taken instead of walking it.
      ['boxed', () => {
        let o: Record<string, unknown> = { leaf: 1 }
        for (let i = 0; i < 40; i++) o = { l: o, r: o }
        return { box: Object.assign(new (class Box {})(), { o }) }
      }, /^scope too large: its data has more than 100000 objects and arrays /],
    ]
    large.forEach(([id, data], i) =>
      registerCodeModeNamespaceForPlugin('github', issues({ id, globalName: `Large${i}`, createScope: () => ({ ...data(), list: createCodeModeNamespaceTool('github_list_issues') }) })),
    )
    // Within the bounds: 700,000 characters of text and 90,000 objects (970 KB as JSON).
    registerCodeModeNamespaceForPlugin('github', issues({
      createScope: () => ({ s: 'x'.repeat(7e5), rows: Array.from({ length: 90_000 }, () => ({})), list: createCodeModeNamespaceTool('github_list_issues') }),
    }))
    const { run: r, events } = run()
    const hidden = events.filter((e) => e.type === 'namespace_hidden')
    expect(hidden.map((e) => e.namespaceId)).toEqual(['text', 'many', 'shared', 'boxed'])
    large.forEach(([id, , reason]) => expect(hidden.find((e) => e.namespaceId === id)?.reason).toMatch(reason))
    const result = await r.exec({ code: '[1 + 1, typeof Large0, typeof Large1, typeof Large2, typeof Large3, Issues.s.length, Issues.rows.length]' })
    expect(expectStatus(result, 'completed').value).toEqual([2, 'undefined', 'undefined', 'undefined', 'undefined', 7e5, 90_000])
  })

  it('rejects callables that target undeclared tools', async () => {
    registerCodeModeNamespaceForPlugin('github', issues({
      createScope: () => ({ nuke: createCodeModeNamespaceTool('github_delete_repo') }),
    }))
    const { run: r } = run()
    expect(r.telemetry.hiddenNamespaces[0].reason).toMatch(/targets "github_delete_repo", which is not one of its requiredToolNames/)
    expect(expectStatus(await r.exec({ code: 'typeof Issues' }), 'completed').value).toBe('undefined')
  })
})

describe('guest calls', () => {
  it('execute through catalog tools with mapped input and return JSON-safe details', async () => {
    registerCodeModeNamespaceForPlugin('github', issues())
    const cyclic: Record<string, unknown> = { n: 1 }
    cyclic.self = cyclic
    const { run: r, calls, events } = run(GITHUB_TOOLS, (call) => (call.name === 'github_update_issue' ? cyclic : [{ number: 1 }]))
    const result = await r.exec({
      code: `const open = await Issues.list({ state: "open" });
             const also = await namespaces.Issues.list();
             const updated = await Issues.update(42, { state: "closed" });
             ({ open, also, updated })`,
    }, { toolCallId: 'exec-ns' })
    expect(expectStatus(result, 'completed').value).toEqual({
      open: [{ number: 1 }],
      also: [{ number: 1 }],
      updated: { n: 1, self: '[Circular]' },
    })
    expect(calls.map((c) => [c.id, c.input])).toEqual([
      ['openclaw:github:github_list_issues', { state: 'open' }],
      ['openclaw:github:github_list_issues', {}],
      ['openclaw:github:github_update_issue', { number: 42, patch: { state: 'closed' } }],
    ])
    expect(calls[2]).toMatchObject({ parentToolCallId: 'exec-ns', namespace: { id: 'github-issues', globalName: 'Issues', path: 'update' } })
    expect(events.filter((e) => e.type === 'tool_call_end')).toHaveLength(3)
  })

  it('lets guest code catch failures, including a throwing input mapper', async () => {
    registerCodeModeNamespaceForPlugin('github', issues({
      createScope: () => ({
        list: createCodeModeNamespaceTool('github_list_issues'),
        update: createCodeModeNamespaceTool('github_update_issue', () => {
          throw new Error('number is required')
        }),
      }),
    }))
    const { run: r, calls } = run(GITHUB_TOOLS, () => {
      throw new Error('rate limited')
    })
    const result = await r.exec({
      code: `const out = [];
             try { await Issues.list() } catch (e) { out.push(e.message) }
             try { await Issues.update() } catch (e) { out.push(e.message) }
             out`,
    })
    expect(expectStatus(result, 'completed').value).toEqual(['rate limited', 'namespace input mapper failed: number is required'])
    expect(calls).toHaveLength(1)
  })

  it('rejects forged namespace ids and paths', async () => {
    registerCodeModeNamespaceForPlugin('github', issues())
    const { run: r, calls } = run()
    const result = await r.exec({
      code: `const out = [];
             for (const id of ["github-issues", "namespace:github-issues:list", "openclaw:github:github_delete_repo"]) {
               try { await tools.call(id, {}) } catch (e) { out.push(e.message) }
             }
             try { Issues.list = () => "hijacked" } catch (e) { out.push(e.name) }
             try { namespaces.Evil = {} } catch (e) { out.push(e.name) }
             out.push(await Issues.list({}) === "hijacked", typeof Issues.__proto__.list, typeof namespaces.Evil)
             out`,
    })
    const value = expectStatus(result, 'completed').value as string[]
    expect(value.slice(0, 2)).toEqual(['Unknown tool id: github-issues', 'Unknown tool id: namespace:github-issues:list'])
    expect(value.slice(2)).toEqual(['TypeError', 'TypeError', false, 'undefined', 'undefined'])
    // The undeclared tool is still a catalog tool here, so tools.call reaches it; the namespace never does.
    expect(calls.map((c) => c.name)).toEqual(['github_delete_repo', 'github_list_issues'])
  })

  it('resumes a suspended namespace call through wait', async () => {
    registerCodeModeNamespaceForPlugin('github', issues())
    const slow = deferred<unknown>()
    const { run: r } = makeRun({ tools: GITHUB_TOOLS, config: { enabled: true, timeoutMs: 100 }, executor: () => slow.promise })
    const first = expectStatus(await r.exec({ code: 'const list = await Issues.list({ state: "open" });\nlist.length' }), 'waiting')
    expect(first.pendingToolCalls).toEqual([{ id: expect.any(String), method: 'namespace', toolId: 'openclaw:github:github_list_issues' }])
    slow.resolve([1, 2, 3])
    await sleep(10)
    expect(expectStatus(await r.wait({ runId: first.runId }), 'completed').value).toBe(3)
  })
})
