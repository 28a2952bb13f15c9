// `npm run bench`: this package side by side with quickjs-wasi (in-thread, compiled module
// reused) and with the reference pipeline (docs/performance.md: a worker_threads Worker per leg), on one machine
// in one run, plus the figures the other issues ask for. Then, inside the real OpenClaw gateway
// (bench/lib/openclaw-inside.mjs, under Node 24), this package as the `quickjs` executor plugin
// against the bundled QuickJS-WASI executor and upstream's node executor. Prints the tables and
// writes bench/results/latest.json.
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import ts from 'typescript'
import { catalog, cells, executor } from './lib/catalog.mjs'
import { formatUs, median, ratio, sleep, timeUs } from './lib/stats.mjs'
import { resumeCell, runCell, suspendCell } from './lib/wasi.mjs'
import { runInWorker, workerRoundTripUs } from './lib/worker-pipeline.mjs'
import { treeRss } from './lib/rss.mjs'
import { toolSearchRows } from './lib/tool-search.mjs'

const require = createRequire(import.meta.url)
const { CodeModeRun, configureCodeModeRuntime } = require('../index.js')
const native = require('../lib/native.js')

const quick = process.argv.includes('--quick')
const N = (n) => (quick ? Math.max(5, Math.floor(n / 10)) : n)
const catalogJson = JSON.stringify(catalog)
const wasiEnv = { catalogJson, executor }
const rows = []
const results = { machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version }, workloads: {} }

function makeRun(config = {}, exec = (call) => executor(call.input, call.name)) {
  return CodeModeRun.create({
    config: { enabled: true, maxPendingToolCalls: 128, timeoutMs: 60_000, ...config },
    runId: `bench-${Math.random()}`,
    tools: catalog,
    executor: exec,
  })
}

async function ours(run, code, language) {
  const result = await run.exec(language ? { code, language } : { code })
  if (result.status !== 'completed') throw new Error(`bench cell failed: ${JSON.stringify(result)}`)
  return result.value
}

function record(name, values, note = '') {
  results.workloads[name] = values
  rows.push([name, formatUs(values.ours), formatUs(values.wasi), formatUs(values.worker), ratio(values.ours, values.wasi), ratio(values.ours, values.worker), note])
  console.error(`  ${name}: ours ${formatUs(values.ours)} | quickjs-wasi ${formatUs(values.wasi)} | worker ${formatUs(values.worker)}`)
}

const run = makeRun()
await ours(run, '1') // start the worker pool and warm caches

// --- per-leg latency -----------------------------------------------------------------------
console.error('latency…')
const trivial = {
  ours: await timeUs(() => ours(run, cells.trivial), { iterations: N(2000), warmup: 200 }),
  wasi: await timeUs(() => runCell(cells.trivial, wasiEnv), { iterations: N(300), warmup: 30 }),
  worker: await timeUs(() => runInWorker(cells.trivial, wasiEnv), { iterations: N(40), warmup: 4 }),
}
record('trivial cell', trivial, 'back to back: each exec also pays for a fresh VM')

// A gateway's execs arrive model turns apart, so the warm pool has a VM ready for each. Paced
// 1 ms apart, the pool keeps up and this is the latency an exec sees.
const paced = {
  ours: await timeUs(async () => {
    await sleep(1)
    const started = process.hrtime.bigint()
    await ours(run, cells.trivial)
    return Number(process.hrtime.bigint() - started) / 1000
  }, { iterations: N(1000), warmup: 50, timed: true }),
  wasi: trivial.wasi,
  worker: trivial.worker,
}
record('trivial cell, 1 ms apart (warm pool)', paced, 'quickjs-wasi and worker columns: back to back')

