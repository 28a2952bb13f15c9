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
use code_mode_protocol::wire::SearchQuery;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use serde::{Deserialize, Serialize};
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
  /// Searches run: one per query of a `tool_search` call (a batch of N counts N), and one per
  /// `openclaw.tools.search`.
  pub search_count: u32,
  pub describe_count: u32,
  /// Tool calls started (through `openclaw.tools.call` or `tool_call`).
  pub call_count: u32,
  /// The tool calls that reached the executor, in order.
  pub tool_calls: Vec<ToolSearchToolCall>,
}

// The entries and hits below reach JavaScript through serde (as `serde_json::Value`): napi's
// own object writer sets optional fields after the others, and the model reads these objects'
// JSON in the order written here.

/// A catalog entry as Tool Search shows it: compact in `tool_search` hits (with OpenClaw's
/// `input` and `output` hints), with its input schema too from `tool_describe`
/// (`code_mode_catalog::compact` writes both).
#[napi(object, object_to_js = false, object_from_js = false)]
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ToolSearchEntry {
  /// Exact catalog id, `<source>:<owner>:<name>`: what `tool_describe` and `tool_call` take.
  pub id: String,
  /// The tool's name as the gateway gave it.
  pub name: String,
  /// Its human-readable title, when it has one.
  #[serde(skip_serializing_if = "Option::is_none")]
  pub label: Option<String>,
  /// What the tool does (the gateway's text): at most 200 characters in `tool_search` hits and
  /// 4,000 from `tool_describe`, a longer one cut and ending with `…`.
  pub description: String,
  /// Where the tool comes from.
  #[napi(ts_type = "'openclaw' | 'mcp' | 'client'")]
  pub source: String,
  /// `core`, the plugin id, the MCP server or the client app.
  pub source_name: String,
  /// A bounded TypeScript-style hint of the tool's input, such as
  /// `{ id: string; mode?: "drip" | "flood" }` (OpenClaw's `compactToolInputHint`): for an
  /// `openclaw` tool, written from its input schema (`unknown` when that cannot be written
  /// within 300 characters; a `; ...` or `unknown` inside marks what it leaves out); always
  /// `unknown` for `mcp` and `client` tools, whose schemas are deferred to `tool_describe`.
  pub input: String,
  /// A compact hint of an `openclaw` tool's output (OpenClaw's `compactToolOutputHint`), only
  /// when the tool declares an `outputSchema` that it describes completely within 800
  /// characters; absent for open, oversized or partial output schemas and for `mcp` and
  /// `client` tools.
  #[serde(default, skip_serializing_if = "Option::is_none")]
  pub output: Option<String>,
  /// The input's JSON Schema (`tool_describe` only; `{ type: 'object', properties: {} }` when
  /// the tool gave none).
  #[napi(ts_type = "Record<string, unknown>")]
  #[serde(skip_serializing_if = "Option::is_none")]
  pub parameters: Option<serde_json::Value>,
  /// `tool_describe` only, when the input schema's JSON was larger than it shows (32 KiB): why
  /// `parameters` is only `{ type: 'object' }`.
  #[serde(default, skip_serializing_if = "Option::is_none")]
  pub parameters_omitted: Option<String>,
  /// `tool_describe` only: the JSON Schema of the result's `details` that an `openclaw` tool
  /// declares (OpenClaw validates the tool's `details` against it). Absent for `mcp` and
  /// `client` tools and for a tool that declares none. The gateway's value as it gave it.
  #[napi(ts_type = "unknown")]
  #[serde(default, skip_serializing_if = "Option::is_none")]
  pub output_schema: Option<serde_json::Value>,
  /// `tool_describe` only, when the declared output schema's JSON was larger than it shows
  /// (32 KiB): why `outputSchema` is absent.
  #[serde(default, skip_serializing_if = "Option::is_none")]
  pub output_schema_omitted: Option<String>,
}

/// What `tool_search` found.
#[napi(object, object_to_js = false, object_from_js = false)]
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolSearchHits {
  /// The best matches first, at most the search's limit.
  pub hits: Vec<ToolSearchEntry>,
  /// Set when the query was past its caps and only its first part was searched.
  #[serde(skip_serializing_if = "Option::is_none")]
  pub query_truncated: Option<ToolSearchQueryTruncation>,
}

