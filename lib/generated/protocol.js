// Auto-generated code, DO NOT EDIT.
// Generated from crates/protocol/src/packed.rs by `cargo run -p code-mode-protocol --bin
// protocol-js` (tools/build.mjs runs it); `cargo test -p code-mode-protocol` fails while this
// file differs. The JS ends of the two hot formats between the addon and this layer: call
// batches (written by crates/catalog/src/calls.rs) and settled outcomes (read by
// src/protocol/settle.rs), the kinds of the port's messages (src/protocol/mod.rs), and the
// cell source cap (crates/protocol/src/lib.rs).
// @ts-check
'use strict'

// Kinds of the messages a run's port function receives as `(kind, id, payload)`.
/** `id` is the cell, `payload` a call batch ({@link forEachCall}). */
const CALL = 0
/** `id` is the leg, `payload` the leg's `CodeModeResult` as JSON text. */
const LEG_DONE = 1
/** `id` is the cell, `payload` is empty: abort every nested call the cell has in flight. */
const ABORT_CELL = 2
/** `id` is 0, `payload` a `CodeModeEvent` as JSON text. */
const EVENT = 3
/**
 * `id` is the cell, `payload` JSON `[[call, inputBytes], …]`: the cell completed, and these of its
 * calls may still be running (their results are dropped).
 */
const FLOATING = 4

/** UTF-16 code units of payloads joined into one `settleMany` call at most. */
const SETTLE_JOIN_LIMIT = 16777216

/** The most bytes (UTF-8) of source a cell may have: code mode's exec refuses more. */
const MAX_CODE_BYTES = 1048576

/**
 * Where a namespace callable's call came from (the batch holds 0 when no namespace made it).
 * @typedef {{ id: string, globalName: string, path: string, index: number }} BatchNamespace
 */

/**
 * Calls `start(call, toolIndex, input, namespace, parentToolCallId)` for each call of a batch
 * (`[parentToolCallId | null, (call, toolIndex, input, namespace | 0)…]`), in order;
 * `namespace` and `parentToolCallId` are undefined when absent. A throw from `start` skips only
 * that call.
 * @param {string} payload
 * @param {(call: number, toolIndex: number, input: unknown, namespace: BatchNamespace | undefined, parentToolCallId: string | undefined) => void} start
 */
function forEachCall(payload, start) {
  const batch = JSON.parse(payload)
  const parent = batch[0] ?? undefined
  for (let i = 1; i + 3 < batch.length; i += 4) {
    try {
      start(batch[i + 0], batch[i + 1], batch[i + 2], batch[i + 3] || undefined, parent)
    } catch {
      // Only a bug can get here; the batch's other calls still start.
    }
  }
}

/**
 * A call batch as records (tests).
 * @param {string} payload
 * @returns {{ call: number, toolIndex: number, input: unknown, namespace: BatchNamespace | undefined, parentToolCallId: string | undefined }[]}
 */
function decodeCallBatch(payload) {
  /** @type {ReturnType<typeof decodeCallBatch>} */
  const calls = []
  forEachCall(payload, (call, toolIndex, input, namespace, parentToolCallId) => {
    calls.push({ call, toolIndex, input, namespace, parentToolCallId })
  })
  return calls
}

/**
 * The `toolCallId` of call `call` of cell `cell`.
 * @param {string} prefix the run's `nestedIdPrefix`
 * @param {number} cell
 * @param {number} call
 */
function nestedToolCallId(prefix, cell, call) {
  return prefix + cell + '_' + call
}

/**
 * Where a flush hands outcomes: a `NativeRun`, or a test double.
 * @typedef {object} OutcomeSink
 * @property {(cell: number, call: number, ok: boolean, payload: string) => void} settle
 * @property {(numbers: Float64Array, payloads: string) => void} settleMany
 */

/**
 * Outcomes not yet handed to the native side, already in `settleMany`'s layout. Outcomes that
 * arrive in the same microtask checkpoint (a batch of calls answered at once) reach the native
 * side in one call, and wake their cell once.
 */
class OutcomeQueue {
  /** @type {number[]} 4 numbers per outcome */
  #numbers = []
  /** @type {string[]} */
  #texts = []
  #joinLimit

  constructor(joinLimit = SETTLE_JOIN_LIMIT) {
    this.#joinLimit = joinLimit
  }

  /**
   * Queues one outcome. True when the queue was empty: the caller schedules a `flush`.
   * @param {number} cell
   * @param {number} call
   * @param {boolean} ok
   * @param {string} text JSON text when ok, else the error message
   */
  push(cell, call, ok, text) {
    const texts = this.#texts
    texts.push(text)
    this.#numbers.push(cell, call, ok ? 1 : 0, text.length)
    return texts.length === 1
  }

  /**
   * Hands every queued outcome to `sink` and empties the queue; outcomes queued meanwhile wait
   * for the next flush.
   * @param {OutcomeSink} sink
   */
  flush(sink) {
    const numbers = this.#numbers
    const texts = this.#texts
    this.#numbers = []
    this.#texts = []
    // Joined texts stay far below V8's string limit: large results go in several calls.
    let from = 0
    while (from < texts.length) {
      let to = from + 1
      let length = texts[from].length
      while (to < texts.length && length + texts[to].length <= this.#joinLimit) length += texts[to++].length
      try {
        if (to - from === 1) {
          sink.settle(numbers[4 * from + 0], numbers[4 * from + 1], numbers[4 * from + 2] === 1, texts[from])
        } else {
          sink.settleMany(new Float64Array(numbers.slice(4 * from, 4 * to)), texts.slice(from, to).join(''))
        }
      } catch {
        // Only a bug can get here (a throw in a microtask would end the process).
      }
      from = to
    }
  }
}

/**
 * Outcomes as the chunks one flush hands over, each in `settleMany`'s form (a lone outcome,
 * which goes through `settle`, as a chunk of one): what the native side receives (tests).
 * @param {{ cell: number, call: number, ok: boolean, text: string }[]} outcomes
 * @param {number} [joinLimit]
 * @returns {{ numbers: Float64Array, payloads: string }[]}
 */
function packOutcomes(outcomes, joinLimit = SETTLE_JOIN_LIMIT) {
  const queue = new OutcomeQueue(joinLimit)
  for (const { cell, call, ok, text } of outcomes) queue.push(cell, call, ok, text)
  /** @type {ReturnType<typeof packOutcomes>} */
  const chunks = []
  queue.flush({
    settle(cell, call, ok, payload) {
      chunks.push({ numbers: Float64Array.of(cell, call, ok ? 1 : 0, payload.length), payloads: payload })
    },
    settleMany(numbers, payloads) {
      chunks.push({ numbers, payloads })
    },
  })
  return chunks
}

module.exports = {
  CALL,
  LEG_DONE,
  ABORT_CELL,
  EVENT,
  FLOATING,
  SETTLE_JOIN_LIMIT,
  MAX_CODE_BYTES,
  forEachCall,
  decodeCallBatch,
  nestedToolCallId,
  OutcomeQueue,
  packOutcomes,
}
