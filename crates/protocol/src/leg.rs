//! How a leg ends, as the engine reports it to its host: one definition for the engine (which
//! makes these), the sandbox process (which sends them) and the binding (which turns them into
//! results and events).

use crate::error::Failure;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// One output item of a leg.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum OutputItem {
  Text(String),
  /// JSON text of the value.
  Json(String),
}

/// One exec or wait as the host starts it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LegTag {
  /// The host's key for the leg (code mode: the JS layer's promise key).
  pub id: u32,
  /// The id the caller gave the leg (code mode: the exec/wait `toolCallId`); requests started
  /// during the leg name it as their parent.
  pub caller_id: Option<String>,
}

/// What a parked cell waits on, as a `waiting` result lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PendingRequest {
  pub id: String,
  /// `call`, `mcp`, `namespace`, `timer` or `yield`.
  pub method: Cow<'static, str>,
  pub target: Option<String>,
}

/// Why a parked cell was dropped between legs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum DropReason {
  Expired,
  Aborted,
  /// What it held while parked (its VM, the results that reached it, the calls queued behind
  /// its cap) grew past `maxSnapshotBytes`; `end` carries the failure.
  SnapshotLimit,
}

/// How a leg (or a parked cell) ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum LegEnd {
  /// The cell's main function resolved; `value` is its JSON text.
  Completed {
    value: String,
  },
  Failed(Failure),
  /// The cell is parked under `token` until its next leg.
  Waiting {
    token: String,
    /// `"yield"` or `"pending_tools"`.
    reason: Cow<'static, str>,
    pending: Vec<PendingRequest>,
    /// What the parked VM holds.
    snapshot_bytes: u64,
  },
}

/// Everything the engine reports about one cell ending a leg or being dropped.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ended {
  pub cell: u64,
  /// The leg that ended; `None` when a parked cell was dropped between legs.
  pub leg: Option<LegTag>,
  /// `None` when a parked cell was dropped with nothing more to tell than `dropped`; a leg that
  /// ended always has one.
  pub end: Option<LegEnd>,
  pub dropped: Option<DropReason>,
  /// The cell's token in the store, if it was parked (or is now).
  pub token: Option<String>,
  /// Output the leg produced.
  pub output: Vec<OutputItem>,
  /// A completed cell's requests still running in the host, as `(request id, input bytes the
  /// host holds for it)`: they run on, their outcomes dropped, and count against their run's
  /// budget for such calls (lib/run.js, which keeps only calls it has running). Empty for every
  /// other end but a completion made a failure on its way out (`over_limit`): the addon aborts those.
  pub floating: Vec<(u32, u64)>,
}