/// What a batch `tool_search` (`{ queries: [...] }`) completes with: one group per query, in
/// request order (a non-empty `query` beside the batch first). Its budget is 4,000 characters:
/// UTF-16 code units of its `JSON.stringify` text, without indentation. Past it, the
/// lowest-ranked candidates across the batch go first (on a tie, the later group's).
#[napi(object, object_to_js = false, object_from_js = false)]
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
// A declaration: `lib/tool-search.js` builds it.
#[allow(dead_code)]
pub struct ToolSearchBatch {
  pub results: Vec<ToolSearchBatchGroup>,
  /// Set when candidates were removed to keep the answer within its budget.
  #[napi(ts_type = "true")]
  pub truncated: Option<bool>,
}

/// One query's group of a batch `tool_search`.
#[napi(object, object_to_js = false, object_from_js = false)]
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
// A declaration: `lib/tool-search.js` builds it.
#[allow(dead_code)]
pub struct ToolSearchBatchGroup {
  /// The query as it was given.
  pub query: String,
  /// Its best matches first, at most its limit (empty: no match, unless `truncated`).
  pub candidates: Vec<ToolSearchEntry>,
  /// Set when the query was past 32 distinct words and only its first part was searched.
  pub query_truncated: Option<ToolSearchQueryTruncation>,
  /// Set when this group lost candidates to the batch's budget.
  #[napi(ts_type = "true")]
  pub truncated: Option<bool>,
}

/// A search query cut to its first part.
#[napi(object, object_to_js = false, object_from_js = false)]
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolSearchQueryTruncation {
  /// The part of the query that was searched.
  pub searched: String,
  /// Which cap it was past: its length in characters, or its count of distinct words.
  #[napi(ts_type = "'chars' | 'words'")]
  pub reason: String,
  /// One sentence for the model.
  pub message: String,
}

/// The sandbox's answer to a search (`SearchResult::structured_json`): the hits, or `{ hits,
/// queryTruncated }` when the query was cut.
#[derive(Deserialize)]
#[serde(untagged)]
enum Found {
  Hits(Vec<ToolSearchEntry>),
  #[serde(rename_all = "camelCase")]
  Cut {
    hits: Vec<ToolSearchEntry>,
    query_truncated: ToolSearchQueryTruncation,
  },
}

impl Found {
  fn hits(self) -> ToolSearchHits {
    match self {
      Found::Hits(hits) => ToolSearchHits {
        hits,
        query_truncated: None,
      },
      Found::Cut {
        hits,
        query_truncated,
      } => ToolSearchHits {
        hits,
        query_truncated: Some(query_truncated),
      },
    }
  }
}

/// What `tool_describe` shows of `entry`, bounded, and the notes that replace an input and an
/// output schema too large to show.
fn described(entry: &catalog::CatalogEntry) -> (catalog::CompactEntry<'_>, Omitted) {
  // A stored schema is the catalog's own serialisation of it: its length is its size, read
  // before (and instead of) a parse that a schema of megabytes would cost on every describe.
  let size = |schema: &Option<String>| schema.as_deref().map_or(0, str::len);
  let (input, output) = (size(&entry.parameters), size(&entry.output_schema));
  let max = catalog::DESCRIBE_SCHEMA_MAX_BYTES;
  let mut compact = catalog::compact(entry, input <= max).with_hints(entry);
  if output <= max {
    compact = compact.with_output_schema(entry);
  }
  compact.description =
    catalog::bounded_description(&entry.description, catalog::DESCRIBE_DESCRIPTION_MAX_CHARS);
  let mut omitted = Omitted::default();
  if input > max {
    compact.parameters = Some(open_schema());
    omitted.parameters = Some(format!(
      "This tool's input schema is {input} bytes of JSON, more than the {max} bytes tool_describe shows, so `parameters` is left open. Call it with the arguments its description asks for; the tool checks them."
    ));
  }
  if output > max {
    omitted.output_schema = Some(format!(
      "This tool's output schema is {output} bytes of JSON, more than the {max} bytes tool_describe shows, so `outputSchema` is left out. The tool's result still follows it."
    ));
  }
  (compact, omitted)
}

/// The notes of [`described`]: why a schema is not shown whole.
#[derive(Default)]
struct Omitted {
  parameters: Option<String>,
  output_schema: Option<String>,
}

/// The schema shown in place of one too large to show.
fn open_schema() -> &'static serde_json::value::RawValue {
  static OPEN: std::sync::OnceLock<Box<serde_json::value::RawValue>> = std::sync::OnceLock::new();
  OPEN.get_or_init(|| {
    serde_json::value::RawValue::from_string(r#"{"type":"object"}"#.to_owned())
      .unwrap_or_else(|_| unreachable!("a literal JSON object"))
  })
}

