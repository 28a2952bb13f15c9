// Tool Search rows for `npm run bench`: `tool_search_code` in this package's sandbox against the
// reference pipeline (upstream starts a `node --permission` subprocess per call, with an
// `openclaw.tools` bridge back to the parent over stdio; built here), the structured tools, and
// catalog creation and search at 100, 1,000 and 10,000 tools.
import { spawn, spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { formatUs, median, ratio, timeUs } from './stats.mjs'

const require = createRequire(import.meta.url)
const { CodeModeRun, ToolSearchRun } = require('../../index.js')

// The child: only console and openclaw.tools, requests to the parent as JSON lines on stdout,
// answers on stdin. Permission mode, an empty environment, no grants.
const CHILD = `
const pending = new Map(); let next = 0; let buffer = '';
const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
const ask = (op, args) => new Promise((resolve, reject) => { const id = ++next; pending.set(id, { resolve, reject }); send({ id, op, args }) });
process.stdin.on('data', (chunk) => {
  buffer += chunk; let at;
  while ((at = buffer.indexOf('\\n')) >= 0) {
    const m = JSON.parse(buffer.slice(0, at)); buffer = buffer.slice(at + 1);
    if (m.code !== undefined) run(m.code);
    else { const p = pending.get(m.id); pending.delete(m.id); m.ok ? p.resolve(m.value) : p.reject(new Error(m.error)) }
  }
});
const openclaw = Object.freeze({ tools: Object.freeze({
  search: (query, options) => ask('search', [query, options?.limit]),
  describe: (id) => ask('describe', [id]),
  call: (id, args) => ask('call', [id, args]),
}) });
async function run(code) {
  try {
    const fn = new (Object.getPrototypeOf(async function () {}).constructor)('openclaw', code);
    send({ done: true, ok: true, value: await fn(openclaw) });
  } catch (error) { send({ done: true, ok: false, error: String(error?.message ?? error) }) }
  process.exit(0);
}`

const PERMISSION = Number(process.versions.node.split('.')[0]) >= 22 ? '--permission' : '--experimental-permission'

/** One `tool_search_code` call as upstream runs it: a fresh subprocess, bridged to `run`. */
function referenceCall(run, code, timeoutMs = 10_000) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [PERMISSION, '-e', CHILD], { env: {}, stdio: ['pipe', 'pipe', 'inherit'] })
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    let buffer = ''
    child.stdout.setEncoding('utf8')
    child.stdout.on('data', async (chunk) => {
      buffer += chunk
      let at
      while ((at = buffer.indexOf('\n')) >= 0) {
        const m = JSON.parse(buffer.slice(0, at))
        buffer = buffer.slice(at + 1)
        if (m.done) {
          clearTimeout(timer)
          if (m.ok) resolve(m.value)
          else reject(new Error(m.error))
          continue
        }
        // The parent answers with the same catalog operations the structured tools use.
        const [a, b] = m.args
        const input = m.op === 'search' ? { query: a, limit: b ?? undefined } : m.op === 'describe' ? { id: a } : { id: a, args: b }
        const result = await run.call(m.op === 'search' ? 'tool_search' : m.op === 'describe' ? 'tool_describe' : 'tool_call', input)
        const value = m.op === 'call' && result.status === 'completed' ? result.value.result : result.value
        child.stdin.write(`${JSON.stringify(result.status === 'completed' ? { id: m.id, ok: true, value } : { id: m.id, ok: false, error: result.error })}\n`)
      }
    })
    child.on('error', reject)
    child.stdin.write(`${JSON.stringify({ code })}\n`)
  })
}

