// The plugin-author kit for the guest API OpenClaw ships: createOpenClawTestRun
// (@openclaw/code-mode/testing), `code-mode run --openclaw` and `code-mode check --openclaw`, all
// driving the real gateway (openclaw, a devDependency) with this package as its quickjs executor.
//  - A plugin author's vitest suite (fixtures/plugin-author/orders.test.mjs) runs from a packed
//    install, in a project of its own, and compares every cell with upstream's bundled executor.
//  - The CLI runs and type-checks cells the gateway's way.
//  - Each refusal (no openclaw, an old one, a Node older than openclaw needs) is one line naming
//    what is missing and the command that fixes it; exit status 2 / an Error with a `code`.
// openclaw needs Node >= 24.16: the gateway parts run under the Node 24 of tools/node24 (Linux x64
// only, elsewhere skipped); this file runs under the tests' Node.
import { spawnSync } from 'node:child_process'
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { packableAddon, userEnv } from './support/binaries'

const require = createRequire(import.meta.url)
const root = resolve(__dirname, '..')
const bin = join(root, 'bin', 'code-mode.js')
const node24 = require('../tools/node24').binary as string
const linuxX64 = process.platform === 'linux' && process.arch === 'x64'
const harness = require('../lib/openclaw-gateway.js')
const openclaw = JSON.parse(readFileSync(join(root, 'node_modules', 'openclaw', 'package.json'), 'utf8'))
/** True when the Node running this file is older than openclaw needs (npm test's Node 20). */
const nodeTooOld = !harness.satisfies(process.versions.node, openclaw.engines.node)

