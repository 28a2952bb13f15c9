// Memory per suspended cell, measured in a fresh process so that no earlier workload's freed
// memory is reused (which would hide the growth), sandbox processes included (on Linux). `node bench/lib/memory.mjs ours|wasi` prints
// one JSON line.
import { createRequire } from 'node:module'
import { treeRss } from './rss.mjs'
import { catalog, executor } from './catalog.mjs'
import { sleep } from './stats.mjs'
import { suspendCell } from './wasi.mjs'

const require = createRequire(import.meta.url)
const COUNT = 64
const settle = async () => {
  globalThis.gc?.()
  await sleep(50)
  return treeRss()
}

if (process.argv[2] === 'wasi') {
  const env = { catalogJson: JSON.stringify(catalog), executor: () => new Promise(() => {}) }
  await suspendCell('const r = await tools.read_file({ n: 1 });\nr.n', env) // compile and warm
  const before = await settle()
  const held = []
  for (let i = 0; i < COUNT; i++) held.push(await suspendCell('const r = await tools.read_file({ n: 1 });\nr.n', env))
  const after = await settle()
  console.log(JSON.stringify({ kib: (after - before) / COUNT / 1024, snapshotBytes: held[0].bytes.length }))
} else {
  const { CodeModeRun } = require('../../index.js')
  // A session may hold a quarter of the gateway's parked cells (src/run/cells.rs): four sessions
  // park 16 each.
  const runs = Array.from({ length: 4 }, (_, i) =>
    CodeModeRun.create({
      config: { enabled: true, maxPendingToolCalls: 128, timeoutMs: 60_000 },
      runId: `bench-memory-${i}`,
      sessionId: `bench-memory-${i}`,
      tools: catalog,
      executor: (call) => (call.name === 'read_file' ? new Promise(() => {}) : executor(call.input)),
    }),
  )
  await runs[0].exec({ code: '1' }) // start the worker pool and fill the warm pool
  await sleep(100)
  const before = await settle()
  const parked = await Promise.all(
    Array.from({ length: COUNT }, (_, i) => runs[i % runs.length].exec({ code: 'const data = { a: [1, 2, 3] }; await tools.read_file({ n: 1 }); data' })),
  )
  if (parked.some((r) => r.status !== 'waiting')) throw new Error('cells did not park')
  await sleep(200) // the warm pool refills: its VMs are not the parked cells' cost
  const after = await settle()
  console.log(JSON.stringify({ kib: (after - before) / COUNT / 1024, vmBytes: Math.max(...runs.map((run) => run.telemetry.peakSnapshotBytes)) }))
  for (const run of runs) run.abort()
}
process.exit(0)
