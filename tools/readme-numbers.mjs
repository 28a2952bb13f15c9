#!/usr/bin/env node
// The README's "Numbers" section, made from the last `npm run bench` (bench/results/latest.json),
// so that every figure there is one that run measured, next to its peers from the same run:
// `node tools/readme-numbers.mjs` prints it, `--write` puts it between the README's
// `<!-- numbers:start -->` and `<!-- numbers:end -->` markers.
import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { formatUs } from '../bench/lib/stats.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))
const r = JSON.parse(readFileSync(`${root}bench/results/latest.json`, 'utf8'))
const times = (a, b) => (a && b ? `${(b / a).toFixed(b / a >= 100 ? 0 : 1)}×` : '—')
const table = (header, rows) => [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((row) => `| ${row.join(' | ')} |`)].join('\n')

const w = r.workloads
const library = table(
  ['workload', 'this package', 'quickjs-wasi', 'worker per leg'],
  [
    ['trivial cell', ...['ours', 'wasi', 'worker'].map((k) => formatUs(w['trivial cell'][k]))],
    ['1 nested call', ...['ours', 'wasi', 'worker'].map((k) => formatUs(w['1 nested call'][k]))],
    ['one sequential nested call, timed in the cell', ...['oursPerCall', 'wasiPerCall', 'workerPerCall'].map((k) => formatUs(w['1 nested call'][k]))],
    ['100 parallel calls', ...['ours', 'wasi', 'worker'].map((k) => formatUs(w['100 parallel calls'][k]))],
    ['TypeScript cell', ...['ours', 'wasi', 'worker'].map((k) => formatUs(w['TypeScript cell'][k]))],
    ['wait on a settled suspended cell', formatUs(w['wait on a settled suspended cell'].ours), formatUs(w['wait on a settled suspended cell'].wasi), '—'],
    ['memory per suspended cell (sandbox processes included)', `${w['memory per suspended cell'].oursKiB.toFixed(0)} KiB`, `${w['memory per suspended cell'].wasiKiB.toFixed(0)} KiB`, '—'],
  ],
)

const ts = r.toolSearch
const c10k = ts.catalogs['10000']
const toolSearch = table(
  ['workload', 'this package', 'subprocess per call'],
  [
    ['`tool_search_code`: `return 1+1`', formatUs(ts['tool_search_code: return 1+1'].oursUs), formatUs(ts['tool_search_code: return 1+1'].referenceSubprocessUs)],
    ['`tool_search_code`: search, describe, call', formatUs(ts['tool_search_code: search, describe, call'].oursUs), formatUs(ts['tool_search_code: search, describe, call'].referenceSubprocessUs)],
    ['structured `tool_search` (50 tools)', formatUs(ts.tool_search), '—'],
    ['catalog of 10,000 tools with schemas: create, cold / cached', `${c10k.schemas.coldMs.toFixed(1)} ms / ${c10k.schemas.cachedMs.toFixed(2)} ms`, '—'],
    ['catalog of 10,000 tools: 20 searches', formatUs(c10k.twentySearchesUs), '—'],
    ['1 MB query, structured `tool_search` (10,000 tools)', `${ts.longQuery.structured.answerMs.toFixed(2)} ms (event loop held ${ts.longQuery.structured.loopStallMaxMs.toFixed(2)} ms)`, '—'],
  ],
)

const shapeRows = []
for (const [shape, kinds] of Object.entries(ts.shapes)) {
  for (const [kind, bySize] of Object.entries(kinds)) {
    const [small, big] = [bySize[100], bySize[10000]]
    shapeRows.push([`${shape}, ${kind} (${JSON.stringify(small.query)})`, `${formatUs(small.toolSearchUs)} → ${formatUs(big.toolSearchUs)} (${times(small.toolSearchUs, big.toolSearchUs)})`, `${formatUs(small.codeModeUs)} → ${formatUs(big.codeModeUs)} (${times(small.codeModeUs, big.codeModeUs)})`])
  }
}
const shapes = table(['catalog shape, query', '`tool_search_code` cell: 100 → 10,000 tools', 'fresh code-mode cell (`tools.search`)'], shapeRows)

