// @ts-check
'use strict'
// The OpenClaw `quickjs` code-mode executor on the native engine: upstream's guest controller
// (imported at run time from openclaw/plugin-sdk/code-mode-executor-runtime, never copied) runs
// in a native QuickJS VM on the engine's worker threads; this file speaks the executor contract
// around it: execute → boundaries through inlineHost.onBoundary → continue or checkpoint →
// completed, failed, or waiting with a continuation that resumes once. A parked continuation is
// the native VM itself (src/executor/).

const { MAX_TIMER_MS, boundedText, ownedText } = require('./bounded.js')
const { loadAddon } = require('./addon.js')
const { captureInPlace, capturedInPlace, captureValue } = require('./value-capture.js')
const { callHost, ignore, adopted } = require('./host-callback.js')
const { MAX_CODE_BYTES } = require('./generated/protocol.js')

// The executor contract, as this file reads it (upstream's types are
// openclaw/plugin-sdk/code-mode-executor-runtime's; openclaw is an optional peer, so they are
// restated here, and everything the gateway passes is checked before use).
/** @typedef {{ kind: 'complete', json: string } | { kind: 'prefix', json: string, originalBytes: number }} JsonSource */
/** @typedef {{ count: number, source: JsonSource }} OutputSource */
/**
 * The gateway's executor runtime module (the exports of SDK_EXPORTS, and what is optional).
 * @typedef {object} Sdk
 * @property {string} CODE_MODE_CONTROLLER_SOURCE
 * @property {(source: string) => string} prepareSource
 * @property {(source: string, prelude?: string) => { source: string, location: unknown }} buildUserSource
 * @property {(value: unknown, maxBytes: number, structuredMaxBytes?: number) => JsonSource} captureCodeModeValue
 * @property {(output: unknown, maxBytes: number) => OutputSource} captureCodeModeOutput
 * @property {(error: string, maxBytes: number) => string} boundCodeModeError
 * @property {OutputSource} EMPTY_CODE_MODE_OUTPUT
 * @property {number} [CODE_MODE_WORKER_WATCHDOG_GRACE_MS]
 * @property {new (...args: any[]) => Error} [ToolInputError]
 * @property {new (...args: any[]) => Error} [CodeModeHeadlessTimeoutError]
 */
/** @typedef {{ timeoutMs: number, memoryLimitBytes: number, maxOutputBytes: number, maxSnapshotBytes: number, maxPendingToolCalls: number }} ExecutorConfig */
/** @typedef {{ id: string, method: string, args: unknown[] }} PendingRequest */
/**
 * The host side of a run of legs: boundaries go to `onBoundary`, whose reply continues the cell
 * or checkpoints it.
 * @typedef {object} InlineHost
 * @property {(boundary: object, options: { signal: AbortSignal, yieldSignal: AbortSignal, maxTimeoutMs: number }) => unknown} onBoundary
 * @property {() => unknown} [onNetworkContent]
 * @property {() => unknown} [onInputConsumed]
 */
/** @typedef {{ timeoutMs?: number, signal?: AbortSignal, inlineHost?: InlineHost }} ExecuteOptions */
/**
 * A leg's outcome as the native cell reports it (crates/protocol/src/executor.rs): JSON text; a
 * completed cell's value (its `__openclawResult` JSON) is the answer's `value`, beside it.
 * @typedef {object} Outcome
 * @property {'completed' | 'failed' | 'waiting'} status
 * @property {unknown[]} [output]
 * @property {{ count: number, prefix: string, originalBytes: number }} [outputCut] an output past
 *   `maxOutputBytes`, cut in the sandbox (`output` is then empty): see {@link capturedOutput}
 * @property {string} [code]
 * @property {string} [error]
 * @property {boolean} [networkContentObserved]
 * @property {PendingRequest[]} [pendingRequests]
 * @property {string[]} [canceledRequestIds]
 * @property {unknown} [settlementMode]
 * @property {number} [memoryUsedBytes]
 */
/**
 * What `execute` and a continuation's `resume` resolve to: `completed`, `failed`, or `waiting`
 * with a continuation (upstream's result shapes).
 * @typedef {{ status: string, [field: string]: unknown }} ExecutorResult
 */
/** @typedef {{ sdk: Sdk, key: string }} Loaded */
/**
 * How a {@link race} ended.
 * @template T
 * @typedef {{ value: T, aborted?: undefined, expired?: undefined } | { aborted: true, value?: undefined, expired?: undefined } | { expired: true, value?: undefined, aborted?: undefined }} Raced
 */

/**
 * The addon, loaded by the first cell (ready()) rather than here: OpenClaw requires this file
 * to find the executor, and a missing binary must fail cells with a short message
 * (lib/addon.js), not throw napi-rs's loader error at the gateway.
 */
/** @type {typeof import('./native.js')} */
let native

/** The oldest openclaw whose executor contract this file speaks. */
const MIN_OPENCLAW = '2026.9.6'
const SDK = 'openclaw/plugin-sdk/code-mode-executor-runtime'
/** What the runtime module must export (checked before the first cell). */
const SDK_EXPORTS = [
  'CODE_MODE_CONTROLLER_SOURCE',
  'prepareSource',
  'buildUserSource',
  'captureCodeModeValue',
  'captureCodeModeOutput',
  'boundCodeModeError',
  'EMPTY_CODE_MODE_OUTPUT',
]
/** @type {OutputSource} */
const EMPTY_OUTPUT = { count: 0, source: { kind: 'complete', json: '[]' } }

/**
 * @param {unknown} v
 * @returns {v is Record<string, any>}
 */
const isRecord = (v) => typeof v === 'object' && v !== null && !Array.isArray(v)

