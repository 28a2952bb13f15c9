//! Tool Search (`tools.toolSearch`): OpenClaw's other compact surface, as a second host on the
//! same engine and catalog as code mode.
//!
//! - `config.rs`: `resolveToolSearchConfig`.
//! - `crates/sandbox/src/toolsearch.rs` (+ `toolsearch.js`): the `tool_search_code` VM, in the
//!   sandbox: `openclaw.tools` and console only.
//! - `surface.rs`: the model tools of each mode and the capability directory.
//! - here: the napi side the JS layer (`lib/tool-search.js`) drives, next to the code-mode
//!   [`Run`] it makes for Tool Search (same catalog, executor path, events and counters).

pub mod config;
pub mod surface;

use crate::catalog::{self, Source};
use crate::input::Field;
use crate::protocol::types::CodeModeSources;
use crate::run::Run;
use crate::telemetry::Counters;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use serde::Deserialize;
use std::sync::Arc;

pub use config::ToolSearchConfig;
pub use surface::ToolSearchModelTool;

/// Normalises a `tools.toolSearch` value: `true` is code mode, `false` (or unset) is off, an
/// object is on unless it says `enabled: false`; defaults and clamps as OpenClaw's Tool Search
/// page gives them. Never throws.
#[napi(catch_unwind)]
pub fn resolve_tool_search_config(env: Env, input: Option<Unknown>) -> ToolSearchConfig {
  let field = input.map_or(Field::Missing, |value| {
    crate::input::read_value(&env, &value, config::CONFIG_KEYS)
  });
  config::resolve(&field)
}

/// One tool call a Tool Search run executed.
#[napi(object, object_to_js = false, object_from_js = false)]
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
// A declaration: `lib/tool-search.js` builds it.
#[allow(dead_code)]
pub struct ToolSearchToolCall {
  /// The catalog id called.
  pub id: String,
  #[napi(ts_type = "'openclaw' | 'mcp' | 'client'")]
  pub source: String,
  pub source_name: Option<String>,
  /// The nested call's own id.
  pub tool_call_id: String,
  /// The model's call (`tool_search_code` or `tool_call`) it ran under.
  pub parent_tool_call_id: Option<String>,
}

/// What a Tool Search run reports: prompt size, catalog, and what the model did with it.
#[napi(object, object_to_js = false, object_from_js = false)]
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
// A declaration: `lib/tool-search.js` builds it.
#[allow(dead_code)]
pub struct ToolSearchTelemetry {
  #[napi(ts_type = "'code' | 'tools' | 'directory'")]
  pub mode: String,
  /// UTF-8 bytes of the serialized model tools plus the prompt directory.
  pub prompt_bytes: u32,
  /// Number of model-visible tools (1 in code mode, 3 otherwise, 0 inactive).
  pub model_tool_count: u32,
  pub catalog_size: u32,
  pub sources: CodeModeSources,
  pub search_count: u32,
  pub describe_count: u32,
  /// Tool calls started (through `openclaw.tools.call` or `tool_call`).
  pub call_count: u32,
  /// The tool calls that reached the executor, in order.
  pub tool_calls: Vec<ToolSearchToolCall>,
}

/// The native half of a `ToolSearchRun`, over the code-mode run the JS layer made for it.
#[napi]
pub struct NativeToolSearch {
  run: Arc<Run>,
  mode: String,
}

#[napi]
impl NativeToolSearch {
  #[napi(constructor, catch_unwind)]
  pub fn new(run: &crate::NativeRun, mode: String) -> Self {
    NativeToolSearch {
      run: run.run.clone(),
      mode,
    }
  }

  /// The model tools of this run's mode.
  #[napi(catch_unwind)]
  pub fn model_tools(&self) -> Vec<ToolSearchModelTool> {
    surface::model_tools(
      &self.mode,
      self.run.catalog.len(),
      self.run.config.timeout_ms,
    )
  }

  /// The capability directory for the system prompt (every mode), naming this mode's tools.
  #[napi(catch_unwind)]
  pub fn directory(&self) -> String {
    surface::directory(&self.run.catalog, surface::DIRECTORY_MAX_CHARS, &self.mode)
  }

  #[napi(getter)]
  pub fn catalog_size(&self) -> u32 {
    self.run.catalog.len() as u32
  }

  #[napi(getter)]
  pub fn sources(&self) -> CodeModeSources {
    let catalog = &self.run.catalog;
    CodeModeSources {
      openclaw: catalog.count(Source::OpenClaw) as u32,
      mcp: catalog.count(Source::Mcp) as u32,
      client: catalog.count(Source::Client) as u32,
    }
  }

  /// `tool_search`, in the run's sandbox process (a query's cost is the model's to choose):
  /// resolves with the compact hits as JSON text; rejects on a bad limit (the JS layer makes
  /// it a failed result).
  #[napi(catch_unwind, ts_return_type = "Promise<string>")]
  pub fn search<'env>(
    &self,
    env: &'env Env,
    query: String,
    limit: Option<f64>,
  ) -> Result<Object<'env>> {
    let (settle, promise) = crate::promise::create::<String>(env)?;
    self.run.search(query, limit, move |hits| match hits {
      Ok(hits) => settle.resolve(hits),
      Err(message) => settle.reject(message),
    });
    Ok(promise)
  }

  /// `tool_describe`: the entry with `parameters` as JSON text, or null when unavailable.
  #[napi(catch_unwind)]
  pub fn describe(&self, id: String) -> Option<String> {
    Counters::bump(&self.run.telemetry.describes);
    self
      .run
      .catalog
      .get(&id)
      .map(|e| catalog::compact(e, true).to_json())
  }

  /// `{ id, name, source, sourceName }` of a catalog entry as JSON text (not counted as a
  /// describe), or null when it is not in the catalog.
  #[napi(catch_unwind)]
  pub fn entry(&self, id: String) -> Option<String> {
    self.run.catalog.get(&id).map(|e| {
      serde_json::json!({ "id": e.id, "name": e.name, "source": e.source.as_str(), "sourceName": e.source_name })
        .to_string()
    })
  }

  /// Whether `id` is in the catalog (callable).
  #[napi]
  pub fn has(&self, id: String) -> bool {
    self.run.catalog.get(&id).is_some()
  }

  /// The message for an id that is not (or no longer) in the catalog.
  #[napi]
  pub fn unavailable(&self, id: String) -> String {
    catalog::unavailable(&id)
  }

  /// Drops a cell that stopped in `waiting` (Tool Search never suspends): its nested calls are
  /// cancelled. False when no such cell of this run is parked.
  #[napi(catch_unwind)]
  pub fn drop_parked(&self, token: String) -> bool {
    self.run.drop_parked(&token)
  }
}
