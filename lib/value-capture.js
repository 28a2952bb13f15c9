'use strict'

// A cell's final value reaches the `quickjs` executor as JSON text the guest made, and the
// gateway's `captureCodeModeValue` needs it parsed. Parsing is the gateway's own cost, not the
// cell's: a value that shares one array many times over (`o = [o, o]`) is small in the VM and
// tens of MB as text, and parsing it on Node's main thread held every session's event loop for
// seconds. A large text is therefore parsed and captured on a worker thread of its own, with the
// same runtime module the gateway loaded, and only the bounded capture comes back. Upstream's
// executor parses it in its worker too.

const { Worker } = require('node:worker_threads')

/** Texts up to this many UTF-16 units are parsed in place: a few ms at most. */
const IN_PLACE_CHARS = 1 << 20

/** The worker's heap cap: past it the worker dies, and the cell fails instead of the gateway. */
const WORKER_HEAP_MB = 2048

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
 * @typedef {{ source: JsonSource } | { parseError: string } | { error: string }} Captured
 */

/** @type {{ worker: Worker, url: string, pending: Map<number, (captured: Captured) => void> } | undefined} */
let current
let nextId = 1

/**
 * The capture worker for the runtime module at `url` (started on first use; one at a time).
 * @param {string} url
 */
function worker(url) {
  if (current?.url === url) return current
  current?.worker.terminate().catch(() => {})
  /** @type {Map<number, (captured: Captured) => void>} */
  const pending = new Map()
  const started = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { url },
    resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
  })
  const self = { worker: started, url, pending }
  /** @param {string} why */
  const fail = (why) => {
    if (current === self) current = undefined
    for (const settle of pending.values()) settle({ error: why })
    pending.clear()
  }
  started.on('message', (/** @type {Captured & { id: number }} */ reply) => {
    const settle = pending.get(reply.id)
    pending.delete(reply.id)
    if (pending.size === 0) started.unref()
    settle?.(reply)
  })
  started.on('error', (error) => fail(`the value capture worker failed: ${error?.message ?? error}`))
  started.on('exit', (code) => fail(`the value capture worker exited (code ${code})`))
  started.unref()
  current = self
  return self
}

/**
 * Parses a cell's final value and captures it as `sdk.captureCodeModeValue` does: in place for a
 * short text, or on the capture worker (when the runtime module's URL is known) for a long one.
 * Never throws; a text that is not JSON answers `parseError` with `JSON.parse`'s message.
 * @param {{ captureCodeModeValue: (value: unknown, maxBytes: number, structuredMaxBytes?: number) => JsonSource }} sdk
 * @param {string | undefined} url the runtime module's URL, when it was loaded from one
 * @param {string} text
 * @param {number} maxBytes
 * @param {number} structuredMaxBytes
 * @returns {Promise<Captured>}
 */
async function captureValue(sdk, url, text, maxBytes, structuredMaxBytes) {
  if (text.length <= IN_PLACE_CHARS || url === undefined) {
    let value
    try {
      value = JSON.parse(text)
    } catch (error) {
      return { parseError: error instanceof Error ? error.message : String(error) }
    }
    return { source: sdk.captureCodeModeValue(value, maxBytes, structuredMaxBytes) }
  }
  let capture
  try {
    capture = worker(url)
  } catch (error) {
    return { error: `the value capture worker did not start: ${error instanceof Error ? error.message : String(error)}` }
  }
  const id = nextId++
  return new Promise((resolve) => {
    capture.pending.set(id, resolve)
    capture.worker.ref()
    try {
      capture.worker.postMessage({ id, text, maxBytes, structuredMaxBytes })
    } catch (error) {
      capture.pending.delete(id)
      resolve({ error: `the value capture worker refused the value: ${error instanceof Error ? error.message : String(error)}` })
    }
  })
}

module.exports = { captureValue, IN_PLACE_CHARS }