/**
 * @param {string} a
 * @param {string} b
 */
function compareVersions(a, b) {
  const pa = String(a).split(/[.-]/).map((n) => parseInt(n, 10) || 0)
  const pb = String(b).split(/[.-]/).map((n) => parseInt(n, 10) || 0)
  for (let i = 0; i < 3; i++) if ((pa[i] ?? 0) !== (pb[i] ?? 0)) return (pa[i] ?? 0) - (pb[i] ?? 0)
  return 0
}

/**
 * The installed openclaw's version, found beside its resolved runtime module.
 * @param {string} resolvedFile
 * @returns {string | undefined}
 */
function openclawVersion(resolvedFile) {
  const path = require('node:path')
  const fs = require('node:fs')
  for (let dir = path.dirname(resolvedFile); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json')
    try {
      const pkg = JSON.parse(fs.readFileSync(file, 'utf8'))
      if (pkg.name === 'openclaw') return pkg.version
    } catch {}
  }
  return undefined
}

/**
 * Imports the gateway's executor runtime: from this package's own resolution (this repository's
 * node_modules/openclaw, or a gateway that installed its peer), else from the running gateway's entry point (a plugin
 * installed into OpenClaw's state directory has no node_modules of its own). `options.from`
 * replaces the files resolution starts from.
 * @param {{ from?: string[] }} [options]
 */
async function loadOpenClawRuntime(options = {}) {
  const { createRequire } = require('node:module')
  const { pathToFileURL } = require('node:url')
  const bases = options.from ?? [__filename, process.argv[1], require.main?.filename].filter((base) => typeof base === 'string')
  let resolved
  for (const base of bases) {
    try {
      resolved = createRequire(base).resolve(SDK)
      break
    } catch {}
  }
  if (!resolved) {
    throw new Error(
      `@openclaw/code-mode's quickjs executor needs the openclaw peer (>= ${MIN_OPENCLAW}), and it is not installed.`,
    )
  }
  const version = openclawVersion(resolved)
  if (version && compareVersions(version, MIN_OPENCLAW) < 0) {
    throw new Error(`@openclaw/code-mode's quickjs executor needs openclaw >= ${MIN_OPENCLAW}; found ${version}.`)
  }
  const url = pathToFileURL(resolved).href
  const runtime = await import(url)
  RUNTIME_URLS.set(runtime, url)
  return runtime
}

/** Where each runtime module {@link loadOpenClawRuntime} loaded came from (lib/value-capture.js loads it again on its worker). */
const RUNTIME_URLS = new WeakMap()

// What a result carries is kept by the gateway (its transcript), so every text cut to a bound
// is an owned copy (lib/bounded.js): a cut made with `slice` would keep the whole text alive.
// Host failures (a throw of the gateway's own callbacks) are cut like event payloads.
/**
 * @param {string} error
 * @param {string} code
 * @param {string} [phase]
 * @param {OutputSource} [output]
 * @returns {ExecutorResult}
 */
function failedResult(error, code, phase = 'host', output = EMPTY_OUTPUT) {
  return { status: 'failed', error: boundedText(String(error)), code, failurePhase: phase, bridgeDispatchStarted: false, output }
}

/**
 * A captured source (`{ kind, json, originalBytes? }`) whose cut `json` owns its bytes.
 * @param {JsonSource} source
 * @returns {JsonSource}
 */
function ownedSource(source) {
  return source?.kind === 'prefix' && typeof source.json === 'string' ? { ...source, json: ownedText(source.json) } : source
}

/**
 * A captured output (`{ count, source }`) whose cut source owns its bytes.
 * @param {OutputSource} output
 * @returns {OutputSource}
 */
function ownedOutput(output) {
  return output?.source?.kind === 'prefix' ? { ...output, source: ownedSource(output.source) } : output
}

/**
 * A leg's output as the gateway's `captureCodeModeOutput` captures it. An output whose JSON is
 * longer than `maxOutputBytes` is cut in the sandbox where it is made, and what crosses is what
 * the capture keeps of it (its item count, the longest prefix of its JSON within the bytes, and
 * its whole length: crates/protocol/src/executor.rs, `OutputCut`), so a cell printing megabytes
 * never makes this thread parse them only to drop them.
 * @param {Sdk} sdk
 * @param {ExecutorConfig} config
 * @param {Outcome} outcome
 * @returns {OutputSource}
 */
function capturedOutput(sdk, config, outcome) {
  const cut = outcome.outputCut
  if (cut) return { count: cut.count, source: { kind: 'prefix', json: cut.prefix, originalBytes: cut.originalBytes } }
  return outcome.output === undefined ? EMPTY_OUTPUT : ownedOutput(sdk.captureCodeModeOutput(outcome.output, config.maxOutputBytes))
}

/** @type {Set<string>} Each callback of the host's that threw or rejected, once warned about in this process. */
const warnedCallbacks = new Set()

/**
 * Calls the host's notification `name` (`onInputConsumed`, `onConsumed`, `onNetworkContent`)
 * through `call`: the cell's work is done whatever it does, so a throw or a rejection of it is
 * ignored, and the first of each callback in a process is a warning
 * (`OPENCLAW_CODE_MODE_HOST_CALLBACK`). Never throws, and leaves no rejection unhandled: an
 * unhandled rejection ends a default Node process.
 * @param {string} name
 * @param {() => unknown} call
 */
function notifyHost(name, call) {
  /** @param {unknown} error */
  const report = (error) => {
    if (warnedCallbacks.has(name)) return
    warnedCallbacks.add(name)
    try {
      process.emitWarning(`code mode quickjs executor: the host's ${name} threw (later throws are ignored silently): ${errorText(error)}`, {
        code: 'OPENCLAW_CODE_MODE_HOST_CALLBACK',
      })
    } catch {}
  }
  callHost(call, report)
}

