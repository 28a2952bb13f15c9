// The globals a cell sees inside OpenClaw's code mode (the `exec` tool of openclaw >= 2026.9.6,
// whichever executor runs it), for editors and `tsc`, with no DOM or Node types. This is the API
// OpenClaw users run; guest.d.ts is this library's own (CodeModeRun: tools.*, ALL_TOOLS). Use one
// of the two, never both.
//
// A cell is plain JavaScript, the body of an async function: top-level `await` and `return` work.
// Every enabled tool is also an async global (`await read({ path })`), declared per run by the
// gateway (`await API.read("tools/<name>.d.ts")`), as are the MCP servers (`mcp/<server>.d.ts`):
// `npx code-mode check --openclaw <cell.js> --tools <tools.json>` type-checks a cell against
// this file plus those declarations. In an editor use
//
//   { "compilerOptions": { "lib": ["es2023"], "types": ["@openclaw/code-mode/guest-openclaw"], "strict": true, "checkJs": true } }

/** What a catalog handle carries (and what returning one serializes to). */
interface ToolCatalogMetadata {
  /** The global to call (`read`), or `MCP.<server>.<tool>` for an MCP tool. */
  readonly callableName: string
  readonly toolName: string
  readonly label?: string
  readonly description: string
  readonly source: 'openclaw' | 'client' | 'mcp'
  /** MCP tools: the server's declaration file, for `API.read`. */
  readonly apiPath?: string
  /** A bounded TypeScript-style input signature (`unknown` for client tools). */
  readonly input?: string
  /** A trusted output hint, when the tool declares a complete one. */
  readonly output?: string
}

/** `describe()` of a native or client tool: the metadata and the full schemas. */
interface ToolCatalogDescription {
  readonly name: string
  readonly callableName: string
  readonly label?: string
  readonly description: string
  readonly source: 'openclaw' | 'client' | 'mcp'
  readonly apiPath?: string
  readonly input?: string
  readonly output?: string
  readonly parameters: unknown
  readonly outputSchema?: unknown
}

/** `describe()` of an MCP tool: the exact `$api` header and schemas. */
interface McpCatalogDescription {
  readonly kind: 'mcp_api'
  readonly scope: 'tool'
  readonly server: { readonly identifier: string; readonly serverName: string }
  readonly header: string
  readonly tools: unknown[]
  readonly schemas: Record<string, unknown>
  readonly note: string
}

/** A callable catalog entry: call it with the tool's input. Native tools resolve to their `details`. */
type ToolCatalogHandle = (<T = any>(input?: unknown) => Promise<T>) &
  ToolCatalogMetadata & {
    describe(): Promise<ToolCatalogDescription | McpCatalogDescription>
    toJSON(): ToolCatalogMetadata
  }

interface ToolCatalog {
  /** Native and MCP tools for a plain-language task, best first; frozen, empty when none match. */
  search(query: string, options?: { limit?: number }): Promise<readonly ToolCatalogHandle[]>
  /** Every native and client tool (MCP tools only through search). */
  all(): readonly ToolCatalogHandle[]
}

/** A read-only virtual declaration file, as `API.list` lists it. */
interface ApiFileEntry {
  readonly path: string
  readonly description?: string
  readonly bytes?: number
}

/** A read-only virtual declaration file with its text. */
interface ApiFile extends ApiFileEntry {
  readonly content: string
}

/** A paired Gateway node, as `nodes.list()` lists it. */
interface CodeModeNode {
  readonly id: string
  readonly name: string
  readonly platform?: string
  readonly connected: boolean
  readonly commands: readonly string[]
}

/** A node handle from `nodes.get`. Command parameters and results are each command's own. */
interface CodeModeNodeHandle {
  readonly id: string
  readonly name: string
  invoke(command: string, params?: unknown): Promise<unknown>
  /** Present only when the node advertises `fs.listDir`. */
  listDir?(path: string): Promise<unknown>
}

/** Find tools by task, or list them: handles are callable. */
declare const catalog: ToolCatalog
/** Read-only virtual files: `results.d.ts`, `mcp/index.d.ts`, `mcp/<server>.d.ts`, `tools/<name>.d.ts`. */
declare const API: {
  list(prefix?: string): Promise<{ files: readonly ApiFileEntry[] }>
  read(path: string): Promise<ApiFile>
}
/**
 * MCP servers of the run: `await MCP.<server>.<tool>({ ...input })`, one object argument,
 * resolving to the MCP result (`content`, `structuredContent`, `isError`). Each server's
 * functions are declared in its `mcp/<server>.d.ts`.
 */
declare namespace MCP {}
/** The run's namespace globals by name (`namespaces.MCP` is `MCP`). */
declare const namespaces: Readonly<Record<string, any>>
/** Paired Gateway nodes. */
declare const nodes: {
  list(): Promise<CodeModeNode[]>
  get(idOrName: string): Promise<CodeModeNodeHandle>
}
/** The agent's skills. */
declare const skills: {
  list(): Promise<unknown>
  read(name: string): Promise<unknown>
}

/** Appends a text output item (strings as they are; other values as JSON). */
declare function text(value: unknown): void
/** Appends a JSON output item. */
declare function json(value: unknown): void
/** Ends this exec/wait with `waiting` (reason "yield"); resolves when `wait` resumes the cell. */
declare function yield_control(reason?: string): Promise<void>
/** Each call appends one bounded text output item (`[warn] …` for the non-log levels). */
declare const console: {
  log(...values: unknown[]): void
  info(...values: unknown[]): void
  warn(...values: unknown[]): void
  error(...values: unknown[]): void
  debug(...values: unknown[]): void
}
/** Host timers: they survive `wait`. */
declare function setTimeout(callback: (...args: unknown[]) => void, delay?: number, ...args: unknown[]): number
declare function clearTimeout(id: number | undefined): void

/** UTF-8 encoding of local text (no I/O). */
declare class TextEncoder {
  readonly encoding: 'utf-8'
  encode(input?: string): Uint8Array
}
/** Decoding of local bytes (no I/O). */
declare class TextDecoder {
  constructor(label?: string, options?: { fatal?: boolean; ignoreBOM?: boolean })
  readonly encoding: string
  readonly fatal: boolean
  readonly ignoreBOM: boolean
  decode(input?: ArrayBuffer | ArrayBufferView, options?: { stream?: boolean }): string
}

// --- results --- (`code-mode check --openclaw` uses the gateway's own results.d.ts instead of
// what follows this line.)

/** What `results.save` returns: a bounded descriptor of the stored JSON. */
interface CodeModeResultReference {
  id: string
  bytes: number
  /** Array length, object key count, or 1 for a scalar. */
  count: number
  /** Observed, bounded sample shapes; not a schema. */
  shape: string
  /** Small values: JSON; larger ones a sampled view. Never a substitute for the full data. */
  preview: string
  previewTruncated: boolean
}

/** JSON values kept across the cells of one agent run (`API.read("results.d.ts")` for limits). */
declare const results: {
  /** Saves normalized JSON for later cells; emit the descriptor, the full JSON stays stored. */
  save(value: unknown): Promise<CodeModeResultReference>
  /** A detached JSON copy. */
  load(id: string): Promise<unknown>
  /** Frees capacity. Missing or expired references reject. */
  delete(id: string): Promise<boolean>
}
