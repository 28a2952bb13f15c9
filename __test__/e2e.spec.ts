// Code mode end to end in 16 numbered steps (1–3 off, 4–16 on): a gateway-style harness, a scripted model that
// drives the OpenClaw adapter, a real MCP server, and a trajectory exported from onEvent.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  CodeModeRun,
  assertCodeModePayload,
  createCodeModeAgentTools,
  type CatalogTool,
  type CodeModeEvent,
  type CodeModeResult,
  type NestedToolCall,
  type OpenClawAgentTool,
} from '../index.js'
import { expectStatus, sleep } from './helpers.js'
import { closeAll, connect, forward, type ConnectedServer } from './support/mcp-servers.js'

type Impl = (input: Record<string, unknown>, call: NestedToolCall) => unknown

/** Effective tools before policy: core, plugin and client tools with implementations. */
const LOCAL: [CatalogTool, Impl][] = [
  [{ name: 'read_file', description: 'Read a text file', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } },
    (input) => ({ path: input.path, content: `contents of ${input.path}` })],
  [{ name: 'message', description: 'Send a chat message' }, (input) => ({ sent: input.text })],
  [{ name: 'exec', description: 'Run a shell command (OpenClaw shell tool)' }, (input) => ({ ran: input.command })],
  [{ name: 'calendar_list', source: 'openclaw', sourceName: 'calendar', description: 'List calendar events' }, () => [{ title: 'Standup' }]],
  [{ name: 'pick_file', source: 'client', sourceName: 'app', description: 'Ask the user to pick a file' }, () => ({ picked: 'a.txt' })],
  [{ name: 'deploy_wait', source: 'openclaw', sourceName: 'deploy', description: 'Wait for a deployment to finish' },
    () => sleep(400).then(() => ({ status: 'healthy' }))],
  [{ name: 'delete_everything', description: 'Delete every file' }, () => {
    throw new Error('must never run')
  }],
]
const DENIED = new Set(['delete_everything'])

interface Turn {
  modelTools: string[]
  run: CodeModeRun
  agentTools: OpenClawAgentTool[]
}

/** What a gateway does around code mode: policy, catalog, executor, transcript. */
class Gateway {
  events: CodeModeEvent[] = []
  transcript: { toolCallId: string; tool: string; params: unknown; result: CodeModeResult }[] = []
  private calls = 0

  constructor(private config: unknown, private mcp: ConnectedServer[]) {}

  turn(runId: string, overrides: Partial<{ config: unknown }> = {}): Turn {
    const effective = [...LOCAL.map(([t]) => t), ...this.mcp.flatMap((s) => s.tools)].filter((t) => !DENIED.has(t.name))
    const impls = new Map(LOCAL.map(([t, impl]) => [t.name, impl]))
    const run = CodeModeRun.create({
      config: overrides.config ?? this.config,
      runId,
      sessionId: 'session-e2e',
      sessionKey: 'agent:main:e2e',
      agentId: 'main',
      tools: effective,
      executor: (call) => {
        if (DENIED.has(call.name)) throw new Error('denied by policy')
        return call.source === 'mcp' ? forward(this.mcp, call) : impls.get(call.name)!((call.input ?? {}) as Record<string, unknown>, call)
      },
      onEvent: (event) => this.events.push(event),
    })
    if (!run.active) return { modelTools: effective.map((t) => t.name), run, agentTools: [] }
    const agentTools = createCodeModeAgentTools(run)
    const modelTools = agentTools.map((t) => t.name)
    assertCodeModePayload(modelTools)
    return { modelTools, run, agentTools }
  }

  /** One scripted model tool call through the adapter. */
  async call(turn: Turn, tool: 'exec' | 'wait', params: unknown, signal?: AbortSignal): Promise<CodeModeResult> {
    const toolCallId = `model_call_${++this.calls}`
    const adapter = turn.agentTools.find((t) => t.name === tool)!
    const { details } = await adapter.execute(toolCallId, params, signal)
    this.transcript.push({ toolCallId, tool, params, result: details })
    return details
  }

