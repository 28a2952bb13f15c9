//! `tools.codeMode` normalisation: the shorthand, the activation gate, defaults and clamps.
//!
//! Implements the configuration table of README.md ("Configuration"). A value that is not a
//! positive integer falls back to its default (a typo never silently widens a limit); an integer
//! out of range is clamped into it.

use crate::input::Field;
use napi_derive::napi;

/// The runtime name this package answers to. `"quickjs-wasi"` is accepted as its legacy name.
pub const RUNTIME_NAME: &str = "quickjs";
const LEGACY_RUNTIME_NAME: &str = "quickjs-wasi";

/// Normalised `tools.codeMode` settings, as returned by `resolveCodeModeConfig`.
#[napi(object)]
#[derive(Debug, Clone, PartialEq)]
pub struct CodeModeConfig {
  /// Only `true` (or the shorthand `tools.codeMode: true`) turns code mode on. Default `false`.
  pub enabled: bool,
  /// `"quickjs"` (default; `"quickjs-wasi"` is accepted as its legacy name). Any other value
  /// keeps the run active but every cell fails with `runtime_unavailable`: code mode fails closed.
  pub runtime: String,
  /// Always `"only"`: the model sees exec and wait, nothing else.
  pub mode: String,
  /// Accepted cell languages, a non-empty subset of `["javascript", "typescript"]`.
  pub languages: Vec<String>,
  /// Guest CPU cap and wall clock of one exec/wait leg. Default 10000, clamped to 100..=60000.
  pub timeout_ms: u32,
  /// QuickJS heap cap per cell. Default 64 MiB, clamped to 1 MiB..=1 GiB.
  pub memory_limit_bytes: u32,
  /// Cap on the output and final value of one result. Default 65536, clamped to 1024..=10 MiB.
  pub max_output_bytes: u32,
  /// Cap on the memory of a suspended cell. Default 10 MiB, clamped to 1024..=256 MiB.
  pub max_snapshot_bytes: u32,
  /// Nested tool calls in flight per cell. Default 16, clamped to 1..=128. Up to 128 more
  /// queue behind them and start as earlier ones settle; one more is a guest error.
  pub max_pending_tool_calls: u32,
  /// Cap on the JSON input of one nested tool call, in bytes as the gateway holds it once
  /// parsed: its UTF-8 length, or 48 bytes for every value in it when that is more (an array of
  /// many small objects). A larger input is a catchable error in the cell and never reaches the
  /// executor. Default 8 MiB, clamped to 1024..=64 MiB.
  pub max_tool_input_bytes: u32,
  /// How long a suspended cell can be resumed. Default 900, clamped to 1..=86400.
  pub snapshot_ttl_seconds: u32,
  /// `tools.search` result count when no limit is given. Default 8, clamped to 1..=maxSearchLimit.
  pub search_default_limit: u32,
  /// Largest `tools.search` limit. Default 50, clamped to 1..=50.
  pub max_search_limit: u32,
}

/// Field names read from a `tools.codeMode` object.
pub const CONFIG_KEYS: &[&str] = &[
  "enabled",
  "runtime",
  "mode",
  "languages",
  "timeoutMs",
  "memoryLimitBytes",
  "maxOutputBytes",
  "maxSnapshotBytes",
  "maxPendingToolCalls",
  "maxToolInputBytes",
  "snapshotTtlSeconds",
  "searchDefaultLimit",
  "maxSearchLimit",
];

pub const LANGUAGES: [&str; 2] = ["javascript", "typescript"];

impl Default for CodeModeConfig {
  fn default() -> Self {
    resolve(&Field::Missing)
  }
}

impl CodeModeConfig {
  /// False when `runtime` names something this package cannot run (fail closed).
  pub fn runtime_supported(&self) -> bool {
    self.runtime == RUNTIME_NAME || self.runtime == LEGACY_RUNTIME_NAME
  }

  pub fn allows(&self, language: &str) -> bool {
    self.languages.iter().any(|l| l == language)
  }
}

/// A limit: its default and inclusive range.
struct Limit {
  default: u32,
  min: u32,
  max: u32,
}

impl Limit {
  fn apply(&self, field: &Field) -> u32 {
    match field {
      Field::Number(n) if n.is_finite() && n.fract() == 0.0 && *n > 0.0 => {
        n.clamp(self.min as f64, self.max as f64) as u32
      }
      _ => self.default,
    }
  }
}

const TIMEOUT_MS: Limit = Limit {
  default: 10_000,
  min: 100,
  max: 60_000,
};
const MEMORY_LIMIT_BYTES: Limit = Limit {
  default: 64 << 20,
  min: 1 << 20,
  max: 1 << 30,
};
const MAX_OUTPUT_BYTES: Limit = Limit {
  default: 65_536,
  min: 1_024,
  max: 10 << 20,
};
const MAX_SNAPSHOT_BYTES: Limit = Limit {
  default: 10 << 20,
  min: 1_024,
  max: 256 << 20,
};
const MAX_PENDING_TOOL_CALLS: Limit = Limit {
  default: 16,
  min: 1,
  max: 128,
};
/// Far below V8's longest string (about 2^29 characters): a call batch holding inputs this
/// large still becomes one JS string (see `crates/engine/src/state.rs`, `OUTBOX_MAX_BYTES`).
const MAX_TOOL_INPUT_BYTES: Limit = Limit {
  default: 8 << 20,
  min: 1_024,
  max: 64 << 20,
};
const SNAPSHOT_TTL_SECONDS: Limit = Limit {
  default: 900,
  min: 1,
  max: 86_400,
};
const MAX_SEARCH_LIMIT: Limit = Limit {
  default: 50,
  min: 1,
  max: 50,
};
const SEARCH_DEFAULT_LIMIT: Limit = Limit {
  default: 8,
  min: 1,
  max: 50,
};

