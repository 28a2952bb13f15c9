//! The result error codes (`CodeModeErrorCode`, ARCHITECTURE.md decision 3) and the failure value carried through the runtime.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Why a cell failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ErrorCode {
  InvalidInput,
  RuntimeUnavailable,
  Timeout,
  OutputLimitExceeded,
  SnapshotLimitExceeded,
  InternalError,
  MemoryLimitExceeded,
  Aborted,
}

impl ErrorCode {
  pub fn as_str(self) -> &'static str {
    match self {
      ErrorCode::InvalidInput => "invalid_input",
      ErrorCode::RuntimeUnavailable => "runtime_unavailable",
      ErrorCode::Timeout => "timeout",
      ErrorCode::OutputLimitExceeded => "output_limit_exceeded",
      ErrorCode::SnapshotLimitExceeded => "snapshot_limit_exceeded",
      ErrorCode::InternalError => "internal_error",
      ErrorCode::MemoryLimitExceeded => "memory_limit_exceeded",
      ErrorCode::Aborted => "aborted",
    }
  }
}

/// Where a cell failed, so a model's own error can be told from a runtime fault:
/// - `input`: the exec/wait input was refused (validation, disabled language, unknown or
///   foreign `runId`, module access, a syntax error);
/// - `guest`: the program failed (an uncaught error, a timeout, a memory, output or snapshot
///   limit, a promise nothing settles);
/// - `bridge`: the plumbing of a nested call failed (a host function under the VM panicked);
/// - `host`: the runtime failed or was unavailable (no runtime, at capacity, a panic outside
///   the bridge, the run or cell aborted by its host).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum FailurePhase {
  Input,
  Guest,
  Bridge,
  Host,
}

impl FailurePhase {
  pub fn as_str(self) -> &'static str {
    match self {
      FailurePhase::Input => "input",
      FailurePhase::Guest => "guest",
      FailurePhase::Bridge => "bridge",
      FailurePhase::Host => "host",
    }
  }
}

impl ErrorCode {
  /// The phase a failure with this code is in unless the place that makes it says otherwise
  /// ([`Failure::in_phase`]).
  pub fn phase(self) -> FailurePhase {
    match self {
      ErrorCode::InvalidInput => FailurePhase::Input,
      ErrorCode::Timeout
      | ErrorCode::OutputLimitExceeded
      | ErrorCode::SnapshotLimitExceeded
      | ErrorCode::MemoryLimitExceeded
      | ErrorCode::InternalError => FailurePhase::Guest,
      ErrorCode::RuntimeUnavailable | ErrorCode::Aborted => FailurePhase::Host,
    }
  }
}

/// A `failed` result before telemetry and output are attached.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Failure {
  pub code: ErrorCode,
  pub message: String,
  pub phase: FailurePhase,
}

impl Failure {
  pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
    Failure {
      code,
      message: message.into(),
      phase: code.phase(),
    }
  }

  /// The same failure, made in `phase`.
  pub fn in_phase(mut self, phase: FailurePhase) -> Self {
    self.phase = phase;
    self
  }

  pub fn invalid(message: impl Into<String>) -> Self {
    Failure::new(ErrorCode::InvalidInput, message)
  }

  pub fn internal(message: impl Into<String>) -> Self {
    Failure::new(ErrorCode::InternalError, message)
  }
}

impl fmt::Display for Failure {
  fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    write!(f, "{}: {}", self.code.as_str(), self.message)
  }
}

/// The text of a panic payload.
pub fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
  panic
    .downcast_ref::<&str>()
    .map(|s| s.to_string())
    .or_else(|| panic.downcast_ref::<String>().cloned())
    .unwrap_or_else(|| "unknown panic".into())
}

/// Messages that several modules (and the tests) rely on verbatim.
pub mod messages {
  pub const DISABLED: &str = "code mode is disabled.";
  pub const RUN_UNAVAILABLE: &str = "code mode run is unavailable or expired.";
  pub const WRONG_SESSION: &str = "code mode run belongs to a different session.";
  pub const ALREADY_RESUMING: &str = "code mode run is already being resumed.";
  pub const TOO_MANY_SUSPENDED: &str = "too many suspended code mode runs.";
  pub const TYPESCRIPT_DISABLED: &str = "code mode typescript input is disabled.";
  pub const JAVASCRIPT_DISABLED: &str = "code mode javascript input is disabled.";
  pub const ABORTED: &str = "code mode run was aborted.";
}

/// How a host's users know its cells and limits. A failure message names the setting its
/// reader can change: Tool Search's users configure `codeTimeoutMs`, not code mode's
/// `timeoutMs`, and a limit they cannot set at all is named for what it is.
#[derive(Debug, PartialEq, Eq)]
pub struct LimitNames {
  /// A cell, as a message's subject: `code mode cell`.
  pub cell: &'static str,
  /// A cell's output, as a message's subject: `code mode output`.
  pub output: &'static str,
  /// The guest CPU time of a leg.
  pub timeout: &'static str,
  /// The VM heap.
  pub memory: &'static str,
  /// Output bytes per result.
  pub max_output: &'static str,
  /// What a suspended cell may hold.
  pub max_snapshot: &'static str,
  /// The JSON input of one nested call.
  pub max_tool_input: &'static str,
  /// Nested calls in flight per cell.
  pub max_pending: &'static str,
}

/// Code mode's names: the keys of `tools.codeMode`.
pub const CODE_MODE_NAMES: LimitNames = LimitNames {
  cell: "code mode cell",
  output: "code mode output",
  timeout: "timeoutMs",
  memory: "memoryLimitBytes",
  max_output: "maxOutputBytes",
  max_snapshot: "maxSnapshotBytes",
  max_tool_input: "maxToolInputBytes",
  max_pending: "maxPendingToolCalls",
};

/// Tool Search's names: `tools.toolSearch` sets only `codeTimeoutMs`; its other limits are
/// code mode's defaults, which its users cannot change.
pub const TOOL_SEARCH_NAMES: LimitNames = LimitNames {
  cell: "tool_search_code",
  output: "tool_search_code output",
  timeout: "codeTimeoutMs",
  memory: "its memory limit",
  max_output: "its output limit",
  max_snapshot: "its memory limit",
  max_tool_input: "the tool input limit",
  max_pending: "the limit of calls in flight",
};
