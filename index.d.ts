// Public types of @openclaw/code-mode. The runtime is native (see binding.d.ts); this file is
// the contract gateway code and plugin authors program against.

import type {
  CodeModeCellEvent,
  CodeModeConfig,
  CodeModeErrorCode,
  CodeModeFailurePhase,
  CodeModeInactiveReason,
  CodeModeOutput,
  CodeModePendingToolCall,
  CodeModeResult,
  CodeModeRunTelemetry,
  CodeModeTelemetry,
  ModelToolDefinition,
  NamespaceRegistration,
  ToolCatalogEntry,
  ToolSearchBatch,
  ToolSearchBatchGroup,
  ToolSearchConfig,
  ToolSearchEntry,
  ToolSearchModelTool,
  ToolSearchQueryTruncation,
  ToolSearchTelemetry,
  ToolSearchToolCall,
} from './binding'

// The native functions, declared once in Rust (src/lib.rs, src/toolsearch) and generated into
// binding.d.ts with their documentation.
export { assertCodeModePayload, configureCodeModeRuntime, resolveCodeModeConfig, resolveToolSearchConfig } from './binding'
export type { RuntimeOptions } from './binding'

// Shapes the native side produces, declared once in Rust (src/protocol/types.rs,
// src/toolsearch) and generated into binding.d.ts.
export type {
  CodeModeCellEvent,
  CodeModeConfig,
  CodeModeErrorCode,
  CodeModeFailurePhase,
  CodeModeInactiveReason,
  CodeModeOutput,
  CodeModePendingToolCall,
  CodeModeResult,
  CodeModeRunTelemetry,
  CodeModeTelemetry,
  ModelToolDefinition,
  ToolCatalogEntry,
  ToolSearchBatch,
  ToolSearchBatchGroup,
  ToolSearchConfig,
  ToolSearchEntry,
  ToolSearchModelTool,
  ToolSearchQueryTruncation,
  ToolSearchTelemetry,
  ToolSearchToolCall,
}

/**
 * The host's `AbortSignal`. These types need neither the DOM lib nor `@types/node` (a project with
 * `lib: ["es2023"]` and `types: []` checks them): where a global `AbortSignal` is declared, this is
 * that type; elsewhere it is the structural subset below.
 */
export type CodeModeAbortSignal = typeof globalThis extends { AbortSignal: { prototype: infer S } } ? S : CodeModeAbortSignalLike

/** The members of `AbortSignal` that code-mode uses and hands out, for projects without DOM or Node types. */
export interface CodeModeAbortSignalLike {
  readonly aborted: boolean
  readonly reason: any
  onabort: ((this: any, event: any) => any) | null
  addEventListener(type: 'abort', listener: (this: any, event: any) => any, options?: boolean | { once?: boolean; passive?: boolean; signal?: CodeModeAbortSignalLike }): void
  removeEventListener(type: 'abort', listener: (this: any, event: any) => any, options?: boolean | { capture?: boolean }): void
  throwIfAborted(): void
}

/** One effective tool, after the gateway's policy filtering. */
export interface CatalogTool {
  name: string
  label?: string
  description?: string
  /** JSON Schema of the input. */
  parameters?: unknown
  /**
   * JSON Schema of the result, as OpenClaw tools may declare it: kept for `openclaw` tools only,
   * for Tool Search's `output` hint (left out of hits unless it describes the result completely).
   */
  outputSchema?: unknown
  /** Plugin tools are `'openclaw'` with `sourceName` = the plugin id. */
  source?: 'openclaw' | 'mcp' | 'client'
  /** `'core'` when omitted for openclaw tools; the MCP server; the client app. */
  sourceName?: string
  /** What an MCP entry calls. Absent: serverName = sourceName, toolName = name, operation = 'tool'. */
  mcp?: {
    serverName: string
    toolName: string
    operation?: 'tool' | 'resources_list' | 'resources_read' | 'prompts_list' | 'prompts_get'
  }
}

/** What the executor receives for each nested tool call. */
export interface NestedToolCall {
  /** Exact catalog id, `<source>:<owner>:<name>`. */
  id: string
  name: string
  source: 'openclaw' | 'mcp' | 'client'
  sourceName: string
  input: unknown
  /** Unique id of this nested call. */
  toolCallId: string
  /** The exec/wait `toolCallId` that made it. */
  parentToolCallId?: string
  runId: string
  sessionId?: string
  sessionKey?: string
  agentId?: string
  /**
   * Aborted on `run.abort()`, an exec/wait signal abort, the cell failing, or expiry of the suspended cell.
   * Built on first read (a getter on the call's prototype: `{ ...call }` does not copy it).
   */
  readonly signal: CodeModeAbortSignal
  /** Streams partial results; forwarded to `onEvent` as `tool_call_update`. */
  onUpdate: (partial: unknown) => void
  /** Set for `MCP.<server>.<tool>()` calls: what to call on the server. */
  mcp?: { serverName: string; toolName: string; operation: 'tool' | 'resources_list' | 'resources_read' | 'prompts_list' | 'prompts_get' }
  /** Set for plugin namespace calls: which callable made it (`input` is its mapped input). */
  namespace?: { id: string; globalName: string; path: string }
}