// Nested calls: whole cells side by side, and the per-call cost timed inside the cell (the
// cell's own clock around 500 sequential calls, or around five Promise.all of 100 each).
const inCell = async (fn, code, iterations) => {
  const samples = []
  for (let i = 0; i < iterations; i++) samples.push(Number(await fn(code)))
  return median(samples)
}
const perCallOf = { sequential: cells.sequentialPerCall, parallel: cells.parallelPerCall }
const perCall = {}
for (const [kind, code] of Object.entries(perCallOf)) {
  perCall[kind] = {
    ours: await inCell((c) => ours(run, c), code, N(40)),
    wasi: await inCell((c) => runCell(c, wasiEnv), code, N(40)),
    worker: await inCell((c) => runInWorker(c, wasiEnv), code, N(10)),
  }
}
// The floor of any executor that runs cells on a worker thread: one message there and back.
results.workerRoundTripUs = await workerRoundTripUs(N(2000))
console.error(`  worker_threads round trip: ${formatUs(results.workerRoundTripUs)}`)
for (const [name, code, kind] of [
  ['1 nested call', cells.oneCall, 'sequential'],
  ['10 sequential calls', cells.tenSequential, 'sequential'],
  ['100 parallel calls', cells.hundredParallel, 'parallel'],
]) {
  const values = {
    ours: await timeUs(() => ours(run, code), { iterations: N(kind === 'parallel' ? 300 : 1000), warmup: 50 }),
    wasi: await timeUs(() => runCell(code, wasiEnv), { iterations: N(200), warmup: 20 }),
    worker: await timeUs(() => runInWorker(code, wasiEnv), { iterations: N(30), warmup: 3 }),
  }
  const each = perCall[kind]
  values.oursPerCall = each.ours
  values.wasiPerCall = each.wasi
  values.workerPerCall = each.worker
  record(name, values, `${kind} call, timed in the cell: ${formatUs(each.ours)} vs ${formatUs(each.wasi)} vs ${formatUs(each.worker)}`)
}

record('JSON-heavy cell (1,000 objects)', {
  ours: await timeUs(() => ours(run, cells.json), { iterations: N(300), warmup: 30 }),
  wasi: await timeUs(() => runCell(cells.json, wasiEnv), { iterations: N(100), warmup: 10 }),
  worker: await timeUs(() => runInWorker(cells.json, wasiEnv), { iterations: N(20), warmup: 2 }),
})

const tsOptions = { compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext } }
const transpiled = (code) => ts.transpileModule(code, tsOptions).outputText
record('TypeScript cell', {
  ours: await timeUs(() => ours(run, cells.typescript, 'typescript'), { iterations: N(500), warmup: 50 }),
  wasi: await timeUs(() => runCell(transpiled(cells.typescript), wasiEnv), { iterations: N(100), warmup: 10 }),
  worker: await timeUs(() => runInWorker(transpiled(cells.typescript), wasiEnv), { iterations: N(20), warmup: 2 }),
}, 'reference: transpileModule + eval')

// --- suspend and resume ------------------------------------------------------------------------
console.error('suspend/resume…')
{
  const held = []
  // Four runs, each its own session: one session may park a quarter of the gateway's 64 cells.
  const slowRuns = Array.from({ length: 4 }, () =>
    makeRun({ timeoutMs: 100 }, (call) => {
      if (call.name !== 'fetch_page') return executor(call.input)
      return new Promise((resolve) => held.push(resolve))
    }),
  )
  const count = N(60)
  const waiting = await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const slowRun = slowRuns[i % slowRuns.length]
      return { slowRun, result: await slowRun.exec({ code: 'const r = await tools.fetch_page({ n: 7 });\nr.n' }) }
    }),
  )
  for (const resolve of held) resolve({ n: 7 })
  await sleep(50)
  const samples = []
  for (const { slowRun, result } of waiting) {
    const started = process.hrtime.bigint()
    const done = await slowRun.wait({ runId: result.runId })
    samples.push(Number(process.hrtime.bigint() - started) / 1000)
    if (done.status !== 'completed') throw new Error(JSON.stringify(done))
  }
  const holdExecutor = { catalogJson, executor: () => new Promise(() => {}) }
  const snapshots = []
  const snapshotUs = await timeUs(async () => {
    snapshots.push(await suspendCell('const r = await tools.fetch_page({ n: 7 });\nr.n', { catalogJson, executor }))
  }, { iterations: N(40), warmup: 4 })
  const restoreUs = await timeUs((i) => resumeCell(snapshots[i % snapshots.length], holdExecutor), { iterations: N(40), warmup: 4 })
  // quickjs-wasi parks a cell by snapshotting it and resumes it by restoring: both are the
  // price of its suspension, next to our one `wait`.
  const values = { ours: median(samples), wasi: snapshotUs + restoreUs, wasiSnapshot: snapshotUs, wasiRestore: restoreUs, wasiSnapshotBytes: snapshots[0].bytes.length }
  record('wait on a settled suspended cell', values, `quickjs-wasi: snapshot+serialise ${formatUs(snapshotUs)} + restore ${formatUs(restoreUs)}, ${(values.wasiSnapshotBytes / 1e6).toFixed(1)} MB`)
}

