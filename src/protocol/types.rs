//! The shapes that cross to JavaScript, declared once. napi generates their TypeScript in
//! `binding.d.ts` (which `index.d.ts` re-exports); the cold getters hand them over as objects.
//! Results and events travel as JSON text serialised from these same types (`serde`), with the
//! guest's JSON values spliced in raw ([`RawValue`]: never decoded and re-encoded).

use crate::error::{ErrorCode, FailurePhase};
use napi_derive::napi;
use serde::Serialize;
use serde_json::Value;
use serde_json::value::RawValue;

/// Why a cell failed.
#[napi(string_enum = "snake_case")]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CodeModeErrorCode {
  InvalidInput,
  RuntimeUnavailable,
  Timeout,
  OutputLimitExceeded,
  SnapshotLimitExceeded,
  InternalError,
  MemoryLimitExceeded,
  Aborted,
}

impl From<ErrorCode> for CodeModeErrorCode {
  fn from(code: ErrorCode) -> Self {
    match code {
      ErrorCode::InvalidInput => CodeModeErrorCode::InvalidInput,
      ErrorCode::RuntimeUnavailable => CodeModeErrorCode::RuntimeUnavailable,
      ErrorCode::Timeout => CodeModeErrorCode::Timeout,
      ErrorCode::OutputLimitExceeded => CodeModeErrorCode::OutputLimitExceeded,
      ErrorCode::SnapshotLimitExceeded => CodeModeErrorCode::SnapshotLimitExceeded,
      ErrorCode::InternalError => CodeModeErrorCode::InternalError,
      ErrorCode::MemoryLimitExceeded => CodeModeErrorCode::MemoryLimitExceeded,
      ErrorCode::Aborted => CodeModeErrorCode::Aborted,
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
#[napi(string_enum = "lowercase")]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CodeModeFailurePhase {
  Input,
  Guest,
  Bridge,
  Host,
}

impl From<FailurePhase> for CodeModeFailurePhase {
  fn from(phase: FailurePhase) -> Self {
    match phase {
      FailurePhase::Input => CodeModeFailurePhase::Input,
      FailurePhase::Guest => CodeModeFailurePhase::Guest,
      FailurePhase::Bridge => CodeModeFailurePhase::Bridge,
      FailurePhase::Host => CodeModeFailurePhase::Host,
    }
  }
}

/// A model-visible tool definition (`exec` and `wait`).
#[napi(object, object_from_js = false)]
#[derive(Clone)]
pub struct ModelToolDefinition {
  #[napi(ts_type = "'exec' | 'wait'")]
  pub name: String,
  pub label: String,
  pub description: String,
  /// JSON Schema (flat: no oneOf/anyOf).
  #[napi(ts_type = "Record<string, unknown>")]
  pub parameters: Value,
}

/// Compact guest-visible catalog entry (`ALL_TOOLS`).
#[napi(object, object_from_js = false)]
pub struct ToolCatalogEntry {
  pub id: String,
  pub name: String,
  pub label: Option<String>,
  pub description: String,
  #[napi(ts_type = "'openclaw' | 'mcp' | 'client'")]
  pub source: String,
  pub source_name: Option<String>,
}

impl From<&code_mode_catalog::CatalogEntry> for ToolCatalogEntry {
  /// An `ALL_TOOLS` entry as the host sees it (`CodeModeRun.catalog`).
  fn from(entry: &code_mode_catalog::CatalogEntry) -> Self {
    ToolCatalogEntry {
      id: entry.id.clone(),
      name: entry.name.clone(),
      label: entry.label.clone(),
      description: entry.description.clone(),
      source: entry.source.as_str().into(),
      source_name: Some(entry.source_name.clone()),
    }
  }
}

/// Tools per source in a run's catalog.
#[napi(object, object_from_js = false)]
#[derive(Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CodeModeSources {
  pub openclaw: u32,
  pub mcp: u32,
  pub client: u32,
}

/// What every result carries (safe to show the model).
#[napi(object, object_to_js = false, object_from_js = false)]
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CodeModeTelemetry {
  pub catalog_size: u32,
  pub sources: CodeModeSources,
  pub search_count: u32,
  pub describe_count: u32,
  pub call_count: u32,
  #[napi(ts_type = "['exec', 'wait']")]
  pub visible_tools: [&'static str; 2],
}

/// Why a run is inactive (`run.inactiveReason`), the first that applies in this order.
#[napi(string_enum = "snake_case")]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CodeModeInactiveReason {
  /// `tools.codeMode.enabled` is not true.
  Disabled,
  /// The run is a raw model call (`rawModelCall`).
  RawModelCall,
  /// The run's tools are disabled (`disableTools`).
  ToolsDisabled,
  /// The catalog is empty: no valid tool was given.
  NoTools,
}

/// Two catalog tools given the same safe name.
#[napi(object, object_from_js = false)]
pub struct CodeModeNameCollision {
  pub name: String,
  pub ids: Vec<String>,
}

/// Why a registered namespace is hidden in a run.
#[napi(object, object_from_js = false)]
pub struct CodeModeHiddenNamespace {
  pub id: String,
  pub reason: String,
}

/// Host-only counters of a run (never shown to the model): the result telemetry and more.
#[napi(object, object_from_js = false)]
pub struct CodeModeRunTelemetry {
  pub catalog_size: u32,
  pub sources: CodeModeSources,
  pub search_count: u32,
  pub describe_count: u32,
  pub call_count: u32,
  #[napi(ts_type = "['exec', 'wait']")]
  pub visible_tools: Vec<String>,
  pub exec_count: u32,
  pub wait_count: u32,
  pub typescript_transforms: u32,
  pub duplicate_tools: u32,
  pub invalid_tools: u32,
  pub excluded_tools: u32,
  pub name_collisions: Vec<CodeModeNameCollision>,
  pub suspended_cells: u32,
  pub resumed_cells: u32,
  pub expired_cells: u32,
  pub aborted_cells: u32,
  pub peak_snapshot_bytes: f64,
  /// Namespace ids shown in this run.
  pub visible_namespaces: Vec<String>,
  /// Registered namespaces not shown in this run (a required tool missing or not owned by the
  /// plugin, or a scope that failed), and why.
  pub hidden_namespaces: Vec<CodeModeHiddenNamespace>,
  /// Cells of this run still alive (running, idle or suspended).
  pub live_cells: u32,
  /// Suspended cells in the whole process.
  pub suspended_cells_in_process: u32,
}

/// One output item of a leg.
#[napi(
  discriminant = "type",
  discriminant_case = "lowercase",
  object_to_js = false,
  object_from_js = false
)]
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum CodeModeOutput {
  Text {
    text: String,
  },
  Json {
    #[napi(ts_type = "unknown")]
    value: Box<RawValue>,
  },
}

