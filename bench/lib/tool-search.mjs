// Tool Search rows for `npm run bench`: `tool_search_code` in this package's sandbox against the
// reference pipeline (upstream starts a `node --permission` subprocess per call, with an
// `openclaw.tools` bridge back to the parent over stdio; built here), the structured tools, and
// catalog creation and search at 100, 1,000 and 10,000 tools.
import { spawn } from 'node:child_process'
import { createRequire } from 'node:module'
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