// --- memory per suspended cell -------------------------------------------------------------
// Each side in a fresh process (bench/lib/memory.mjs): in this one, memory freed by the
// workloads above would be reused and hide the growth.
console.error('memory…')
{
  const measure = (side) =>
    JSON.parse(execFileSync(process.execPath, ['--expose-gc', fileURLToPath(new URL('./lib/memory.mjs', import.meta.url)), side], { encoding: 'utf8' }))
  const mine = measure('ours')
  const theirs = measure('wasi')
  const values = { oursKiB: mine.kib, oursVmBytes: mine.vmBytes, wasiKiB: theirs.kib, wasiSnapshotBytes: theirs.snapshotBytes }
  results.workloads['memory per suspended cell'] = values
  rows.push(['memory per suspended cell', `${mine.kib.toFixed(0)} KiB`, `${theirs.kib.toFixed(0)} KiB`, '—', ratio(mine.kib, theirs.kib), '—', `RSS growth per cell, 64 parked, fresh process, sandbox processes included (Linux); QuickJS heap ${(mine.vmBytes / 1024).toFixed(0)} KiB`])
  console.error(`  memory: ours ${mine.kib.toFixed(0)} KiB, quickjs-wasi ${theirs.kib.toFixed(0)} KiB`)
}

// --- throughput and event-loop delay --------------------------------------------------------
console.error('throughput…')
async function throughput(execOne, concurrency, total) {
  const loop = monitorEventLoopDelay({ resolution: 1 })
  loop.enable()
  let next = 0
  const started = process.hrtime.bigint()
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < total) await execOne()
    }),
  )
  const seconds = Number(process.hrtime.bigint() - started) / 1e9
  loop.disable()
  return { perSecond: total / seconds, loopP99Ms: loop.percentile(99) / 1e6 }
}
results.throughput = {}
for (const concurrency of [1, 2, 16]) {
  const oursT = await throughput(() => ours(run, cells.trivial), concurrency, N(5000))
  const wasiT = await throughput(() => runCell(cells.trivial, wasiEnv), concurrency, N(1000))
  results.throughput[concurrency] = { ours: oursT, wasi: wasiT }
  rows.push([`throughput, concurrency ${concurrency}`, `${oursT.perSecond.toFixed(0)}/s`, `${wasiT.perSecond.toFixed(0)}/s`, '—', `${(oursT.perSecond / wasiT.perSecond).toFixed(1)}×`, '—', `event-loop p99 ${oursT.loopP99Ms.toFixed(2)} ms vs ${wasiT.loopP99Ms.toFixed(2)} ms`])
  console.error(`  concurrency ${concurrency}: ${oursT.perSecond.toFixed(0)}/s vs ${wasiT.perSecond.toFixed(0)}/s`)
}

