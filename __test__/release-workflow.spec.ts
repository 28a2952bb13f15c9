// .github/workflows/release.yml cannot run here: it is parsed as YAML and checked against
// package.json, so its targets, platforms and publish steps cannot drift from the package.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parseDocument } from 'yaml'

const require = createRequire(import.meta.url)
const root = resolve(__dirname, '..')
const pkg = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8'))
const { parseTriple } = require('@napi-rs/cli') as { parseTriple: (triple: string) => { platform: string; arch: string } }

const source = readFileSync(resolve(root, '.github/workflows/release.yml'), 'utf8')
const document = parseDocument(source, { uniqueKeys: true, strict: true })
const workflow = document.toJS() as Workflow

interface Step { uses?: string; run?: string; with?: Record<string, unknown>; name?: string; shell?: string }
interface Job { needs?: string[]; if?: string; 'runs-on': string; strategy?: { matrix: Record<string, unknown> }; steps: Step[]; permissions?: Record<string, string> }
interface Workflow { on: Record<string, unknown>; jobs: Record<string, Job>; env?: Record<string, string> }
interface Settings { host: string; target: string; build?: string; architecture?: string }

// What each GitHub-hosted runner label used here is: [platform, arch] as Node names them.
const RUNNERS: Record<string, [string, string]> = {
  'ubuntu-latest': ['linux', 'x64'],
  'ubuntu-22.04': ['linux', 'x64'],
  'ubuntu-22.04-arm': ['linux', 'arm64'],
  'ubuntu-24.04-arm': ['linux', 'arm64'],
  'macos-latest': ['darwin', 'arm64'],
  'macos-15-intel': ['darwin', 'x64'],
  'windows-latest': ['win32', 'x64'],
}

const settings = (job: Job) => job.strategy!.matrix.settings as Settings[]
const runs = (job: Job) => job.steps.flatMap((s) => (s.run ? [s.run] : [])).join('\n')

