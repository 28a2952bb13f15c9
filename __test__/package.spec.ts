// `npm run package` as a new user meets it: the tarballs it writes install into an empty project
// (offline) and the package loads there through require and ESM imports, its CLI runs, a cell
// runs, and its types resolve for CommonJS and ES module consumers; the self-contained tarball
// installs alone. And what it refuses: a debug or testing build, an output folder that is not its own.
import { spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SANDBOX_REQUIRED, selfContainedTarball, tarballPrefix } from '../tools/package.mjs'
import { TESTING_SANDBOX_MARKER } from '../tools/binaries.mjs'
import { elf, packableAddon, userEnv } from './support/binaries'

const require = createRequire(import.meta.url)
const root = resolve(__dirname, '..')
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
const tsc = require.resolve('typescript/bin/tsc')
const { parseTriple } = require('@napi-rs/cli') as { parseTriple: (triple: string) => { platformArchABI: string } }
const platforms: string[] = pkg.napi.targets.map((t: string) => parseTriple(t).platformArchABI)

const work = mkdtempSync(join(tmpdir(), 'code-mode-package-spec-'))
const out = join(work, 'out')
const project = join(work, 'project')
const selfProject = join(work, 'self-contained')
const prefix: string = tarballPrefix(pkg.name)
const mainTarball = `${prefix}-${pkg.version}.tgz`
let platform: string
let sandbox: string | undefined
let nativeTarball: string
let selfTarball: string

afterAll(() => rmSync(work, { recursive: true, force: true }))

/** npm: the one running the tests when started by npm, else the one on PATH. */
function npm(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}) {
  const execPath = process.env.npm_execpath
  const [command, commandArgs] = execPath && /\.[cm]?js$/.test(execPath) ? [process.execPath, [execPath, ...args]] : ['npm', args]
  return spawnSync(command, commandArgs, { cwd, encoding: 'utf8', env: userEnv(env), shell: command === 'npm' && process.platform === 'win32', timeout: 240_000 })
}

/** Node in an installed project, loading the addon as a user's process does. */
function node(args: string[], cwd = project) {
  return spawnSync(process.execPath, args, { cwd, encoding: 'utf8', env: userEnv(), timeout: 60_000 })
}

/** tools/package.mjs itself (what `npm run package` runs), for the refusals. */
function packageScript(args: string[]) {
  return spawnSync(process.execPath, [join(root, 'tools', 'package.mjs'), ...args], { cwd: root, encoding: 'utf8', timeout: 60_000 })
}

/** The file list, modes and package.json of an npm tarball (ustar entries under `package/`). */
function tarball(file: string) {
  const data = gunzipSync(readFileSync(file))
  const entries = new Map<string, Buffer>()
  const modes = new Map<string, number>()
  for (let offset = 0; offset + 512 <= data.length; ) {
    const header = data.subarray(offset, offset + 512)
    if (header.every((b) => b === 0)) break
    const field = (start: number, length: number) => header.subarray(start, start + length).toString('utf8').replace(/\0.*$/s, '')
    const name = [field(345, 155), field(0, 100)].filter(Boolean).join('/').replace(/^package\//, '')
    const size = parseInt(field(124, 12).trim() || '0', 8)
    if (field(156, 1) === '0' || field(156, 1) === '') {
      entries.set(name, data.subarray(offset + 512, offset + 512 + size))
      modes.set(name, parseInt(field(100, 8).trim() || '0', 8))
    }
    offset += 512 + Math.ceil(size / 512) * 512
  }
  return { files: [...entries.keys()].sort(), modes, manifest: JSON.parse(entries.get('package.json')!.toString('utf8')) }
}

beforeAll(() => {
  const addon = packableAddon(join(work, 'artifacts'))
  platform = addon.platform
  sandbox = addon.sandbox
  // Until the addon starts its sandbox executable, a stand-in (a small executable of this
  // system) shows where the packages put one.
  if (!sandbox && !SANDBOX_REQUIRED && process.platform !== 'win32' && existsSync('/bin/true')) {
    sandbox = join(work, 'artifacts', 'code-mode-sandbox')
    copyFileSync('/bin/true', sandbox)
  }
  nativeTarball = `${prefix}-${platform}-${pkg.version}.tgz`
  selfTarball = selfContainedTarball(pkg.name, pkg.version, platform)
  // An earlier run's tarball in the output folder is replaced.
  mkdirSync(out)
  writeFileSync(join(out, `${prefix}-0.0.1.tgz`), 'an earlier tarball')

  const packed = npm(['run', 'package', '--', '--out', out, ...addon.args], root)
  if (packed.status !== 0) throw new Error(`npm run package failed:\n${packed.stdout}\n${packed.stderr}`)

  mkdirSync(project)
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }))
  // Offline, with an empty cache: nothing but the two tarballs can be installed, so the package
  // must need no registry package (the other platforms' optional packages are skipped).
  const installed = npm(
    ['install', '--offline', '--no-audit', '--no-fund', '--cache', join(work, 'cache'), join(out, mainTarball), join(out, nativeTarball)],
    project,
  )
  if (installed.status !== 0) throw new Error(`npm install of the tarballs failed:\n${installed.stdout}\n${installed.stderr}`)

  // The self-contained tarball alone, in a project of its own: nothing else can be installed.
  mkdirSync(selfProject)
  writeFileSync(join(selfProject, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }))
  const alone = npm(['install', '--offline', '--no-audit', '--no-fund', '--cache', join(work, 'cache-self'), join(out, selfTarball)], selfProject)
  if (alone.status !== 0) throw new Error(`npm install of the self-contained tarball failed:\n${alone.stdout}\n${alone.stderr}`)
}, 300_000)

