import { CodeModeRun, type CatalogTool, type CodeModeEvent, type CodeModeResult, type NestedToolCall } from '../index.js'

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** A small realistic catalog: core, plugin, MCP and client tools. */
export const TOOLS: CatalogTool[] = [
  { name: 'read_file', label: 'Read file', description: 'Read a text file from the workspace', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } },
  { name: 'write_file', description: 'Write a text file to the workspace', parameters: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } } } },
  { name: 'exec', description: 'Run a shell command', parameters: { type: 'object', properties: { command: { type: 'string' } } } },
  { name: 'message', description: 'Send a message to the current channel' },
  { name: 'web-search', source: 'openclaw', sourceName: 'web', description: 'Search the web for pages' },
  { name: 'slow', source: 'openclaw', sourceName: 'lab', description: 'A tool that takes its time' },
  { name: 'create_issue', source: 'mcp', sourceName: 'github', description: 'Create a GitHub issue' },
  { name: 'select_file', source: 'client', sourceName: 'app', description: 'Ask the user to pick a file' },
]

export interface TestRun {
  run: CodeModeRun
  calls: NestedToolCall[]
  events: CodeModeEvent[]
}

export function makeRun(options: {
  config?: unknown
  tools?: CatalogTool[]
  executor?: (call: NestedToolCall) => unknown
  runId?: string
  sessionId?: string
  sessionKey?: string
  agentId?: string
} = {}): TestRun {
  const calls: NestedToolCall[] = []
  const events: CodeModeEvent[] = []
  const executor = options.executor ?? ((call: NestedToolCall) => ({ tool: call.name, input: call.input }))
  const run = CodeModeRun.create({
    config: options.config ?? { enabled: true },
    runId: options.runId ?? 'run-1',
    sessionId: options.sessionId ?? 'session-1',
    sessionKey: options.sessionKey ?? 'agent:main:chat',
    agentId: options.agentId ?? 'main',
    tools: options.tools ?? TOOLS,
    executor: (call) => {
      calls.push(call)
      return executor(call)
    },
    onEvent: (event) => events.push(event),
  })
  return { run, calls, events }
}

export function expectStatus<S extends CodeModeResult['status']>(
  result: CodeModeResult,
  status: S,
): Extract<CodeModeResult, { status: S }> {
  if (result.status !== status) {
    throw new Error(`expected ${status}, got ${JSON.stringify(result)}`)
  }
  return result as Extract<CodeModeResult, { status: S }>
}

/** A promise the test settles by hand. */
export function deferred<T = unknown>() {
  let resolve!: (value: T) => void
  let reject!: (error: unknown) => void
  const promise = new Promise<T>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}

/** Watches Node's event loop with an interval timer: how often it ticked, its longest gap. */
export function watchEventLoop(everyMs: number) {
  const watch = { ticks: 0, longestGap: 0, stop: () => clearInterval(timer) }
  let last = performance.now()
  const timer = setInterval(() => {
    const now = performance.now()
    watch.longestGap = Math.max(watch.longestGap, now - last)
    last = now
    watch.ticks++
  }, everyMs)
  return watch
}
