// @openclaw/code-mode/mcp against a stub server (fixtures/mcp-stub-server.cjs): every page of
// its tool list (listTools) within a bound, the host's environment kept from a server unless given, and the CLI
// refusing two --mcp servers of one name (every call to that name would reach the first).
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'

const require = createRequire(import.meta.url)
const { connectMcpServer, forwardMcpCall } = require('../lib/mcp.js') as typeof import('../lib/mcp')
const stub = resolve(__dirname, 'fixtures/mcp-stub-server.cjs')
const bin = resolve(__dirname, '../bin/code-mode.js')

const start = (name: string, variant = 'plain', env?: Record<string, string | undefined>) =>
  connectMcpServer({ name, command: process.execPath, args: [stub, name, variant], ...(env ? { env } : {}) })

/** Every server of `starting`, or none: those that started are closed when one fails. */
async function started<T extends { close(): Promise<void> }>(starting: Promise<T>[]): Promise<T[]> {
  const settled = await Promise.allSettled(starting)
  const failed = settled.find((r) => r.status === 'rejected')
  if (failed) {
    await Promise.all(settled.map((r) => (r.status === 'fulfilled' ? r.value.close() : undefined)))
    throw (failed as PromiseRejectedResult).reason
  }
  return settled.map((r) => (r as PromiseFulfilledResult<T>).value)
}

afterEach(() => {
  delete process.env.SECRET_API_KEY
})

describe('connectMcpServer', () => {
  it("lists every page of a server's tools, and stops reading a server whose pages never end", async () => {
    const [paged, endless] = await started([start('paged', 'paged'), start('endless', 'endless')])
    try {
      expect(paged.tools.map((tool) => tool.name)).toEqual(['tool_of_paged', 'second_page_tool'])
      // 1,000 pages (each with a new cursor), then it stops.
      expect(endless.tools.map((tool) => tool.name)).toEqual(['tool_of_endless'])
    } finally {
      await Promise.all([paged.close(), endless.close()])
    }
  })

  it("keeps the host's environment (its keys) from the server unless the caller gives it", async () => {
    process.env.SECRET_API_KEY = 'sk-host'
    const [kept, given, all] = await started([start('kept'), start('given', 'plain', { SECRET_API_KEY: 'sk-given' }), start('all', 'plain', process.env)])
    try {
      expect(kept.tools[0].description).toBe('SECRET_API_KEY=undefined')
      expect(given.tools[0].description).toBe('SECRET_API_KEY=sk-given')
      expect(all.tools[0].description).toBe('SECRET_API_KEY=sk-host')
    } finally {
      await Promise.all([kept.close(), given.close(), all.close()])
    }
  })
  it('names why a server closed its connection in the calls that fail after it', async () => {
    const [huge] = await started([start('huge', 'huge')])
    try {
      const call = { id: 'c1', name: 'tool_of_huge', input: {}, mcp: { serverName: 'huge', toolName: 'tool_of_huge', operation: 'tool' } } as unknown as Parameters<typeof forwardMcpCall>[1]
      // The rest of the message, read as a new one, may fail to parse after the overflow.
      const why = /^MCP server "huge" closed its connection \(the last errors it reported: (.*; )?ReadBuffer exceeded maximum size of 10485760 bytes(; .*)?\)\. Its calls fail until it is started again \(MCP error -32000: Connection closed\)\. The MCP SDK reads a message of at most 10 MiB from a server\.$/
      const first = await forwardMcpCall([huge], call).then(() => undefined, (error: Error) => error)
      expect(first?.message).toMatch(why)
      // The SDK's code, and its error as the cause.
      expect(first).toMatchObject({ code: -32000, cause: { code: -32000 } })
      // Then the SDK refuses a call at once ("Not connected"), with the same reason.
      await expect(forwardMcpCall([huge], call)).rejects.toThrow(/^MCP server "huge" closed its connection \(the last errors it reported: ReadBuffer exceeded .*\(Not connected\)/)
    } finally {
      await huge.close()
    }
  })
  it("still names why when the host sets the client's own onerror and onclose, and calls the host's", async () => {
    const [huge] = await started([start('huge', 'huge')])
    try {
      const heard = { errors: [] as string[], closed: 0 }
      // The SDK's Client has both (lib/mcp.d.ts types only what this package calls).
      const client = huge.client as unknown as { onerror?: (error: Error) => void; onclose?: () => void }
      client.onerror = (error) => heard.errors.push(error.message)
      client.onclose = () => heard.closed++
      const call = { id: 'c1', name: 'tool_of_huge', input: {}, mcp: { serverName: 'huge', toolName: 'tool_of_huge', operation: 'tool' } } as unknown as Parameters<typeof forwardMcpCall>[1]
      await expect(forwardMcpCall([huge], call)).rejects.toThrow(/^MCP server "huge" closed its connection \(the last errors it reported: (.*; )?ReadBuffer exceeded maximum size of 10485760 bytes/)
      expect(heard.errors.some((message) => message.includes('ReadBuffer exceeded'))).toBe(true)
      expect(heard.closed).toBe(1)
    } finally {
      await huge.close()
    }
  })
})

describe('code-mode run --mcp', () => {
  it('refuses two servers of one name, naming both and how to name one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'code-mode-mcp-cli-'))
    try {
      writeFileSync(join(dir, 'cell.js'), 'return 1')
      // The name is guessed from the last word of each command: both are "same".
      const one = `${process.execPath} ${stub} same`
      const r = spawnSync(process.execPath, [bin, 'run', join(dir, 'cell.js'), '--mcp', one, '--mcp', one], { encoding: 'utf8', timeout: 30_000 })
      expect(r.status).toBe(2)
      expect(r.stderr).toContain(`--mcp "${one}" and --mcp "${one}" are both named "same": name one, e.g. --mcp "same2=${one}"`)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
