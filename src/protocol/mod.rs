//! The wire format between this crate and its JavaScript layer. The hot paths (call batches,
//! settled outcomes) are packed, in the layouts of `code_mode_protocol::packed`, whose JS ends
//! are generated from it (`lib/generated/protocol.js`); leg results and events are JSON text
//! (they splice guest JSON); cold calls take and return `#[napi(object)]` values.
//!
//! - Port messages ([`Message`]): `(kind, id, payload)` through the run's port (`src/port.rs`).
//! - Call batches (`code_mode_catalog::calls`, written in the sandbox and passed through):
//!   `[parentToolCallId | null, (call, toolIndex, input, namespace | 0)…]`.
//! - Settled outcomes (`settle.rs`): a `Float64Array` of `[cell, call, ok, length]` per outcome
//!   and their payloads joined.
//! - Leg results (`result.rs`) and events ([`cell_event`]): JSON text.

pub mod result;
pub mod settle;
pub mod types;

use serde_json::{Value, json};

/// Message kinds of the port (`code_mode_protocol::packed::port`).
pub use code_mode_protocol::packed::port::{ABORT_CELL, CALL, EVENT, LEG_DONE};

/// A message for the JS layer.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
  /// Start nested tool calls: every call the cell started since its previous batch (see
  /// `calls.rs`; inputs spliced in raw).
  Calls { cell: u64, payload: String },
  /// The result of the exec/wait leg the JS layer registered under `leg`.
  LegDone { leg: u32, result: String },
  /// Abort the signals of every nested call the cell still has in flight.
  AbortCell { cell: u64 },
  /// A `CodeModeEvent` as JSON.
  Event { payload: String },
}

impl Message {
  /// `(kind, id, payload)` as the JS port function receives them.
  pub fn into_args(self) -> (u32, f64, String) {
    match self {
      Message::Calls { cell, payload } => (CALL, cell as f64, payload),
      Message::LegDone { leg, result } => (LEG_DONE, leg as f64, result),
      Message::AbortCell { cell } => (ABORT_CELL, cell as f64, String::new()),
      Message::Event { payload } => (EVENT, 0.0, payload),
    }
  }
}

/// A cell lifecycle `CodeModeEvent` (`cell_suspended`, `cell_resumed`, `cell_expired`,
/// `cell_aborted`) with `extra` fields merged in.
pub fn cell_event(
  kind: &str,
  run_id: &str,
  cell_run_id: Option<&str>,
  tool_call_id: Option<&str>,
  extra: Value,
) -> Value {
  let mut event = json!({
    "type": kind,
    "runId": run_id,
    "cellRunId": cell_run_id,
    "toolCallId": tool_call_id,
  });
  if let (Some(map), Some(extra)) = (event.as_object_mut(), extra.as_object()) {
    map.extend(extra.clone());
  }
  event
}