// Event loop while two CPU-bound cells spin.
{
  const spinRun = makeRun({ timeoutMs: 1000 })
  const loop = monitorEventLoopDelay({ resolution: 1 })
  loop.enable()
  await Promise.all([spinRun.exec({ code: 'while (true) {}' }), spinRun.exec({ code: 'while (true) {}' })])
  loop.disable()
  results.eventLoopWhileSpinning = { p99Ms: loop.percentile(99) / 1e6, maxMs: loop.max / 1e6 }
  rows.push(['event loop, two cells spinning 1 s', `p99 ${(loop.percentile(99) / 1e6).toFixed(2)} ms`, '—', '—', '—', '—', `max ${(loop.max / 1e6).toFixed(2)} ms`])
}

// --- other issues' figures -------------------------------------------------------------------
console.error('search, transform, prompt size, load…')
{
  const big = Array.from({ length: 10_000 }, (_, i) => ({
    name: `${['read', 'write', 'list', 'send', 'sync'][i % 5]}_${['file', 'issue', 'ticket', 'event', 'note', 'user', 'page'][i % 7]}_${i}`,
    description: `Tool number ${i}: ${['reads', 'writes', 'lists', 'sends', 'syncs'][i % 5]} ${['files', 'issues', 'tickets', 'events', 'notes'][i % 5]} for team ${i % 97}`,
  }))
  const searchRun = CodeModeRun.create({ config: { enabled: true, timeoutMs: 60_000 }, runId: 'search', tools: big, executor })
  const result = await searchRun.exec({
    code: `await tools.search("warm up");
const queries = ["read a file", "send an event to the team", "list open tickets", "sync notes", "write_issue_42", "user page"];
const samples = [];
for (let i = 0; i < 300; i++) { const t = performance.now(); await tools.search(queries[i % queries.length], { limit: 10 }); samples.push(performance.now() - t) }
samples.sort((a, b) => a - b); samples[samples.length >> 1] * 1000`,
  })
  results.search10kMedianUs = result.value
  rows.push(['tools.search over 10,000 tools', formatUs(result.value), '—', '—', '—', '—', 'median inside the VM (includes the bridge call)'])
}
{
  const ts100 = Array.from({ length: 25 }, (_, i) => `interface Row${i} { id: number; name: string; tags?: string[] }
const rows${i}: Row${i}[] = [{ id: ${i}, name: "r${i}" }];
const total${i} = rows${i}.reduce((sum: number, r) => sum + r.id, 0) as number;
enum E${i} { A = ${i}, B }`).join('\n')
  const js10 = Array.from({ length: 10 }, (_, i) => `const v${i} = await tools.read_file({ n: ${i} });`).join('\n')
  const ours100 = await native.benchPrepare(ts100, true, N(500))
  const tsc100 = await timeUs(() => ts.transpileModule(ts100, tsOptions), { iterations: N(200), warmup: 20 })
  const js10Us = await native.benchPrepare(js10, false, N(2000))
  results.typescriptTransform = { lines: ts100.split('\n').length, oursUs: ours100, transpileModuleUs: tsc100, javascriptParse10LinesUs: js10Us }
  rows.push([`TS transform, ${ts100.split('\n').length} lines`, formatUs(ours100), `${formatUs(tsc100)} (tsc)`, '—', ratio(ours100, tsc100), '—', `JS cell parse, 10 lines: ${formatUs(js10Us)}`])
}
{
  results.promptSize = {}
  for (const size of [10, 100, 1000]) {
    const tools = Array.from({ length: size }, (_, i) => catalog[i % catalog.length]).map((t, i) => ({ ...t, name: `${t.name}_${i}` }))
    const direct = JSON.stringify(tools.map(({ name, description, parameters }) => ({ name, description, parameters }))).length
    const sized = CodeModeRun.create({ config: true, runId: 'size', tools, executor })
    const surface = JSON.stringify(sized.modelTools.map(({ name, description, parameters }) => ({ name, description, parameters }))).length
    results.promptSize[size] = { direct, codeMode: surface }
    rows.push([`prompt size, ${size} tools`, `${surface} B`, `${direct} B direct`, '—', '—', '—', `code mode is ${((100 * surface) / direct).toFixed(1)}% of direct`])
  }
}
{
  // 10,000 sequential execs: RSS growth after warm-up, the sandbox processes included.
  const leakRun = makeRun()
  for (let i = 0; i < 500; i++) await ours(leakRun, cells.oneCall)
  globalThis.gc?.()
  await sleep(100)
  const before = treeRss()
  for (let i = 0; i < N(10_000); i++) await ours(leakRun, cells.oneCall)
  globalThis.gc?.()
  await sleep(100)
  const growthMB = (treeRss() - before) / 1e6
  results.sequential10kRssGrowthMB = growthMB
  rows.push([`${N(10_000)} sequential execs`, `${growthMB < 0 ? "−" : "+"}${Math.abs(growthMB).toFixed(1)} MB RSS`, '—', '—', '—', '—', 'after 500 warm-up execs; sandbox processes included (Linux)'])
}
{
  // 1,000 concurrent cells each awaiting a slow tool: thread count stays bounded.
  const { readFileSync } = await import('node:fs')
  const threads = () => Number(/Threads:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? NaN)
  const baseline = threads()
  const slow = makeRun({}, async (call) => {
    await sleep(200)
    return call.input.n
  })
  let peak = baseline
  const probe = setInterval(() => (peak = Math.max(peak, threads())), 10)
  const all = await Promise.all(Array.from({ length: 1000 }, (_, n) => slow.exec({ code: `await tools.read_file({ n: ${n} })` })))
  clearInterval(probe)
  const correct = all.every((r, n) => r.status === 'completed' && r.value === n)
  results.concurrent1000 = { correct, baselineThreads: baseline, peakThreads: peak, workerThreads: cpus().length }
  rows.push(['1,000 concurrent cells, slow tool', correct ? 'all correct' : 'WRONG', '—', '—', '—', '—', `OS threads ${baseline} → peak ${peak}`])
}