/** Runs one nested call through the gateway (policy, approvals, hooks). May be sync or async. */
export type ToolExecutor = (call: NestedToolCall) => unknown | Promise<unknown>

export interface CodeModeRunOptions {
  /** The `tools.codeMode` value. */
  config?: unknown
  /** The agent run. */
  runId: string
  sessionId?: string
  sessionKey?: string
  agentId?: string
  /** Handed to namespace `createScope(ctx)` as `ctx.config`. */
  context?: unknown
  /** Order within a source is kept (bundled plugins before external). */
  tools: CatalogTool[]
  disableTools?: boolean
  rawModelCall?: boolean
  executor: ToolExecutor
  /**
   * Not awaited: a throw, or a returned promise that rejects, is counted in
   * `eventListenerErrors` and never breaks the run.
   */
  onEvent?: (event: CodeModeEvent) => void
}

export type CodeModeCompletedResult = Extract<CodeModeResult, { status: 'completed' }>
export type CodeModeWaitingResult = Extract<CodeModeResult, { status: 'waiting' }>
export type CodeModeFailedResult = Extract<CodeModeResult, { status: 'failed' }>

interface NestedCallEventBase {
  runId: string
  toolCallId: string
  parentToolCallId?: string
  toolId: string
  toolName: string
  source: string
  sourceName: string
}

/**
 * Why a registered namespace is not shown in a run: fired once per hidden namespace when the run
 * is created (a required tool missing, or there without the plugin's `sourceName`, or a scope
 * that failed).
 */
export type CodeModeNamespaceHiddenEvent = { type: 'namespace_hidden'; runId: string; namespaceId: string; reason: string }

/**
 * A nested call starts. `input` is the executor's input; when its JSON is longer than 8,192
 * characters it is that JSON cut there, ending in `…[truncated N characters]`, and
 * `inputTruncated` is true.
 */
export type CodeModeToolCallStartEvent = { type: 'tool_call_start'; input: unknown; inputTruncated?: true } & NestedCallEventBase

/**
 * A nested call ended: `result` (ok) or `error` (not ok), bounded like the start event's input
 * (`resultTruncated` when the result's JSON was cut; an error's text ends in the marker).
 */
export type CodeModeToolCallEndEvent = {
  type: 'tool_call_end'
  durationMs: number
  ok: boolean
  result?: unknown
  resultTruncated?: true
  error?: string
  aborted: boolean
} & NestedCallEventBase

/** What `onEvent` receives: nested calls (for transcript projection) and cell lifecycle. */
export type CodeModeEvent =
  | CodeModeNamespaceHiddenEvent
  | CodeModeToolCallStartEvent
  | ({ type: 'tool_call_update'; partial: unknown } & NestedCallEventBase)
  | CodeModeToolCallEndEvent
  | CodeModeCellEvent

/** What `exec` takes: a cell's source (`command` is accepted as an alias of `code`). */
export type CodeModeExecInput =
  | { code: string; language?: 'javascript' | 'typescript' }
  | { command: string; language?: 'javascript' | 'typescript' }

/** What `wait` takes: the `runId` token of a `waiting` result (`run_id` is an alias). */
export type CodeModeWaitInput = { runId: string } | { run_id: string }

export interface CodeModeLegOptions {
  /** The exec/wait tool call id; becomes `parentToolCallId` of nested calls. */
  toolCallId?: string
  /** Aborting it fails the leg with `aborted` and drops the cell. */
  signal?: CodeModeAbortSignal
}

/**
 * One agent run's code mode. Nothing needs closing: a run nobody holds any more is collected with
 * what its `executor` and `onEvent` capture, and its cells and catalog leave the sandbox process;
 * a run with an exec or wait in flight is held until that leg settles. `abort()` ends its cells
 * at once.
 */
