'use strict'

// A cell's final value reaches the `quickjs` executor as JSON text the guest made, and the
// gateway's `captureCodeModeValue` needs it parsed. Parsing is the gateway's own cost, not the
// cell's: a value that shares one array many times over (`o = [o, o]`) is small in the VM and
// tens of MB as text, and parsing it on Node's main thread held every session's event loop for
// seconds. A large text is therefore parsed and captured on a worker thread, with the same
// runtime module the gateway loaded, and only the bounded capture comes back. Upstream's
// executor parses it in its worker too.
//
// The workers are shared by every cell, so what one cell's capture may cost the others is
// bounded:
// - at most `running` captures run at once, each on a worker of its own that runs nothing else
//   meanwhile: the others wait here, in the gateway, earliest deadline first;
// - each capture has a deadline (what its leg has left under the executor's watchdog, and at
//   least `floorMs`): past it the capture answers `timeout`, and the worker running it is
//   terminated (the next capture gets a fresh one), so no capture runs on past its cell. V8
//   checks for termination between steps of JavaScript but not inside `JSON.parse`, so a worker
//   ended mid-parse ends when the parse returns (about 100 ns a character): until then it still
//   counts among the `2 * running` threads that may live at once, which bounds what a stream of
//   expired captures can keep burning;
// - the texts waiting or running hold at most `heldChars` characters: a capture that would pass
//   that fails at once;
// - a worker that dies (an error, an exit, out of memory) fails the one capture it ran. Node
//   does not always contain a worker that reaches its heap cap: some allocations, such as the
//   one large array `JSON.parse` builds, abort the whole process instead (nodejs/node#47224). So a
//   text is sent to a worker only when its parse fits the worker's heap whatever its shape: the
//   worst measured (`[{}],` over and over) takes 25 bytes of heap a character, 1.7 GB for
//   64 Mi characters; `maxChars` is 48 Mi for a heap of 2 GB, and a longer text fails at once.
// Idle workers are kept (unref'd: they never keep the process alive) for `idleMs`, then ended.
// A worker whose capture read more than `keepAfterChars` is ended as soon as it answers: its parse
// may have left hundreds of MB of heap (GB for a text of shared arrays), which V8 does not give
// back while the worker idles, and a cell every few seconds would keep it held.

const { Worker } = require('node:worker_threads')
const { MAX_TIMER_MS } = require('./bounded.js')

/** Texts up to this many UTF-16 units are parsed in place: a few ms at most. */
const IN_PLACE_CHARS = 1 << 20

/**
 * The bounds of the off-thread captures. A constant of this module; the fields are writable for
 * the tests only (__test__/openclaw/host-limits.mjs).
 */