console.error('Tool Search…')
await toolSearchRows({ catalog, executor, N, rows, results })

// --- inside OpenClaw: the real gateway's exec/wait tools -----------------------------------------
// bench/lib/openclaw-inside.mjs runs under Node 24 (openclaw's engines), one child process per
// executor: this package as an external plugin, the bundled QuickJS-WASI plugin, upstream's node
// executor. It needs openclaw and the Node 24 of tools/node24 (tools/setup-gateway.mjs, which
// `npm run bench` runs, installs both); without them the table is skipped.
console.error('inside OpenClaw…')
const openclawRows = []
let openclawSkipped
{
  const repo = new URL('..', import.meta.url)
  const node24 = require('../tools/node24').binary
  const openclawPkg = fileURLToPath(new URL('node_modules/openclaw/package.json', repo))
  let version
  if (!existsSync(node24)) openclawSkipped = 'no Node 24 binary (node tools/setup-gateway.mjs; Linux x64 only)'
  else if (!existsSync(openclawPkg)) openclawSkipped = 'openclaw is not installed (node tools/setup-gateway.mjs)'
  else {
    try {
      version = execFileSync(node24, ['--version'], { encoding: 'utf8' }).trim()
    } catch (error) {
      openclawSkipped = `${node24} does not run: ${error.message.split('\n')[0]}`
    }
    const [major, minor] = (version ?? '').replace(/^v/, '').split('.').map(Number)
    if (!openclawSkipped && !(major > 24 || (major === 24 && minor >= 16))) openclawSkipped = `openclaw needs Node >= 24.16; ${node24} is ${version}`
  }
  let report
  if (!openclawSkipped) {
    const state = mkdtempSync(join(tmpdir(), 'code-mode-bench-openclaw-'))
    // openclaw's rolling log and state locks go to fixed paths whatever TMPDIR says: the ones
    // this run creates go with it (__test__/support/temp-root.ts does the same for npm test).
    const uid = typeof process.getuid === 'function' ? process.getuid() : undefined
    const fixed = process.platform === 'win32' ? [] : ['/tmp/openclaw', uid === undefined ? '/tmp/openclaw-state-locks' : `/tmp/openclaw-state-locks-${uid}`]
    const ours = fixed.filter((path) => !existsSync(path))
    try {
      const child = spawnSync(node24, [fileURLToPath(new URL('./lib/openclaw-inside.mjs', import.meta.url)), ...(quick ? ['--quick'] : [])], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
        // Its temp files too (Node's compile cache, which openclaw turns on, among them): the
        // bench leaves the temp directory as it found it.
        env: { ...process.env, OPENCLAW_STATE_DIR: join(state, 'state'), OPENCLAW_HOME: join(state, 'home'), TMPDIR: state, TMP: state, TEMP: state },
        timeout: 45 * 60_000,
        maxBuffer: 64 << 20,
      })
      report = JSON.parse(child.stdout.trim().split('\n').pop())
    } catch (error) {
      openclawSkipped = `the openclaw child failed: ${String(error?.message ?? error).split('\n')[0]}`
    } finally {
      rmSync(state, { recursive: true, force: true })
      for (const path of ours) rmSync(path, { recursive: true, force: true })
    }
  }
  if (report) {
    results.openclaw = { openclaw: report.openclaw, node: report.node, executors: report.executors, floorRounds: report.floorRounds }
    const ex = report.executors
    const broken = Object.entries(ex).filter(([, e]) => e.error).map(([k, e]) => `${k}: ${e.error}`)
    if (broken.length) console.error(`  inside OpenClaw: ${broken.join('; ')}`)
    const cell = (e, w) => (e?.error ? 'error' : e?.workloads?.[w]?.failure ? 'FAILED' : formatUs(e?.workloads?.[w]?.us))
    const slowMs = ex.plugin?.slowToolMs ?? ex.bundled?.slowToolMs ?? 150
    for (const [name, w] of [
      ['return 1+1', 'trivial'],
      ['1 nested call', 'oneCall'],
      ['10 sequential calls', 'tenSequential'],
      ['100 parallel calls (128 in flight)', 'hundredParallel'],
      ['yield_control → wait', 'yieldWait'],
      [`slow tool (${slowMs} ms) → waiting → wait`, 'slowToolWait'],
    ]) {
      const v = (k) => ex[k]?.workloads?.[w]
      const us = (k) => (v(k)?.failure ? undefined : v(k)?.us)
      const notes = []
      if (v('plugin')?.execUs !== undefined) notes.push(`exec ${formatUs(v('plugin').execUs)} + wait ${formatUs(v('plugin').waitUs)} (plugin)`)
      if (w === 'slowToolWait') notes.push('exec budget 100 ms (the minimum)')
      for (const k of ['plugin', 'bundled', 'node']) if (v(k)?.failure) notes.push(`${k} failed ${v(k).failed}×: ${JSON.stringify(v(k).failure)}`)
      if (w === 'trivial' && us('floor') !== undefined) notes.push(`the gateway's floor (an executor that runs nothing): ${formatUs(us('floor'))}, ${(us('plugin') / us('floor')).toFixed(1)}× of it in these rows (the target row takes pairs run back to back)`)
      // What the executor's own `execute` took of it; the rest is the gateway's path around it.
      if (w === 'trivial' && v('plugin')?.executeUs !== undefined) notes.push(`the plugin's own \`execute\` ${formatUs(v('plugin').executeUs)} of its ${formatUs(us('plugin'))}`)
      openclawRows.push([name, cell(ex.plugin, w), cell(ex.bundled, w), cell(ex.node, w), ratio(us('plugin'), us('bundled')), ratio(us('plugin'), us('node')), notes.join('; ')])
    }
    const floorFirst = ex.floor?.firstExecUs
    openclawRows.push(['first exec in a booted gateway', formatUs(ex.plugin?.firstExecUs), formatUs(ex.bundled?.firstExecUs), formatUs(ex.node?.firstExecUs), ratio(ex.plugin?.firstExecUs, ex.bundled?.firstExecUs), ratio(ex.plugin?.firstExecUs, ex.node?.firstExecUs), `loads the executor's module; the floor takes ${formatUs(floorFirst)}. Before it, the gateway's boot inventory of plugins took ${formatUs(ex.plugin?.bootInventoryUs)} (plugin's process): a process that execs without booting pays that on its first exec of an external plugin`])
    const bytes = (b) => (typeof b === 'number' ? `${b.toLocaleString('en-US')} B` : '—')
    openclawRows.push([
      'retained bytes per suspended cell',
      bytes(ex.plugin?.retainedBytes),
      bytes(ex.bundled?.retainedBytes),
      typeof ex.node?.retainedBytes === 'number' ? `live worker (${(ex.node.retainedBytes / 1048576).toFixed(0)} MiB accounted)` : 'live worker',
      ratio(ex.plugin?.retainedBytes, ex.bundled?.retainedBytes),
      '—',
      "continuation.retainedBytes of the executor's waiting results",
    ])
  } else {
    results.openclaw = { skipped: openclawSkipped }
  }
}