// The synthetic catalog: every description shares words ("tool", "number", "team") with every
// tool, verbs and nouns with a fifth or a seventh of them. Every call builds a new array of new
// objects (with `schemas`, each tool its own new schema object), as gateways do every turn; the
// names and descriptions come from the gateway's registry (`texts`, strings made once, as tool
// modules and parsed MCP lists hold them), or, with `rebuildStrings`, are formatted anew too.
const VERBS = ['read', 'write', 'list', 'send', 'sync']
const NOUNS = ['file', 'issue', 'ticket', 'event', 'note', 'user', 'page']
const nameOf = (i) => `${VERBS[i % 5]}_${NOUNS[i % 7]}_${i}`
const descriptionOf = (i, salt) => `Tool number ${i}: ${VERBS[i % 5]}s ${NOUNS[i % 5]}s for team ${i % 97} ${salt}`

const registries = new Map()
function texts(size, salt) {
  const key = `${size} ${salt}`
  if (!registries.has(key)) {
    registries.clear()
    const names = Array.from({ length: size }, (_, i) => nameOf(i))
    const descriptions = Array.from({ length: size }, (_, i) => descriptionOf(i, salt))
    // Through JSON, as a parsed MCP list holds them: plain strings, not concatenation trees.
    registries.set(key, JSON.parse(JSON.stringify({ names, descriptions })))
  }
  return registries.get(key)
}

function bigCatalog(size, salt, schemas = true, { rebuildStrings = false } = {}) {
  const { names, descriptions } = rebuildStrings ? { names: [], descriptions: [] } : texts(size, salt)
  return Array.from({ length: size }, (_, i) => {
    const tool = rebuildStrings ? { name: nameOf(i), description: descriptionOf(i, salt) } : { name: names[i], description: descriptions[i] }
    if (schemas) tool.parameters = { type: 'object', properties: { path: { type: 'string' }, limit: { type: 'integer' } }, required: ['path'] }
    return tool
  })
}

export async function toolSearchRows({ catalog, executor, N, rows, results }) {
  results.toolSearch = {}
  const exec = (call) => executor(call.input, call.name)
  const codeRun = ToolSearchRun.create({ config: { mode: 'code', codeTimeoutMs: 60_000 }, runId: 'ts-bench', tools: catalog, executor: exec })
  const toolsRun = ToolSearchRun.create({ config: { mode: 'tools' }, runId: 'ts-bench-tools', tools: catalog, executor: exec })
  const first = catalog[0]
  const id = `openclaw:${first.sourceName ?? 'core'}:${first.name}`
  const cellsToRun = {
    'tool_search_code: return 1+1': 'return 1 + 1',
    'tool_search_code: search, describe, call': `const hits = await openclaw.tools.search(${JSON.stringify(first.description ?? first.name)}, { limit: 5 });
const tool = await openclaw.tools.describe(hits[0].id);
return await openclaw.tools.call(tool.id, { n: 1 });`,
  }
  for (const [name, code] of Object.entries(cellsToRun)) {
    const ours = await timeUs(async () => {
      const r = await codeRun.call('tool_search_code', { code })
      if (r.status !== 'completed') throw new Error(`bench Tool Search call failed: ${JSON.stringify(r)}`)
    }, { iterations: N(200), warmup: 20 })
    const reference = await timeUs(() => referenceCall(toolsRun, code), { iterations: N(30), warmup: 2 })
    results.toolSearch[name] = { oursUs: ours, referenceSubprocessUs: reference }
    rows.push([name, formatUs(ours), `${formatUs(reference)} (node --permission per call)`, '—', ratio(ours, reference), '—', 'reference: subprocess per call, bridge over stdio'])
  }
  const structured = {
    tool_search: { query: 'read a file', limit: 5 },
    tool_describe: { id },
    tool_call: { id, args: { n: 1 } },
  }
  for (const [name, input] of Object.entries(structured)) {
    const us = await timeUs(async () => {
      const r = await toolsRun.call(name, input)
      if (r.status !== 'completed') throw new Error(`bench ${name} failed: ${JSON.stringify(r)}`)
    }, { iterations: N(500), warmup: 20 })
    results.toolSearch[name] = us
    rows.push([`structured ${name}`, formatUs(us), '—', '—', '—', '—', `${catalog.length} tools`])
  }
  await catalogRows({ executor, rows, results })
  // The shapes and the long query in a process of their own: ratios between catalog sizes are
  // what they measure, and an earlier workload's garbage would land on one side of them.
  const child = spawnSync(process.execPath, ['--expose-gc', fileURLToPath(new URL('../tool-search.mjs', import.meta.url)), '--shapes', '--json'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 64 << 20,
  })
  const fresh = JSON.parse(child.stdout.trim().split('\n').pop() ?? '{}')
  rows.push(...fresh.rows)
  Object.assign(results.toolSearch, fresh.toolSearch)
}

