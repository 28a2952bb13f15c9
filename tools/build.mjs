#!/usr/bin/env node
// Builds the addon and its sandbox executable together, with the same profile, features and
// target: `node tools/build.mjs [--release] [--features F] [--target T] [--js F --dts F]
// [--out DIR] [--no-js] [--no-sandbox]`. The addon is `napi build --platform --no-const-enum`
// (which writes `code-mode.<platform>.node` into the package root, or DIR); the executable is
// `crates/sandbox`'s `code-mode-sandbox`, copied next to it (`--no-sandbox`: the addon and its
// generated files alone, as tools/ci/check-bindings.sh needs them). The release workflow passes
// `--target` for cross builds. First, lib/generated/protocol.js (the JS ends of the packed
// formats) is regenerated from crates/protocol/src/packed.rs, for the host.
import { execFileSync, spawnSync } from 'node:child_process'
import { chmodSync, copyFileSync, mkdirSync, renameSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const args = process.argv.slice(2)
const option = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined)
const release = args.includes('--release')
const features = option('--features')
// `napi build --platform` always passes a target triple, so its artifacts live under
// target/<triple>/; the executable is built for the same triple so no crate compiles twice.
const target = option('--target') ?? /^host: (\S+)$/m.exec(execFileSync('rustc', ['-vV'], { encoding: 'utf8' }))?.[1]
if (!target) {
  console.error('build: could not read the host triple from `rustc -vV`')
  process.exit(2)
}
const out = resolve(root, option('--out') ?? '.')

function run(command, commandArgs) {
  const done = spawnSync(command, commandArgs, { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' && command !== process.execPath })
  if (done.status !== 0) process.exit(done.status ?? 1)
}

run('cargo', ['run', '--quiet', '-p', 'code-mode-protocol', '--bin', 'protocol-js'])

const require = createRequire(join(root, 'package.json'))
const cli = require.resolve('@napi-rs/cli/package.json')
const napi = join(dirname(cli), require(cli).bin.napi)
const js = args.includes('--no-js') ? ['--no-js'] : ['--js', option('--js') ?? 'binding.js']
const napiArgs = ['build', '--platform', '--no-const-enum', ...js, '--dts', option('--dts') ?? 'binding.d.ts']
if (release) napiArgs.push('--release')
if (features) napiArgs.push('--features', features)
napiArgs.push('--target', target)
if (out !== root) napiArgs.push('--output-dir', out)
run(process.execPath, [napi, ...napiArgs])
if (args.includes('--no-sandbox')) process.exit(0)

const cargoArgs = ['build', '-p', 'code-mode-sandbox', '--bin', 'code-mode-sandbox']
if (release) cargoArgs.push('--release')
if (features) cargoArgs.push('--features', features)
cargoArgs.push('--target', target)
run('cargo', cargoArgs)

const metadata = JSON.parse(execFileSync('cargo', ['metadata', '--format-version', '1', '--no-deps'], { cwd: root, encoding: 'utf8' }))
const windows = target.includes('windows')
const name = windows ? 'code-mode-sandbox.exe' : 'code-mode-sandbox'
const from = join(metadata.target_directory, target, release ? 'release' : 'debug', name)
mkdirSync(out, { recursive: true })
// Copied beside, then renamed over: a sandbox process still running the old executable (a test
// run, a gateway) keeps it, where writing into it would fail with ETXTBSY.
const next = join(out, `.${name}.${process.pid}`)
try {
  copyFileSync(from, next)
  chmodSync(next, 0o755)
  renameSync(next, join(out, name))
} finally {
  // Windows refuses to rename over a running executable: no copy is left behind for packaging.
  rmSync(next, { force: true })
}
console.log(`built ${name} next to the addon in ${out}`)