describe('npm run package', () => {
  it('writes the main tarball (no binary, every platform as an optional dependency), this platform\'s binary tarball and a self-contained one, replacing earlier tarballs', () => {
    const main = mainTarball
    const native = nativeTarball
    expect(readdirSync(out).sort()).toEqual([main, native, selfTarball].sort())

    const { files, manifest } = tarball(join(out, main))
    expect(files).toEqual(expect.arrayContaining(['LICENSE', 'README.md', 'index.js', 'index.mjs', 'index.d.ts', 'index.d.mts', 'binding.js', 'guest.d.ts', 'guest-openclaw.d.ts', 'bin/code-mode.js', 'lib/cli.js', 'lib/check.js']))
    expect(files.filter((f) => f.endsWith('.node'))).toEqual([])
    expect(manifest.optionalDependencies).toEqual(Object.fromEntries(platforms.map((p) => [`${pkg.name}-${p}`, pkg.version])))
    expect(Object.keys(manifest.optionalDependencies)).toHaveLength(5)
    expect(manifest.dependencies ?? {}).toEqual({})

    expect(files.filter((f) => f.startsWith('code-mode-sandbox'))).toEqual([])

    // The platform's files: the addon and, beside it, the sandbox executable (executable).
    const sandboxName = platform.startsWith('win32-') ? 'code-mode-sandbox.exe' : 'code-mode-sandbox'
    const platformFiles = [`code-mode.${platform}.node`, ...(sandbox ? [sandboxName] : [])]
    const binaryPackage = tarball(join(out, native))
    expect(binaryPackage.files).toEqual(['README.md', ...platformFiles, 'package.json'].sort())
    expect(binaryPackage.manifest).toMatchObject({ name: `${pkg.name}-${platform}`, version: pkg.version, main: `code-mode.${platform}.node` })
    if (sandbox) expect(binaryPackage.modes.get(sandboxName)! & 0o111).toBe(0o111)

    // The self-contained package: the main package with them at its root, nothing to fetch,
    // and installable only on this platform.
    const self = tarball(join(out, selfTarball))
    expect(self.files).toEqual([...files, ...platformFiles].sort())
    expect(self.manifest.name).toBe(pkg.name)
    expect(self.manifest.version).toBe(pkg.version)
    expect(self.manifest.optionalDependencies).toBeUndefined()
    expect(self.manifest.dependencies ?? {}).toEqual({})
    expect(self.manifest.files).toEqual([...pkg.files, ...platformFiles])
    for (const key of ['os', 'cpu', 'libc']) expect(self.manifest[key], key).toEqual(binaryPackage.manifest[key])
    if (sandbox) expect(self.modes.get(sandboxName)! & 0o111).toBe(0o111)
  })

  it('installs the self-contained tarball alone, offline, and runs a cell on the binary inside it', () => {
    const installed = join(selfProject, 'node_modules', pkg.name)
    expect(existsSync(join(installed, `code-mode.${platform}.node`))).toBe(true)
    expect(readdirSync(join(selfProject, 'node_modules', '@openclaw'))).toEqual(['code-mode'])
    const { status, stdout, stderr } = node(['-e', `
      const { CodeModeRun } = require('${pkg.name}')
      const run = CodeModeRun.create({ config: { enabled: true }, runId: 'self', tools: [{ name: 'add', parameters: { type: 'object' } }], executor: (call) => call.input.a + call.input.b })
      run.exec({ code: 'return await tools.add({ a: 2, b: 3 })' }).then((result) => console.log(JSON.stringify({ result, addon: Object.keys(require.cache).filter((f) => f.endsWith('.node')) })))`], selfProject)
    expect(stderr).toBe('')
    expect(status).toBe(0)
    const { result, addon } = JSON.parse(stdout)
    expect(result).toMatchObject({ status: 'completed', value: 5 })
    expect(addon.map((f: string) => realpathSync(f))).toEqual([realpathSync(join(installed, `code-mode.${platform}.node`))])
  })

  it('keeps every npm/<platform> package at the main version, and engines the same everywhere', () => {
    for (const p of platforms) {
      const manifest = JSON.parse(readFileSync(join(root, 'npm', p, 'package.json'), 'utf8'))
      // Scoped packages are private on a first publish unless they say otherwise (napi pre-publish runs a plain npm publish).
      expect(manifest, p).toMatchObject({ name: `${pkg.name}-${p}`, version: pkg.version, license: pkg.license, engines: pkg.engines, publishConfig: { access: 'public' } })
    }
    expect(pkg.publishConfig).toEqual({ access: 'public' })
    expect(readFileSync(join(root, 'LICENSE'), 'utf8')).toMatch(/^MIT License/)
    expect(pkg.license).toBe('MIT')
  })

  it('loads with require in a clean project, its binary from the platform package', () => {
    const { status, stdout, stderr } = node(['-e', `
      const m = require('${pkg.name}')
      m.assertCodeModePayload(['exec', 'wait'])
      console.log(JSON.stringify({ keys: Object.keys(m), binary: require.resolve('${pkg.name}-${platform}'), enabled: m.resolveCodeModeConfig(true).enabled }))`])
    expect(stderr).toBe('')
    expect(status).toBe(0)
    const result = JSON.parse(stdout)
    expect(result.keys.sort()).toEqual(Object.keys(require('../index.js')).sort())
    expect(realpathSync(result.binary)).toBe(realpathSync(join(project, 'node_modules', `${pkg.name}-${platform}`, `code-mode.${platform}.node`)))
    expect(result.enabled).toBe(true)
    expect(existsSync(join(project, 'node_modules', pkg.name, `code-mode.${platform}.node`))).toBe(false)
  })

  it('imports every export by name under ESM and runs a cell', () => {
    const names = Object.keys(require('../index.js'))
    const { status, stdout, stderr } = node(['--input-type=module', '-e', `
      import { ${names.join(', ')} } from '${pkg.name}'
      import * as all from '${pkg.name}'
      const types = [${names.join(', ')}].map((value) => typeof value)
      const run = CodeModeRun.create({ config: { enabled: true }, runId: 'esm', tools: [{ name: 'add', parameters: { type: 'object' } }], executor: (call) => call.input.a + call.input.b })
      const result = await run.exec({ code: 'const sum = await tools.add({ a: 2, b: 3 }); text("sum " + sum); return sum * 2' })
      console.log(JSON.stringify({ types, names: Object.keys(all), result }))`])
    expect(stderr).toBe('')
    expect(status).toBe(0)
    const result = JSON.parse(stdout)
    expect(result.types).toEqual(names.map(() => 'function'))
    expect(result.names.filter((n: string) => n !== 'default').sort()).toEqual([...names].sort())
    expect(result.result).toMatchObject({ status: 'completed', value: 10, output: [{ type: 'text', text: 'sum 5' }] })
  })

  it('runs npx code-mode --help, run and check (check asks for typescript, which is not installed)', () => {
    const env = { npm_config_offline: 'true', npm_config_cache: join(work, 'cache') }
    const help = npm(['exec', '--', 'code-mode', '--help'], project, env)
    expect(help.status).toBe(0)
    expect(help.stdout).toContain('Usage: code-mode run <cell.js|cell.ts>')

    copyFileSync(join(root, 'examples/cli/cell.ts'), join(project, 'cell.ts'))
    copyFileSync(join(root, 'examples/cli/tools.json'), join(project, 'tools.json'))
    const run = npm(['exec', '--', 'code-mode', 'run', 'cell.ts', '--tools', 'tools.json', '--json'], project, env)
    expect(run.status).toBe(0)
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'completed', value: { lines: 3, deploy: 'healthy' } })

    const check = npm(['exec', '--', 'code-mode', 'check', 'cell.ts'], project, env)
    expect(check.status).toBe(2)
    expect(check.stderr).toContain('check needs the "typescript" package, an optional peer dependency')
    expect(existsSync(join(project, 'node_modules', 'typescript'))).toBe(false)
  })

  it('gives CommonJS and ES module consumers its types (module nodenext, lib es2023, no type packages)', () => {
    const names = Object.keys(require('../index.js'))
    writeFileSync(join(project, 'esm.mts'), `import codeMode, { ${names.join(', ')}, type NestedToolCall } from '${pkg.name}'
export const all = [codeMode.CodeModeRun, ${names.join(', ')}]
export const signal = (call: NestedToolCall): boolean => call.signal.aborted
import type { CreateTestRunOptions } from '${pkg.name}/testing'
export type T = CreateTestRunOptions
`)
    writeFileSync(join(project, 'cjs.cts'), `import codeMode = require('${pkg.name}')
export const run: typeof codeMode.CodeModeRun = codeMode.CodeModeRun
`)
    writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({
      compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', lib: ['es2023'], types: [], strict: true, noEmit: true, skipLibCheck: false },
      files: ['esm.mts', 'cjs.cts'],
    }))
    const result = node([tsc, '-p', project])
    expect(result.stdout).toBe('')
    expect(result.status).toBe(0)
  })
})