/** Catalog creation (cold, then cached: same content, a new array) and 20 searches, at 100, 1,000 and 10,000 tools. */
export async function catalogRows({ executor, rows, results }) {
  const exec = (call) => executor(call.input, call.name)
  results.toolSearch ??= {}
  results.toolSearch.catalogs = {}
  for (const size of [100, 1_000, 10_000]) {
    const create = {}
    for (const schemas of [false, true]) {
      // Three cold builds (new content each), each followed by five cached creations (the same
      // content in a new array of new objects, as gateways send). The background index build
      // of a new large catalog is waited for first, so it does not share the cores with the
      // cached samples.
      const colds = []
      const cached = []
      const rebuilt = []
      for (let round = 0; round < 3; round++) {
        const salt = `bench ${Math.random()}`
        const first = bigCatalog(size, salt, schemas)
        globalThis.gc?.()
        let started = performance.now()
        CodeModeRun.create({ config: true, runId: 'cold', tools: first, executor: exec })
        colds.push(performance.now() - started)
        const settle = ToolSearchRun.create({ config: { codeTimeoutMs: 60_000 }, runId: 'settle', tools: bigCatalog(size, salt, schemas), executor: exec })
        await settle.call('tool_search_code', { code: "await openclaw.tools.search('settle'); return 0" })
        for (let i = 0; i < 5; i++) {
          const tools = bigCatalog(size, salt, schemas)
          started = performance.now()
          CodeModeRun.create({ config: true, runId: 'cached', tools, executor: exec })
          cached.push(performance.now() - started)
          if (size < 10_000) continue
          const again = bigCatalog(size, salt, schemas, { rebuildStrings: true })
          started = performance.now()
          CodeModeRun.create({ config: true, runId: 'cached', tools: again, executor: exec })
          rebuilt.push(performance.now() - started)
        }
      }
      const coldMs = median(colds)
      const cachedMs = median(cached)
      create[schemas ? 'schemas' : 'plain'] = { coldMs, cachedMs }
      rows.push([`catalog of ${size} tools: create${schemas ? ', with schemas' : ''}`, `${coldMs.toFixed(2)} ms cold`, `${cachedMs.toFixed(2)} ms cached`, '—', `${(coldMs / cachedMs).toFixed(1)}× cached`, '—', 'CodeModeRun.create, medians; cached = same content, new array of new objects'])
      if (rebuilt.length > 0) {
        const rebuiltMs = median(rebuilt)
        create[schemas ? 'schemas' : 'plain'].rebuiltStringsMs = rebuiltMs
        rows.push([`catalog of ${size} tools: create${schemas ? ', with schemas' : ''}, strings formatted anew`, '—', `${rebuiltMs.toFixed(2)} ms cached`, '—', `${(coldMs / rebuiltMs).toFixed(1)}× cached`, '—', 'as above, names and descriptions built by string concatenation every turn'])
      }
    }
    const salt = `bench ${Math.random()}`
    const run = ToolSearchRun.create({ config: { codeTimeoutMs: 60_000 }, runId: 'search', tools: bigCatalog(size, salt), executor: exec })
    const search = await run.call('tool_search_code', {
      code: `const qs = ["read a file", "send an event to the team", "list open tickets", "sync notes", "write_issue_42", "user page"];
await openclaw.tools.search('warm up');
const samples = [];
for (let r = 0; r < 15; r++) { const t = performance.now(); for (let i = 0; i < 20; i++) await openclaw.tools.search(qs[i % qs.length], { limit: 10 }); samples.push(performance.now() - t) }
samples.sort((a, b) => a - b); return samples[samples.length >> 1] * 1000`,
    })
    const searchUs = search.status === 'completed' ? search.value : NaN
    results.toolSearch.catalogs[size] = { ...create.plain, schemas: create.schemas, twentySearchesUs: searchUs }
    rows.push([`catalog of ${size} tools: 20 searches`, formatUs(searchUs), '—', '—', '—', '—', 'median inside a tool_search_code cell'])
  }
}