/**
 * A function that calls `callback` (if it is one) through `notifyHost` the first time, and nothing after.
 * @param {string} name
 * @param {unknown} callback
 * @returns {() => void}
 */
function notifyOnce(name, callback) {
  let done = false
  return () => {
    if (done) return
    done = true
    if (typeof callback === 'function') notifyHost(name, () => callback())
  }
}

/**
 * The pool-task signal handed to `onBoundary`. Node reports a throw of an abort listener as an
 * uncaught exception, which ends the process, so listeners the host adds to this signal (through
 * `addEventListener` or `onabort`) run inside a `try`.
 */
function taskController() {
  const controller = new AbortController()
  const signal = controller.signal
  /** @type {WeakMap<object, (this: unknown, event: Event) => void>} */
  const guarded = new WeakMap()
  /** @type {Function | null} */
  let onabort = null
  /**
   * @param {any} listener what the host passed (a function, a `handleEvent` object, or anything)
   * @returns {any}
   */
  const guard = (listener) => {
    if (typeof listener !== 'function' && (listener === null || typeof listener !== 'object')) return listener
    let wrapped = guarded.get(listener)
    if (!wrapped) {
      /** @type {(this: unknown, event: Event) => void} */
      wrapped = function (event) {
        callHost(() => {
          const handler = typeof listener === 'function' ? listener : listener.handleEvent
          if (typeof handler === 'function') return handler.call(typeof listener === 'function' ? this : listener, event)
        }, ignore)
      }
      guarded.set(listener, wrapped)
    }
    return wrapped
  }
  const { addEventListener, removeEventListener } = signal
  Object.defineProperties(signal, {
    addEventListener: {
      value: (/** @type {string} */ type, /** @type {any} */ listener, /** @type {any} */ options) =>
        addEventListener.call(signal, type, guard(listener), options),
    },
    removeEventListener: {
      value: (/** @type {string} */ type, /** @type {any} */ listener, /** @type {any} */ options) =>
        removeEventListener.call(signal, type, guarded.get(listener) ?? listener, options),
    },
    onabort: {
      get: () => onabort,
      set: (/** @type {unknown} */ listener) => {
        if (onabort) removeEventListener.call(signal, 'abort', guard(onabort))
        onabort = typeof listener === 'function' ? listener : null
        if (onabort) addEventListener.call(signal, 'abort', guard(onabort))
      },
    },
  })
  return controller
}

/**
 * The text of a thrown value; never throws (a host may throw anything, even what cannot print).
 * @param {unknown} error
 * @returns {string}
 */
function errorText(error) {
  try {
    if (error instanceof Error) return error.message || String(error)
    return String(error)
  } catch {
    return 'a host error that cannot be printed'
  }
}

/**
 * Builds an executor. `loadRuntime` supplies the gateway's executor runtime module (default:
 * import it from the installed openclaw peer); tests pass their own.
 * @param {{ loadRuntime?: () => Promise<Record<string, unknown>> }} [options]
 */
function createCodeModeExecutor(options = {}) {
  const loadRuntime = options.loadRuntime ?? loadOpenClawRuntime
  /** @type {Promise<Loaded> | undefined} */
  let runtime
  /** The runtime module and its compiled controller's key, loaded once. */
  function ready() {
    if (runtime) return runtime
    runtime = (async () => {
      const addon = loadAddon()
      if (addon.error) throw new Error(addon.error)
      native = /** @type {typeof import('./native.js')} */ (addon.native)
      const sdk = /** @type {Partial<Sdk> | undefined} */ (await loadRuntime())
      const missing = SDK_EXPORTS.filter((name) => sdk?.[/** @type {keyof Sdk} */ (name)] === undefined)
      if (missing.length > 0) {
        throw new Error(
          `@openclaw/code-mode's quickjs executor needs openclaw >= ${MIN_OPENCLAW}: its code-mode executor runtime lacks ${missing.join(', ')}.`,
        )
      }
      if (typeof sdk?.CODE_MODE_CONTROLLER_SOURCE !== 'string') {
        throw new Error('the openclaw code-mode controller source is not a string')
      }
      const key = await native.compileExecutorController(sdk.CODE_MODE_CONTROLLER_SOURCE)
      // Every export of SDK_EXPORTS is there (checked above).
      return { sdk: /** @type {Sdk} */ (sdk), key }
    })()
    // A failed load is not cached: the next cell tries again (the peer may be installed since).
    // Attached once, when the load starts, not on every cell.
    runtime.catch(() => {
      runtime = undefined
    })
    return runtime
  }

  /**
   * @param {unknown} input
   * @param {ExecuteOptions} [options]
   * @returns {Promise<ExecutorResult>}
   */
  async function execute(input, options = {}) {
    const startedAt = performance.now()
    let loaded
    try {
      loaded = await ready()
    } catch (error) {
      return failedResult(errorText(error), 'runtime_unavailable')
    }
    // Upstream's executor destructures `options` and so throws on null, which the gateway reports
    // as runtime_unavailable; here the result says which argument was wrong.
    if (options === null) return failedResult(NULL_OPTIONS, 'runtime_unavailable')
    try {
      return await runCell(loaded, startedAt, input, options)
    } catch (error) {
      // Nothing a cell or a host does may reject `execute`: the gateway would see a throw.
      return failedResult(errorText(error), 'runtime_unavailable')
    }
  }

  return { id: 'quickjs', execute }
}

