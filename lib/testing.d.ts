import type {
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

export interface CreateTestRunOptions {
  /** Catalog: tool name → handler, or a spec with metadata. */
  tools?: Record<string, TestToolHandler | TestToolSpec>
  /** Registered before the run is created, removed by `cleanup()`. */
  namespaces?: { pluginId: string; registration: CodeModeNamespaceRegistration }[]
  /** `tools.codeMode` (default `{ enabled: true }`). */
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
  /** The nested calls made by this cell. */
  calls: RecordedCall[]
}

export interface TestRun {
  run: CodeModeRun
  /** Every nested call of the run so far. */
  calls: RecordedCall[]
  events: CodeModeEvent[]
  exec(code: string, options?: { language?: 'javascript' | 'typescript' }): Promise<CodeModeResult>
  execUntilDone(code: string, options?: { language?: 'javascript' | 'typescript'; maxLegs?: number }): Promise<TestRunResult>
  cleanup(): void
}

export declare function createTestRun(options?: CreateTestRunOptions): TestRun
/** Cleans up every test run still alive (for `afterEach`). */
export declare function cleanupTestRuns(): void
