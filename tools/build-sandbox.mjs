#!/usr/bin/env node
// Builds the sandbox executable (`crates/sandbox`, the process the addon starts to run guest
// work) with the same profile and features as the addon `napi build` just made, and puts it
// next to that addon: `node tools/build-sandbox.mjs [--release] [--features testing] [--out DIR]`.
import { execFileSync, spawnSync } from 'node:child_process'
import { copyFileSync, chmodSync, mkdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const args = process.argv.slice(2)
const release = args.includes('--release')
const features = args.includes('--features') ? args[args.indexOf('--features') + 1] : undefined
const out = args.includes('--out') ? args[args.indexOf('--out') + 1] : root

const cargo = ['build', '-p', 'code-mode-sandbox', '--bin', 'code-mode-sandbox']
if (release) cargo.push('--release')
if (features) cargo.push('--features', features)
const built = spawnSync('cargo', cargo, { cwd: root, stdio: 'inherit' })
if (built.status !== 0) process.exit(built.status ?? 1)

const metadata = JSON.parse(execFileSync('cargo', ['metadata', '--format-version', '1', '--no-deps'], { cwd: root, encoding: 'utf8' }))
const name = process.platform === 'win32' ? 'code-mode-sandbox.exe' : 'code-mode-sandbox'
const from = join(metadata.target_directory, release ? 'release' : 'debug', name)
mkdirSync(out, { recursive: true })
const to = join(out, name)
copyFileSync(from, to)
chmodSync(to, 0o755)
console.log(`sandbox executable: ${to}`)