/**
 * Whether `reason` is upstream's headless timeout rather than an abort.
 * @param {Sdk} sdk
 * @param {unknown} reason
 */
function isTimeoutReason(sdk, reason) {
  return typeof sdk.CodeModeHeadlessTimeoutError === 'function' && reason instanceof sdk.CodeModeHeadlessTimeoutError
}

/**
 * @param {Sdk} sdk
 * @param {AbortSignal | undefined} signal
 */
function abortedResult(sdk, signal) {
  return isTimeoutReason(sdk, signal?.reason)
    ? failedResult('code mode timeout exceeded', 'timeout')
    : failedResult('code mode execution aborted', 'aborted')
}

/**
 * A failed leg as upstream's worker reports it (phase `input` for invalid input).
 * @param {Sdk} sdk
 * @param {ExecutorConfig} config
 * @param {string | undefined} code
 * @param {unknown} error
 * @param {OutputSource} [output] the leg's output, captured ({@link capturedOutput})
 * @returns {ExecutorResult}
 */
function workerFailure(sdk, config, code, error, output = EMPTY_OUTPUT) {
  const phase = code === 'invalid_input' ? 'input' : code === 'runtime_unavailable' || code === 'aborted' ? 'host' : 'guest'
  return {
    status: 'failed',
    code,
    error: ownedText(sdk.boundCodeModeError(String(error), config.maxOutputBytes)),
    failurePhase: phase,
    bridgeDispatchStarted: false,
    output,
  }
}

/**
 * @param {Loaded} loaded
 * @param {number} startedAt
 * @param {unknown} input
 * @param {ExecuteOptions} [options]
 * @returns {Promise<ExecutorResult>}
 */
async function runCell({ sdk, key }, startedAt, input, { timeoutMs, signal, inlineHost } = {}) {
  if (!isRecord(input) || !isRecord(input.config) || (input.kind !== 'exec' && input.kind !== 'resume')) {
    return failedResult('invalid code mode worker input', 'invalid_input', 'input')
  }
  const config = /** @type {ExecutorConfig} */ (input.config)
  if (signal?.aborted) return abortedResult(sdk, signal)
  if (input.kind !== 'exec' || typeof input.source !== 'string') {
    return failedResult('invalid code mode worker input', 'invalid_input', 'input')
  }
  const badConfig = configProblem(config)
  if (badConfig) return badConfig
  // The gateway's source checks (an acorn parse and an AST walk) run on this thread, at about
  // 0.5 s per MB: a source past the cap a code-mode cell has (MAX_CODE_BYTES, crates/protocol) is refused
  // before them, so no exec holds the event loop for seconds.
  // A UTF-16 unit is at most 3 bytes of UTF-8: a short source is not measured.
  const sourceBytes = input.source.length * 3 > MAX_CODE_BYTES ? Buffer.byteLength(input.source) : 0
  if (sourceBytes > MAX_CODE_BYTES) {
    return failedResult(`code mode source is ${sourceBytes} bytes; code mode accepts at most ${MAX_CODE_BYTES}.`, 'invalid_input', 'input')
  }
  const prelude = typeof input.prelude === 'string' ? input.prelude : undefined
  // A short source starts in its sandbox before the gateway's checks below, which then run on this
  // thread while the sandbox works: nothing the cell does reaches the host before its first leg
  // ends, and that ending is read on this thread after the checks. A source they refuse (or
  // change) stops the early cell at once, unseen. A long source is checked first, so that no cell
  // runs unchecked for as long as its checks take.
  const early = input.source.length <= EARLY_START_UNITS ? startEarly(sdk, key, input, config, startedAt, prelude) : undefined
  let program
  try {
    const source = sdk.prepareSource(input.source)
    if (early && source === input.source) {
      return driveLegs(sdk, early.cell, () => early.leg, legContext(input, early.budget, startedAt, { timeoutMs, signal, inlineHost }))
    }
    early?.stop()
    program = sdk.buildUserSource(source, prelude)
  } catch (error) {
    early?.stop()
    const code = typeof sdk.ToolInputError === 'function' && error instanceof sdk.ToolInputError ? 'invalid_input' : 'internal_error'
    return workerFailure(sdk, config, code, errorText(error))
  }
  const budget = legBudget(input, config, startedAt)
  if (!(budget > 0)) return workerFailure(sdk, config, 'timeout', 'code mode timeout exceeded')
  const opened = openCell(input, config)
  if ('status' in opened) return opened
  const { cell, data } = opened
  const first = () => cell.start(key, data, program.source, JSON.stringify(program.location), budget)
  return driveLegs(sdk, cell, first, legContext(input, budget, startedAt, { timeoutMs, signal, inlineHost }))
}

/**
 * The longest source (UTF-16 units) that starts before the gateway's checks. Their acorn parse
 * takes tens of microseconds for a typical cell and a few milliseconds at this size: that long,
 * at most, a refused source runs in its sandbox before it is stopped.
 */
const EARLY_START_UNITS = 8192

/**
 * What a cell's first leg may run for: the exec budget less the time spent here, capped by the
 * host's `executionTimeoutMs`.
 * @param {Record<string, any>} input
 * @param {ExecutorConfig} config
 * @param {number} startedAt
 */
function legBudget(input, config, startedAt) {
  return Math.min(
    Number(config.timeoutMs) - (performance.now() - startedAt),
    typeof input.executionTimeoutMs === 'number' ? input.executionTimeoutMs : Infinity,
  )
}

/**
 * A new native cell for `input`, and its data globals as JSON, or the failed result that says why
 * there is none.
 * @param {Record<string, any>} input
 * @param {ExecutorConfig} config
 * @returns {{ cell: import('../binding').NativeExecutorCell, data: string } | ExecutorResult}
 */