describe('release workflow', () => {
  it('is valid YAML with no duplicate keys and the jobs of the napi-rs pipeline', () => {
    expect(document.errors).toEqual([])
    expect(document.warnings).toEqual([])
    expect(Object.keys(workflow.jobs)).toEqual(['test-source', 'build', 'test-binding', 'publish'])
    for (const [name, job] of Object.entries(workflow.jobs)) {
      expect(job['runs-on'], name).toBeTruthy()
      expect(job.steps.length, name).toBeGreaterThan(0)
      for (const step of job.steps) {
        expect(Boolean(step.uses) !== Boolean(step.run), `${name}: a step has exactly one of uses/run`).toBe(true)
        if (step.uses) expect(step.uses, name).toMatch(/^[\w.-]+\/[\w.-]+@v?\d+|^[\w.-]+\/[\w.-]+@stable$/)
      }
    }
  })

  it('builds every napi target on a runner of its platform and uploads its binary', () => {
    const build = workflow.jobs.build
    expect(settings(build).map((s) => s.target)).toEqual(pkg.napi.targets)
    for (const s of settings(build)) {
      expect(RUNNERS[s.host], s.host).toBeDefined()
      expect(RUNNERS[s.host][0], s.target).toBe(parseTriple(s.target).platform)
      expect(s.build).toBe(`npm run build -- --target ${s.target}`)
    }
    // tools/build.mjs: `napi build --platform --release` and the sandbox executable beside it.
    expect(pkg.scripts.build).toBe('node tools/build.mjs --release')
    const steps = build.steps
    expect(steps.find((s) => s.uses?.startsWith('dtolnay/rust-toolchain'))?.with?.targets).toBe('${{ matrix.settings.target }}')
    expect(steps.some((s) => s.run === 'npm ci')).toBe(true)
    const upload = steps.find((s) => s.uses?.startsWith('actions/upload-artifact'))!
    expect(upload.with).toMatchObject({ name: 'bindings-${{ matrix.settings.target }}', 'if-no-files-found': 'error' })
    // The addon runs every cell in its sandbox executable: both are uploaded, on every platform.
    expect(String(upload.with!.path).trim().split('\n')).toEqual(['${{ env.APP_NAME }}.*.node', '${{ env.APP_NAME }}-sandbox', '${{ env.APP_NAME }}-sandbox.exe'])
    expect(workflow.env?.APP_NAME).toBe(pkg.napi.binaryName)
  })

  it('tests each binary on its own platform and architecture, under every Node version it supports', () => {
    const test = workflow.jobs['test-binding']
    expect(test.needs).toEqual(['build'])
    expect(settings(test).map((s) => s.target).sort()).toEqual([...pkg.napi.targets].sort())
    for (const s of settings(test)) {
      const { platform, arch } = parseTriple(s.target)
      expect(RUNNERS[s.host], `${s.target} on ${s.host}`).toEqual([platform, arch])
      expect(s.architecture, s.target).toBe(arch)
    }
    const nodes = test.strategy!.matrix.node as string[]
    expect(pkg.engines.node).toBe('>= 20')
    expect(nodes).toEqual(['20', '22', '24'])
    const download = test.steps.find((s) => s.uses?.startsWith('actions/download-artifact'))!
    expect(download.with).toMatchObject({ name: 'bindings-${{ matrix.settings.target }}', path: '.' })
    // The downloaded release binary is what the tests load: nothing in this job builds one.
    expect(runs(test)).toContain('npx vitest run')
    // The OpenClaw suites need the gateway and its Node 24 (tools/setup-gateway.mjs), before them.
    expect(runs(test).indexOf('node tools/setup-gateway.mjs')).toBeGreaterThanOrEqual(0)
    expect(runs(test).indexOf('node tools/setup-gateway.mjs')).toBeLessThan(runs(test).indexOf('npx vitest run'))
    expect(runs(test)).not.toMatch(/napi build|npm run build|npm test|cargo/)
    // The downloaded sandbox executable gets its executable bit back before the suites run.
    expect(runs(test)).toContain('chmod +x code-mode-sandbox')
    expect(runs(test).indexOf('chmod +x code-mode-sandbox')).toBeLessThan(runs(test).indexOf('npx vitest run'))
  })

  it('publishes only on a version tag, after every test, through napi pre-publish and npm publish', () => {
    expect(workflow.on.push).toMatchObject({ tags: ['v*'] })
    const publish = workflow.jobs.publish
    expect(publish.if).toBe("startsWith(github.ref, 'refs/tags/v')")
    expect(publish.needs).toEqual(['test-source', 'test-binding'])
    const script = runs(publish)
    expect(script).toContain('GITHUB_REF_NAME')
    // Each sandbox executable goes into its platform package (with its executable bit) before
    // napi artifacts moves the addons, and pre-publish checks every file the packages name.
    const order = ['npm ci', 'cp "$exe" "npm/$platform/"', 'chmod +x', 'npx napi artifacts --output-dir artifacts --npm-dir npm', 'npx napi pre-publish -t npm', 'npm publish --access public']
    const positions = order.map((command) => script.indexOf(command))
    expect(positions.every((p) => p >= 0), JSON.stringify(positions)).toBe(true)
    expect([...positions].sort((a, b) => a - b)).toEqual(positions)
    const download = publish.steps.find((s) => s.uses?.startsWith('actions/download-artifact'))!
    expect(download.with).toMatchObject({ path: 'artifacts', pattern: 'bindings-*' })
    expect(publish.steps.find((s) => s.run?.includes('npm publish'))?.with ?? {}).toEqual({})
    expect(source).toContain('NODE_AUTH_TOKEN: ${{ secrets.NPM_TOKEN }}')
    // No other job publishes.
    for (const [name, job] of Object.entries(workflow.jobs)) {
      if (name !== 'publish') expect(runs(job), name).not.toMatch(/npm publish|pre-publish/)
    }
  })

  it('runs the repository check (.ci/run) as a job', () => {
    expect(runs(workflow.jobs['test-source'])).toBe('.ci/run')
  })

  it('has the repository check run the README\'s test command and every gate, cheapest first', () => {
    const check = readFileSync(resolve(root, '.ci/run'), 'utf8')
    const order = [
      'cargo fmt --all --check',
      'cargo clippy --workspace --all-targets --features testing -- -D warnings',
      'npm ci',
      'npm test',
      'tools/ci/check-bindings.sh',
      'tools/ci/fuzz-smoke.sh',
      'tools/ci/quickjs-asan.sh',
    ]
    // `step <name> <command>` lines, in the order they run.
    const steps = check.split('\n').flatMap((line) => /^step [\w-]+ (.*)$/.exec(line)?.slice(1) ?? [])
    const positions = order.map((command) => steps.indexOf(command))
    expect(positions.every((p) => p >= 0), JSON.stringify(positions)).toBe(true)
    expect([...positions].sort((a, b) => a - b)).toEqual(positions)
    expect(check).toMatch(/^set -euo pipefail$/m)
  })
})