const captureLimits = {
  /** Captures that run at once, each on a worker thread of its own. */
  running: 2,
  /** The most characters of text waiting or running, together. */
  heldChars: 256 * 1024 * 1024,
  /** The least time a capture is given, even when its leg has less left. */
  floorMs: 500,
  /** A worker's heap cap: past it the worker dies, and the cell fails instead of the gateway. */
  workerHeapMb: 2048,
  /** The longest text a worker takes: its parse stays well within `workerHeapMb`. */
  maxChars: 48 * 1024 * 1024,
  /** How long an idle worker is kept for the next capture. */
  idleMs: 10_000,
  /** The longest text after whose capture a worker is kept for the next one. */
  keepAfterChars: 4 * 1024 * 1024,
}

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads')
const runtime = import(workerData.url)
parentPort.on('message', async ({ id, text, maxBytes, structuredMaxBytes }) => {
  let reply
  try {
    const sdk = await runtime
    let value
    try {
      value = JSON.parse(text)
    } catch (error) {
      reply = { id, parseError: String(error && error.message) }
    }
    text = undefined
    if (!reply) reply = { id, source: sdk.captureCodeModeValue(value, maxBytes, structuredMaxBytes) }
  } catch (error) {
    reply = { id, error: String((error && error.message) || error) }
  }
  parentPort.postMessage(reply)
})
`

/**
 * @typedef {import('./openclaw-executor.js').JsonSource} JsonSource
 * @typedef {{ source: JsonSource } | { parseError: string } | { error: string } | { timeout: string } | { tooLarge: string }} Captured
 */

/**
 * One capture, from the moment it is accepted until it settles.
 * @typedef {object} Job
 * @property {number} id
 * @property {string} url
 * @property {string | undefined} text dropped once posted
 * @property {number} chars
 * @property {number} maxBytes
 * @property {number} structuredMaxBytes
 * @property {number} deadline on `performance.now()`'s clock
 * @property {(captured: Captured) => void} resolve
 * @property {NodeJS.Timeout | undefined} timer
 * @property {AbortSignal | undefined} signal
 * @property {() => void} onAbort
 * @property {Runner | undefined} runner while it runs
 * @property {boolean} settled
 */

/**
 * A capture worker: runs one capture at a time.
 * @typedef {object} Runner
 * @property {Worker} worker
 * @property {string} url
 * @property {Job | undefined} job
 * @property {NodeJS.Timeout | undefined} idle
 */

/** The workers that take captures (busy or idle). @type {Set<Runner>} */
const runners = new Set()
/** Every worker thread not yet exited: those above and those ending. @type {Set<Worker>} */
const live = new Set()
/** @type {Job[]} */
const waiting = []
let heldChars = 0
let nextId = 1
/** What happened so far, for the tests. */
const counts = { started: 0, terminated: 0, died: 0, expired: 0, refused: 0 }

/** @param {unknown} error */
function message(error) {
  try {
    return error instanceof Error ? error.message : String(error)
  } catch {
    return 'unknown error'
  }
}

/**
 * Ends a worker (its capture, if any, is settled by the caller); it leaves the pool at once.
 * @param {Runner} runner
 */
function retire(runner) {
  runners.delete(runner)
  clearTimeout(runner.idle)
  counts.terminated++
  try {
    runner.worker.unref()
    runner.worker.terminate().catch(() => {})
  } catch {}
}

/**
 * Settles a capture once: releases its characters, its timer, its listener and its worker's
 * claim, then looks for the next capture to run. Never throws.
 * @param {Job} job
 * @param {Captured} captured
 */
function settle(job, captured) {
  if (job.settled) return
  job.settled = true
  job.text = undefined
  heldChars -= job.chars
  clearTimeout(job.timer)
  try {
    job.signal?.removeEventListener('abort', job.onAbort)
  } catch {}
  const queued = waiting.indexOf(job)
  if (queued >= 0) waiting.splice(queued, 1)
  const runner = job.runner
  job.runner = undefined
  if (runner?.job === job) {
    runner.job = undefined
    if (runners.has(runner)) {
      if (job.chars > captureLimits.keepAfterChars) retire(runner)
      else idle(runner)
    }
  }
  try {
    job.resolve(captured)
  } catch {}
  pump()
}

/**
 * A worker with nothing to run: it no longer keeps the process alive, and it ends after `idleMs`.
 * @param {Runner} runner
 */
function idle(runner) {
  try {
    runner.worker.unref()
  } catch {}
  clearTimeout(runner.idle)
  runner.idle = setTimeout(() => {
    if (!runner.job) retire(runner)
  }, captureLimits.idleMs)
  runner.idle.unref()
}

/**
 * Starts a capture worker for the runtime module at `url`. Throws when Node refuses it.
 * @param {string} url
 * @returns {Runner}
 */
function start(url) {
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { url },
    resourceLimits: { maxOldGenerationSizeMb: captureLimits.workerHeapMb },
  })
  counts.started++
  /** @type {Runner} */
  const runner = { worker, url, job: undefined, idle: undefined }
  /** @param {string} why */
  const died = (why) => {
    // A worker this module retired is none of its business any more.
    if (!runners.has(runner)) return
    runners.delete(runner)
    clearTimeout(runner.idle)
    counts.died++
    try {
      worker.unref()
      worker.terminate().catch(() => {})
    } catch {}
    const job = runner.job
    if (job) settle(job, { error: why })
  }
  // Event handlers: nothing may throw out of them.
  worker.on('message', (/** @type {Captured & { id: number }} */ reply) => {
    try {
      const job = runner.job
      if (!runners.has(runner) || !job || reply?.id !== job.id) return
      settle(job, reply)
    } catch {}
  })
  worker.on('error', (error) => {
    try {
      died(`the value capture worker failed: ${message(error)}`)
    } catch {}
  })
  worker.on('messageerror', (error) => {
    try {
      died(`the value capture worker sent an unreadable reply: ${message(error)}`)
    } catch {}
  })
  worker.on('exit', (code) => {
    try {
      live.delete(worker)
      died(`the value capture worker exited (code ${code})`)
      // A thread fewer: a capture waiting for one may start.
      pump()
    } catch {}
  })
  live.add(worker)
  runners.add(runner)
  return runner
}

let pumping = false
let again = false

/** Runs waiting captures, earliest deadline first, while fewer than `running` run. Never throws. */
function pump() {
  if (pumping) {
    again = true
    return
  }
  pumping = true
  try {
    do {
      again = false
      for (;;) {
        let busy = 0
        for (const runner of runners) if (runner.job) busy++
        if (waiting.length === 0 || busy >= captureLimits.running) break
        let first = 0
        for (let i = 1; i < waiting.length; i++) if (waiting[i].deadline < waiting[first].deadline) first = i
        if (!run(waiting[first])) break
      }
    } while (again)
  } finally {
    pumping = false
  }
}

/**
 * Hands a waiting capture to an idle worker of its runtime module, or to a fresh one; false when
 * neither can take it yet (too many threads still ending: one's exit pumps again).
 * @param {Job} job
 * @returns {boolean}
 */
function run(job) {
  /** @type {Runner | undefined} */
  let runner
  for (const candidate of runners) {
    if (!candidate.job && candidate.url === job.url) {
      runner = candidate
      break
    }
  }
  if (!runner) {
    // A slot is free: an idle worker of another runtime module gives its place (deleting from a
    // Set while iterating it is safe).
    let count = runners.size
    for (const candidate of runners) {
      if (count < captureLimits.running) break
      if (!candidate.job) {
        retire(candidate)
        count--
      }
    }
    if (live.size >= 2 * captureLimits.running) return false
    waiting.splice(waiting.indexOf(job), 1)
    try {
      runner = start(job.url)
    } catch (error) {
      settle(job, { error: `the value capture worker did not start: ${message(error)}` })
      return true
    }
  } else {
    waiting.splice(waiting.indexOf(job), 1)
  }
  clearTimeout(runner.idle)
  runner.idle = undefined
  runner.job = job
  job.runner = runner
  try {
    runner.worker.ref()
    runner.worker.postMessage({ id: job.id, text: job.text, maxBytes: job.maxBytes, structuredMaxBytes: job.structuredMaxBytes })
    job.text = undefined
  } catch (error) {
    // Not posted: the worker is still fit for the next capture.
    settle(job, { error: `the value capture worker refused the value: ${message(error)}` })
  }
  return true
}

/**
 * Ends a capture past its deadline: it answers `timeout`, and the worker running it is ended.
 * @param {Job} job
 */
function expire(job) {
  if (job.settled) return
  const left = job.deadline - performance.now()
  if (left > 0) {
    arm(job, left)
    return
  }
  counts.expired++
  const runner = job.runner
  if (runner) retire(runner)
  settle(job, {
    timeout: `code mode timeout exceeded: the final value (${job.chars} characters of JSON) was not captured before the cell's deadline`,
  })
}

