// The globals a code-mode cell sees, for editors and `tsc`, with no DOM or Node types: a cell
// that reaches for `fetch` or `process` is a type error as it is a runtime error.
//
// A cell is the body of an async function: top-level `await` and `return` work, and the last
// expression statement is the result. `npx code-mode check <cell>` (lib/check.js) type-checks a
// cell that way, against this file and the MCP server declarations the runtime renders
// (`await API.read("mcp/<server>.d.ts")`), which extend `MCP`. In an editor use
//
//   { "compilerOptions": { "lib": ["es2023"], "types": ["@openclaw/code-mode/guest"], "strict": true } }
//
// (an editor checks a standalone file as a script or module, so it flags top-level await/return).

/** A compact catalog entry (no schema). */
interface ToolCatalogEntry {
  /** `<source>:<owner>:<name>`: the exact id for `tools.call`. */
  readonly id: string
  readonly name: string
  readonly label?: string
  readonly description: string
  readonly source: 'openclaw' | 'mcp' | 'client'
  readonly sourceName?: string
}

/** A catalog entry with its input JSON Schema. */
interface ToolCatalogEntryWithSchema extends ToolCatalogEntry {
  readonly parameters: unknown
}

/**
 * On a search's hits when the query was over the caps (512 characters, 32 distinct words): only
 * its first part was searched.
 */
interface QueryTruncation {
  /** The part of the query that was searched (its beginning, ending between words). */
  readonly searched: string
  readonly reason: 'chars' | 'words'
  /** One sentence saying so, for the model. */
  readonly message: string
}

/** A search's hits, best first; `queryTruncated` (not enumerable) only when the query was cut. */
type ToolSearchHits = ToolCatalogEntry[] & { readonly queryTruncated?: QueryTruncation }

interface ToolCatalogHelpers {
  /** Ranked entries for a plain-language query (empty: the catalog in order). */
  search(query: string, options?: { limit?: number }): Promise<ToolSearchHits>
  /** The entry with its JSON Schema `parameters`. Rejects with "Unknown tool id: …". */
  describe(id: string): Promise<ToolCatalogEntryWithSchema>
  /** Runs a tool through the gateway (policy, approvals, hooks). Resolves to its result. */
  call<T = any>(id: string, input?: unknown): Promise<T>
}

/** `tools.<safe_name>(input)`: shortcuts for tools whose identifier-safe name is unambiguous. */
type ToolCatalog = ToolCatalogHelpers & {
  readonly [safeToolName: string]: <T = any>(input?: unknown) => Promise<T>
}

// The same members as the runtime's mcp/index.d.ts, so the two merge.
interface McpToolResult {
  /** Tool results. */
  content?: unknown[]
  structuredContent?: unknown
  isError?: boolean
  /** resources.read */
  contents?: unknown[]
  /** resources.list */
  resources?: unknown[]
  /** prompts.list */
  prompts?: unknown[]
  /** prompts.get */
  messages?: unknown[]
  description?: string
  nextCursor?: string
  _meta?: unknown
}

interface McpApiHeader {
  declaration: string
  server?: string
  name?: string
  tool?: string
  id?: string
  path?: string
  description?: string
  tools?: unknown[]
  servers?: unknown[]
  schema?: unknown
}

/** One virtual declaration file. */
interface ApiFile {
  readonly path: string
  readonly bytes: number
}

/**
 * Plugin namespaces visible in the run (`namespaces.Issues` is also the global `Issues`).
 * Plugins describe theirs by augmenting this interface.
 */
interface CodeModeNamespaces {
  readonly [globalName: string]: any
}

/** The run's catalog of non-MCP tools: compact entries, frozen. */
declare const ALL_TOOLS: readonly ToolCatalogEntry[]
/** Search, describe and call the hidden catalog. */
declare const tools: ToolCatalog
/** Read-only virtual files: `mcp/index.d.ts` and `mcp/<server>.d.ts`. */
declare const API: {
  list(prefix?: string): Promise<ApiFile[]>
  read(path: string): Promise<string>
}
declare const namespaces: CodeModeNamespaces

/**
 * MCP servers of the run: `await MCP.<server>.<tool>({ ...input })`, one object argument.
 * Server and tool names are camelCased (`chrome-devtools` → `chromeDevtools`).
 */
declare namespace MCP {
  /** The API header of every MCP server of the run. */
  function $api(): Promise<McpApiHeader>
}

/** Appends a text output item (strings as they are; other values as JSON). */
declare function text(value: unknown): void
/** Appends a JSON output item. */
declare function json(value: unknown): void
/** Ends this exec/wait with `waiting` (reason "yield"); resolves when `wait` resumes the cell. */
declare function yield_control(reason?: string): Promise<void>
/** Each call appends one text output item. */
declare const console: {
  log(...values: unknown[]): void
  info(...values: unknown[]): void
  warn(...values: unknown[]): void
  error(...values: unknown[]): void
  debug(...values: unknown[]): void
}
/** Host timers: a pending timer keeps the cell alive (and shows in `pendingToolCalls`). */
declare function setTimeout<A extends unknown[]>(callback: (...args: A) => void, delay?: number, ...args: A): number
declare function clearTimeout(id: number | undefined): void