// Catalog shapes (issue 27), the same formulas as crates/catalog/src/search/shapes.rs: the
// bench's own catalog, templated connectors (one sentence pattern, a few numbers and team names),
// near-duplicates (the same ten tools mirrored by many plugins) and one huge MCP server (half
// the catalog) next to the bench's tools.
const TEAMS = ['falcon', 'otter', 'heron', 'data platform', 'badger', 'billing ops', 'osprey', 'bison', 'crane', 'growth', 'ibis', 'koala']
const RESOURCES = ['invoices', 'contacts', 'orders', 'tickets', 'deals', 'payments', 'shipments', 'leads', 'accounts']
const MIRRORED = [
  ['web_search', 'Search the web for pages about a topic'],
  ['web_fetch', 'Fetch a web page and return its text'],
  ['read_file', 'Read a text file from the workspace'],
  ['write_file', 'Write text to a file in the workspace'],
  ['send_email', 'Send an email to a recipient'],
  ['create_issue', 'Create an issue in the tracker'],
  ['list_events', 'List calendar events for a day'],
  ['get_weather', 'Get the weather forecast for a city'],
  ['run_query', 'Run a SQL query against the warehouse'],
  ['post_message', 'Post a message to a chat channel'],
]
const WORDS = ['account', 'alert', 'archive', 'backup', 'channel', 'commit', 'deploy', 'export', 'graph', 'import', 'invoice', 'label', 'metric', 'order', 'payment', 'queue', 'report', 'review', 'schema', 'secret', 'stream', 'token', 'upload', 'webhook']

const benchTool = (i) => ({ name: nameOf(i), description: `Tool number ${i}: ${VERBS[i % 5]}s ${NOUNS[i % 5]}s for team ${i % 97} bench 0.5` })

export const SHAPES = {
  bench: { tool: benchTool, common: 'tool number for team bench' },
  templated: {
    tool: (i) => {
      const team = TEAMS[i % TEAMS.length]
      const resource = RESOURCES[Math.floor(i / TEAMS.length) % RESOURCES.length]
      return {
        name: `${team.replace(' ', '_')}_${resource}_sync_${i}`,
        sourceName: 'connectors',
        description: `Synchronizes ${resource} for the ${team} team from region ${i % 9} every ${5 + (i % 55)} minutes using connector version ${i % 4}.${i % 10}`,
      }
    },
    common: 'synchronizes team region minutes connector version',
  },
  'near-duplicate': {
    tool: (i) => {
      const [name, description] = MIRRORED[i % MIRRORED.length]
      const mirror = Math.floor(i / MIRRORED.length)
      return {
        name,
        sourceName: `mirror${mirror}`,
        ...(i % 3 === 0 ? { label: name.replace('_', ' ') } : {}),
        description: `${description}. Provided by mirror ${mirror} in region ${mirror % 7}.`,
      }
    },
    specificSuffix: ' mirror 4',
    common: 'provided by mirror in region',
  },
  'one huge server': {
    tool: (i) => {
      if (i % 2 === 1) return benchTool(Math.floor(i / 2))
      const k = i / 2
      const word = WORDS[Math.floor(k / 5) % WORDS.length]
      return {
        name: `${VERBS[k % 5]}_${word}_${k}`,
        source: 'mcp',
        sourceName: 'warehouse',
        description: `Warehouse API: ${VERBS[k % 5]}s ${word} records for site ${k % 50} (batch ${k % 7}).`,
      }
    },
    common: 'warehouse api records for site batch',
  },
}

