// Real MCP servers from npm for the end-to-end suites, started through the package's own
// `@openclaw/code-mode/mcp` helpers.
import { createRequire } from 'node:module'
import { connectMcpServer, forwardMcpCall, type McpServerConnection } from '../../lib/mcp.js'
import type { NestedToolCall } from '../../index.js'

const require = createRequire(import.meta.url)

export type ConnectedServer = McpServerConnection

function binPath(pkg: string): string {
  const manifest = require(`${pkg}/package.json`) as { bin: string | Record<string, string> }
  const bin = typeof manifest.bin === 'string' ? manifest.bin : Object.values(manifest.bin)[0]
  return require.resolve(`${pkg}/${bin.replace(/^\.\//, '')}`)
}

/** Starts an npm-installed MCP server package with this Node. */
export function connect(spec: { name: string; pkg: string; args?: string[]; env?: Record<string, string> }): Promise<ConnectedServer> {
  return connectMcpServer({ name: spec.name, command: process.execPath, args: [binPath(spec.pkg), ...(spec.args ?? [])], env: spec.env })
}

export const forward = (servers: ConnectedServer[], call: NestedToolCall) => forwardMcpCall(servers, call)

export async function closeAll(servers: ConnectedServer[]): Promise<void> {
  await Promise.all(servers.map((s) => s.close().catch(() => {})))
}