const work = mkdtempSync(join(tmpdir(), 'code-mode-kit-spec-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))

function file(name: string, text: string) {
  const path = join(work, name)
  writeFileSync(path, text)
  return path
}

/** Runs `args` under `node` with a fresh OpenClaw state; never throws. */
function run(node: string, args: string[], options: { cwd?: string; timeout?: number } = {}) {
  const r = spawnSync(node, args, {
    cwd: options.cwd ?? work,
    encoding: 'utf8',
    timeout: options.timeout ?? 120_000,
    env: { ...process.env, OPENCLAW_STATE_DIR: mkdtempSync(join(work, 'state-')), OPENCLAW_HOME: mkdtempSync(join(work, 'home-')) },
  })
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, error: r.error }
}

// --- what the CLI cells run against ----------------------------------------------------------
const toolsFile = file(
  'tools.json',
  JSON.stringify({
    tools: [
      {
        name: 'lookup_order',
        sourceName: 'orders',
        description: 'Look up an order by its id',
        parameters: { type: 'object', required: ['id'], properties: { id: { type: 'string' } }, additionalProperties: false },
        outputSchema: { type: 'object', required: ['id', 'status'], properties: { id: { type: 'string' }, status: { type: 'string' } }, additionalProperties: false },
      },
      { name: 'sales_report', sourceName: 'orders', description: 'Build the sales report (slow)', parameters: { type: 'object', properties: {} } },
      { name: 'refund_order', sourceName: 'orders', description: 'Refund an order', parameters: { type: 'object', properties: { id: { type: 'string' } } } },
      { name: 'search', source: 'mcp', sourceName: 'docs', description: 'Search the docs', parameters: { type: 'object', required: ['q'], properties: { q: { type: 'string' } } } },
    ],
    responses: {
      lookup_order: { id: 'A1', status: 'shipped' },
      sales_report: { $delayMs: 400, $value: { ready: true } },
      refund_order: { $error: 'order A1 has shipped' },
      search: { hits: ['code mode'] },
    },
  }),
)

/** A correct cell: tool global with a declared output, catalog handle, results, MCP, TextEncoder. */
const GOOD = `const order = await lookup_order({ id: 'A1' })
const [report] = await catalog.search('sales report', { limit: 1 })
const saved = await results.save(order)
const docs = await MCP.docs.search({ q: 'code mode' })
text(\`\${order.status} \${saved.count} \${report.callableName}\`)
const bytes = new TextEncoder().encode(order.id).length
return { status: order.status, bytes, back: await results.load(saved.id), docs: docs.structuredContent, report: await report({}) }
`

describe.runIf(linuxX64)('code-mode run/check --openclaw (the real gateway, Node 24)', () => {
  beforeAll(() => {
    expect(existsSync(node24), 'tools/node24 provides Node 24 (npm install --prefix tools/node24)').toBe(true)
  })

  it('runs a cell the gateway way: tool globals, catalog, results, MCP tools from tools.json, waits followed', () => {
    const good = file('good.js', GOOD)
    const r = run(node24, [bin, 'run', '--openclaw', good, '--tools', toolsFile, '--config', '{"timeoutMs": 200}', '--json'])
    expect(r.stderr).toBe('')
    expect(r.status).toBe(0)
    const report = JSON.parse(r.stdout)
    expect(report).toMatchObject({
      status: 'completed',
      value: { status: 'shipped', bytes: 2, back: { id: 'A1', status: 'shipped' }, docs: { hits: ['code mode'] }, report: { ready: true } },
      output: [{ type: 'text', text: 'shipped 2 sales_report' }],
    })
    // The 400 ms report outlives the 200 ms leg: the cell waited.
    expect(report.legs).toBeGreaterThan(1)
    expect(report.calls.map((c: { toolId: string }) => c.toolId)).toEqual(['lookup_order', 'docs__search', 'sales_report'])

    const failing = file('failing.js', 'await refund_order({ id: "A1" })')
    const f = run(node24, [bin, 'run', '--openclaw', failing, '--tools', toolsFile])
    expect(f.status).toBe(1)
    expect(f.stdout).toContain('error [internal_error] Error: order A1 has shipped')
    expect(f.stdout).toContain('failure phase: bridge')

    const ts = file('cell.ts', 'return 1')
    const usage = run(node24, [bin, 'run', '--openclaw', ts, '--tools', toolsFile])
    expect(usage.status).toBe(2)
    expect(usage.stderr).toContain('--openclaw runs plain JavaScript cells only')
  }, 120_000)

  it('check --openclaw passes a correct cell and catches a wrong tool argument and a misspelt catalog method', () => {
    const good = run(node24, [bin, 'check', '--openclaw', file('good-check.js', GOOD), '--tools', toolsFile])
    expect(good.stderr).toBe('')
    expect(good.stdout).toMatch(/good-check\.js: no type errors \(TypeScript [\d.]+; guest-openclaw\.d\.ts, results\.d\.ts, mcp\/index\.d\.ts, mcp\/docs\.d\.ts, tools\/lookup_order\.d\.ts, tools\/refund_order\.d\.ts, tools\/sales_report\.d\.ts\)/)
    expect(good.status).toBe(0)

    const code = 'const order = await lookup_order({ id: 42 })\nconst hits = await catalog.serch("orders")\nreturn [order, hits]\n'
    const bad = run(node24, [bin, 'check', '--openclaw', file('bad-check.js', code), '--tools', toolsFile, '--json'])
    expect(bad.status).toBe(1)
    const report = JSON.parse(bad.stdout)
    expect(report.diagnostics).toMatchObject([
      { category: 'error', code: 2322, line: 1, column: code.indexOf('id: 42') + 1, message: "Type 'number' is not assignable to type 'string'." },
      { category: 'error', code: 2551, line: 2, column: 'const hits = await catalog.'.length + 1, message: expect.stringContaining("Property 'serch' does not exist on type 'ToolCatalog'") },
    ])
    expect(report.errors).toBe(2)
  }, 120_000)

  it('the gateway hands the executor exactly the tools.codeMode keys the CLI warns about', () => {
    const script = file(
      'config-keys.cjs',
      `const api = require(${JSON.stringify(join(root, 'code-mode-executor-api.js'))})
const { createGateway } = require(${JSON.stringify(join(root, 'lib/openclaw-gateway.js'))})
const execute = api.codeModeExecutor.execute
let keys
api.codeModeExecutor.execute = function (input, options) { keys = Object.keys(input.config).sort(); return execute.call(this, input, options) }
;(async () => {
  const noop = { name: 'noop', description: 'x', parameters: { type: 'object', properties: {} }, execute: async () => ({ content: [], details: null }) }
  const gateway = await createGateway({ tools: [noop] })
  await gateway.exec.execute('c1', { code: 'return 1' })
  await gateway.cleanup()
  console.log(JSON.stringify(keys))
  process.exit(0)
})()`,
    )
    const r = run(node24, [script])
    expect(r.stderr).toBe('')
    expect(JSON.parse(r.stdout)).toEqual([...harness.OPENCLAW_CONFIG_KEYS].sort())
  }, 120_000)
})

describe('a run whose cleanup a test forgot', () => {
  it.runIf(linuxX64)('leaves no directory of its own behind when the process exits (its MCP workspace included)', () => {
    const tmp = mkdtempSync(join(work, 'forgot-'))
    const script = file(
      'forgot-cleanup.cjs',
      `const { createOpenClawTestRun } = require(${JSON.stringify(join(root, 'lib/testing.js'))})
;(async () => {
  const server = require.resolve('@modelcontextprotocol/server-memory/dist/index.js', { paths: [${JSON.stringify(root)}] })
  const run = await createOpenClawTestRun({ mcpServers: { memory: { command: process.execPath, args: [server], env: { MEMORY_FILE_PATH: ${JSON.stringify(join(work, 'forgot-memory.jsonl'))} } } } })
  const r = await run.execUntilDone('return Object.keys(MCP.memory).length > 0')
  console.log(JSON.stringify({ status: r.status, value: r.value }))
  process.exit(0)
})()`,
    )
    const r = spawnSync(node24, [script], { cwd: work, encoding: 'utf8', timeout: 120_000, env: { ...process.env, TMPDIR: tmp, TMP: tmp, TEMP: tmp, OPENCLAW_STATE_DIR: '', OPENCLAW_HOME: '' } })
    expect(r.stderr).toBe('')
    expect(JSON.parse(r.stdout)).toEqual({ status: 'completed', value: true })
    // Node's compile cache, which openclaw turns on in its processes, lives there by design.
    expect(readdirSync(tmp).filter((name) => name !== 'node-compile-cache')).toEqual([])
  }, 120_000)
})

// --- refusals ------------------------------------------------------------------------------------

/** A copy of the package without node_modules (so without openclaw), with `openclaw` as given. */
function packageCopy(openclawVersion?: string) {
  const dir = mkdtempSync(join(work, 'pkg-'))
  for (const f of ['bin', 'lib', 'index.js', 'binding.js', 'package.json', 'guest.d.ts', 'guest-openclaw.d.ts', 'code-mode-executor-api.js', 'openclaw.plugin.json']) {
    cpSync(join(root, f), join(dir, f), { recursive: true })
  }
  if (openclawVersion) {
    mkdirSync(join(dir, 'node_modules', 'openclaw'), { recursive: true })
    writeFileSync(join(dir, 'node_modules', 'openclaw', 'package.json'), JSON.stringify({ name: 'openclaw', version: openclawVersion, engines: { node: '>=22' } }))
  }
  return dir
}

/** The helper's refusal, under `node`, in a package copy: `{ code, message }`. */
function helperRefusal(node: string, dir: string) {
  const script = join(dir, 'refusal.cjs')
  writeFileSync(
    script,
    `require('./lib/testing.js').createOpenClawTestRun({ tools: [] }).then(
  () => console.log(JSON.stringify({ resolved: true })),
  (e) => console.log(JSON.stringify({ code: e.code, message: e.message, error: e instanceof Error })),
)`,
  )
  const r = run(node, [script], { cwd: dir })
  expect(r.stderr).toBe('')
  return JSON.parse(r.stdout)
}

describe('refusals: one line naming what is missing and the command that fixes it', () => {
  const cell = file('refused.js', 'return 1')

  it.runIf(linuxX64)('no openclaw installed: CLI status 2, helper ERR_CODE_MODE_OPENCLAW_MISSING', () => {
    const dir = packageCopy()
    for (const command of ['run', 'check']) {
      const r = run(node24, [join(dir, 'bin', 'code-mode.js'), command, '--openclaw', cell, '--tools', toolsFile], { cwd: dir })
      expect(r.status).toBe(2)
      expect(r.stdout).toBe('')
      expect(r.stderr).toBe(`code-mode: ${command} --openclaw runs cells through the openclaw gateway (>= 2026.9.6), and openclaw is not installed: npm install --save-dev openclaw@latest\n`)
    }
    expect(helperRefusal(node24, dir)).toEqual({
      code: 'ERR_CODE_MODE_OPENCLAW_MISSING',
      error: true,
      message: 'createOpenClawTestRun runs cells through the openclaw gateway (>= 2026.9.6), and openclaw is not installed: npm install --save-dev openclaw@latest',
    })
  }, 60_000)

  it.runIf(linuxX64)('an openclaw older than 2026.9.6: CLI status 2, helper ERR_CODE_MODE_OPENCLAW_VERSION', () => {
    const dir = packageCopy('2026.8.1')
    const r = run(node24, [join(dir, 'bin', 'code-mode.js'), 'run', '--openclaw', cell, '--tools', toolsFile], { cwd: dir })
    expect(r.status).toBe(2)
    expect(r.stderr).toMatch(/^code-mode: run --openclaw needs openclaw >= 2026\.9\.6; found 2026\.8\.1 in \S+: npm install --save-dev openclaw@latest\n$/)
    const refusal = helperRefusal(node24, dir)
    expect(refusal).toMatchObject({ code: 'ERR_CODE_MODE_OPENCLAW_VERSION', error: true })
    expect(refusal.message).toMatch(/^createOpenClawTestRun needs openclaw >= 2026\.9\.6; found 2026\.8\.1 in .*: npm install --save-dev openclaw@latest$/)
  }, 60_000)

  it('a Node older than openclaw needs: the check reads openclaw\'s engines and names the Node to install', () => {
    let error: { code?: string; message?: string } = {}
    try {
      harness.requireOpenClaw({ who: 'createOpenClawTestRun', nodeVersion: '20.19.0' })
    } catch (e) {
      error = e as typeof error
    }
    expect(error.code).toBe('ERR_CODE_MODE_NODE_VERSION')
    expect(error.message).toBe(
      `createOpenClawTestRun runs openclaw ${openclaw.version}, which needs Node ${openclaw.engines.node}; this is Node 20.19.0 (${process.execPath}): install Node 24 (for example \`nvm install 24\`) and run with it`,
    )
    expect(harness.requireOpenClaw({ nodeVersion: '24.16.0' }).version).toBe(openclaw.version)
    expect(() => harness.requireOpenClaw({ nodeVersion: '25.2.0' })).toThrow(/needs Node/)
    expect(harness.requireOpenClaw({ nodeVersion: '26.1.0' }).version).toBe(openclaw.version)
  })

  it.runIf(nodeTooOld)('a Node older than openclaw needs, for real (this Node): CLI status 2, helper ERR_CODE_MODE_NODE_VERSION', async () => {
    for (const command of ['run', 'check']) {
      const r = run(process.execPath, [bin, command, '--openclaw', cell, '--tools', toolsFile])
      expect(r.status).toBe(2)
      expect(r.stderr).toBe(
        `code-mode: ${command} --openclaw runs openclaw ${openclaw.version}, which needs Node ${openclaw.engines.node}; this is Node ${process.versions.node} (${process.execPath}): install Node 24 (for example \`nvm install 24\`) and run with it\n`,
      )
    }
    const { createOpenClawTestRun } = require('../lib/testing.js')
    await expect(createOpenClawTestRun({ tools: [] })).rejects.toMatchObject({ code: 'ERR_CODE_MODE_NODE_VERSION' })
  }, 60_000)

  it('openclaw has no plugin namespaces: the helper says so instead of testing what production never runs', async () => {
    const { createOpenClawTestRun } = require('../lib/testing.js')
    await expect(createOpenClawTestRun({ namespaces: [] })).rejects.toMatchObject({ code: 'ERR_CODE_MODE_OPENCLAW_UNSUPPORTED', message: expect.stringContaining('namespaces.MCP') })
  })

  it('options of the wrong type are a TypeError naming them, before the gateway starts', async () => {
    const { createOpenClawTestRun } = require('../lib/testing.js')
    for (const [options, message] of [
      [[], 'createOpenClawTestRun(options): options must be an object such as { tools: [...] }, not an array'],
      [{ pluginId: 42 }, 'createOpenClawTestRun: pluginId must be a non-empty string, not a number'],
      [{ runId: '' }, 'createOpenClawTestRun: runId must be a non-empty string, not an empty one'],
      [{ sessionId: {} }, 'createOpenClawTestRun: sessionId must be a non-empty string, not an object'],
    ] as const) {
      await expect(createOpenClawTestRun(options)).rejects.toThrow(new TypeError(message))
    }
  })

  it('a config that would not run as written is refused, naming the key, before the gateway starts', async () => {
    const { createOpenClawTestRun } = require('../lib/testing.js')
    await expect(createOpenClawTestRun({ config: { timeoutMS: 300 } })).rejects.toThrow(
      new TypeError('createOpenClawTestRun: config would not run as written: unknown key "timeoutMS" ignored (did you mean "timeoutMs"?)'),
    )
    await expect(createOpenClawTestRun({ config: { timeoutMs: 5, executor: 'node' } })).rejects.toThrow(
      /^createOpenClawTestRun: config would not run as written: "timeoutMs": 5 is out of range; used \d+; "executor": "node" ignored; the executor option chooses it$/,
    )
  })

  it('reads npm ranges as package.json engines write them', () => {
    const cases: Array<[string, string, boolean]> = [
      ['24.16.0', '>=24.16.0 <25 || >=26.1.0', true],
      ['24.15.9', '>=24.16.0 <25 || >=26.1.0', false],
      ['25.0.0', '>=24.16.0 <25 || >=26.1.0', false],
      ['26.1.0', '>=24.16.0 <25 || >=26.1.0', true],
      ['20.19.0', '^20.19.0 || >=22.12', true],
      ['21.0.0', '^20.19.0 || >=22.12', false],
      ['18.0.0', '>= 20', false],
      ['18.0.0', 'a weird range', true],
    ]
    for (const [version, range, expected] of cases) expect(harness.satisfies(version, range), `${version} in ${range}`).toBe(expected)
  })
})

// --- a plugin author's own suite, from a packed install -----------------------------------------

/** npm: the one running the tests when started by npm, else the one on PATH. */
function npm(args: string[], cwd: string) {
  const execPath = process.env.npm_execpath
  const [command, commandArgs] = execPath && /\.[cm]?js$/.test(execPath) ? [process.execPath, [execPath, ...args]] : ['npm', args]
  return spawnSync(command, commandArgs, { cwd, encoding: 'utf8', timeout: 240_000 })
}

describe.runIf(linuxX64)('a plugin author\'s vitest suite with @openclaw/code-mode/testing, from a packed install', () => {
  const project = join(work, 'author')
  const authorTmp = mkdtempSync(join(work, 'author-tmp-'))
  let report: {
    numTotalTests: number
    numPassedTests: number
    numFailedTests: number
    testResults: Array<{ assertionResults: Array<{ title: string; status: string; failureMessages: string[] }> }>
  }

  beforeAll(() => {
    // The addon and sandbox executable built here, stripped of their debug info (packableAddon).
    const addon = packableAddon(join(work, 'artifacts'))
    const out = join(work, 'out')
    const packed = npm(['run', 'package', '--', '--out', out, ...addon.args], root)
    if (packed.status !== 0) throw new Error(`npm run package failed:\n${packed.stdout}\n${packed.stderr}`)

    mkdirSync(project)
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'orders-plugin', version: '1.0.0', private: true, type: 'module' }))
    const installed = npm(['install', '--offline', '--no-audit', '--no-fund', '--cache', join(work, 'cache'), ...readdirSync(out).map((f) => join(out, f))], project)
    if (installed.status !== 0) throw new Error(`npm install of the tarballs failed:\n${installed.stdout}\n${installed.stderr}`)
    // The author's other dev dependencies, as their own install would have them.
    for (const name of ['openclaw', 'vitest', '@modelcontextprotocol/server-memory']) {
      mkdirSync(resolve(project, 'node_modules', name, '..'), { recursive: true })
      symlinkSync(join(root, 'node_modules', name), join(project, 'node_modules', name), 'dir')
    }
    copyFileSync(join(__dirname, 'fixtures', 'plugin-author', 'orders.test.mjs'), join(project, 'orders.test.mjs'))

    // OPENCLAW_STATE_DIR/OPENCLAW_HOME left unset: the helper isolates the gateway's state itself.
    // As the author's machine has it: the installed addon, not the suites' testing build.
    // A temporary directory of the author's run alone, to see what the run leaves in it.
    const env = userEnv({ TMPDIR: authorTmp, TMP: authorTmp, TEMP: authorTmp })
    delete env.OPENCLAW_STATE_DIR
    delete env.OPENCLAW_HOME
    const vitest = spawnSync(
      node24,
      [join(project, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--reporter=json', '--outputFile=report.json', '--testTimeout=60000'],
      { cwd: project, encoding: 'utf8', timeout: 600_000, env },
    )
    if (!existsSync(join(project, 'report.json'))) throw new Error(`the author's vitest wrote no report (status ${vitest.status}):\n${vitest.stdout}\n${vitest.stderr}`)
    report = JSON.parse(readFileSync(join(project, 'report.json'), 'utf8'))
  }, 600_000)

  it('passes: a tool global, catalog.search + describe + handle, results, namespace and MCP calls, a slow tool through wait, a thrown tool error, a refused input, two cells at once, module syntax rejected, each equal to the bundled executor', () => {
    const results = report.testResults.flatMap((f) => f.assertionResults)
    const failed = results.filter((r) => r.status !== 'passed')
    expect(failed.map((r) => `${r.title}: ${r.failureMessages.join('\n')}`)).toEqual([])
    expect(results.map((r) => r.title)).toEqual([
      'shows its tools in the exec quick index the model reads',
      'calls a tool as an async global, with its details as the value',
      'finds a tool with catalog.search, describes it and calls the handle',
      'keeps a value across cells with results.save and results.load',
      'calls an MCP server through its namespace and through MCP',
      'follows a slow tool through wait',
      'lets the cell catch a tool that throws',
      'records a call the gateway refused for its input, with the refusal and no result (execute never ran)',
      'keeps apart the calls of two cells run at once on one run',
      'rejects a cell that production rejects (module syntax), before any tool runs',
    ])
    expect(report.numPassedTests).toBe(10)
  })

  it("leaves the author's temporary directory as it found it (the state the helper isolated included)", () => {
    // Node's compile cache, which openclaw turns on in its processes, lives there by design.
    expect(readdirSync(authorTmp).filter((name) => name !== 'node-compile-cache')).toEqual([])
  })
})