describe('npm run package refuses', () => {
  // Synthetic ELF files stand in for binaries: the checks read the file, they do not load it.
  const clean = elf([{ name: '.text' }, { name: '.rodata' }])
  function artifacts(name: string, files: Record<string, Buffer>) {
    const dir = join(work, 'refusals', name)
    mkdirSync(dir, { recursive: true })
    for (const [file, bytes] of Object.entries(files)) writeFileSync(join(dir, file), bytes)
    return dir
  }
  const refused = (result: ReturnType<typeof packageScript>, outDir: string) => {
    expect(result.status).toBe(1)
    expect(result.stdout).toBe('')
    expect(existsSync(outDir)).toBe(false)
    return result.stderr
  }

  it('a binary with debug info (npm run build:debug), naming the file and what it carries', () => {
    const dir = artifacts('debug', { 'code-mode.linux-x64-gnu.node': elf([{ name: '.text' }, { name: '.debug_info' }, { name: '.debug_line' }]), 'code-mode-sandbox': clean })
    const stderr = refused(packageScript(['--artifacts', dir, '--out', join(dir, 'out')]), join(dir, 'out'))
    expect(stderr).toMatch(/^package: refusing to pack:\n {2}\S*code-mode\.linux-x64-gnu\.node: it carries debug info \(\.debug_info, \.debug_line\)\n/)
    expect(stderr).toContain('npm run build gives a release build')
  })

  it('a testing build (its __test* exports), even without debug info', () => {
    const dir = artifacts('testing', { 'code-mode.linux-x64-gnu.node': Buffer.concat([clean, Buffer.from('\0__testPanic\0__testStall\0')]), 'code-mode-sandbox': clean })
    const stderr = refused(packageScript(['--artifacts', dir, '--out', join(dir, 'out')]), join(dir, 'out'))
    expect(stderr).toContain('code-mode.linux-x64-gnu.node: it is a testing build: it exports __testPanic, __testStall')
  })

  it('a testing sandbox executable beside a release addon', () => {
    const dir = artifacts('sandbox', {
      'code-mode.linux-x64-gnu.node': clean,
      'code-mode-sandbox': Buffer.concat([clean, Buffer.from(`\0${TESTING_SANDBOX_MARKER}\0`)]),
    })
    const stderr = refused(packageScript(['--artifacts', dir, '--out', join(dir, 'out')]), join(dir, 'out'))
    expect(stderr).toContain(`code-mode-sandbox: it is a testing build ("${TESTING_SANDBOX_MARKER}")`)
    expect(stderr).not.toContain('code-mode.linux-x64-gnu.node:')
  })

  it.runIf(SANDBOX_REQUIRED)('an addon without its sandbox executable', () => {
    const dir = artifacts('no-sandbox', { 'code-mode.linux-x64-gnu.node': clean })
    const stderr = refused(packageScript(['--artifacts', dir, '--out', join(dir, 'out')]), join(dir, 'out'))
    expect(stderr).toContain('has no code-mode-sandbox beside code-mode.linux-x64-gnu.node')
  })

  it('an output folder holding anything but earlier tarballs of this package, and leaves it as it was', () => {
    const dir = artifacts('out', { 'code-mode.linux-x64-gnu.node': clean })
    const home = join(dir, 'home')
    mkdirSync(join(home, 'notes'), { recursive: true })
    writeFileSync(join(home, 'notes.txt'), 'mine')
    writeFileSync(join(home, `${prefix}-0.0.1.tgz`), 'an earlier tarball')
    const result = packageScript(['--artifacts', dir, '--out', home])
    expect(result.status).toBe(1)
    expect(result.stderr).toMatch(/holds files that are not tarballs of this package \((notes, notes\.txt|notes\.txt, notes)\); give --out an empty or new folder \(nothing was written or removed\)/)
    expect(readdirSync(home).sort()).toEqual(['notes', 'notes.txt', `${prefix}-0.0.1.tgz`])
    expect(readFileSync(join(home, 'notes.txt'), 'utf8')).toBe('mine')
  })
})