/**
 * @param {Job} job
 * @param {number} ms
 */
function arm(job, ms) {
  job.timer = setTimeout(() => {
    try {
      expire(job)
    } catch {}
  }, Math.min(MAX_TIMER_MS, Math.max(1, Math.ceil(ms))))
}

/**
 * Whether {@link captureValue} captures `text` in place, on this thread (then
 * {@link captureInPlace} does it without a promise).
 * @param {string} text
 * @param {string | undefined} url
 */
function capturedInPlace(text, url) {
  return text.length <= IN_PLACE_CHARS || url === undefined
}

/**
 * {@link captureValue} on this thread: `{ source }` or `{ parseError }`.
 * @param {{ captureCodeModeValue: (value: unknown, maxBytes: number, structuredMaxBytes?: number) => JsonSource }} sdk
 * @param {string} text
 * @param {number} maxBytes
 * @param {number} structuredMaxBytes
 * @returns {Captured}
 */
function captureInPlace(sdk, text, maxBytes, structuredMaxBytes) {
  let value
  try {
    value = JSON.parse(text)
  } catch (error) {
    return { parseError: error instanceof Error ? error.message : String(error) }
  }
  return { source: sdk.captureCodeModeValue(value, maxBytes, structuredMaxBytes) }
}

/**
 * Parses a cell's final value and captures it as `sdk.captureCodeModeValue` does: in place for a
 * short text, or on a capture worker (when the runtime module's URL is known) for a long one.
 * Never throws, and always settles: a text that is not JSON answers `parseError` with
 * `JSON.parse`'s message; a capture past `remainingMs` (at least `floorMs`) answers `timeout`; a
 * text past `maxChars` answers `tooLarge`; one refused (the bound of held characters) or lost (a
 * dead worker) answers `error`. Once `signal`
 * aborts, the capture is dropped (and its worker ended): what it answers then is moot.
 * @param {{ captureCodeModeValue: (value: unknown, maxBytes: number, structuredMaxBytes?: number) => JsonSource }} sdk
 * @param {string | undefined} url the runtime module's URL, when it was loaded from one
 * @param {string} text
 * @param {number} maxBytes
 * @param {number} structuredMaxBytes
 * @param {{ remainingMs?: number, signal?: AbortSignal }} [options]
 * @returns {Promise<Captured>}
 */
