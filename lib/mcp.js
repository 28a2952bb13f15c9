'use strict'
// MCP servers as code-mode catalog tools: start a server over stdio with the official SDK, turn
// its tools (and its resources/prompts operations) into `source: 'mcp'` CatalogTools, and
// forward nested calls to it. Used by the demo, the CLI runner and the tests; gateways that
// already hold MCP clients only need `mcpCatalogTools` and `forwardMcpCall`.

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

/** The CatalogTools of a connected MCP client. */
async function mcpCatalogTools(serverName, client) {
  const { tools } = await client.listTools()
  const catalog = tools.map((tool) => ({
    name: tool.name,
    label: tool.title ?? tool.annotations?.title,
    description: tool.description ?? '',
    parameters: tool.inputSchema,
    source: 'mcp',
    sourceName: serverName,
    mcp: { serverName, toolName: tool.name, operation: 'tool' },
  }))
  const operation = (name, toolName, op, description, parameters) => ({
    name,
    description,
    parameters,
    source: 'mcp',
    sourceName: serverName,
    mcp: { serverName, toolName, operation: op },
  })
  const cursor = { type: 'object', properties: { cursor: { type: 'string', description: 'Pagination cursor' } } }
  const capabilities = client.getServerCapabilities() ?? {}
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

function errorText(error) {
  return error instanceof Error ? error.message : String(error)
}

/**
 * Starts `command ...args` as an MCP server over stdio and lists its tools.
 * Resolves to `{ name, client, tools, close() }`.
 */
async function connectMcpServer({ name, command, args = [], env, cwd }) {
  const { Client, StdioClientTransport } = sdk()
  const client = new Client({ name: 'openclaw-code-mode', version: '0.1.0' })
  const transport = new StdioClientTransport({ command, args, cwd, env: { ...process.env, ...env }, stderr: 'pipe' })
  // The server's stderr, kept (the last STDERR_KEPT characters) until it has started: a server
  // that fails to start usually says why there.
  let stderr = ''
  const keep = (chunk) => {
    stderr = (stderr + chunk).slice(-STDERR_KEPT)
  }
  transport.stderr?.setEncoding('utf8')
  transport.stderr?.on('data', keep)
  try {
    await client.connect(transport)
    const tools = await mcpCatalogTools(name, client)
    transport.stderr?.off('data', keep)
    // Drained so a chatty server never blocks on a full pipe.
    transport.stderr?.resume()
    return { name, client, tools, close: () => client.close() }
  } catch (error) {
    // Give the process a moment to flush what it wrote before exiting.
    await new Promise((done) => setTimeout(done, 50))
    await client.close().catch(() => {})
    const said = stderr.trim()
    throw new Error(`MCP server "${name}" (${command}) failed to start: ${errorText(error)}${said ? `\n${name} stderr:\n${said}` : ''}`)
  }
}

/** Runs an MCP nested call (`call.mcp` set) on the matching server. */
async function forwardMcpCall(servers, call) {
  const server = servers.find((s) => s.name === call.mcp?.serverName)
  if (!server) throw new Error(`no MCP server "${call.mcp?.serverName}" for ${call.id}`)
  const input = call.input ?? {}
  const options = { signal: call.signal }
  switch (call.mcp.operation) {
    case 'resources_list':
      return server.client.listResources(input, options)
    case 'resources_read':
      return server.client.readResource({ uri: String(input.uri) }, options)
    case 'prompts_list':
      return server.client.listPrompts(input, options)
    case 'prompts_get':
      return server.client.getPrompt({ name: String(input.name), arguments: input.arguments }, options)
    default:
      return server.client.callTool({ name: call.mcp.toolName, arguments: input }, undefined, options)
  }
}

module.exports = { connectMcpServer, mcpCatalogTools, forwardMcpCall }
