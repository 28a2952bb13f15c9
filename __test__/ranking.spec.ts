import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { CatalogTool } from '../index.js'
import { TOOLS, expectStatus, makeRun } from './helpers.js'

interface RankingQuery {
  query: string
  expected: string
}

const fixture = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'ranking-catalog.json'), 'utf8')) as {
  tools: CatalogTool[]
  queries: RankingQuery[]
}
const CATALOG = fixture.tools
const QUERIES = fixture.queries

interface Hit {
  id: string
  source: string
}

function toolId(tool: CatalogTool): string {
  const source = tool.source ?? 'openclaw'
  const owner = tool.sourceName ?? (source === 'openclaw' ? 'core' : source)
  return `${source}:${owner}:${tool.name}`
}

/** Guest-visible ids in catalog order: core, plugins, then client tools (MCP is hidden). */
const VISIBLE = [
  ...CATALOG.filter((t) => (t.source ?? 'openclaw') === 'openclaw' && t.sourceName === undefined),
  ...CATALOG.filter((t) => (t.source ?? 'openclaw') === 'openclaw' && t.sourceName !== undefined),
  ...CATALOG.filter((t) => t.source === 'client'),
].map(toolId)

/** Runs every query in one cell; returns the ranked hits (id and source) per query. */
async function searchAll(queries: string[], limit: number, tools: CatalogTool[] = CATALOG): Promise<Hit[][]> {
  const { run } = makeRun({ tools })
  const result = await run.exec({
    code: `const out = [];
           for (const q of ${JSON.stringify(queries)}) {
             out.push((await tools.search(q, { limit: ${limit} })).map((h) => ({ id: h.id, source: h.source })));
           }
           out`,
  })
  return expectStatus(result, 'completed').value as Hit[][]
}

async function searchIds(query: string, options: { limit?: number } = {}, tools: CatalogTool[] = CATALOG): Promise<string[]> {
  const { run } = makeRun({ tools })
  const result = await run.exec({ code: `(await tools.search(${JSON.stringify(query)}, ${JSON.stringify(options)})).map((h) => h.id)` })
  return expectStatus(result, 'completed').value as string[]
}

/**
 * Precision@1 and recall@5 of `queries` over the catalog, and a report with the misses at rank 1:
 * printed when CODE_MODE_RANKING_REPORT is set (a green run stays quiet), and the message of the
 * assertions on them, so a failure shows it.
 */
async function evaluate(title: string, queries: RankingQuery[]) {
  const ranked = await searchAll(
    queries.map((q) => q.query),
    5,
  )
  let first = 0
  let topFive = 0
  const misses: string[] = []
  queries.forEach(({ query, expected }, i) => {
    const ids = ranked[i].map((h) => h.id)
    if (ids[0] === expected) first++
    if (ids.includes(expected)) topFive++
    if (ids[0] !== expected) {
      const rank = ids.indexOf(expected)
      misses.push(`  ${JSON.stringify(query)}: want ${expected} (${rank < 0 ? 'not in top 5' : `rank ${rank + 1}`}), got ${ids[0] ?? 'nothing'}`)
    }
  })
  const precisionAt1 = first / queries.length
  const recallAt5 = topFive / queries.length
  const report =
    `tools.search ${title}: ${queries.length} queries over ${VISIBLE.length} visible tools (${CATALOG.length} in catalog)\n` +
    `  precision@1 = ${precisionAt1.toFixed(3)} (${first}/${queries.length})\n` +
    `  recall@5    = ${recallAt5.toFixed(3)} (${topFive}/${queries.length})\n` +
    (misses.length ? `misses at rank 1:\n${misses.join('\n')}` : 'no misses at rank 1')
  if (process.env.CODE_MODE_RANKING_REPORT) console.log(report)
  return { precisionAt1, recallAt5, report }
}

describe('tools.search ranking test set', () => {
  it('is big enough to mean something', () => {
    expect(CATALOG.length).toBeGreaterThanOrEqual(100)
    expect(QUERIES.length).toBeGreaterThanOrEqual(40)
    const ids = new Set(CATALOG.map(toolId))
    expect(ids.size).toBe(CATALOG.length)
    for (const { expected } of QUERIES) {
      expect(ids.has(expected), expected).toBe(true)
      expect(expected.startsWith('mcp:'), expected).toBe(false)
    }
  })

  it('puts the intended tool first for at least 90% of plain-language queries', async () => {
    const { precisionAt1, recallAt5, report } = await evaluate('ranking set', QUERIES)
    expect(precisionAt1, report).toBeGreaterThanOrEqual(0.9)
    // One relevant tool per query, so recall@5 is "the right tool is among the first five", which is
    // what a model reads with a small limit. At most 1 query in 20 may leave it out.
    expect(recallAt5, report).toBeGreaterThanOrEqual(0.95)
  })

  it('reports the held-out sets', async () => {
    // Reported (CODE_MODE_RANKING_REPORT=1), not asserted: they measure how well the ranker
    // generalises past the set it was tuned on (see the fixtures' "about").
    for (const file of ['ranking-holdout.json', 'ranking-holdout-2.json', 'ranking-holdout-3.json']) {
      const { queries } = JSON.parse(readFileSync(join(__dirname, 'fixtures', file), 'utf8')) as { queries: RankingQuery[] }
      const { recallAt5, report } = await evaluate(file, queries)
      expect(recallAt5, report).toBeGreaterThan(0)
    }
  })
})

