import type { CatalogTool, CodeModeAbortSignal, NestedToolCall } from '../index'

/** A connected MCP server: its client and its tools as code-mode catalog entries. */
export interface McpServerConnection {
  name: string
  /** The `@modelcontextprotocol/sdk` Client. */
  client: {
    listTools(): Promise<{ tools: unknown[] }>
    callTool(params: { name: string; arguments?: Record<string, unknown> }, schema?: unknown, options?: { signal?: CodeModeAbortSignal }): Promise<unknown>
    /** Called for `resources_list` catalog entries (a server with resources has it). */
    listResources?(params?: Record<string, unknown>, options?: { signal?: CodeModeAbortSignal }): Promise<unknown>
    /** Called for `resources_read` catalog entries. */
    readResource?(params: { uri: string }, options?: { signal?: CodeModeAbortSignal }): Promise<unknown>
    /** Called for `prompts_list` catalog entries (a server with prompts has it). */
    listPrompts?(params?: Record<string, unknown>, options?: { signal?: CodeModeAbortSignal }): Promise<unknown>
    /** Called for `prompts_get` catalog entries. */
    getPrompt?(params: { name: string; arguments?: Record<string, string> }, options?: { signal?: CodeModeAbortSignal }): Promise<unknown>
    close(): Promise<void>
  }
  tools: CatalogTool[]
  close(): Promise<void>
}

/** Starts `command ...args` as an MCP server over stdio (needs `@modelcontextprotocol/sdk`). */
export declare function connectMcpServer(options: {
  /** The server name: `MCP.<camelCased name>` in guest code, `sourceName` in the catalog. */
  name: string
  command: string
  args?: string[]
  /**
   * The server's environment on top of the MCP SDK's default few variables (`PATH`, `HOME`,
   * `SHELL`, `TERM`, `USER`, `LOGNAME` on POSIX). The host's own environment (its API keys and
   * tokens) is not passed on: give what the server needs, or `process.env` to hand it all.
   */
  env?: Record<string, string | undefined>
  cwd?: string
}): Promise<McpServerConnection>

/** The CatalogTools of an already connected MCP client (tools, resources and prompts, every page of its tool list). */
export declare function mcpCatalogTools(serverName: string, client: unknown): Promise<CatalogTool[]>

/**
 * Runs an MCP nested call on the matching server (`call.mcp.serverName`). On a server that
 * `connectMcpServer` started, a call that fails because its connection closed (the server exited,
 * or sent one message past the MCP SDK's 10 MiB read buffer) names why; the server is not
 * restarted.
 */
export declare function forwardMcpCall(servers: Pick<McpServerConnection, 'name' | 'client'>[], call: NestedToolCall): Promise<unknown>