function openCell(input, config) {
  let data
  try {
    data = JSON.stringify({
      __openclawCatalog: Array.isArray(input.catalog) ? input.catalog : [],
      __openclawNamespaces: Array.isArray(input.namespaces) ? input.namespaces : [],
      __openclawApiFiles: Array.isArray(input.apiFiles) ? input.apiFiles : [],
      __openclawSwarmEnabled: input.swarmEnabled === true,
      __openclawMaxPendingToolCalls: config.maxPendingToolCalls,
    })
  } catch (error) {
    return failedResult(`invalid code mode worker input: the catalog, namespaces or API files are not JSON (${errorText(error)})`, 'invalid_input', 'input')
  }
  const cell = new native.NativeExecutorCell({
    memoryLimitBytes: Number(config.memoryLimitBytes) || 64 * 1024 * 1024,
    // Unset: no cap of the host's own, as upstream (the controller queues past its own).
    maxPendingToolCalls: Math.max(1, Math.min(2 ** 31 - 1, Math.floor(Number(config.maxPendingToolCalls) || 2 ** 31 - 1))),
    // A failed cell's error is cut to this where it is made (in the sandbox), not after copying.
    maxOutputBytes: Number(config.maxOutputBytes) || undefined,
  })
  return { cell, data }
}

/**
 * Starts the cell of an unchecked source (see runCell), or nothing when it cannot start as the
 * checked path would (that path then reports why, in its own order). `stop` aborts the running
 * leg and frees the VM; the leg's promise still settles, unread.
 * @param {Sdk} sdk
 * @param {string} key
 * @param {Record<string, any>} input
 * @param {ExecutorConfig} config
 * @param {number} startedAt
 * @param {string | undefined} prelude
 * @returns {{ cell: import('../binding').NativeExecutorCell, leg: Promise<import('../binding').ExecutorLegAnswer>, budget: number, stop: () => void } | undefined}
 */
function startEarly(sdk, key, input, config, startedAt, prelude) {
  /** @type {import('../binding').NativeExecutorCell | undefined} */
  let cell
  try {
    const program = sdk.buildUserSource(input.source, prelude)
    const budget = legBudget(input, config, startedAt)
    if (!(budget > 0)) return undefined
    const opened = openCell(input, config)
    if ('status' in opened) return undefined
    cell = opened.cell
    const started = cell
    const leg = started.start(key, opened.data, program.source, JSON.stringify(program.location), budget)
    leg.then(
      () => {},
      () => {},
    )
    return {
      cell: started,
      leg,
      budget,
      stop: () => {
        started.abort()
        started.dispose()
      },
    }
  } catch {
    cell?.dispose()
    return undefined
  }
}

/**
 * What every leg of one execute or resume call shares.
 * @param {Record<string, any>} input
 * @param {number} budget
 * @param {number} startedAt when the call began (`performance.now()`)
 * @param {ExecuteOptions} options
 */
function legContext(input, budget, startedAt, { timeoutMs, signal, inlineHost }) {
  return { config: /** @type {ExecutorConfig} */ (input.config), retainFinalValue: input.retainFinalValue === true, maxTimeoutMs: budget, startedAt, timeoutMs, signal, inlineHost }
}

/**
 * How long past a leg's own budget the executor waits before it gives the leg up.
 * @param {Sdk} sdk
 */
function watchdogGrace(sdk) {
  return typeof sdk.CODE_MODE_WORKER_WATCHDOG_GRACE_MS === 'number' ? sdk.CODE_MODE_WORKER_WATCHDOG_GRACE_MS : 2000
}

/**
 * The watchdog of one leg: `ms` of the leg running on a worker. A leg waiting for a slot
 * (`maxActiveCells`) or a worker is not timed: time queued never counts against a cell (the
 * native side also settles every leg itself: its sandbox's watchdog, and a supervisor that
 * replaces a process that stops answering).
 * @param {import('../binding').NativeExecutorCell} cell
 * @param {number} ms
 */
function legDeadline(cell, ms) {
  return () => {
    const running = cell.legRunningMs()
    return running < 0 ? ms : ms - running
  }
}

/** What `execute` and `resume` answer to a null `options` (upstream's executor throws a TypeError). */
const NULL_OPTIONS = 'invalid code mode executor options: options must be an object or undefined, not null'

/**
 * The failed result for a `config.timeoutMs` that gives no budget, naming the field. Upstream's
 * worker runs one that is not a number with no deadline at all (its deadline is NaN); here it is
 * refused as input. One of 0 or less is upstream's `timeout`, as from the gateway, which never
 * sends one (it fails the cell itself first).
 * @param {ExecutorConfig} config
 * @returns {ExecutorResult | undefined}
 */
function configProblem(config) {
  const value = /** @type {unknown} */ (config.timeoutMs)
  let ms = NaN
  try {
    ms = Number(value)
  } catch {}
  if (Number.isNaN(ms)) {
    const kind = value === undefined ? 'missing' : typeof value === 'number' ? 'NaN' : `a ${value === null ? 'null' : typeof value}`
    return failedResult(`invalid code mode worker input: config.timeoutMs must be a number of milliseconds; it is ${kind}`, 'invalid_input', 'input')
  }
  if (ms <= 0) return failedResult(`code mode timeout exceeded: config.timeoutMs is ${ms}`, 'timeout', 'guest')
  return undefined
}

