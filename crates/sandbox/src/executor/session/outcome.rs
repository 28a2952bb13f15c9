//! A leg's outcome as the JSON `lib/openclaw-executor.js` reads: a boundary (the pending and
//! cancelled requests, how to settle them), a value or a failure, each with its output. Separate
//! from the leg loop (`session.rs`) because it is the one writer of what crosses to Node.

use super::{Bridge, Outcome};
use code_mode_protocol::executor::{
  self, ExecutorOutcome, ExecutorRequest, LegAnswer, SettlementMode,
};

/// A leg's answer as the executor (`lib/openclaw-executor.js`) reads it.
pub fn answer(outcome: Outcome, bridge: &Bridge) -> LegAnswer {
  let output = executor::array_or_empty;
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
      output: output(&text),
      memory_used_bytes: memory_used,
      network_content_observed,
    }
    .to_json()
    .into(),
    Outcome::Completed {
      value,
      output: text,
    } => LegAnswer::completed(value, output(&text), network_content_observed),
    Outcome::Failed {
      code,
      error,
      output: text,
    } => ExecutorOutcome::Failed {
      code,
      error: &error,
      output: output(&text),
      network_content_observed,
    }
    .to_json()
    .into(),
  }
}