/// What a waiting cell waits on.
#[napi(object, object_to_js = false, object_from_js = false)]
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CodeModePendingToolCall {
  pub id: String,
  #[napi(ts_type = "'call' | 'mcp' | 'namespace' | 'timer' | 'yield'")]
  pub method: String,
  #[serde(skip_serializing_if = "Option::is_none")]
  pub tool_id: Option<String>,
}

/// What `exec` and `wait` resolve to; never a rejection.
#[napi(
  discriminant = "status",
  discriminant_case = "lowercase",
  object_to_js = false,
  object_from_js = false
)]
#[derive(Serialize)]
#[serde(
  tag = "status",
  rename_all = "lowercase",
  rename_all_fields = "camelCase"
)]
pub enum CodeModeResult {
  Completed {
    #[napi(ts_type = "unknown")]
    value: Box<RawValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    output: Option<Vec<CodeModeOutput>>,
    telemetry: CodeModeTelemetry,
  },
  Waiting {
    /// Single-use token for `wait`.
    run_id: String,
    #[napi(ts_type = "'pending_tools' | 'yield'")]
    reason: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pending_tool_calls: Option<Vec<CodeModePendingToolCall>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    output: Option<Vec<CodeModeOutput>>,
    telemetry: CodeModeTelemetry,
  },
  Failed {
    error: String,
    code: CodeModeErrorCode,
    /// Where it failed (see `CodeModeFailurePhase`): the input, the guest program, the
    /// nested-call bridge, or the host runtime.
    failure_phase: CodeModeFailurePhase,
    #[serde(skip_serializing_if = "Option::is_none")]
    output: Option<Vec<CodeModeOutput>>,
    telemetry: CodeModeTelemetry,
  },
}

/// A cell lifecycle event (the nested-call events are the JS layer's, in `index.d.ts`).
#[napi(
  discriminant = "type",
  discriminant_case = "snake_case",
  object_to_js = false,
  object_from_js = false
)]
#[derive(Serialize)]
#[serde(
  tag = "type",
  rename_all = "snake_case",
  rename_all_fields = "camelCase"
)]
#[allow(clippy::enum_variant_names)] // the names are the event types
pub enum CodeModeCellEvent {
  CellSuspended {
    run_id: String,
    /// The cell's `runId` token.
    #[napi(ts_type = "string | null")]
    cell_run_id: Option<String>,
    #[napi(ts_type = "string | null")]
    tool_call_id: Option<String>,
    #[napi(ts_type = "'pending_tools' | 'yield'")]
    reason: String,
    pending_tool_calls: u32,
    snapshot_bytes: f64,
  },
  CellResumed {
    run_id: String,
    #[napi(ts_type = "string | null")]
    cell_run_id: Option<String>,
    #[napi(ts_type = "string | null")]
    tool_call_id: Option<String>,
  },
  CellExpired {
    run_id: String,
    #[napi(ts_type = "string | null")]
    cell_run_id: Option<String>,
    #[napi(ts_type = "string | null")]
    tool_call_id: Option<String>,
  },
  CellAborted {
    run_id: String,
    #[napi(ts_type = "string | null")]
    cell_run_id: Option<String>,
    #[napi(ts_type = "string | null")]
    tool_call_id: Option<String>,
  },
  /// A suspended cell was dropped before its `wait`: what it held grew past its limit
  /// (`code` is `snapshot_limit_exceeded`). Its `wait` fails with the same code and `error`.
  CellDropped {
    run_id: String,
    #[napi(ts_type = "string | null")]
    cell_run_id: Option<String>,
    #[napi(ts_type = "string | null")]
    tool_call_id: Option<String>,
    code: CodeModeErrorCode,
    error: String,
  },
}