/// The caps of one `tool_search` batch (OpenClaw's Tool Search page).
#[napi(object, object_from_js = false)]
pub struct ToolSearchBatchLimits {
  /// Most queries in one batch.
  pub queries: u32,
  /// Longest query, in UTF-16 code units.
  pub query_chars: u32,
  /// Most UTF-8 bytes of `JSON.stringify` of the batch's query texts (an array of strings).
  pub query_bytes: u32,
  /// Most candidates the batch's effective limits may ask for in total.
  pub candidates: u32,
  /// Budget of the response: UTF-16 code units of `JSON.stringify` of `{ results, truncated? }`.
  pub response_chars: u32,
}

/// One query of a `tool_search` call, as the JS layer passes it (checked there).
#[napi(object, object_to_js = false)]
pub struct ToolSearchQuery {
  pub query: String,
  /// The hits asked for; absent: the run's `searchDefaultLimit`.
  pub limit: Option<f64>,
}

/// The tool a `tool_call` called, as its completed result names it.
#[napi(object, object_from_js = false)]
pub struct ToolSearchCalledTool {
  /// Exact catalog id, `<source>:<owner>:<name>`.
  pub id: String,
  /// The tool's name as the gateway gave it.
  pub name: String,
  /// Where the tool comes from.
  #[napi(ts_type = "'openclaw' | 'mcp' | 'client'")]
  pub source: String,
  /// `core`, the plugin id, the MCP server or the client app.
  pub source_name: String,
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

  /// The caps of a `tool_search` batch, which the JS layer checks (one definition, in
  /// `surface.rs`, for them and the model's tool description).
  #[napi(getter, catch_unwind)]
  pub fn batch_limits(&self) -> ToolSearchBatchLimits {
    ToolSearchBatchLimits {
      queries: surface::MAX_BATCH_QUERIES as u32,
      query_chars: surface::MAX_BATCH_QUERY_CHARS as u32,
      query_bytes: surface::MAX_BATCH_QUERY_BYTES as u32,
      candidates: surface::MAX_BATCH_CANDIDATES as u32,
      response_chars: surface::BATCH_RESPONSE_MAX_CHARS as u32,
    }
  }

  /// The capability directory for the system prompt (every mode), naming this mode's tools.
  #[napi(catch_unwind)]
  pub fn directory(&self) -> String {
    surface::directory(&self.run.catalog, surface::DIRECTORY_MAX_CHARS, &self.mode)
  }

  #[napi(getter, catch_unwind)]
  pub fn catalog_size(&self) -> u32 {
    self.run.catalog.len() as u32
  }

  #[napi(getter, catch_unwind)]
  pub fn sources(&self) -> CodeModeSources {
    let catalog = &self.run.catalog;
    CodeModeSources {
      openclaw: catalog.count(Source::OpenClaw) as u32,
      mcp: catalog.count(Source::Mcp) as u32,
      client: catalog.count(Source::Client) as u32,
    }
  }