async function captureValue(sdk, url, text, maxBytes, structuredMaxBytes, { remainingMs, signal } = {}) {
  // (`url === undefined` again, for the type checker: capturedInPlace says so too.)
  if (url === undefined || capturedInPlace(text, url)) return captureInPlace(sdk, text, maxBytes, structuredMaxBytes)
  if (signal?.aborted) return { error: 'the value capture was aborted' }
  if (text.length > captureLimits.maxChars) {
    counts.refused++
    return {
      tooLarge:
        `code mode value is too large to return: ${text.length} characters of JSON; the gateway captures at most ` +
        `${captureLimits.maxChars} characters of one final value: return a smaller value`,
    }
  }
  if (heldChars + text.length > captureLimits.heldChars) {
    counts.refused++
    return {
      error:
        `the gateway captures at most ${captureLimits.heldChars} characters of final values at once ` +
        `(${heldChars} are waiting or running); this final value is ${text.length} characters of JSON: ` +
        'try again later, or return a smaller value',
    }
  }
  const ms = Math.max(captureLimits.floorMs, Number.isFinite(remainingMs) ? /** @type {number} */ (remainingMs) : MAX_TIMER_MS)
  return new Promise((resolve) => {
    /** @type {Job} */
    const job = {
      id: nextId++,
      url,
      text,
      chars: text.length,
      maxBytes,
      structuredMaxBytes,
      deadline: performance.now() + ms,
      resolve,
      timer: undefined,
      signal,
      onAbort: () => {
        try {
          const runner = job.runner
          if (runner) retire(runner)
          settle(job, { error: 'the value capture was aborted' })
        } catch {}
      },
      runner: undefined,
      settled: false,
    }
    heldChars += job.chars
    try {
      signal?.addEventListener('abort', job.onAbort, { once: true })
      arm(job, ms)
      waiting.push(job)
      pump()
    } catch (error) {
      settle(job, { error: `the value capture failed: ${message(error)}` })
    }
  })
}

/** The state of the off-thread captures, for the tests. */
function captureState() {
  let running = 0
  for (const runner of runners) if (runner.job) running++
  return { ...counts, workers: runners.size, threads: live.size, running, waiting: waiting.length, heldChars }
}

module.exports = { captureValue, capturedInPlace, captureInPlace, captureState, captureLimits, IN_PLACE_CHARS }
