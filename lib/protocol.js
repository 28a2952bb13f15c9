'use strict'
// The wire format between the Rust core and this JavaScript layer: the only JS file that knows
// it. The other side of each layout is named beside it; change both together.
//
// Port messages (src/protocol/mod.rs `Message::into_args`): the run's port function receives
// `(kind, id, payload)`:
//   CALL       id = cell, payload = a call batch (below)
//   LEG_DONE   id = leg,  payload = the leg's `CodeModeResult` as JSON text
//   ABORT_CELL id = cell, payload = '' (abort every nested call the cell has in flight)
//   EVENT      id = 0,    payload = a `CodeModeEvent` as JSON text
//
// Call batch (src/run.rs `Run::write_call`, sent by `Run::send_calls`): a JSON array
//   [parentToolCallId | null, (call, toolIndex, input, namespace | 0)…]
// `call` numbers the call within its cell; `toolIndex` indexes the call tools (below); `input`
// is the guest's JSON value spliced in raw; `namespace` is `{ id, globalName, path, index }`
// when a namespace callable made the call (`index` picks its input mapper), else 0.
//
// Call tools (src/lib.rs `NativeRun::call_tools_json`, from `Catalog::call_tools_json`):
//   [[id, name, source, sourceName, mcp | null], …]
//
// Nested toolCallId (src/run.rs `Run::nested_tool_call_id`): `<nestedIdPrefix><cell>_<call>`.
//
// Settled outcomes (src/lib.rs `NativeRun::settle_many`): `numbers` is a Float64Array of
// `[cell, call, ok (0 or 1), length]` per outcome, in order; `payloads` is their texts joined,
// each `length` UTF-16 code units long (lone surrogates become U+FFFD on the Rust side). A
// single outcome goes through `NativeRun::settle(cell, call, ok, payload)`, which is
// `settle_many` with one entry.

// Message kinds of the port.
const CALL = 0
const LEG_DONE = 1
const ABORT_CELL = 2
const EVENT = 3

// Characters of results handed to the native side in one call at most.
const SETTLE_JOIN_LIMIT = 1 << 24

/**
 * Calls `start(call, toolIndex, input, namespace, parentToolCallId)` for each call of a batch,
 * in order; `namespace` and `parentToolCallId` are undefined when absent. A throw from `start`
 * skips only that call.
 */
function forEachCall(payload, start) {
  const batch = JSON.parse(payload)
  const parent = batch[0] ?? undefined
  for (let i = 1; i + 3 < batch.length; i += 4) {
    try {
      start(batch[i], batch[i + 1], batch[i + 2], batch[i + 3] || undefined, parent)
    } catch {
      // Only a bug can get here; the batch's other calls still start.
    }
  }
}

/** A call batch as records `{ call, toolIndex, input, namespace, parentToolCallId }` (tests). */
function decodeCallBatch(payload) {
  const calls = []
  forEachCall(payload, (call, toolIndex, input, namespace, parentToolCallId) => {
    calls.push({ call, toolIndex, input, namespace, parentToolCallId })
  })
  return calls
}

/** The call tools as records `{ id, name, source, sourceName, mcp }`, by tool index. */
function decodeCallTools(json) {
  return JSON.parse(json).map((tool) => ({
    id: tool[0],
    name: tool[1],
    source: tool[2],
    sourceName: tool[3],
    mcp: tool[4],
  }))
}

function nestedToolCallId(prefix, cell, call) {
  return prefix + cell + '_' + call
}

/** A leg's `CodeModeResult` (a LEG_DONE payload, or the answer of `exec`/`wait` itself). */
function decodeLegResult(payload) {
  return JSON.parse(payload)
}

/** An EVENT payload's `CodeModeEvent`. */
function decodeEvent(payload) {
  return JSON.parse(payload)
}

/**
 * Outcomes not yet handed to the native side, already in `settle_many`'s layout. Outcomes that
 * arrive in the same microtask checkpoint (a batch of calls answered at once) reach the native
 * side in one call, and wake their cell once.
 */
class OutcomeQueue {
  /** `[cell, call, ok, length]` × n */
  #numbers = []
  #texts = []
  #joinLimit

  constructor(joinLimit = SETTLE_JOIN_LIMIT) {
    this.#joinLimit = joinLimit
  }

  /** Queues one outcome. True when the queue was empty: the caller schedules a `flush`. */
  push(cell, call, ok, text) {
    const texts = this.#texts
    texts.push(text)
    this.#numbers.push(cell, call, ok ? 1 : 0, text.length)
    return texts.length === 1
  }

  /**
   * Hands every queued outcome to `sink` (a `NativeRun`: `settle` and `settleMany`) and empties
   * the queue; outcomes queued meanwhile wait for the next flush.
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
          sink.settle(numbers[4 * from], numbers[4 * from + 1], numbers[4 * from + 2] === 1, texts[from])
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
 * Outcomes `{ cell, call, ok, text }` as the chunks one flush hands over, each in
 * `settle_many`'s form `{ numbers: Float64Array, payloads: string }` (a lone outcome, which
 * goes through `settle`, as a chunk of one).
 */
function packOutcomes(outcomes, joinLimit = SETTLE_JOIN_LIMIT) {
  const queue = new OutcomeQueue(joinLimit)
  for (const { cell, call, ok, text } of outcomes) queue.push(cell, call, ok, text)
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
  SETTLE_JOIN_LIMIT,
  forEachCall,
  decodeCallBatch,
  decodeCallTools,
  nestedToolCallId,
  decodeLegResult,
  decodeEvent,
  OutcomeQueue,
  packOutcomes,
}
