// @ts-check
'use strict'
// MCP servers as code-mode catalog tools: start a server over stdio with the official SDK, turn
// its tools (and its resources/prompts operations) into `source: 'mcp'` CatalogTools, and
// forward nested calls to it. Used by the demo, the CLI runner and the tests; gateways that
// already hold MCP clients only need `mcpCatalogTools` and `forwardMcpCall`. The public types
// are lib/mcp.d.ts.

/** @typedef {import('@modelcontextprotocol/sdk/client/index.js').Client} Client */
/** @typedef {import('../index').CatalogTool} CatalogTool */
/** @typedef {import('../index').NestedToolCall} NestedToolCall */
/** @typedef {import('./mcp').McpServerConnection} McpServerConnection */

/**
 * The MCP SDK (an optional peer), or an Error that says to install it.
 * @returns {{ Client: typeof import('@modelcontextprotocol/sdk/client/index.js').Client, StdioClientTransport: typeof import('@modelcontextprotocol/sdk/client/stdio.js').StdioClientTransport }}
 */
function sdk() {
  try {
    return {
      Client: require('@modelcontextprotocol/sdk/client/index.js').Client,
      StdioClientTransport: require('@modelcontextprotocol/sdk/client/stdio.js').StdioClientTransport,
    }
  } catch {
    throw new Error('@openclaw/code-mode/mcp needs @modelcontextprotocol/sdk: npm install @modelcontextprotocol/sdk')
  }
}

/**
 * Pages of a server's tool list (`listTools`) read at most, and tools kept at most: a server that keeps answering with a
 * next cursor (or the same one) is read that far, not for ever.
 */
const MAX_TOOL_PAGES = 1000
const MAX_TOOLS = 100_000

/**
 * Every tool a connected MCP client lists, page after page (`nextCursor`), within the bounds above.
 * @param {Client} client
 */
async function listAllTools(client) {
  /** @type {Awaited<ReturnType<Client['listTools']>>['tools']} */
  const tools = []
  /** @type {string | undefined} */
  let cursor
  for (let page = 0; page < MAX_TOOL_PAGES && tools.length < MAX_TOOLS; page++) {
    const listed = await client.listTools(cursor === undefined ? undefined : { cursor })
    for (const tool of listed.tools) {
      if (tools.length >= MAX_TOOLS) break
      tools.push(tool)
    }
    if (typeof listed.nextCursor !== 'string' || listed.nextCursor === '' || listed.nextCursor === cursor) break
    cursor = listed.nextCursor
  }
  // The SDK caches what it checks calls against (output schemas, task support) from the page it
  // listed last, clearing the rest: give it every page. A plain method of the SDK's Client, not
  // in its types (an SDK without it checks less, as before).
  /** @type {{ cacheToolMetadata?: (tools: unknown[]) => void }} */ (/** @type {unknown} */ (client)).cacheToolMetadata?.(tools)
  return tools
}

/**
 * The CatalogTools of a connected MCP client (every page of its tools).
 * @param {string} serverName
 * @param {unknown} client an MCP SDK `Client`, connected
 * @returns {Promise<CatalogTool[]>}
 */
async function mcpCatalogTools(serverName, client) {
  const sdkClient = /** @type {Client} */ (client)
  const tools = await listAllTools(sdkClient)
  /** @type {CatalogTool[]} */
  const catalog = tools.map((tool) => ({
    name: tool.name,
    label: tool.title ?? tool.annotations?.title,
    description: tool.description ?? '',
    parameters: tool.inputSchema,
    source: /** @type {const} */ ('mcp'),
    sourceName: serverName,
    mcp: { serverName, toolName: tool.name, operation: /** @type {const} */ ('tool') },
  }))
  /**
   * @param {string} name
   * @param {string} toolName
   * @param {NonNullable<CatalogTool['mcp']>['operation']} op
   * @param {string} description
   * @param {object} parameters
   * @returns {CatalogTool}
   */
  const operation = (name, toolName, op, description, parameters) => ({
    name,
    description,
    parameters,
    source: 'mcp',
    sourceName: serverName,
    mcp: { serverName, toolName, operation: op },
  })
  const cursor = { type: 'object', properties: { cursor: { type: 'string', description: 'Pagination cursor' } } }
  const capabilities = sdkClient.getServerCapabilities() ?? {}
  if (capabilities.resources) {
    catalog.push(
      operation('resources_list', 'resources/list', 'resources_list', `List the resources of ${serverName}.`, cursor),
      operation('resources_read', 'resources/read', 'resources_read', `Read one resource of ${serverName}.`, {
        type: 'object',
        required: ['uri'],
        properties: { uri: { type: 'string', description: 'Resource URI' } },
      }),
    )
  }
  if (capabilities.prompts) {
    catalog.push(
      operation('prompts_list', 'prompts/list', 'prompts_list', `List the prompts of ${serverName}.`, cursor),
      operation('prompts_get', 'prompts/get', 'prompts_get', `Get one prompt of ${serverName}.`, {
        type: 'object',
        required: ['name'],
        properties: {
          name: { type: 'string', description: 'Prompt name' },
          arguments: { type: 'object', additionalProperties: { type: 'string' }, description: 'Prompt arguments' },
        },
      }),
    )
  }
  return catalog
}

/** Characters of a failing server's stderr shown with its error. */
const STDERR_KEPT = 4096

/** @param {unknown} error */
function errorText(error) {
  return error instanceof Error ? error.message : String(error)
}

/**
 * Starts `command ...args` as an MCP server over stdio and lists its tools.
 * Resolves to `{ name, client, tools, close() }`. The server's environment is the SDK's default
 * few variables (`PATH`, `HOME`, …) and `env`: the host's own (its API keys, its tokens) is not
 * passed on unless given.
 * @param {{ name: string, command: string, args?: string[], env?: Record<string, string | undefined>, cwd?: string }} options
 * @returns {Promise<{ name: string, client: Client, tools: CatalogTool[], close(): Promise<void> }>}
 */
