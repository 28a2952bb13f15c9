//! The two hot formats between the addon and its JavaScript layer, defined once. The constants
//! here are what the Rust ends use (`code_mode_catalog::calls` writes call batches,
//! `src/protocol/settle.rs` reads settled outcomes, `src/protocol/mod.rs` sends port messages);
//! [`javascript`] writes the JS ends from the same constants into `lib/generated/protocol.js`.
//! `tools/build.mjs` regenerates that file (`cargo run -p code-mode-protocol --bin protocol-js`),
//! and a test below fails while the committed copy differs. Every other shape crosses the
//! boundary as a `#[napi(object)]` value or as JSON text.
//! The file also carries [`crate::MAX_CODE_BYTES`], so the JS layer bounds a cell source as
//! exec does.

/// Kinds of the messages a run's port function receives as `(kind, id, payload)`.
pub mod port {
  /// `id` is the cell, `payload` a call batch (see [`super::batch`]).
  pub const CALL: u32 = 0;
  /// `id` is the leg, `payload` the leg's `CodeModeResult` as JSON text.
  pub const LEG_DONE: u32 = 1;
  /// `id` is the cell, `payload` is empty: abort every nested call the cell has in flight.
  pub const ABORT_CELL: u32 = 2;
  /// `id` is 0, `payload` a `CodeModeEvent` as JSON text.
  pub const EVENT: u32 = 3;
  /// `id` is the cell, `payload` JSON `[[call, inputBytes], …]`: the cell completed, and these
  /// of its calls may still be running (their results are dropped); the JS layer keeps those it
  /// has within its run's budget.
  pub const FLOATING: u32 = 4;
}

/// A call batch: every nested call a cell started since its previous batch, as one JSON array
/// `[parentToolCallId | null, (call, toolIndex, input, namespace | 0)…]`. `call` numbers the
/// call within its cell; `toolIndex` indexes the run's call tools (`NativeRun.callTool`);
/// `input` is the guest's JSON value spliced in raw; `namespace` is `{ id, globalName, path,
/// index }` when a namespace callable made the call (`index` picks its input mapper), else
/// [`NO_NAMESPACE`](batch::NO_NAMESPACE).
pub mod batch {
  /// Where the parent `toolCallId` (the exec or wait that made the calls) is, or `null`.
  pub const PARENT: usize = 0;
  /// Where the first call starts.
  pub const HEADER: usize = 1;
  /// Values per call, and where each is within a call.
  pub const STRIDE: usize = 4;
  pub const CALL: usize = 0;
  pub const TOOL_INDEX: usize = 1;
  pub const INPUT: usize = 2;
  pub const NAMESPACE: usize = 3;
  /// The namespace field of a call no namespace made.
  pub const NO_NAMESPACE: &str = "0";
  /// A nested `toolCallId` is `<nestedIdPrefix><cell><ID_SEPARATOR><call>`.
  pub const ID_SEPARATOR: char = '_';
}

/// Settled outcomes, as the JS layer hands them to `NativeRun.settleMany`: `numbers` (a
/// `Float64Array`) holds [`STRIDE`](settled::STRIDE) numbers per outcome, in order; `payloads`
/// is their payloads joined (JSON text when ok, else the error message), each `length` UTF-16
/// code units long. A lone outcome goes through `NativeRun.settle(cell, call, ok, payload)`.
pub mod settled {
  pub const STRIDE: usize = 4;
  pub const CELL: usize = 0;
  pub const CALL: usize = 1;
  /// 1 when the call succeeded, else 0.
  pub const OK: usize = 2;
  pub const LENGTH: usize = 3;
  /// UTF-16 code units of payloads the JS layer joins into one `settleMany` call at most
  /// (V8's longest string is 2^29 - 24 units; a larger single payload goes alone).
  pub const JOIN_LIMIT: usize = 1 << 24;
}

// The positions of each layout are distinct and inside its stride (the generated JS reads and
// writes them by position).
const _: () = {
  let batch = [
    batch::CALL,
    batch::TOOL_INDEX,
    batch::INPUT,
    batch::NAMESPACE,
  ];
  let settled = [settled::CELL, settled::CALL, settled::OK, settled::LENGTH];
  assert!(distinct_below(&batch, batch::STRIDE) && batch.len() == batch::STRIDE);
  assert!(distinct_below(&settled, settled::STRIDE) && settled.len() == settled::STRIDE);
  assert!(batch::PARENT < batch::HEADER);
};

const fn distinct_below(positions: &[usize], stride: usize) -> bool {
  let mut i = 0;
  while i < positions.len() {
    if positions[i] >= stride {
      return false;
    }
    let mut j = i + 1;
    while j < positions.len() {
      if positions[i] == positions[j] {
        return false;
      }
      j += 1;
    }
    i += 1;
  }
  true
}