// --- the targets of the sandbox-process change (ARCHITECTURE.md, "Sandbox processes") ---------
const targets = []
{
  const w = results.workloads
  const target = (name, ok, detail) => targets.push([ok === undefined ? '—' : ok ? 'met' : 'MISSED', name, detail])
  const x = (a, b) => (a && b ? `${(a / b).toFixed(2)}×` : '—')
  target('trivial exec ≥ 4× faster than quickjs-wasi in-thread', w['trivial cell'] ? w['trivial cell'].wasi / w['trivial cell'].ours >= 4 : undefined, `${formatUs(w['trivial cell']?.ours)} vs ${formatUs(w['trivial cell']?.wasi)} (${x(w['trivial cell']?.wasi, w['trivial cell']?.ours)})`)
  const perCallUs = w['1 nested call']?.oursPerCall
  target('one sequential nested call ≤ 1.5× a worker_threads round trip', perCallUs && results.workerRoundTripUs ? perCallUs <= 1.5 * results.workerRoundTripUs : undefined, `${formatUs(perCallUs)} per call vs ${formatUs(results.workerRoundTripUs)} (${x(perCallUs, results.workerRoundTripUs)})`)
  const kib = w['memory per suspended cell']?.oursKiB
  target('a parked cell ≤ 256 KiB of RSS, sandbox processes included', kib === undefined ? undefined : kib <= 256, kib === undefined ? '—' : `${kib.toFixed(0)} KiB`)
  const ex = results.openclaw?.executors
  if (!ex) {
    target('inside OpenClaw: faster than both upstream executors on every workload', undefined, `skipped: ${results.openclaw?.skipped ?? 'not run'}`)
    target("inside OpenClaw: trivial exec within 2.5× of the gateway's floor", undefined, 'skipped')
  }
  if (ex) {
    const names = ['trivial', 'oneCall', 'tenSequential', 'hundredParallel', 'yieldWait', 'slowToolWait']
    const us = (k, n) => (ex[k]?.workloads?.[n]?.failure ? undefined : ex[k]?.workloads?.[n]?.us)
    const slower = names.filter((n) => !(us('plugin', n) < us('bundled', n) && us('plugin', n) < us('node', n)))
    const first = (k) => ex[k]?.firstExecUs
    if (!(first('plugin') < first('bundled') && first('plugin') < first('node'))) slower.push(`first exec in a booted gateway (the floor plugin's: ${formatUs(first('floor'))})`)
    target('inside OpenClaw: faster than both upstream executors on every workload', slower.length === 0, slower.length ? `not on: ${slower.join(', ')}` : `all ${names.length + 1}`)
    // Judged on the pairs measured back to back (bench/lib/openclaw-inside.mjs): the median of
    // their ratios.
    const pairs = (results.openclaw?.floorRounds ?? []).filter((p) => p.plugin > 0 && p.floor > 0)
    const mid = pairs.length ? median(pairs.map((p) => p.plugin / p.floor)) : undefined
    target(
      "inside OpenClaw: trivial exec within 2.5× of the gateway's floor",
      mid === undefined ? undefined : mid <= 2.5,
      mid === undefined ? '—' : `median of ${pairs.length} pairs run back to back: ${mid.toFixed(2)}× (${pairs.map((p) => `${formatUs(p.plugin)} vs ${formatUs(p.floor)}`).join('; ')})`,
    )
  }
  // Search on any catalog (ARCHITECTURE.md, decision 18): 20 searches at 10,000 tools within 3×
  // of 100 tools, per catalog shape and query kind; a 1 MB query answered within 50 ms, holding
  // the event loop at most 20 ms.
  const shapes = results.toolSearch?.shapes
  if (shapes) {
    const over = []
    for (const [shape, kinds] of Object.entries(shapes)) {
      for (const [kind, bySize] of Object.entries(kinds)) {
        for (const where of ['toolSearchUs', 'codeModeUs']) {
          const ratio = bySize[10_000]?.[where] / bySize[100]?.[where]
          if (!(ratio <= 3)) over.push(`${shape}/${kind}/${where === 'toolSearchUs' ? 'tool_search_code' : 'tools.search'} ${ratio.toFixed(1)}×`)
        }
      }
    }
    target('search: 20 searches at 10,000 tools ≤ 3× at 100, every shape and query kind', over.length === 0, over.length ? over.join(', ') : `all ${Object.keys(shapes).length} shapes × 3 kinds, both surfaces`)
  }
  const long = results.toolSearch?.longQuery
  if (long) {
    const ok = long.structured.answerMs <= 50 && long.structured.loopStallMaxMs <= 20 && long.guest.answerMs <= 50 && long.guest.loopStallMaxMs <= 20
    target('search: a 1 MB query answered ≤ 50 ms, event loop held ≤ 20 ms', ok, `tool_search ${long.structured.answerMs.toFixed(2)} ms (loop ${long.structured.loopStallMaxMs.toFixed(2)} ms); in a cell ${long.guest.answerMs.toFixed(2)} ms (loop ${long.guest.loopStallMaxMs.toFixed(2)} ms)`)
  }
  results.targets = targets.map(([status, name, detail]) => ({ status, name, detail }))
}

