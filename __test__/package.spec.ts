// `npm run package` as a new user meets it: the tarballs it writes install into an empty project
// (offline) and the package loads there through require and ESM imports, its CLI runs, a cell
// runs, and its types resolve for CommonJS and ES module consumers.
import { spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { beforeAll, describe, expect, it } from 'vitest'

const require = createRequire(import.meta.url)
const root = resolve(__dirname, '..')
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
const tsc = require.resolve('typescript/bin/tsc')
const { parseTriple } = require('@napi-rs/cli') as { parseTriple: (triple: string) => { platformArchABI: string } }
const platforms: string[] = pkg.napi.targets.map((t: string) => parseTriple(t).platformArchABI)

const work = mkdtempSync(join(tmpdir(), 'code-mode-package-spec-'))
const out = join(work, 'out')
const project = join(work, 'project')
// The binary built here (npm test builds a debug one first).
const binary = readdirSync(root).find((f) => /^code-mode\.[\w-]+\.node$/.test(f))
const platform = binary?.split('.')[1]

/** npm: the one running the tests when started by npm, else the one on PATH. */
function npm(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}) {
  const execPath = process.env.npm_execpath
  const [command, commandArgs] = execPath && /\.[cm]?js$/.test(execPath) ? [process.execPath, [execPath, ...args]] : ['npm', args]
  return spawnSync(command, commandArgs, { cwd, encoding: 'utf8', env: { ...process.env, ...env }, shell: command === 'npm' && process.platform === 'win32', timeout: 240_000 })
}

function node(args: string[]) {
  return spawnSync(process.execPath, args, { cwd: project, encoding: 'utf8', timeout: 60_000 })
}

/** The file list and package.json of an npm tarball (ustar entries under `package/`). */
function tarball(file: string) {
  const data = gunzipSync(readFileSync(file))
  const entries = new Map<string, Buffer>()
  for (let offset = 0; offset + 512 <= data.length; ) {
    const header = data.subarray(offset, offset + 512)
    if (header.every((b) => b === 0)) break
    const field = (start: number, length: number) => header.subarray(start, start + length).toString('utf8').replace(/\0.*$/s, '')
    const name = [field(345, 155), field(0, 100)].filter(Boolean).join('/')
    const size = parseInt(field(124, 12).trim() || '0', 8)
    if (field(156, 1) === '0' || field(156, 1) === '') entries.set(name.replace(/^package\//, ''), data.subarray(offset + 512, offset + 512 + size))
    offset += 512 + Math.ceil(size / 512) * 512
  }
  return { files: [...entries.keys()].sort(), manifest: JSON.parse(entries.get('package.json')!.toString('utf8')) }
}

beforeAll(() => {
  if (!binary) throw new Error('no code-mode.<platform>.node in the package root: npm run build:debug first')
  // The debug build carries ~100 MB of debug info, which would make packing and installing it
  // take minutes here; the test packages a copy without it (where `strip` is at hand).
  const artifacts = join(work, 'artifacts')
  mkdirSync(artifacts)
  const stripped = process.platform === 'linux' && spawnSync('strip', ['--strip-debug', '-o', join(artifacts, binary), join(root, binary)]).status === 0
  if (!stripped) copyFileSync(join(root, binary), join(artifacts, binary))

  const packed = npm(['run', 'package', '--', '--out', out, '--artifacts', artifacts], root)
  if (packed.status !== 0) throw new Error(`npm run package failed:\n${packed.stdout}\n${packed.stderr}`)

  mkdirSync(project)
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }))
  // Offline, with an empty cache: nothing but the two tarballs can be installed, so the package
  // must need no registry package (the other platforms' optional packages are skipped).
  const installed = npm(
    ['install', '--offline', '--no-audit', '--no-fund', '--cache', join(work, 'cache'), ...readdirSync(out).map((f) => join(out, f))],
    project,
  )
  if (installed.status !== 0) throw new Error(`npm install of the tarballs failed:\n${installed.stdout}\n${installed.stderr}`)
}, 300_000)

describe('npm run package', () => {
  it('writes the main tarball (no binary, every platform as an optional dependency) and this platform\'s binary tarball', () => {
    const main = `${pkg.name.replace('@', '').replace('/', '-')}-${pkg.version}.tgz`
    const native = `${pkg.name.replace('@', '').replace('/', '-')}-${platform}-${pkg.version}.tgz`
    expect(readdirSync(out).sort()).toEqual([main, native].sort())

    const { files, manifest } = tarball(join(out, main))
    expect(files).toEqual(expect.arrayContaining(['LICENSE', 'README.md', 'index.js', 'index.mjs', 'index.d.ts', 'index.d.mts', 'binding.js', 'guest.d.ts', 'guest-openclaw.d.ts', 'bin/code-mode.js', 'lib/cli.js', 'lib/check.js']))
    expect(files.filter((f) => f.endsWith('.node'))).toEqual([])
    expect(manifest.optionalDependencies).toEqual(Object.fromEntries(platforms.map((p) => [`${pkg.name}-${p}`, pkg.version])))
    expect(Object.keys(manifest.optionalDependencies)).toHaveLength(5)
    expect(manifest.dependencies ?? {}).toEqual({})

    const binaryPackage = tarball(join(out, native))
    expect(binaryPackage.files).toEqual(['README.md', `code-mode.${platform}.node`, 'package.json'])
    expect(binaryPackage.manifest).toMatchObject({ name: `${pkg.name}-${platform}`, version: pkg.version, main: `code-mode.${platform}.node` })
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