/// Where the generated JavaScript is, from the workspace root.
pub const JAVASCRIPT_PATH: &str = "lib/generated/protocol.js";

/// `exprs` (position, expression) in position order, joined with `, `.
fn by_position(mut exprs: Vec<(usize, String)>) -> String {
  exprs.sort_by_key(|(at, _)| *at);
  exprs
    .into_iter()
    .map(|(_, e)| e)
    .collect::<Vec<_>>()
    .join(", ")
}

/// The JS ends of the formats above: `lib/generated/protocol.js`.
pub fn javascript() -> String {
  use std::fmt::Write;
  let mut js = String::new();
  let b = |at: usize| format!("batch[i + {at}]");
  let start_args = [
    b(batch::CALL),
    b(batch::TOOL_INDEX),
    b(batch::INPUT),
    format!("{} || undefined", b(batch::NAMESPACE)),
    "parent".to_string(),
  ]
  .join(", ");
  let push = by_position(vec![
    (settled::CELL, "cell".into()),
    (settled::CALL, "call".into()),
    (settled::OK, "ok ? 1 : 0".into()),
    (settled::LENGTH, "text.length".into()),
  ]);
  let n = |at: usize| format!("numbers[{} * from + {at}]", settled::STRIDE);
  let lone = format!(
    "{}, {}, {} === 1, texts[from]",
    n(settled::CELL),
    n(settled::CALL),
    n(settled::OK)
  );
  let chunk = by_position(vec![
    (settled::CELL, "cell".into()),
    (settled::CALL, "call".into()),
    (settled::OK, "ok ? 1 : 0".into()),
    (settled::LENGTH, "payload.length".into()),
  ]);
  let _ = write!(
    js,
    r#"// Auto-generated code, DO NOT EDIT.
// Generated from crates/protocol/src/packed.rs by `cargo run -p code-mode-protocol --bin
// protocol-js` (tools/build.mjs runs it); `cargo test -p code-mode-protocol` fails while this
// file differs. The JS ends of the two hot formats between the addon and this layer: call
// batches (written by crates/catalog/src/calls.rs) and settled outcomes (read by
// src/protocol/settle.rs), the kinds of the port's messages (src/protocol/mod.rs), and the
// cell source cap (crates/protocol/src/lib.rs).
// @ts-check
'use strict'

// Kinds of the messages a run's port function receives as `(kind, id, payload)`.
/** `id` is the cell, `payload` a call batch ({{@link forEachCall}}). */
const CALL = {call}
/** `id` is the leg, `payload` the leg's `CodeModeResult` as JSON text. */
const LEG_DONE = {leg_done}
/** `id` is the cell, `payload` is empty: abort every nested call the cell has in flight. */
const ABORT_CELL = {abort_cell}
/** `id` is 0, `payload` a `CodeModeEvent` as JSON text. */
const EVENT = {event}
/**
 * `id` is the cell, `payload` JSON `[[call, inputBytes], …]`: the cell completed, and these of its
 * calls may still be running (their results are dropped).
 */
const FLOATING = {floating}

/** UTF-16 code units of payloads joined into one `settleMany` call at most. */
const SETTLE_JOIN_LIMIT = {join_limit}

/** The most bytes (UTF-8) of source a cell may have: code mode's exec refuses more. */
const MAX_CODE_BYTES = {max_code_bytes}

/**
 * Where a namespace callable's call came from (the batch holds {no_namespace} when no namespace made it).
 * @typedef {{{{ id: string, globalName: string, path: string, index: number }}}} BatchNamespace
 */

/**
 * Calls `start(call, toolIndex, input, namespace, parentToolCallId)` for each call of a batch
 * (`[parentToolCallId | null, (call, toolIndex, input, namespace | {no_namespace})…]`), in order;
 * `namespace` and `parentToolCallId` are undefined when absent. A throw from `start` skips only
 * that call.
 * @param {{string}} payload
 * @param {{(call: number, toolIndex: number, input: unknown, namespace: BatchNamespace | undefined, parentToolCallId: string | undefined) => void}} start
 */
function forEachCall(payload, start) {{
  const batch = JSON.parse(payload)
  const parent = batch[{parent}] ?? undefined
  for (let i = {header}; i + {last} < batch.length; i += {stride}) {{
    try {{
      start({start_args})
    }} catch {{
      // Only a bug can get here; the batch's other calls still start.
    }}
  }}
}}

/**
 * A call batch as records (tests).
 * @param {{string}} payload
 * @returns {{{{ call: number, toolIndex: number, input: unknown, namespace: BatchNamespace | undefined, parentToolCallId: string | undefined }}[]}}
 */
function decodeCallBatch(payload) {{
  /** @type {{ReturnType<typeof decodeCallBatch>}} */
  const calls = []
  forEachCall(payload, (call, toolIndex, input, namespace, parentToolCallId) => {{
    calls.push({{ call, toolIndex, input, namespace, parentToolCallId }})
  }})
  return calls
}}

/**
 * The `toolCallId` of call `call` of cell `cell`.
 * @param {{string}} prefix the run's `nestedIdPrefix`
 * @param {{number}} cell
 * @param {{number}} call
 */
function nestedToolCallId(prefix, cell, call) {{
  return prefix + cell + '{separator}' + call
}}

/**
 * Where a flush hands outcomes: a `NativeRun`, or a test double.
 * @typedef {{object}} OutcomeSink
 * @property {{(cell: number, call: number, ok: boolean, payload: string) => void}} settle
 * @property {{(numbers: Float64Array, payloads: string) => void}} settleMany
 */

/**
 * Outcomes not yet handed to the native side, already in `settleMany`'s layout. Outcomes that
 * arrive in the same microtask checkpoint (a batch of calls answered at once) reach the native
 * side in one call, and wake their cell once.
 */
class OutcomeQueue {{
  /** @type {{number[]}} {stride} numbers per outcome */
  #numbers = []
  /** @type {{string[]}} */
  #texts = []
  #joinLimit

  constructor(joinLimit = SETTLE_JOIN_LIMIT) {{
    this.#joinLimit = joinLimit
  }}

  /**
   * Queues one outcome. True when the queue was empty: the caller schedules a `flush`.
   * @param {{number}} cell
   * @param {{number}} call
   * @param {{boolean}} ok
   * @param {{string}} text JSON text when ok, else the error message
   */
  push(cell, call, ok, text) {{
    const texts = this.#texts
    texts.push(text)
    this.#numbers.push({push})
    return texts.length === 1
  }}

  /**
   * Hands every queued outcome to `sink` and empties the queue; outcomes queued meanwhile wait
   * for the next flush.
   * @param {{OutcomeSink}} sink
   */
  flush(sink) {{
    const numbers = this.#numbers
    const texts = this.#texts
    this.#numbers = []
    this.#texts = []
    // Joined texts stay far below V8's string limit: large results go in several calls.
    let from = 0
    while (from < texts.length) {{
      let to = from + 1
      let length = texts[from].length
      while (to < texts.length && length + texts[to].length <= this.#joinLimit) length += texts[to++].length
      try {{
        if (to - from === 1) {{
          sink.settle({lone})
        }} else {{
          sink.settleMany(new Float64Array(numbers.slice({stride_s} * from, {stride_s} * to)), texts.slice(from, to).join(''))
        }}
      }} catch {{
        // Only a bug can get here (a throw in a microtask would end the process).
      }}
      from = to
    }}
  }}
}}

/**
 * Outcomes as the chunks one flush hands over, each in `settleMany`'s form (a lone outcome,
 * which goes through `settle`, as a chunk of one): what the native side receives (tests).
 * @param {{{{ cell: number, call: number, ok: boolean, text: string }}[]}} outcomes
 * @param {{number}} [joinLimit]
 * @returns {{{{ numbers: Float64Array, payloads: string }}[]}}
 */
function packOutcomes(outcomes, joinLimit = SETTLE_JOIN_LIMIT) {{
  const queue = new OutcomeQueue(joinLimit)
  for (const {{ cell, call, ok, text }} of outcomes) queue.push(cell, call, ok, text)
  /** @type {{ReturnType<typeof packOutcomes>}} */
  const chunks = []
  queue.flush({{
    settle(cell, call, ok, payload) {{
      chunks.push({{ numbers: Float64Array.of({chunk}), payloads: payload }})
    }},
    settleMany(numbers, payloads) {{
      chunks.push({{ numbers, payloads }})
    }},
  }})
  return chunks
}}

module.exports = {{
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
}}
"#,
    call = port::CALL,
    leg_done = port::LEG_DONE,
    abort_cell = port::ABORT_CELL,
    event = port::EVENT,
    floating = port::FLOATING,
    join_limit = settled::JOIN_LIMIT,
    max_code_bytes = crate::MAX_CODE_BYTES,
    no_namespace = batch::NO_NAMESPACE,
    parent = batch::PARENT,
    header = batch::HEADER,
    last = batch::STRIDE - 1,
    stride = batch::STRIDE,
    start_args = start_args,
    separator = batch::ID_SEPARATOR,
    push = push,
    lone = lone,
    stride_s = settled::STRIDE,
    chunk = chunk,
  );
  js
}

#[cfg(test)]
mod tests {
  use super::*;

  /// The committed `lib/generated/protocol.js` is what [`javascript`] writes now.
  #[test]
  fn the_committed_javascript_is_current() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
      .join("../..")
      .join(JAVASCRIPT_PATH);
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
      committed == javascript(),
      "{JAVASCRIPT_PATH} is stale: run `cargo run -p code-mode-protocol --bin protocol-js` (or `npm run build`) and commit it"
    );
  }
}