/**
 * Waits for `promise`, or for the abort of `signal`, or until `remaining()` (ms left, asked
 * again when that much has passed; absent: no limit) reaches 0; resolves `{ value }`,
 * `{ aborted: true }` or `{ expired: true }`.
 * @template T
 * @param {Promise<T>} promise
 * @param {AbortSignal | undefined} signal
 * @param {() => number} [remaining]
 * @returns {Promise<Raced<T>>}
 */
function race(promise, signal, remaining) {
  return new Promise((resolve, reject) => {
    /** @type {NodeJS.Timeout | undefined} */
    let timer
    const onAbort = () => finish({ aborted: true })
    const cleanup = () => {
      clearTimeout(timer)
      // Runs in timer, listener and promise callbacks, where a throw would end the process.
      try {
        signal?.removeEventListener('abort', onAbort)
      } catch {}
    }
    /** @param {Raced<T>} outcome */
    const finish = (outcome) => {
      cleanup()
      resolve(outcome)
    }
    if (signal?.aborted) return finish({ aborted: true })
    signal?.addEventListener('abort', onAbort, { once: true })
    const arm = () => {
      let left = 0
      try {
        // Armed only when given.
        left = /** @type {() => number} */ (remaining)()
      } catch {}
      if (!(left > 0)) return finish({ expired: true })
      // Node takes at most 2^31 - 1 ms (longer fires at once, with a warning): a longer wait
      // is re-armed when that much has passed.
      if (Number.isFinite(left)) timer = setTimeout(arm, Math.min(MAX_TIMER_MS, Math.max(1, left)))
    }
    if (remaining) arm()
    promise.then(
      (value) => finish({ value }),
      (error) => {
        cleanup()
        reject(error)
      },
    )
  })
}

/**
 * Checks a host's `continue` reply; returns the problem, if any.
 * @param {Record<string, unknown>} reply
 */
function continuationProblem(reply) {
  if (!Array.isArray(reply.settledRequests)) return 'settledRequests must be an array'
  for (const r of reply.settledRequests) {
    if (!isRecord(r) || typeof r.id !== 'string' || typeof r.ok !== 'boolean' || typeof r.json !== 'string') {
      return 'each settled request must be { id: string, ok: boolean, json: string }'
    }
  }
  if (!Array.isArray(reply.pendingRequests)) return 'pendingRequests must be an array'
  for (const r of reply.pendingRequests) {
    if (!isRecord(r) || typeof r.id !== 'string' || typeof r.method !== 'string' || !Array.isArray(r.args)) {
      return 'each pending request must be { id: string, method: string, args: unknown[] }'
    }
  }
  return undefined
}

/**
 * Runs legs until the cell completes, fails or is checkpointed: each boundary goes to
 * `inlineHost.onBoundary`, whose reply continues the cell (`next`) or parks it.
 * @param {Sdk} sdk
 * @param {import('../binding').NativeExecutorCell} cell
 * @param {() => Promise<import('../binding').ExecutorLegAnswer>} first
 * @param {ReturnType<typeof legContext>} context
 * @returns {Promise<ExecutorResult>}
 */
