import type {
  CodeModeAbortSignal,
  CodeModeEvent,
  CodeModeNamespaceRegistration,
  CodeModeOutput,
  CodeModeResult,
  CodeModeRun,
  NestedToolCall,
} from '../index'

/** Answers one nested call; may be async. Throwing becomes a catchable guest Error. */
export type TestToolHandler = (input: any, call: NestedToolCall) => unknown

export interface TestToolSpec {
  handler: TestToolHandler
  description?: string
  label?: string
  /** JSON Schema of the input (what `tools.describe` returns). */
  parameters?: unknown
  source?: 'openclaw' | 'mcp' | 'client'
  /** The plugin id for plugin tools (namespaces require it). */
  sourceName?: string
}

/** `createTestRun`: a CodeModeRun (this library's guest API: `tools.*`, `ALL_TOOLS`). */
export interface CreateTestRunOptions {
  /** Catalog: tool name → handler, or a spec with metadata. */
  tools?: Record<string, TestToolHandler | TestToolSpec>
  /** Registered before the run is created, removed by `cleanup()`. */
  namespaces?: { pluginId: string; registration: CodeModeNamespaceRegistration }[]
  /** `tools.codeMode`; `enabled: true` unless given (a partial config keeps code mode on). */
  config?: unknown
  /** `ctx.config` for namespace `createScope`. */
  context?: unknown
  runId?: string
  sessionId?: string
  sessionKey?: string
  agentId?: string
}

/** A nested call as the test run recorded it. */
export interface RecordedCall {
  id: string
  name: string
  input: unknown
  toolCallId: string
  parentToolCallId?: string
  namespace?: { id: string; globalName: string; path: string }
  result?: unknown
  error?: string
}

/** The last result of `execUntilDone`, with what every leg produced. */
export type TestRunResult = CodeModeResult & {
  /** Output items of every leg, in order. */
  output: CodeModeOutput[]
  /** Each exec/wait result. */
  legs: CodeModeResult[]
  /** The nested calls made by this cell (its legs' calls only, when other cells of the run run at the same time). */
  calls: RecordedCall[]
}

export interface TestRun {
  run: CodeModeRun
  /** Every nested call of the run so far. */
  calls: RecordedCall[]
  events: CodeModeEvent[]
  exec(code: string, options?: { language?: 'javascript' | 'typescript' }): Promise<CodeModeResult>
  /** exec, then wait until the cell is done; `maxLegs` (default 100) caps the exec/wait results taken. */
  execUntilDone(code: string, options?: { language?: 'javascript' | 'typescript'; maxLegs?: number }): Promise<TestRunResult>
  cleanup(): void
}

export declare function createTestRun(options?: CreateTestRunOptions): TestRun

/** The result an OpenClaw agent tool returns (`details` is what a cell's call resolves to). */
export interface OpenClawToolResult {
  content: Array<{ type: 'text'; text: string } | { type: 'image'; data: string; mimeType: string } | Record<string, unknown>>
  details?: unknown
  [key: string]: unknown
}

/** An OpenClaw agent tool, as a plugin defines it. */
export interface OpenClawAgentTool {
  name: string
  label?: string
  description: string
  /** JSON Schema of the input (TypeBox schemas are JSON Schema). */
  parameters: unknown
  /** JSON Schema of `details`: the gateway's trusted output hint and `tools/<name>.d.ts` result type. */
  outputSchema?: unknown
  execute(toolCallId: string, params: any, signal?: CodeModeAbortSignal, onUpdate?: (partial: unknown) => void): Promise<OpenClawToolResult> | OpenClawToolResult
  [key: string]: unknown
}

/** An MCP server for the gateway to start over stdio (openclaw's `mcp.servers.<name>`). */
export interface OpenClawMcpServer {
  command: string
  args?: string[]
  env?: Record<string, string>
  cwd?: string
  [key: string]: unknown
}