configureCodeModeRuntime({})
function printTable(header, tableRows) {
  const widths = header.map((h, i) => Math.max(h.length, ...tableRows.map((r) => String(r[i]).length)))
  const line = (cols) => `| ${cols.map((c, i) => String(c).padEnd(widths[i])).join(' | ')} |`
  console.log(line(header))
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`)
  for (const row of tableRows) console.log(line(row))
}
printTable(['workload', 'this package', 'quickjs-wasi', 'worker per leg', 'vs quickjs-wasi', 'vs worker', 'note'], rows)
console.log('\ninside OpenClaw (full exec tool path)')
if (openclawSkipped) console.log(`skipped: ${openclawSkipped}`)
else {
  printTable(['workload', 'this plugin', 'bundled quickjs', 'node', 'vs bundled', 'vs node', 'note'], openclawRows)
  console.log(`openclaw ${results.openclaw.openclaw}, ${results.openclaw.node}; medians of the exec (+ wait) tool calls, one runtime per executor in its own process.`)
}
console.log('\ntargets')
printTable(['', 'target', 'measured'], targets)
writeFileSync(new URL('./results/latest.json', import.meta.url), `${JSON.stringify(results, null, 2)}\n`)
console.log(`\n${cpus().length} × ${cpus()[0]?.model}, Node ${process.version}. Results: bench/results/latest.json`)
process.exit(0)