async function driveLegs(sdk, cell, first, context) {
  const { config, retainFinalValue, maxTimeoutMs, signal, inlineHost } = context
  const grace = watchdogGrace(sdk)
  // The pool-task signal upstream hands onBoundary: aborted once this run of legs ends (made at
  // the first boundary: most cells have none).
  /** @type {AbortController | undefined} */
  let task
  let networkObserved = false
  let parked = false
  const bounded = typeof context.timeoutMs === 'number' && Number.isFinite(context.timeoutMs)
  // The whole call is bounded by `options.timeoutMs` too, less the time its legs waited for a slot
  // or a worker (as each leg's watchdog): a host's onBoundary is awaited within what is left of it,
  // and a host that keeps answering `continue` with nothing settled stops there. Upstream's pool
  // pauses its watchdog while the host works; the gateway's host answers within the exec budget
  // (`config.timeoutMs`, `options.timeoutMs` less the grace), so the bound never cuts its cells.
  let queuedMs = 0
  const callLeft = () => /** @type {number} */ (context.timeoutMs) - (performance.now() - context.startedAt - queuedMs)
  let legAt = performance.now()
  let leg = first()
  let legWatchdog = bounded ? /** @type {number} */ (context.timeoutMs) : maxTimeoutMs + grace
  /** @type {(() => void) | undefined} */
  let consumed
  try {
    for (;;) {
      const settled = await race(leg, signal, legDeadline(cell, legWatchdog))
      queuedMs += queuedFor(performance.now() - legAt, cell.legRunningMs())
      if (consumed) {
        const release = consumed
        consumed = undefined
        release()
      }
      if (settled.aborted) {
        cell.abort()
        return abortedResult(sdk, signal)
      }
      if (settled.expired) {
        cell.abort()
        return failedResult('code mode worker timeout exceeded', 'timeout')
      }
      // The outcome is small; a completed cell's value comes beside it, unparsed (a long one is
      // parsed off this thread below).
      const answer = /** @type {import('../binding').ExecutorLegAnswer} */ (settled.value)
      /** @type {Outcome} */
      const outcome = JSON.parse(answer.outcome)
      if (outcome.networkContentObserved === true) networkObserved = true
      if (outcome.status === 'completed') {
        // A long text is captured off the event loop, within what the leg has left under the
        // watchdog (lib/value-capture.js gives it at least a small floor); a short one here, at
        // once.
        const text = String(answer.value)
        const url = RUNTIME_URLS.get(sdk)
        const structuredMaxBytes = retainFinalValue ? Math.min(config.memoryLimitBytes, config.maxSnapshotBytes) : config.maxOutputBytes
        if (signal?.aborted) return abortedResult(sdk, signal)
        const value = capturedInPlace(text, url)
          ? captureInPlace(sdk, text, config.maxOutputBytes, structuredMaxBytes)
          : (await race(captureValue(sdk, url, text, config.maxOutputBytes, structuredMaxBytes, { remainingMs: legDeadline(cell, legWatchdog)(), signal }), signal)).value
        if (value === undefined) return abortedResult(sdk, signal)
        if ('timeout' in value) {
          return withNetwork(workerFailure(sdk, config, 'timeout', value.timeout, capturedOutput(sdk, config, outcome)), networkObserved, inlineHost)
        }
        if ('tooLarge' in value) {
          return withNetwork(workerFailure(sdk, config, 'output_limit_exceeded', value.tooLarge, capturedOutput(sdk, config, outcome)), networkObserved, inlineHost)
        }
        if ('parseError' in value) {
          // A guest that replaced `__openclawResult` with something not JSON: upstream's failure.
          return withNetwork(workerFailure(sdk, config, 'internal_error', value.parseError, capturedOutput(sdk, config, outcome)), networkObserved, inlineHost)
        }
        if ('error' in value) {
          return withNetwork(workerFailure(sdk, config, 'runtime_unavailable', value.error, capturedOutput(sdk, config, outcome)), networkObserved, inlineHost)
        }
        const result = {
          status: 'completed',
          value: ownedSource(value.source),
          output: capturedOutput(sdk, config, outcome),
        }
        return withNetwork(result, networkObserved, inlineHost)
      }
      if (outcome.status === 'failed') {
        return withNetwork(workerFailure(sdk, config, outcome.code, outcome.error, capturedOutput(sdk, config, outcome)), networkObserved, inlineHost)
      }
      const settlementMode = outcome.settlementMode
      const output = capturedOutput(sdk, config, outcome)
      if (!inlineHost) {
        parked = true
        return waiting(sdk, cell, config, outcome, settlementMode, output, networkObserved)
      }
      if (!(Number.isFinite(maxTimeoutMs) && maxTimeoutMs > 0)) {
        return failedResult('invalid code mode worker admission budget', 'runtime_unavailable')
      }
      const boundary = {
        status: 'boundary',
        ...(networkObserved ? { networkContentObserved: true } : {}),
        pendingRequests: outcome.pendingRequests,
        canceledRequestIds: outcome.canceledRequestIds,
        settlementMode,
        output,
        memoryUsedBytes: outcome.memoryUsedBytes,
      }
      if (bounded && !(callLeft() > 0)) return failedResult(hostTimeout(context, 'kept the cell running past'), 'timeout')
      if (networkObserved) notifyHost('onNetworkContent', () => inlineHost.onNetworkContent?.())
      // Native VMs park without holding a thread, so there is no pressure to relieve: the
      // yield signal is provided, and never fires.
      const yieldSignal = new AbortController().signal
      let reply
      try {
        const answered = await race(
          adopted(inlineHost.onBoundary(boundary, { signal: (task ??= taskController()).signal, yieldSignal, maxTimeoutMs })),
          signal,
          bounded ? callLeft : undefined,
        )
        if (answered.aborted) return abortedResult(sdk, signal)
        if (answered.expired) return failedResult(hostTimeout(context, 'did not answer onBoundary within'), 'timeout')
        reply = answered.value
      } catch (error) {
        return failedResult(errorText(error), 'runtime_unavailable')
      }
      if (!isRecord(reply)) {
        return failedResult('invalid code mode continuation: the host reply is not an object', 'invalid_input', 'input')
      }
      const { onConsumed, ...command } = reply
      const release = notifyOnce('onConsumed', onConsumed)
      if (command.kind === 'checkpoint') {
        release()
        parked = true
        return waiting(sdk, cell, config, outcome, settlementMode, EMPTY_OUTPUT, networkObserved)
      }
      if (command.kind !== 'continue') {
        release()
        return failedResult(`invalid code mode continuation: unknown kind ${JSON.stringify(command.kind)}`, 'invalid_input', 'input')
      }
      if (!Number.isFinite(command.timeoutMs) || command.timeoutMs <= 0 || command.timeoutMs > maxTimeoutMs) {
        release()
        return workerFailure(sdk, config, 'timeout', 'invalid code mode continuation budget')
      }
      const problem = continuationProblem(command)
      if (problem) {
        release()
        return failedResult(`invalid code mode continuation: ${problem}`, 'invalid_input', 'input')
      }
      consumed = release
      legWatchdog = command.timeoutMs + grace
      legAt = performance.now()
      leg = cell.next(command.settledRequests, pendingIds(command.pendingRequests), command.timeoutMs)
    }
  } catch (error) {
    return failedResult(errorText(error), 'runtime_unavailable')
  } finally {
    consumed?.()
    task?.abort()
    if (!parked) cell.dispose()
  }
}

/**
 * How long of a leg's `waitedMs` it spent queued for a slot or a worker, from what it reports
 * having run (`legRunningMs`: -1 if it never started). That counts whole milliseconds from when
 * its start is reported, so the leg's trips to and from the sandbox (2 to 6 ms for a leg of a hot
 * loop on a 2-core machine) are not in it: up to `QUEUE_SLACK_MS` of difference is taken for
 * them. Without the slack, a host that answers at once would have every short leg of its run
 * counted as queued, and the run would hardly advance towards its bound; with it, a leg queued
 * less than that counts whole, at most 25 ms of the 2,000 ms grace per leg.
 * @param {number} waitedMs
 * @param {number} runningMs
 */
function queuedFor(waitedMs, runningMs) {
  const queued = waitedMs - Math.max(0, runningMs)
  return queued > QUEUE_SLACK_MS ? queued : 0
}