  /// `tool_search`, in the run's sandbox process (a query's cost is the model's to choose): every
  /// query of one call in one request to it. Resolves with each query's hits, in order (their
  /// descriptions bounded, see `SEARCH_DESCRIPTION_MAX_CHARS`); rejects on a bad limit (the JS
  /// layer makes it a failed result). The JS layer checks a batch's shape and caps first.
  #[napi(catch_unwind, ts_return_type = "Promise<ToolSearchHits[]>")]
  pub fn search<'env>(
    &self,
    env: &'env Env,
    queries: Vec<ToolSearchQuery>,
  ) -> Result<Object<'env>> {
    let (settle, promise) = crate::promise::create::<serde_json::Value>(env)?;
    let queries = queries
      .into_iter()
      .map(|q| SearchQuery {
        query: q.query,
        limit: q.limit,
      })
      .collect();
    self.run.search(queries, move |answer| {
      let hits = answer.and_then(|json| {
        let found: Vec<Found> = serde_json::from_str(&json)
          .map_err(|error| format!("the sandbox answered a search with {error}"))?;
        let hits: Vec<ToolSearchHits> = found.into_iter().map(Found::hits).collect();
        serde_json::to_value(hits).map_err(|error| error.to_string())
      });
      match hits {
        Ok(hits) => settle.resolve(hits),
        Err(message) => settle.reject(message),
      }
    });
    Ok(promise)
  }

  /// `tool_describe`: the entry with its input schema (and an `openclaw` tool's declared output
  /// schema), or null when it is not in the catalog. Bounded: a description past
  /// `DESCRIBE_DESCRIPTION_MAX_CHARS` characters is cut (ending with `…`), an input schema whose
  /// JSON is past `DESCRIBE_SCHEMA_MAX_BYTES` bytes is replaced by `{ type: 'object' }` with
  /// `parametersOmitted` saying why, and an output schema past it is left out with
  /// `outputSchemaOmitted` saying why.
  #[napi(catch_unwind, ts_return_type = "ToolSearchEntry | null")]
  pub fn describe(&self, id: String) -> Result<Option<serde_json::Value>> {
    Counters::bump(&self.run.telemetry.describes);
    let Some(entry) = self.run.catalog.get(&id) else {
      return Ok(None);
    };
    let (compact, omitted) = described(entry);
    // Read as the declared shape, so that the declaration cannot drift from what is written
    // (a drift throws: `ToolSearchRun.call` makes it an `internal_error` result).
    let written = serde_json::to_value(compact)
      .map_err(|error| Error::from_reason(format!("tool_describe of {id}: {error}")))?;
    let mut entry: ToolSearchEntry = serde_json::from_value(written)
      .map_err(|error| Error::from_reason(format!("tool_describe of {id}: {error}")))?;
    entry.parameters_omitted = omitted.parameters;
    entry.output_schema_omitted = omitted.output_schema;
    serde_json::to_value(entry)
      .map(Some)
      .map_err(|error| Error::from_reason(error.to_string()))
  }

  /// The tool `tool_call` reports it called (not counted as a describe), or null when `id` is
  /// not in the catalog.
  #[napi(catch_unwind)]
  pub fn entry(&self, id: String) -> Option<ToolSearchCalledTool> {
    self.run.catalog.get(&id).map(|e| ToolSearchCalledTool {
      id: e.id.clone(),
      name: e.name.clone(),
      source: e.source.as_str().to_string(),
      source_name: e.source_name.clone(),
    })
  }

  /// Why `tool_call` args of JSON text `argsJson` are over `maxToolInputBytes` (as the sandbox
  /// would refuse them, counted as the gateway holds them once parsed), or null when they fit.
  #[napi(catch_unwind)]
  pub fn input_refusal(&self, args_json: String) -> Option<String> {
    self.run.tool_input_refusal(&args_json)
  }

  /// Whether `id` is in the catalog (callable).
  #[napi(catch_unwind)]
  pub fn has(&self, id: String) -> bool {
    self.run.catalog.get(&id).is_some()
  }

  /// The message for an id that is not (or no longer) in the catalog.
  #[napi(catch_unwind)]
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

#[cfg(test)]
mod tests {
  use super::*;
  use serde_json::json;

  #[test]
  fn describe_bounds_the_description_and_replaces_a_schema_too_large() {
    let big = json!({ "type": "object", "properties": { "city": { "type": "string", "description": "y".repeat(40_000) } } });
    let small = json!({ "type": "object", "properties": { "city": { "type": "string" } }, "additionalProperties": false });
    let catalog = catalog::Catalog::build(&json!([
      { "name": "big", "description": "d".repeat(10_000), "parameters": big, "outputSchema": big },
      { "name": "small", "description": "Small", "parameters": small, "outputSchema": small },
    ]));
    let (entry, omitted) = described(catalog.get("openclaw:core:big").unwrap());
    // The sizes are the schemas' JSON, as the catalog keeps it.
    let size = serde_json::to_string(&big).unwrap().len();
    assert!(entry.output_schema.is_none());
    assert!(omitted.output_schema.unwrap().starts_with(&format!(
      "This tool's output schema is {size} bytes of JSON, more than the 32768 bytes"
    )));
    let note = omitted.parameters;
    assert_eq!(
      entry.description.chars().count(),
      catalog::DESCRIBE_DESCRIPTION_MAX_CHARS
    );
    assert!(entry.description.ends_with(catalog::CUT_MARKER));
    assert_eq!(entry.parameters.unwrap().get(), r#"{"type":"object"}"#);
    assert!(note.unwrap().starts_with(&format!(
      "This tool's input schema is {size} bytes of JSON, more than the 32768 bytes"
    )));
    let (entry, omitted) = described(catalog.get("openclaw:core:small").unwrap());
    assert_eq!(entry.description, "Small");
    // As OpenClaw's describe, the entry carries a hit's input hint beside its schema, and the
    // trusted tool's output schema.
    assert_eq!(entry.input, Some("{ city?: string }"));
    assert_eq!(entry.output, Some("{ city?: string }"));
    assert_eq!(
      serde_json::from_str::<serde_json::Value>(entry.parameters.unwrap().get()).unwrap(),
      small
    );
    assert_eq!(
      serde_json::from_str::<serde_json::Value>(entry.output_schema.unwrap().get()).unwrap(),
      small
    );
    assert!(omitted.parameters.is_none() && omitted.output_schema.is_none());
  }
}