/// Resolves a raw `tools.codeMode` value. Never fails: anything unusable becomes a default.
pub fn resolve(input: &Field) -> CodeModeConfig {
  let enabled = match input {
    Field::Bool(b) => *b,
    Field::Object(_) => matches!(input.get("enabled"), Field::Bool(true)),
    _ => false,
  };
  let runtime = match input.get("runtime") {
    Field::Missing => RUNTIME_NAME.to_string(),
    Field::String(name) => name.clone(),
    other => format!("<{}>", other.type_name()),
  };
  let mut languages: Vec<String> = match input.get("languages") {
    Field::List(items) => LANGUAGES
      .iter()
      .filter(|lang| {
        items
          .iter()
          .any(|item| matches!(item, Field::String(s) if s == *lang))
      })
      .map(|lang| lang.to_string())
      .collect(),
    _ => Vec::new(),
  };
  if languages.is_empty() {
    languages = LANGUAGES.iter().map(|l| l.to_string()).collect();
  }
  let max_search_limit = MAX_SEARCH_LIMIT.apply(input.get("maxSearchLimit"));
  let search_default_limit = SEARCH_DEFAULT_LIMIT
    .apply(input.get("searchDefaultLimit"))
    .min(max_search_limit);
  CodeModeConfig {
    enabled,
    runtime,
    mode: "only".to_string(),
    languages,
    timeout_ms: TIMEOUT_MS.apply(input.get("timeoutMs")),
    memory_limit_bytes: MEMORY_LIMIT_BYTES.apply(input.get("memoryLimitBytes")),
    max_output_bytes: MAX_OUTPUT_BYTES.apply(input.get("maxOutputBytes")),
    max_snapshot_bytes: MAX_SNAPSHOT_BYTES.apply(input.get("maxSnapshotBytes")),
    max_pending_tool_calls: MAX_PENDING_TOOL_CALLS.apply(input.get("maxPendingToolCalls")),
    max_tool_input_bytes: MAX_TOOL_INPUT_BYTES.apply(input.get("maxToolInputBytes")),
    snapshot_ttl_seconds: SNAPSHOT_TTL_SECONDS.apply(input.get("snapshotTtlSeconds")),
    search_default_limit,
    max_search_limit,
  }
}

#[cfg(test)]
mod tests {
  use super::*;
  use serde_json::json;

  fn from(value: serde_json::Value) -> CodeModeConfig {
    resolve(&Field::from_json(&value, CONFIG_KEYS))
  }

  #[test]
  fn shorthand_and_gate() {
    assert!(from(json!(true)).enabled);
    assert!(!from(json!(false)).enabled);
    assert!(!from(json!(null)).enabled);
    assert!(!from(json!({ "timeoutMs": 5000 })).enabled);
    assert!(!from(json!({ "enabled": "true" })).enabled);
    assert!(from(json!({ "enabled": true })).enabled);
  }

  #[test]
  fn defaults() {
    let c = from(json!(true));
    assert_eq!(c.runtime, "quickjs");
    assert_eq!(c.mode, "only");
    assert_eq!(c.languages, vec!["javascript", "typescript"]);
    assert_eq!(
      (
        c.timeout_ms,
        c.memory_limit_bytes,
        c.max_output_bytes,
        c.max_snapshot_bytes
      ),
      (10_000, 67_108_864, 65_536, 10_485_760)
    );
    assert_eq!(
      (
        c.max_pending_tool_calls,
        c.snapshot_ttl_seconds,
        c.search_default_limit,
        c.max_search_limit
      ),
      (16, 900, 8, 50)
    );
    assert_eq!(c.max_tool_input_bytes, 8 << 20);
  }

  #[test]
  fn clamps_and_fallbacks() {
    let c = from(json!({
      "enabled": true, "timeoutMs": 5, "memoryLimitBytes": 1e12, "maxOutputBytes": 1.5,
      "maxSnapshotBytes": -3, "maxPendingToolCalls": 500, "snapshotTtlSeconds": "60",
      "maxSearchLimit": 10, "searchDefaultLimit": 40, "maxToolInputBytes": 1e10
    }));
    assert_eq!(c.max_tool_input_bytes, 64 << 20);
    assert_eq!(
      from(json!({ "maxToolInputBytes": 10 })).max_tool_input_bytes,
      1_024
    );
    assert_eq!(c.timeout_ms, 100);
    assert_eq!(c.memory_limit_bytes, 1 << 30);
    assert_eq!(c.max_output_bytes, 65_536);
    assert_eq!(c.max_snapshot_bytes, 10_485_760);
    assert_eq!(c.max_pending_tool_calls, 128);
    assert_eq!(c.snapshot_ttl_seconds, 900);
    assert_eq!(c.max_search_limit, 10);
    assert_eq!(c.search_default_limit, 10);
  }

  #[test]
  fn languages_are_filtered() {
    assert_eq!(
      from(json!({ "languages": ["typescript", "python"] })).languages,
      vec!["typescript"]
    );
    assert_eq!(from(json!({ "languages": [] })).languages.len(), 2);
    assert_eq!(
      from(json!({ "languages": "javascript" })).languages.len(),
      2
    );
  }

  #[test]
  fn runtime_fails_closed() {
    assert!(from(json!({ "runtime": "quickjs-wasi" })).runtime_supported());
    assert!(from(json!({})).runtime_supported());
    assert!(!from(json!({ "runtime": "v8" })).runtime_supported());
    assert!(!from(json!({ "runtime": 3 })).runtime_supported());
  }
}