  /** The trajectory a support bundle would carry: model calls with their nested calls. */
  trajectory() {
    return this.transcript.map((entry) => ({
      toolCallId: entry.toolCallId,
      tool: entry.tool,
      status: entry.result.status,
      nested: this.events
        .filter((e): e is Extract<CodeModeEvent, { type: 'tool_call_end' }> => e.type === 'tool_call_end' && e.parentToolCallId === entry.toolCallId)
        .map((e) => ({ toolId: e.toolId, ok: e.ok })),
    }))
  }
}

let memory: ConnectedServer
const memoryDir = mkdtempSync(join(tmpdir(), 'e2e-'))
beforeAll(async () => {
  memory = await connect({ name: 'memory', pkg: '@modelcontextprotocol/server-memory', env: { MEMORY_FILE_PATH: join(memoryDir, 'm.jsonl') } })
})
afterAll(async () => {
  await closeAll([memory])
  rmSync(memoryDir, { recursive: true, force: true })
})

describe('E2E plan', () => {
  it('steps 1–3: with code mode disabled the model-visible tools are unchanged', () => {
    const gateway = new Gateway({ enabled: false }, [memory])
    const turn = gateway.turn('run-off')
    expect(turn.run.active).toBe(false)
    expect(turn.modelTools).toContain('read_file')
    expect(turn.modelTools).toContain('create_entities')
    expect(turn.modelTools).not.toContain('wait')
    expect(turn.modelTools).not.toContain('delete_everything')
  })

  it('steps 4–16: code mode on, end to end', async () => {
    // 4–6: restarted with code mode on: exactly exec and wait.
    const gateway = new Gateway({ enabled: true, timeoutMs: 200, snapshotTtlSeconds: 1 }, [memory])
    const turn = gateway.turn('run-on')
    expect(turn.modelTools).toEqual(['exec', 'wait'])
    expect(turn.agentTools[0].hookMetadata({ code: '1', language: 'typescript' })).toEqual({ toolKind: 'code_mode_exec', toolInputKind: 'typescript' })

    // 7: ALL_TOOLS holds the effective OpenClaw, plugin and client tools.
    const listed = expectStatus(await gateway.call(turn, 'exec', { code: 'ALL_TOOLS.map((t) => t.id)' }), 'completed')
    expect(listed.value).toEqual([
      'openclaw:core:read_file', 'openclaw:core:message', 'openclaw:core:exec',
      'openclaw:calendar:calendar_list', 'openclaw:deploy:deploy_wait', 'client:app:pick_file',
    ])

    // 8: search, describe and call OpenClaw, plugin and client tools.
    const used = expectStatus(await gateway.call(turn, 'exec', {
      code: `const file = await tools.describe((await tools.search("read a text file"))[0].id);
             const out = await tools.call(file.id, { path: "notes.md" });
             const events = await tools.call((await tools.search("calendar events"))[0].id);
             const picked = await tools.pick_file();
             const shell = await tools.call("openclaw:core:exec", { command: "ls" });
             ({ out, events, picked, shell })`,
    }), 'completed')
    expect(used.value).toEqual({
      out: { path: 'notes.md', content: 'contents of notes.md' },
      events: [{ title: 'Standup' }],
      picked: { picked: 'a.txt' },
      shell: { ran: 'ls' },
    })

    // 9: API files describe the visible MCP tools without a tool call.
    const before = gateway.events.length
    const api = expectStatus(await gateway.call(turn, 'exec', {
      code: '[(await API.list("mcp")).map((f) => f.path), await API.read("mcp/memory.d.ts")]',
    }), 'completed')
    const [paths, declaration] = api.value as [string[], string]
    expect(paths).toEqual(['mcp/index.d.ts', 'mcp/memory.d.ts'])
    expect(declaration).toContain('function createEntities(input: {')
    expect(gateway.events.length).toBe(before)

    // 10: MCP through MCP.<server>.<tool>() only.
    const mcp = expectStatus(await gateway.call(turn, 'exec', {
      code: `await MCP.memory.createEntities({ entities: [{ name: "e2e", entityType: "test", observations: ["ok"] }] });
             const graph = await MCP.memory.openNodes({ names: ["e2e"] });
             let direct; try { await tools.call("mcp:memory:open_nodes", { names: ["e2e"] }) } catch (e) { direct = e.message }
             [JSON.parse(graph.content[0].text).entities[0].name, direct, ALL_TOOLS.some((t) => t.source === "mcp"), typeof tools.open_nodes]`,
    }), 'completed')
    expect(mcp.value).toEqual(['e2e', 'Unknown tool id: mcp:memory:open_nodes', false, 'undefined'])

    // 11: denied tools are absent and cannot be called by a guessed id.
    const denied = expectStatus(await gateway.call(turn, 'exec', {
      code: `let e; try { await tools.call("openclaw:core:delete_everything", {}) } catch (x) { e = x.message }
             [ALL_TOOLS.some((t) => t.name === "delete_everything"), (await tools.search("delete every file")).some((t) => t.name === "delete_everything"), e]`,
    }), 'completed')
    expect(denied.value).toEqual([false, false, 'Unknown tool id: openclaw:core:delete_everything'])

    // 12–14: a nested call outlives exec; wait delivers it; output after the restore arrives.
    const waiting = expectStatus(await gateway.call(turn, 'exec', {
      code: 'text("deploying"); const s = await tools.deploy_wait(); text(`deploy is ${s.status}`); `final: ${s.status}`',
    }), 'waiting')
    expect(waiting.output).toEqual([{ type: 'text', text: 'deploying' }])
    await sleep(450)
    const done = expectStatus(await gateway.call(turn, 'wait', { runId: waiting.runId }), 'completed')
    expect(done.value).toBe('final: healthy')
    expect(done.output).toEqual([{ type: 'text', text: 'deploy is healthy' }])

    // 15: timeout, abort and expiry clean up runtime state.
    expect(expectStatus(await gateway.call(turn, 'exec', { code: 'while (true) {}' }), 'failed').code).toBe('timeout')
    const controller = new AbortController()
    const aborting = gateway.call(turn, 'exec', { code: 'await tools.deploy_wait()' }, controller.signal)
    await sleep(20)
    controller.abort()
    expect(expectStatus(await aborting, 'failed').code).toBe('aborted')
    const expiring = expectStatus(await gateway.call(turn, 'exec', { code: 'await new Promise(() => setTimeout(() => {}, 60000))' }), 'waiting')
    await sleep(1200)
    const expired = expectStatus(await gateway.call(turn, 'wait', { runId: expiring.runId }), 'failed')
    expect(expired.error).toBe('code mode run is unavailable or expired.')
    expect(turn.run.telemetry).toMatchObject({ liveCells: 0, expiredCells: 1, abortedCells: 1 })

    // 16: the trajectory shows nested calls under their parent exec.
    const trajectory = gateway.trajectory()
    expect(trajectory[1]).toEqual({
      toolCallId: 'model_call_2',
      tool: 'exec',
      status: 'completed',
      nested: [
        { toolId: 'openclaw:core:read_file', ok: true },
        { toolId: 'openclaw:calendar:calendar_list', ok: true },
        { toolId: 'client:app:pick_file', ok: true },
        { toolId: 'openclaw:core:exec', ok: true },
      ],
    })
    expect(trajectory[3].nested).toEqual([
      { toolId: 'mcp:memory:create_entities', ok: true },
      { toolId: 'mcp:memory:open_nodes', ok: true },
    ])
    const resumed = trajectory.find((t) => t.tool === 'wait' && t.status === 'completed')
    expect(resumed).toBeDefined()
    expect(trajectory.find((t) => t.toolCallId === 'model_call_6')?.nested).toEqual([{ toolId: 'openclaw:deploy:deploy_wait', ok: true }])
  })
})