const ex = r.openclaw?.executors
let openclaw = `Skipped in this run: ${r.openclaw?.skipped ?? 'no OpenClaw section'}.`
if (ex) {
  const us = (k, n) => ex[k]?.workloads?.[n]?.us
  const row = (label, n) => [label, formatUs(us('plugin', n)), formatUs(us('bundled', n)), formatUs(us('node', n))]
  openclaw = table(
    ['workload', 'this plugin', 'bundled quickjs', 'node executor'],
    [
      row('`return 1+1`', 'trivial'),
      row('1 nested call', 'oneCall'),
      row('10 sequential calls', 'tenSequential'),
      row('100 parallel calls', 'hundredParallel'),
      row('`yield_control` → `wait`', 'yieldWait'),
      ['first exec in a booted gateway', ...['plugin', 'bundled', 'node'].map((k) => formatUs(ex[k]?.firstExecUs))],
      ['retained bytes per suspended cell', `${ex.plugin?.retainedBytes?.toLocaleString('en-US')} B`, `${ex.bundled?.retainedBytes?.toLocaleString('en-US')} B`, 'a live worker'],
    ],
  )
  if (ex.floor) {
    openclaw += `\n\nThe gateway's own floor, a plugin executor that answers every cell without running it: \`return 1+1\` ${formatUs(us('floor', 'trivial'))}, first exec ${formatUs(ex.floor.firstExecUs)}. The first exec is timed in a gateway that has built its plugin inventory, as \`openclaw gateway\` does when it starts (that took ${formatUs(ex.plugin?.bootInventoryUs)} here); a process that execs without booting pays it on its first exec of any external executor plugin.`
  }
  const pairs = (r.openclaw.floorRounds ?? []).filter((p) => p.plugin > 0 && p.floor > 0)
  if (pairs.length) {
    openclaw += ` The floor target is judged on pairs run back to back (this plugin's \`return 1+1\`, then the floor's), since this machine drifts in the minutes between the rows above: ${pairs.map((p) => `${formatUs(p.plugin)} vs ${formatUs(p.floor)} (${(p.plugin / p.floor).toFixed(2)}×)`).join(', ')}.`
  }
}

const targets = table(['', 'target', 'measured'], r.targets.map((t) => [t.status, t.name, t.detail]))

const section = `<!-- numbers:start -->
<!-- Made by \`node tools/readme-numbers.mjs --write\` from bench/results/latest.json: do not edit by hand. -->

\`npm run bench\` builds the release addon and measures every host beside its peers in the same run;
figures are medians from one run on ${r.machine.cpus} vCPUs (${r.machine.model}), Node ${r.machine.node}${ex ? `, the OpenClaw rows under Node ${r.openclaw.node} and openclaw ${r.openclaw.openclaw}` : ''}.
Absolute times move 2–3× between runs on such a machine; the ratios within a run are what to read.
[docs/performance.md](docs/performance.md) explains every row.

The library (\`CodeModeRun\`), against quickjs-wasi used in-thread (its best case) and a worker per leg
(\`bench/run.mjs\`):

${library}

Tool Search (\`ToolSearchRun\`), against a \`node --permission\` subprocess per call:

${toolSearch}

Search cost by catalog shape: 20 searches at 100 and at 10,000 tools (\`bench/lib/tool-search.mjs\`, in a
process of their own):

${shapes}

OpenClaw's \`quickjs\` executor, through the real gateway's exec/wait tools (\`bench/lib/openclaw-inside.mjs\`):

${openclaw}

The targets the sandbox processes were built to (ARCHITECTURE.md, "Sandbox processes"), as this run
measured them:

${targets}
<!-- numbers:end -->`

if (process.argv.includes('--write')) {
  const path = `${root}README.md`
  const readme = readFileSync(path, 'utf8')
  const start = readme.indexOf('<!-- numbers:start -->')
  const end = readme.indexOf('<!-- numbers:end -->')
  if (start < 0 || end < 0) throw new Error('README.md has no <!-- numbers:start --> … <!-- numbers:end --> markers')
  writeFileSync(path, readme.slice(0, start) + section + readme.slice(end + '<!-- numbers:end -->'.length))
} else {
  console.log(section)
}