/** `createOpenClawTestRun`: cells run through the real OpenClaw gateway (the installed `openclaw`). */
export interface CreateOpenClawTestRunOptions {
  /** The plugin's agent tools; each becomes an async global of the cell (`await my_tool({...})`). */
  tools?: OpenClawAgentTool[]
  /** MCP servers the gateway starts (as it starts `mcp.servers`): `MCP.<name>.<tool>(...)`, `namespaces.MCP`. */
  mcpServers?: Record<string, OpenClawMcpServer>
  /** `tools.codeMode` settings (`enabled` and `executor` are set by the helper), e.g. `{ timeoutMs: 1000 }`. */
  config?: Record<string, unknown>
  /**
   * Which executor runs the cells: `'native'` (this package as the `quickjs` executor, default),
   * `'bundled'` (upstream's QuickJS-WASI plugin) or `'node'` (upstream's node:vm executor).
   */
  executor?: 'native' | 'bundled' | 'node'
  /** The plugin id the tools are registered under, as the gateway's plugin loader marks them (default `'test-plugin'`). */
  pluginId?: string
  agentId?: string
  sessionId?: string
  sessionKey?: string
  runId?: string
}

/** A nested call as the gateway made it. */
export interface OpenClawRecordedCall {
  /** The tool's name (`<server>__<tool>` for an MCP tool). */
  name: string
  input: unknown
  toolCallId: string
  parentToolCallId?: string
  source: 'openclaw' | 'mcp' | 'client'
  sourceName?: string
  /** What the tool's `execute` returned. */
  result?: OpenClawToolResult
  /**
   * The message of what it threw, or of the gateway's refusal when the input failed the tool's
   * `parameters` schema (then `execute` never ran).
   */
  error?: string
}

/** The `details` of one exec or wait result, as the model sees them. */
export interface OpenClawCodeModeResult {
  status: 'completed' | 'waiting' | 'failed'
  value?: unknown
  output?: Array<{ type: 'text'; text: string } | { type: 'json'; value: unknown }>
  /** `waiting`: the id for `wait`. */
  runId?: string
  reason?: 'pending_tools' | 'yield'
  pendingToolCalls?: Array<{ id: string; method: string }>
  /** `failed`: e.g. `invalid_input`, `internal_error`, `timeout`, `runtime_unavailable`. */
  code?: string
  failurePhase?: string
  error?: string
  telemetry?: unknown
  [key: string]: unknown
}

/** The last result of `execUntilDone`, with the output of every leg. */
export type OpenClawTestRunResult = OpenClawCodeModeResult & {
  output: NonNullable<OpenClawCodeModeResult['output']>
  legs: OpenClawCodeModeResult[]
  /** The nested calls made by this cell (its legs' calls only, when other cells of the run run at the same time). */
  calls: OpenClawRecordedCall[]
}

export interface OpenClawTestRun {
  /** Every nested call of the run so far. */
  calls: OpenClawRecordedCall[]
  /** The model-visible `exec` description, with the quick index of tool globals the model sees. */
  execDescription: string
  executor: 'native' | 'bundled' | 'node'
  /** The installed openclaw's version. */
  openclaw: string
  /** The model-visible tools (`exec`, `wait`) as the gateway built them. */
  tools: unknown[]
  exec(code: string, options?: { signal?: CodeModeAbortSignal }): Promise<OpenClawCodeModeResult>
  wait(runId: string, options?: { signal?: CodeModeAbortSignal }): Promise<OpenClawCodeModeResult>
  /** exec, then wait until the cell is done; `maxLegs` (default 100) caps the exec/wait results taken. */
  execUntilDone(code: string, options?: { maxLegs?: number; signal?: CodeModeAbortSignal }): Promise<OpenClawTestRunResult>
  /** Ends the run (parked cells are released) and stops its MCP servers. */
  cleanup(): Promise<void>
}

/**
 * A test run inside the real OpenClaw gateway: the guest API OpenClaw users run (tool globals,
 * `catalog.search` handles, `results`, `MCP`, `namespaces.MCP`). Needs `openclaw` >= 2026.9.6
 * installed and the Node it needs (>= 24.16); rejects otherwise with an Error whose `code` is
 * `ERR_CODE_MODE_OPENCLAW_MISSING`, `ERR_CODE_MODE_OPENCLAW_VERSION` or
 * `ERR_CODE_MODE_NODE_VERSION` (and `ERR_CODE_MODE_OPENCLAW_UNSUPPORTED` for `namespaces`, which
 * openclaw does not have).
 */
export declare function createOpenClawTestRun(options?: CreateOpenClawTestRunOptions): Promise<OpenClawTestRun>

/** Cleans up every test run still alive, of both kinds (for `afterEach`). */
export declare function cleanupTestRuns(): Promise<void>
