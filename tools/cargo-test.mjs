#!/usr/bin/env node
// `cargo test` on the build `npm test` just made: the same target triple as `napi build
// --platform` (which passes `--target`, so its artifacts live under target/<triple>/) and the
// same `testing` feature, so the dependencies are compiled once, not twice.
import { execFileSync, spawnSync } from 'node:child_process'

const host = /^host: (\S+)$/m.exec(execFileSync('rustc', ['-vV'], { encoding: 'utf8' }))?.[1]
if (!host) {
  console.error('cargo-test: could not read the host triple from `rustc -vV`')
  process.exit(2)
}
const args = ['test', '--workspace', '--features', 'testing', '--target', host, ...process.argv.slice(2)]
const run = spawnSync('cargo', args, { stdio: 'inherit' })
process.exit(run.status ?? 1)