/** `size` tools of `shape`, and its three queries: specific (tool 42's name words), none, common. */
export function shapeCatalog(shape, size) {
  const { tool, common, specificSuffix = '' } = SHAPES[shape]
  const tools = Array.from({ length: size }, (_, i) => tool(i))
  const specific = tool(42).name.replaceAll('_', ' ') + specificSuffix
  return { tools, queries: { specific, 'no match': 'xyzzy', common } }
}

const TWENTY = (query) => `const q = ${JSON.stringify(query)};
const t = performance.now();
for (let i = 0; i < 20; i++) await SEARCH(q, { limit: 10 });
return (performance.now() - t) * 1000`

/**
 * 20 searches at 100 and 10,000 tools, for each shape and query kind: in a `tool_search_code`
 * cell (warmed up, median of 15 rounds) and in a fresh code-mode cell through `tools.search`, as
 * the issue measured it (no warm-up: the cell's first use of `tools` is in the sample; median of
 * 7 cells; MCP tools are not in `tools.search`).
 */
export async function shapeRows({ executor, rows, results }) {
  const exec = (call) => executor(call.input, call.name)
  results.toolSearch ??= {}
  results.toolSearch.shapes = {}
  const sizes = [100, 10_000]
  for (const shape of Object.keys(SHAPES)) {
    const measured = {}
    for (const size of sizes) {
      const { tools, queries } = shapeCatalog(shape, size)
      const toolSearch = ToolSearchRun.create({ config: { codeTimeoutMs: 60_000 }, runId: `shape-${shape}-${size}`, tools, executor: exec })
      const codeMode = CodeModeRun.create({ config: { enabled: true, timeoutMs: 60_000 }, runId: `shape-cm-${shape}-${size}`, tools, executor: exec })
      await toolSearch.call('tool_search_code', { code: "await openclaw.tools.search('warm up'); return 0" })
      await codeMode.exec({ code: "await tools.search('warm up'); return 0" })
      for (const [kind, query] of Object.entries(queries)) {
        const inToolSearch = await toolSearch.call('tool_search_code', {
          code: `await openclaw.tools.search(${JSON.stringify(query)});
const samples = [];
for (let r = 0; r < 15; r++) { const t = performance.now(); for (let i = 0; i < 20; i++) await openclaw.tools.search(${JSON.stringify(query)}, { limit: 10 }); samples.push(performance.now() - t) }
samples.sort((a, b) => a - b); return samples[samples.length >> 1] * 1000`,
        })
        const cells = []
        for (let c = 0; c < 7; c++) {
          const cell = await codeMode.exec({ code: TWENTY(query).replace('SEARCH', 'tools.search') })
          cells.push(cell.status === 'completed' ? cell.value : NaN)
        }
        measured[kind] ??= {}
        measured[kind][size] = { toolSearchUs: inToolSearch.status === 'completed' ? inToolSearch.value : NaN, codeModeUs: median(cells), query }
      }
    }
    results.toolSearch.shapes[shape] = measured
    for (const [kind, bySize] of Object.entries(measured)) {
      const [small, big] = sizes.map((s) => bySize[s])
      const x = (a, b) => `${(b / a).toFixed(1)}×`
      rows.push([
        `20 searches, ${shape}, ${kind}: 100 → 10,000 tools`,
        `${formatUs(small.toolSearchUs)} → ${formatUs(big.toolSearchUs)}`,
        '—',
        `${formatUs(small.codeModeUs)} → ${formatUs(big.codeModeUs)}`,
        x(small.toolSearchUs, big.toolSearchUs),
        x(small.codeModeUs, big.codeModeUs),
        `${JSON.stringify(small.query)}; tool_search_code cell | fresh code-mode cell (tools.search)`,
      ])
    }
  }
}