describe('tools.search behaviour', () => {
  it('lists the catalog in catalog order for an empty query', async () => {
    expect(await searchIds('', { limit: 50 })).toEqual(VISIBLE.slice(0, 50))
    expect(await searchIds('   ', { limit: 5 })).toEqual(VISIBLE.slice(0, 5))
    const { run } = makeRun({ tools: CATALOG })
    const result = await run.exec({ code: '[(await tools.search()).map((h) => h.id), ALL_TOOLS.slice(0, 8).map((t) => t.id)]' })
    const [listed, all] = expectStatus(result, 'completed').value as string[][]
    expect(listed).toEqual(all)
  })

  it('defaults limit to searchDefaultLimit and clamps it to maxSearchLimit', async () => {
    expect(await searchIds('')).toHaveLength(8)
    expect(await searchIds('file', {}, CATALOG).then((ids) => ids.length)).toBeLessThanOrEqual(8)
    const configured = async (config: unknown, code: string) => {
      const { run } = makeRun({ tools: CATALOG, config })
      return expectStatus(await run.exec({ code }), 'completed').value
    }
    expect(await configured({ enabled: true, searchDefaultLimit: 3 }, '(await tools.search("")).length')).toBe(3)
    expect(await configured({ enabled: true }, '(await tools.search("", { limit: 1000 })).length')).toBe(50)
    expect(await configured({ enabled: true, maxSearchLimit: 10 }, '(await tools.search("", { limit: 1000 })).length')).toBe(10)
    expect(await configured({ enabled: true, maxSearchLimit: 10 }, '(await tools.search("")).length')).toBe(8)
    expect(await configured({ enabled: true }, '(await tools.search("", { limit: 2 })).length')).toBe(2)
  })

  it('rejects limits that are not positive integers', async () => {
    const { run } = makeRun({ tools: CATALOG })
    const result = await run.exec({
      code: `const out = [];
             for (const limit of [0, -1, 1.5, "3", NaN]) {
               try { await tools.search("file", { limit }); out.push("accepted"); }
               catch (e) { out.push(e.name + ": " + e.message); }
             }
             out`,
    })
    expect(expectStatus(result, 'completed').value).toEqual(Array(5).fill('TypeError: limit must be a positive integer.'))
  })

  it('breaks ties by id, whatever the catalog order', async () => {
    const twins: CatalogTool[] = [
      { name: 'notify', source: 'openclaw', sourceName: 'zeta', description: 'Send a push notification.' },
      { name: 'notify', source: 'client', sourceName: 'desk', description: 'Send a push notification.' },
      { name: 'notify', source: 'openclaw', sourceName: 'alpha', description: 'Send a push notification.' },
      { name: 'ping_c', description: 'Check that a host answers.' },
      { name: 'ping_a', description: 'Check that a host answers.' },
      { name: 'ping_b', description: 'Check that a host answers.' },
    ]
    const notify = ['client:desk:notify', 'openclaw:alpha:notify', 'openclaw:zeta:notify']
    expect(await searchIds('notify', {}, twins)).toEqual(notify)
    expect(await searchIds('notify', {}, [...twins].reverse())).toEqual(notify)
    expect(await searchIds('push notification', {}, twins)).toEqual(notify)
    expect(await searchIds('check that a host answers', {}, twins)).toEqual(['openclaw:core:ping_a', 'openclaw:core:ping_b', 'openclaw:core:ping_c'])
  })

  it('tells turn on from turn off although "on" is a stopword', async () => {
    expect((await searchIds('turn on the living room lights'))[0]).toBe('openclaw:homeassistant:hass_turn_on')
    expect((await searchIds('turn off the living room lights'))[0]).toBe('openclaw:homeassistant:hass_turn_off')
  })

  it('ranks an exact name match first', async () => {
    // Each of these words appears in many other tools' descriptions.
    for (const name of ['message', 'browser', 'process', 'read', 'write', 'find', 'cron', 'gateway', 'memory_search']) {
      expect((await searchIds(name))[0], name).toBe(`openclaw:core:${name}`)
    }
    expect((await searchIds('slack_send_message'))[0]).toBe('openclaw:slack:slack_send_message')
    expect((await searchIds('calendar_create_event'))[0]).toBe('openclaw:calendar:calendar_create_event')
  })

  it('finds read_file from snake, camel, kebab and spaced spellings', async () => {
    for (const query of ['read_file', 'readFile', 'read-file', 'ReadFile', 'READ_FILE', 'read file']) {
      expect((await searchIds(query, {}, TOOLS))[0], query).toBe('openclaw:core:read_file')
      expect((await searchIds(query))[0], query).toBe('client:ide:read_file')
    }
    expect((await searchIds('webSearch', {}, TOOLS))[0]).toBe('openclaw:web:web-search')
    expect((await searchIds('sessionsSpawn'))[0]).toBe('openclaw:core:sessions_spawn')
  })

  it('never returns MCP entries', async () => {
    const mcp = CATALOG.filter((t) => t.source === 'mcp')
    const queries = [
      ...mcp.map((t) => t.name),
      ...mcp.map((t) => t.description ?? ''),
      ...QUERIES.map((q) => q.query),
      '',
    ]
    // Tallied inside the cell: 50 hits for each of 120+ queries would exceed maxOutputBytes.
    const { run } = makeRun({ tools: CATALOG })
    const result = await run.exec({
      code: `let hits = 0;
             const leaked = [];
             for (const q of ${JSON.stringify(queries)}) {
               for (const h of await tools.search(q, { limit: 50 })) {
                 hits++;
                 if (h.source === "mcp" || h.id.startsWith("mcp:")) leaked.push(h.id);
               }
             }
             ({ hits, leaked })`,
    })
    const { hits, leaked } = expectStatus(result, 'completed').value as { hits: number; leaked: string[] }
    expect(leaked).toEqual([])
    expect(hits).toBeGreaterThan(queries.length)
  })
})