async function connectMcpServer({ name, command, args = [], env, cwd }) {
  const { Client, StdioClientTransport } = sdk()
  const client = new Client({ name: 'openclaw-code-mode', version: '0.1.0' })
  // The SDK adds its default environment under `env`. A value may be undefined (as process.env's
  // are typed); the SDK's type wants strings and it passes them on as they are.
  const transport = new StdioClientTransport({ command, args, cwd, env: /** @type {Record<string, string>} */ (env), stderr: 'pipe' })
  // The server's stderr, kept (the last STDERR_KEPT characters) until it has started: a server
  // that fails to start usually says why there.
  let stderr = ''
  /** @param {string} chunk */
  const keep = (chunk) => {
    stderr = (stderr + chunk).slice(-STDERR_KEPT)
  }
  // `stderr: 'pipe'` makes it a readable stream (the SDK types it as any Stream).
  const pipe = /** @type {import('node:stream').Readable | null} */ (transport.stderr)
  pipe?.setEncoding('utf8')
  pipe?.on('data', keep)
  // Why the connection ended, for the calls that fail after it: the SDK reports a fatal error (a
  // message past its 10 MiB read buffer, a broken pipe) only through `onerror`, and its calls then
  // fail as a bare "Connection closed" or "Not connected".
  // The last few: the error that ends a connection may be followed by others (the rest of an
  // over-long message read as a new one).
  // Heard on the transport, whose handlers `client.connect` keeps and calls before its own:
  // `client.onerror` and `client.onclose` stay the host's to set.
  const state = { name, errors: /** @type {string[]} */ ([]), closed: false }
  transport.onerror = (error) => {
    state.errors = [...state.errors.slice(1 - KEPT_ERRORS), errorText(error).slice(0, 300)]
  }
  transport.onclose = () => {
    state.closed = true
  }
  connections.set(client, state)
  try {
    await client.connect(transport)
    const tools = await mcpCatalogTools(name, client)
    pipe?.off('data', keep)
    // Drained so a chatty server never blocks on a full pipe.
    pipe?.resume()
    return { name, client, tools, close: () => client.close() }
  } catch (error) {
    // Give the process a moment to flush what it wrote before exiting.
    await new Promise((done) => setTimeout(done, 50))
    await client.close().catch(() => {})
    const said = stderr.trim()
    throw new Error(`MCP server "${name}" (${command}) failed to start: ${errorText(error)}${said ? `\n${name} stderr:\n${said}` : ''}`)
  }
}

/** Errors of a connection kept to name why it closed. */
const KEPT_ERRORS = 3

/**
 * What `connectMcpServer` knows of each of its clients' connections: the last errors the SDK
 * reported on it and whether it has closed.
 * @type {WeakMap<object, { name: string, errors: string[], closed: boolean }>}
 */
const connections = new WeakMap()

/**
 * The error of a call that failed on a server whose connection has closed, naming why it closed
 * (when `connectMcpServer` made the client and the SDK said), else `error` as it is.
 * @param {object} client
 * @param {unknown} error
 */
function callError(client, error) {
  const state = connections.get(client)
  if (!state?.closed) return error
  const why = state.errors.length > 0 ? ` (the last errors it reported: ${state.errors.join('; ')})` : ''
  // The SDK's read buffer: a message past it ends the connection.
  const hint = state.errors.some((e) => e.includes('ReadBuffer exceeded')) ? ' The MCP SDK reads a message of at most 10 MiB from a server.' : ''
  const named = new Error(`MCP server "${state.name}" closed its connection${why}. Its calls fail until it is started again (${errorText(error)}).${hint}`, { cause: error })
  // The SDK's error code (-32000, connection closed), for a host that decides on it.
  const code = /** @type {{ code?: unknown } | null} */ (error)?.code
  if (code !== undefined) Object.assign(named, { code })
  return named
}

/**
 * Runs an MCP nested call (`call.mcp` set) on the matching server.
 * @param {Pick<McpServerConnection, 'name' | 'client'>[]} servers
 * @param {NestedToolCall} call
 */
async function forwardMcpCall(servers, call) {
  const mcp = call.mcp
  const found = servers.find((s) => s.name === mcp?.serverName)
  if (!found || !mcp) throw new Error(`no MCP server "${mcp?.serverName}" for ${call.id}`)
  // An SDK client has every method (lib/mcp.d.ts lists the ones a catalog's operations call).
  const server = { client: /** @type {Client} */ (/** @type {unknown} */ (found.client)) }
  // The guest's input, as the server takes it (the server checks it).
  const input = /** @type {Record<string, any>} */ (call.input ?? {})
  const options = { signal: /** @type {AbortSignal} */ (call.signal) }
  try {
    switch (mcp.operation) {
      case 'resources_list':
        return await server.client.listResources(input, options)
      case 'resources_read':
        return await server.client.readResource({ uri: String(input.uri) }, options)
      case 'prompts_list':
        return await server.client.listPrompts(input, options)
      case 'prompts_get':
        return await server.client.getPrompt({ name: String(input.name), arguments: input.arguments }, options)
      default:
        return await server.client.callTool({ name: mcp.toolName, arguments: input }, undefined, options)
    }
  } catch (error) {
    throw callError(server.client, error)
  }
}

module.exports = { connectMcpServer, mcpCatalogTools, forwardMcpCall }

// The table is the API mcp.d.ts declares (checked by `npm run typecheck`; no runtime effect).
/** @type {typeof import('./mcp.d.ts')} */
const _declared = module.exports