export declare class CodeModeRun {
  /** Throws only on misuse (no executor, tools not an array, no runId). */
  static create(options: CodeModeRunOptions): CodeModeRun
  private constructor(options: CodeModeRunOptions)
  /** False: config off, no tools, `disableTools`, or a raw model call. */
  readonly active: boolean
  /** Why the run is inactive; undefined when it is active. */
  readonly inactiveReason: CodeModeInactiveReason | undefined
  /**
   * How many times `onEvent` threw or returned a promise that rejected. The first of a run is
   * also a process warning (`OPENCLAW_CODE_MODE_ON_EVENT`); a failing listener never breaks the run.
   */
  readonly eventListenerErrors: number
  readonly config: CodeModeConfig
  /** Exactly `[exec, wait]` when active, `[]` otherwise. */
  readonly modelTools: ModelToolDefinition[]
  /** The guest-visible `ALL_TOOLS` view. */
  readonly catalog: ToolCatalogEntry[]
  readonly telemetry: CodeModeRunTelemetry
  /**
   * Runs a cell. Never rejects: bad input (from an untyped caller, e.g. a model's raw
   * arguments cast to this type) is a `failed` result.
   */
  exec(input: CodeModeExecInput, options?: CodeModeLegOptions): Promise<CodeModeResult>
  /** Continues a waiting cell (`{ runId }`). Never rejects. */
  wait(input: CodeModeWaitInput, options?: CodeModeLegOptions): Promise<CodeModeResult>
  /** Every cell this run created: cancel nested calls, drop VMs; later exec/wait fail `aborted`. */
  abort(): void
}

/** An OpenClaw agent tool wrapping a run's exec or wait. */
export interface OpenClawAgentTool {
  name: 'exec' | 'wait'
  label: string
  description: string
  parameters: Record<string, unknown>
  toolKind: 'code_mode_exec' | 'code_mode_wait'
  /** Hook metadata for one call: `toolInputKind` tells a JavaScript from a TypeScript cell. */
  hookMetadata(params: unknown): { toolKind: 'code_mode_exec' | 'code_mode_wait'; toolInputKind?: 'javascript' | 'typescript' }
  execute(
    toolCallId: string,
    params: unknown,
    signal?: CodeModeAbortSignal,
    onUpdate?: (update: { content: { type: 'text'; text: string }[]; details: CodeModeResult }) => void,
  ): Promise<{ content: { type: 'text'; text: string }[]; details: CodeModeResult }>
}

/** The drop-in adapter: exec and wait as OpenClaw agent tools. */
export declare function createCodeModeAgentTools(run: CodeModeRun): OpenClawAgentTool[]

// ---------------------------------------------------------------------------------------------
// Plugin namespaces (for the trusted plugin loader only)

/** What `createScope` receives, once per `CodeModeRun.create`. */
export interface CodeModeNamespaceContext {
  agentId?: string
  sessionKey?: string
  sessionId?: string
  runId: string
  /** `CodeModeRunOptions.context`. */
  config: unknown
  /** Aborted when the run is aborted. */
  signal: CodeModeAbortSignal
}

/** A scope member made callable by `createCodeModeNamespaceTool`. */
export interface CodeModeNamespaceToolMarker {
  readonly toolName: string
  readonly inputMapper?: (args: unknown[]) => unknown
}

/**
 * Plain JSON-compatible data, arrays, nested objects and `createCodeModeNamespaceTool` markers.
 * Raw functions, cycles and unsafe keys (`__proto__`, `constructor`, `prototype`, empty, or
 * containing `.`) hide the namespace for the run; other non-JSON values become their JSON form.
 * The data is copied into every cell's VM, so it is bounded: more than 1 MiB (1,048,576 bytes) as
 * JSON, or more than 100,000 objects and arrays, hides the namespace (`namespace_hidden`, naming
 * the size).
 */
export type CodeModeNamespaceScope = Record<string, unknown>

export interface CodeModeNamespaceRegistration extends NamespaceRegistration {
  /**
   * Builds the run's scope (runs once per `CodeModeRun.create`, on the main thread, and is not
   * awaited: a promise hides the namespace). A throw hides the namespace for the run.
   */
  createScope: (ctx: CodeModeNamespaceContext) => CodeModeNamespaceScope
}

/** Registers a namespace owned by `pluginId`. Throws a TypeError naming the problem when invalid. */
export declare function registerCodeModeNamespaceForPlugin(pluginId: string, registration: CodeModeNamespaceRegistration): void
/**
 * Marks a scope member as a callable backed by the catalog tool `toolName` (one of the
 * registration's `requiredToolNames`). `inputMapper` turns the guest's arguments into the tool
 * input (default: the first argument, or `{}`); it runs in the host, synchronously, and a throw
 * (or a returned promise) becomes a guest Error.
 */
