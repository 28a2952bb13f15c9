//! A leg's outcome as the JSON `lib/openclaw-executor.js` reads: a boundary (the pending and
//! cancelled requests, how to settle them), a value or a failure, each with its output. Separate
//! from the leg loop (`session.rs`) because it is the one writer of what crosses to Node.

use super::{Bridge, Outcome};
use code_mode_protocol::executor::{
  self, ExecutorOutcome, ExecutorRequest, LegAnswer, Output, SettlementMode,
};

/// A leg's answer as the executor (`lib/openclaw-executor.js`) reads it, its output cut past
/// `output_cap` bytes (the host's `maxOutputBytes`, when it gave one) where it is made.
pub fn answer(outcome: Outcome, bridge: &Bridge, output_cap: Option<usize>) -> LegAnswer {
  let network_content_observed = bridge.network_observed;
  match outcome {
    Outcome::Boundary {
      awaiting,
      output: text,
      memory_used,
    } => ExecutorOutcome::Boundary {
      pending_requests: bridge
        .pending
        .iter()
        .map(|r| ExecutorRequest {
          id: &r.id,
          method: &r.method,
          // Checked to be one JSON array when the guest made the request (`host_request`).
          args: executor::array_or_empty(&r.args),
        })
        .collect(),
      canceled_request_ids: &bridge.canceled,
      settlement_mode: if awaiting {
        SettlementMode::Awaiting
      } else {
        SettlementMode::Draining {
          required_request_ids: bridge.pending.iter().map(|r| r.id.as_str()).collect(),
        }
      },
      output: Output::of(&text, output_cap),
      memory_used_bytes: memory_used,
      network_content_observed,
    }
    .to_json()
    .into(),
    Outcome::Completed {
      value,
      output: text,
    } => LegAnswer::completed(
      value,
      Output::of(&text, output_cap),
      network_content_observed,
    ),
    Outcome::Failed {
      code,
      error,
      output: text,
    } => ExecutorOutcome::Failed {
      code,
      error: &error,
      output: Output::of(&text, output_cap),
      network_content_observed,
    }
    .to_json()
    .into(),
  }
}
