#!/usr/bin/env node
// Regenerates test262/baseline.json: which tests of the subset pristine QuickJS (crates.io
// rquickjs-sys 0.14.0, without vendor/patches/rquickjs-sys/) passes, each run as the same cell
// the suite runs (tools/test262/cells.mjs). One command, after the subset or the wrapping changes:
//
//   node tools/test262/baseline.mjs
//
// It builds tools/test262/pristine (a cargo project of its own, release) on first use.
import { spawn, spawnSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { BASELINE, ROOT, cellOf, listTests, passed } from './cells.mjs'

const manifest = fileURLToPath(new URL('./pristine/Cargo.toml', import.meta.url))
const built = spawnSync('cargo', ['build', '--release', '--quiet', '--manifest-path', manifest], { stdio: 'inherit' })
if (built.status !== 0) process.exit(built.status ?? 1)
const binary = fileURLToPath(new URL('./pristine/target/release/test262-pristine', import.meta.url))

const tests = listTests()
const subset = JSON.parse(readFileSync(`${ROOT}/subset.json`, 'utf8'))
const child = spawn(binary, [], { stdio: ['pipe', 'pipe', 'inherit'] })
const outcomes = new Map()
const lines = createInterface({ input: child.stdout })
lines.on('line', (line) => {
  const { id, ...outcome } = JSON.parse(line)
  outcomes.set(id, outcome)
  if (outcomes.size % 1000 === 0) process.stderr.write(`${outcomes.size} / ${tests.length}\n`)
})
const started = performance.now()
for (const test of tests) {
  if (!child.stdin.write(JSON.stringify({ id: test.id, code: cellOf(test) }) + '\n')) {
    await new Promise((resolve) => child.stdin.once('drain', resolve))
  }
}
child.stdin.end()
const status = await new Promise((resolve) => child.on('close', resolve))
if (status !== 0 || outcomes.size !== tests.length) {
  console.error(`the pristine runner exited ${status} after ${outcomes.size} of ${tests.length} tests`)
  process.exit(1)
}
const pass = tests.filter((test) => passed(test, outcomes.get(test.id))).map((test) => test.id)
writeFileSync(
  BASELINE,
  JSON.stringify(
    {
      commit: subset.commit,
      engine: 'QuickJS from crates.io rquickjs-sys 0.14.0, unpatched (tools/test262/pristine)',
      command: 'node tools/test262/baseline.mjs',
      tests: tests.length,
      passed: pass.length,
      pass,
    },
    null,
    1,
  ) + '\n',
)
console.log(`pristine QuickJS passes ${pass.length} of ${tests.length} tests (${((performance.now() - started) / 1000).toFixed(1)} s); wrote test262/baseline.json`)
