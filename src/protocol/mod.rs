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

/// Message kinds of the port (`code_mode_protocol::packed::port`).
pub use code_mode_protocol::packed::port::{ABORT_CELL, CALL, EVENT, FLOATING, LEG_DONE};

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
  /// Cell `cell` completed with these calls maybe still running: `[[call, inputBytes], …]`.
  Floating { cell: u64, calls: String },
}

impl Message {
  /// `(kind, id, payload)` as the JS port function receives them.
  pub fn into_args(self) -> (u32, f64, String) {
    match self {
      Message::Calls { cell, payload } => (CALL, cell as f64, payload),
      Message::LegDone { leg, result } => (LEG_DONE, leg as f64, result),
      Message::AbortCell { cell } => (ABORT_CELL, cell as f64, String::new()),
      Message::Event { payload } => (EVENT, 0.0, payload),
      Message::Floating { cell, calls } => (FLOATING, cell as f64, calls),
    }
  }
}

/// A cell lifecycle event as the JSON text the JS layer hands to `onEvent`.
pub fn event_json(event: &types::CodeModeCellEvent) -> String {
  // Serialising these types cannot fail: every map key is a string and every value is plain.
  serde_json::to_string(event).unwrap_or_default()
}

#[cfg(test)]
mod tests {
  use super::types::{CodeModeCellEvent, CodeModeErrorCode};
  use super::*;
  use serde_json::{Value, json};

  #[test]
  fn cell_events_carry_their_type_and_camel_case_fields() {
    let suspended = CodeModeCellEvent::CellSuspended {
      run_id: "run-1".into(),
      cell_run_id: Some("cm_1".into()),
      tool_call_id: None,
      reason: "pending_tools".into(),
      pending_tool_calls: 2,
      snapshot_bytes: 1024.0,
    };
    let v: Value = serde_json::from_str(&event_json(&suspended)).unwrap_or_default();
    assert_eq!(
      v,
      json!({ "type": "cell_suspended", "runId": "run-1", "cellRunId": "cm_1", "toolCallId": null,
              "reason": "pending_tools", "pendingToolCalls": 2, "snapshotBytes": 1024.0 })
    );
    let dropped = CodeModeCellEvent::CellDropped {
      run_id: "run-1".into(),
      cell_run_id: Some("cm_2".into()),
      tool_call_id: None,
      code: CodeModeErrorCode::SnapshotLimitExceeded,
      error: "too big".into(),
    };
    let v: Value = serde_json::from_str(&event_json(&dropped)).unwrap_or_default();
    assert_eq!(v["type"], "cell_dropped");
    assert_eq!(v["code"], "snapshot_limit_exceeded");
  }
}