export declare function createCodeModeNamespaceTool(
  toolName: string,
  inputMapper?: (args: unknown[]) => unknown,
): CodeModeNamespaceToolMarker
/** Removes every namespace of `pluginId` (plugin disabled, uninstalled or rolled back). */
export declare function clearCodeModeNamespacesForPlugin(pluginId: string): void
/** Removes one namespace by id. */
export declare function unregisterCodeModeNamespace(namespaceId: string): void
/** Removes every registration (test isolation). */
export declare function clearCodeModeNamespacesForTest(): void

// ---------------------------------------------------------------------------------------------
// Tool Search (`tools.toolSearch`): search, describe and call on the same catalog and sandbox

export interface ToolSearchRunOptions {
  /** The `tools.toolSearch` value. */
  config?: unknown
  /** The `tools.codeMode` value: engaged code mode takes precedence (the run is inactive). */
  codeMode?: unknown
  runId: string
  sessionId?: string
  sessionKey?: string
  agentId?: string
  tools: CatalogTool[]
  executor: ToolExecutor
  /** Nested calls, reported as code mode reports them (`tool_call_*`); a failing listener is handled as code mode handles it. */
  onEvent?: (event: CodeModeEvent) => void
}

/** What a Tool Search call resolves to: shaped like `CodeModeResult`, never a rejection. */
export type ToolSearchResult =
  | {
      status: 'completed'
      /**
       * `tool_search`: `ToolSearchEntry[]` for one query, a `ToolSearchBatch` for a call with
       * `queries`; `tool_describe`: a `ToolSearchEntry` with `parameters`; `tool_call`:
       * `{ tool, result }`; `tool_search_code`: the cell's value.
       */
      value: unknown
      output?: CodeModeOutput[]
      /**
       * `tool_search` with one query only, when the query was past its caps (512 characters, 32 distinct words):
       * only `searched`, its first part, was searched; `message` says so to the model.
       */
      queryTruncated?: ToolSearchQueryTruncation
      telemetry: ToolSearchTelemetry
    }
  | {
      status: 'failed'
      code: CodeModeErrorCode
      error: string
      /**
       * Where it failed: `input` (the model's arguments), `guest` (a `tool_search_code` cell),
       * `bridge` (the called tool failed), `host` (aborted, or the runtime).
       */
      failurePhase: CodeModeFailurePhase
      output?: CodeModeOutput[]
      telemetry: ToolSearchTelemetry
    }

export interface ToolSearchCallOptions {
  /** The model's call id; becomes `parentToolCallId` of the nested calls. */
  toolCallId?: string
  /** Aborting it fails the call with `aborted` and cancels its nested calls. */
  signal?: CodeModeAbortSignal
}

export declare class ToolSearchRun {
  /** Throws only on misuse (no executor, tools not an array, no runId). */
  static create(options: ToolSearchRunOptions): ToolSearchRun
  private constructor(options: ToolSearchRunOptions)
  /** False: Tool Search off, no tools, or code mode engaged. */
  readonly active: boolean
  readonly mode: 'code' | 'tools' | 'directory'
  readonly config: ToolSearchConfig
  /** `[tool_search_code]` (code) or `[tool_search, tool_describe, tool_call]`; `[]` when inactive. */
  readonly modelTools: ToolSearchModelTool[]
  /**
   * The bounded capability directory for the system prompt, in every mode (`''` when inactive):
   * trusted tool names and descriptions sorted by name, at most 18,000 characters, the same text
   * for the same catalog and mode (cache-stable).
   */
  readonly prompt: string
  readonly telemetry: ToolSearchTelemetry
  /** Runs one of `modelTools` by name. Never rejects: bad input is a `failed` result. */
  call(toolName: string, input: unknown, options?: ToolSearchCallOptions): Promise<ToolSearchResult>
  /** Cancels every call of this run; later calls of every tool (search and describe too) fail `aborted`. */
  abort(): void
}

/** A Tool Search model tool as an OpenClaw agent tool. */
export interface ToolSearchAgentTool {
  name: ToolSearchModelTool['name']
  label: string
  description: string
  parameters: Record<string, unknown>
  toolKind: 'tool_search'
  hookMetadata(params: unknown): {
    toolKind: 'tool_search'
    toolSearchOperation: ToolSearchModelTool['name']
    targetToolId?: string
    toolInputKind?: 'javascript'
  }
  execute(
    toolCallId: string,
    params: unknown,
    signal?: CodeModeAbortSignal,
  ): Promise<{ content: { type: 'text'; text: string }[]; details: ToolSearchResult }>
}

/** The drop-in adapter: a Tool Search run's model tools as OpenClaw agent tools. */
export declare function createToolSearchAgentTools(run: ToolSearchRun): ToolSearchAgentTool[]
