//! `tools.toolSearch` normalisation: the `true`/`false` shorthand, the mode, defaults and clamps
//! as OpenClaw's Tool Search page gives them (`codeTimeoutMs` 1000..=60000, default 10000;
//! `maxSearchLimit` 1..=50, default 20; `searchDefaultLimit` 1..=`maxSearchLimit`, default 8).

use crate::input::Field;
use napi_derive::napi;

/// Keys read from a `tools.toolSearch` object.
pub const CONFIG_KEYS: &[&str] = &[
  "enabled",
  "mode",
  "codeTimeoutMs",
  "searchDefaultLimit",
  "maxSearchLimit",
];

/// Normalised `tools.toolSearch` settings, as returned by `resolveToolSearchConfig`.
#[napi(object)]
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSearchConfig {
  /// `true` or an object (unless it says `enabled: false`) turns Tool Search on. Default `false`.
  pub enabled: bool,
  /// `"code"` (`tool_search_code`; the default for `true` and for an object without a mode),
  /// `"tools"` (`tool_search`, `tool_describe`, `tool_call`; the mode when unset) or
  /// `"directory"` (the same three tools). Every mode also gives the model the bounded
  /// capability directory (`ToolSearchRun.prompt`).
  #[napi(ts_type = "'code' | 'tools' | 'directory'")]
  pub mode: String,
  /// Wall clock of one whole `tool_search_code` call, nested calls included. Default 10000,
  /// clamped to 1000..=60000.
  pub code_timeout_ms: u32,
  /// Search results when no limit is given. Default 8, clamped to 1..=maxSearchLimit.
  pub search_default_limit: u32,
  /// Largest search limit. Default 20, clamped to 1..=50.
  pub max_search_limit: u32,
}

pub const MODES: [&str; 3] = ["code", "tools", "directory"];

fn limit(field: &Field, default: u32, min: u32, max: u32) -> u32 {
  match field {
    Field::Number(n) if n.is_finite() && n.fract() == 0.0 && *n > 0.0 => {
      n.clamp(min as f64, max as f64) as u32
    }
    _ => default,
  }
}

/// Resolves a raw `tools.toolSearch` value. Never fails: anything unusable becomes a default.
pub fn resolve(input: &Field) -> ToolSearchConfig {
  let (enabled, mode) = match input {
    Field::Bool(b) => (*b, "code".to_string()),
    Field::Object(_) => {
      let enabled = !matches!(input.get("enabled"), Field::Bool(false));
      let mode = match input.get("mode") {
        Field::String(m) if MODES.contains(&m.as_str()) => m.clone(),
        // An unknown mode is not a reason to expose code: the structured tools run no code.
        Field::String(_) => "tools".to_string(),
        _ => "code".to_string(),
      };
      (enabled, mode)
    }
    _ => (false, "tools".to_string()),
  };
  let max_search_limit = limit(input.get("maxSearchLimit"), 20, 1, 50);
  ToolSearchConfig {
    enabled,
    mode,
    code_timeout_ms: limit(input.get("codeTimeoutMs"), 10_000, 1_000, 60_000),
    search_default_limit: limit(input.get("searchDefaultLimit"), 8, 1, 50).min(max_search_limit),
    max_search_limit,
  }
}

#[cfg(test)]
mod tests {
  use super::*;
  use serde_json::json;

  fn from(value: serde_json::Value) -> ToolSearchConfig {
    resolve(&Field::from_json(&value, CONFIG_KEYS))
  }

  #[test]
  fn shorthand_modes_and_clamps() {
    let on = from(json!(true));
    assert!(on.enabled);
    assert_eq!(on.mode, "code");
    assert_eq!(
      (
        on.code_timeout_ms,
        on.search_default_limit,
        on.max_search_limit
      ),
      (10_000, 8, 20)
    );
    assert!(!from(json!(false)).enabled);
    assert!(!from(json!(null)).enabled);
    assert_eq!(from(json!({})).mode, "code");
    assert!(from(json!({})).enabled);
    assert!(!from(json!({ "enabled": false, "mode": "tools" })).enabled);
    assert_eq!(from(json!({ "mode": "directory" })).mode, "directory");
    assert_eq!(from(json!({ "mode": "martian" })).mode, "tools");
    let c = from(json!({ "codeTimeoutMs": 5, "maxSearchLimit": 99, "searchDefaultLimit": 70 }));
    assert_eq!(
      (
        c.code_timeout_ms,
        c.max_search_limit,
        c.search_default_limit
      ),
      (1_000, 50, 50)
    );
    let c = from(json!({ "codeTimeoutMs": 1e9, "maxSearchLimit": 3, "searchDefaultLimit": "x" }));
    assert_eq!(
      (
        c.code_timeout_ms,
        c.max_search_limit,
        c.search_default_limit
      ),
      (60_000, 3, 3)
    );
  }
}