const QUEUE_SLACK_MS = 25

/**
 * The error of a call the host held past `options.timeoutMs`: the worker timeout upstream's
 * pool reports, and what the host did.
 * @param {{ timeoutMs?: number }} context
 * @param {string} what
 */
function hostTimeout(context, what) {
  return `code mode worker timeout exceeded: the host ${what} options.timeoutMs (${context.timeoutMs} ms)`
}

/**
 * @param {ExecutorResult} result
 * @param {boolean} observed
 * @param {InlineHost | undefined} inlineHost
 * @returns {ExecutorResult}
 */
function withNetwork(result, observed, inlineHost) {
  if (!observed) return result
  if (inlineHost) notifyHost('onNetworkContent', () => inlineHost.onNetworkContent?.())
  return { ...result, networkContentObserved: true }
}

/**
 * Parks the cell: a `waiting` result whose continuation resumes it once.
 * @param {Sdk} sdk
 * @param {import('../binding').NativeExecutorCell} cell
 * @param {ExecutorConfig} config
 * @param {Outcome} outcome
 * @param {unknown} settlementMode
 * @param {OutputSource} output
 * @param {boolean} networkObserved
 * @returns {Promise<ExecutorResult>}
 */
async function waiting(sdk, cell, config, outcome, settlementMode, output, networkObserved) {
  const retainedBytes = await cell.park()
  if (retainedBytes < 0) {
    // The gateway holds `maxSuspendedCells` parked cells already (configureCodeModeRuntime).
    cell.dispose()
    return failedResult('too many suspended code mode runs (maxSuspendedCells).', 'runtime_unavailable')
  }
  if (retainedBytes + 0 > config.maxSnapshotBytes) {
    cell.dispose()
    return workerFailure(sdk, config, 'snapshot_limit_exceeded', 'code mode snapshot limit exceeded')
  }
  /** @type {import('../binding').NativeExecutorCell | undefined} */
  let owned = cell
  const continuation = {
    executor: 'quickjs',
    retainedBytes,
    /**
     * @param {unknown} input
     * @param {ExecuteOptions} [options]
     */
    async resume(input, options = {}) {
      if (!owned) return failedResult('Code Mode continuation has already been consumed or disposed', 'runtime_unavailable')
      const parkedCell = owned
      owned = undefined
      if (options === null) {
        parkedCell.dispose()
        return failedResult(NULL_OPTIONS, 'runtime_unavailable')
      }
      try {
        return await resumeCell(sdk, parkedCell, input, options)
      } catch (error) {
        parkedCell.dispose()
        return failedResult(errorText(error), 'runtime_unavailable')
      }
    },
    async dispose() {
      owned?.dispose()
      owned = undefined
    },
  }
  const result = {
    status: 'waiting',
    continuation,
    pendingRequests: outcome.pendingRequests,
    canceledRequestIds: outcome.canceledRequestIds,
    settlementMode,
    output,
  }
  return networkObserved ? { ...result, networkContentObserved: true } : result
}

/**
 * @param {Sdk} sdk
 * @param {import('../binding').NativeExecutorCell} cell
 * @param {unknown} input
 * @param {ExecuteOptions} [options]
 * @returns {Promise<ExecutorResult>}
 */
async function resumeCell(sdk, cell, input, { timeoutMs, signal, inlineHost } = {}) {
  const startedAt = performance.now()
  // The resume input is released once it is in the VM (the leg resolving, at the latest), or
  // at once when the resume ends before that: upstream's pool releases it when the task ends.
  // Never throws: it runs in the leg's promise callbacks, where a throw would be an unhandled
  // rejection.
  let onInputConsumed
  try {
    onInputConsumed = inlineHost?.onInputConsumed
  } catch {}
  const release = notifyOnce('onInputConsumed', onInputConsumed)
  /** @param {ExecutorResult} result */
  const refuse = (result) => {
    cell.dispose()
    release()
    return result
  }
  if (!isRecord(input) || !isRecord(input.config) || input.kind !== 'resume') {
    return refuse(failedResult('invalid code mode worker input', 'invalid_input', 'input'))
  }
  const config = /** @type {ExecutorConfig} */ (input.config)
  if (signal?.aborted) return refuse(abortedResult(sdk, signal))
  const badConfig = configProblem(config)
  if (badConfig) return refuse(badConfig)
  const settled = Array.isArray(input.settledRequests) ? input.settledRequests : []
  const pending = Array.isArray(input.pendingRequests) ? input.pendingRequests : []
  const problem = continuationProblem({ settledRequests: settled, pendingRequests: pending })
  if (problem) return refuse(failedResult(`invalid code mode resume input: ${problem}`, 'invalid_input', 'input'))
  const budget = Number(config.timeoutMs) - (performance.now() - startedAt)
  if (!(budget > 0)) return refuse(workerFailure(sdk, config, 'timeout', 'code mode timeout exceeded'))
  const first = () => {
    // Checked by continuationProblem.
    const leg = cell.next(settled, pendingIds(/** @type {PendingRequest[]} */ (pending)), budget)
    leg.then(release, release)
    return leg
  }
  return driveLegs(sdk, cell, first, legContext(input, budget, startedAt, { timeoutMs, signal, inlineHost }))
}

/**
 * The ids of a host's pending set, for the native cell, which keeps each request's method and
 * arguments itself (every request in the set is one of the cell's own).
 * @param {PendingRequest[]} pending
 */
function pendingIds(pending) {
  return pending.map((request) => request.id)
}

const codeModeExecutor = createCodeModeExecutor()

module.exports = { codeModeExecutor, createCodeModeExecutor, loadOpenClawRuntime, MIN_OPENCLAW }