/** The longest gap between ticks of a 1 ms interval while `fn` runs: how long the loop stalled. */
async function loopStall(fn) {
  let last = performance.now()
  let longest = 0
  const tick = () => {
    const now = performance.now()
    longest = Math.max(longest, now - last)
    last = now
  }
  const timer = setInterval(tick, 1)
  try {
    const value = await fn()
    tick()
    return { value, stallMs: longest }
  } finally {
    clearInterval(timer)
  }
}

/**
 * A 1 MB query (distinct words) through the structured `tool_search` (answered on the calling
 * thread today: its synchronous part holds the event loop) and through `openclaw.tools.search`
 * in a `tool_search_code` cell (answered in the sandbox). Medians of 9; the event loop's longest
 * stall during each (the gap between ticks of a 1 ms interval), and the synchronous part of the
 * structured call.
 */
export async function longQueryRows({ executor, rows, results }) {
  const exec = (call) => executor(call.input, call.name)
  const { tools } = shapeCatalog('templated', 10_000)
  const words = []
  let length = 0
  for (let i = 0; length < 1 << 20; i++) {
    const word = `w${i.toString(36)}`
    words.push(word)
    length += word.length + 1
  }
  const query = words.join(' ')
  const structured = ToolSearchRun.create({ config: { mode: 'tools' }, runId: 'long-query', tools, executor: exec })
  const code = ToolSearchRun.create({ config: { codeTimeoutMs: 60_000 }, runId: 'long-query-code', tools, executor: exec })
  await structured.call('tool_search', { query: 'warm up' })
  const answer = []
  const held = []
  const stalls = []
  for (let i = 0; i < 9; i++) {
    const { stallMs } = await loopStall(async () => {
      const started = performance.now()
      const pending = structured.call('tool_search', { query })
      held.push(performance.now() - started)
      const result = await pending
      answer.push(performance.now() - started)
      if (result.status !== 'completed') throw new Error(`bench long query failed: ${JSON.stringify(result)}`)
    })
    stalls.push(stallMs)
  }
  const guestAnswer = []
  const guestStalls = []
  let truncated
  for (let i = 0; i < 9; i++) {
    const { value: result, stallMs } = await loopStall(() =>
      code.call('tool_search_code', {
        code: `let q = ''; for (let i = 0; q.length < ${1 << 20}; i++) q += 'w' + i.toString(36) + ' ';
const t = performance.now(); const hits = await openclaw.tools.search(q); const ms = performance.now() - t;
return { ms, truncated: hits.queryTruncated?.reason ?? null }`,
      }),
    )
    guestStalls.push(stallMs)
    if (result.status !== 'completed') throw new Error(`bench long guest query failed: ${JSON.stringify(result)}`)
    guestAnswer.push(result.value.ms)
    truncated = result.value.truncated
  }
  const out = {
    bytes: Buffer.byteLength(query),
    structured: { answerMs: median(answer), syncMs: median(held), maxSyncMs: Math.max(...held), loopStallMaxMs: Math.max(...stalls) },
    guest: { answerMs: median(guestAnswer), loopStallMaxMs: Math.max(...guestStalls), truncated },
  }
  results.toolSearch ??= {}
  results.toolSearch.longQuery = out
  const ms = (v) => `${v.toFixed(2)} ms`
  rows.push([`1 MB query, structured tool_search (10,000 tools)`, ms(out.structured.answerMs), '—', '—', '—', '—', `synchronous part ${ms(out.structured.syncMs)} (max ${ms(out.structured.maxSyncMs)}); longest event-loop stall ${ms(out.structured.loopStallMaxMs)}`])
  rows.push([`1 MB query, openclaw.tools.search in a cell`, ms(out.guest.answerMs), '—', '—', '—', '—', `inside the cell; longest event-loop stall ${ms(out.guest.loopStallMaxMs)}; hits.queryTruncated.reason = ${out.guest.truncated}`])
}
