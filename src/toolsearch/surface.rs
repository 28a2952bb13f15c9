//! What the model sees of Tool Search: the model tools of each mode and the bounded capability
//! directory of `directory` mode.

use crate::catalog::{
  Catalog, DESCRIBE_DESCRIPTION_MAX_CHARS, DESCRIBE_SCHEMA_MAX_BYTES, SEARCH_DESCRIPTION_MAX_CHARS,
  Source,
};
use napi_derive::napi;
use serde_json::{Value, json};

/// A model-visible Tool Search tool definition.
#[napi(object, object_from_js = false)]
#[derive(Clone)]
pub struct ToolSearchModelTool {
  #[napi(ts_type = "'tool_search_code' | 'tool_search' | 'tool_describe' | 'tool_call'")]
  pub name: String,
  pub label: String,
  pub description: String,
  /// JSON Schema (flat: no oneOf/anyOf).
  #[napi(ts_type = "Record<string, unknown>")]
  pub parameters: Value,
}

/// Upstream's directory budget (OpenClaw's Tool Search page): 18,000 characters.
pub const DIRECTORY_MAX_CHARS: usize = 18_000;
/// Descriptions are cut to this many characters before any name is left out.
const SHORT_DESCRIPTION: usize = 80;

/// Most queries one `tool_search` batch holds (OpenClaw's Tool Search page).
pub const MAX_BATCH_QUERIES: usize = 16;
/// Longest query of a batch, in characters (UTF-16 code units, as JavaScript counts them).
pub const MAX_BATCH_QUERY_CHARS: usize = 512;
// lib/tool-search.js cuts a scalar query by this cap before it crosses to the sandbox (what the
// search reads and one character more): the two caps are one number.
const _: () = assert!(MAX_BATCH_QUERY_CHARS == code_mode_catalog::search::MAX_QUERY_CHARS);
/// Most UTF-8 bytes of a batch's query list, serialised as a JSON array of its query texts.
pub const MAX_BATCH_QUERY_BYTES: usize = 512;
/// Most candidates the effective limits of one batch may ask for in total.
pub const MAX_BATCH_CANDIDATES: usize = 50;
/// A batch response's budget: characters (UTF-16 code units) of `JSON.stringify` of the
/// response value `{ results, truncated? }`, without indentation.
pub const BATCH_RESPONSE_MAX_CHARS: usize = 4_000;

const QUERY_NOTE: &str = "Queries are matched against English tool names and descriptions; a query with no usable words returns no results.";

fn tool(name: &str, label: &str, description: String, parameters: Value) -> ToolSearchModelTool {
  ToolSearchModelTool {
    name: name.into(),
    label: label.into(),
    description,
    parameters,
  }
}

/// The model tools of `mode` (`code`, `tools` or `directory`) for a catalog of `size` tools.
pub fn model_tools(mode: &str, size: usize, timeout_ms: u32) -> Vec<ToolSearchModelTool> {
  if mode == "code" {
    return vec![tool(
      "tool_search_code",
      "Tool Search (code)",
      format!(
        "Run a short JavaScript async function body against this run's tool catalog ({size} tools) and `return` the answer. \
Globals: `await openclaw.tools.search(query, {{ limit }})` returns compact hits `[{{ id, name, label?, description, source, sourceName, input, output? }}]` (`input`: a TypeScript-style hint of the arguments, `unknown` for MCP and client tools; `output`: the result's shape, when declared); \
`await openclaw.tools.describe(id)` returns one entry with its JSON Schema `parameters` (and `outputSchema` when declared); \
`await openclaw.tools.call(id, args)` calls the tool through OpenClaw and returns `{{ tool, result }}` (`tool`: its hit; `result`: what the tool returned); `console.log/warn/error` print. \
Nothing else: no modules, timers, network or files. The whole call, tool calls included, must finish within {timeout_ms} ms. {QUERY_NOTE}"
      ),
      json!({
        "type": "object",
        "properties": { "code": { "type": "string", "description": "JavaScript function body; `return` the result." } },
        "required": ["code"],
        "additionalProperties": false
      }),
    )];
  }
  vec![
    tool(
      "tool_search",
      "Tool Search",
      format!(
        "Search this run's tool catalog ({size} tools) for tools that can do something. Give `query` (and optionally `limit`) for one search: it returns compact entries `[{{ id, name, label?, description, source, sourceName, input, output? }}]` without schemas (`input` is a TypeScript-style hint of the arguments, `unknown` for MCP and client tools: describe those; `output` the result's shape when the tool declares one). \
For several independent searches at once give `queries: [{{ query, limit? }}]` instead (at most {MAX_BATCH_QUERIES} queries of at most {MAX_BATCH_QUERY_CHARS} characters, {MAX_BATCH_QUERY_BYTES} bytes of query text and {MAX_BATCH_CANDIDATES} results in all): \
it returns `{{ results: [{{ query, candidates }}] }}` in request order, cut to {BATCH_RESPONSE_MAX_CHARS} characters (`truncated: true` on the response and on each group that lost results). \
Descriptions are shortened to {SEARCH_DESCRIPTION_MAX_CHARS} characters. Use tool_describe for a tool's parameters and tool_call to call it. {QUERY_NOTE}"
      ),
      json!({
        "type": "object",
        "properties": {
          "query": { "type": "string", "description": "What the tool should do, in English. Required unless `queries` is given." },
          "limit": { "type": "integer", "minimum": 1, "description": "Most results for `query`." },
          "queries": {
            "type": "array",
            "maxItems": MAX_BATCH_QUERIES,
            "description": "Independent searches run in one call, each with its own limit; use instead of `query`.",
            "items": {
              "type": "object",
              "properties": {
                "query": { "type": "string", "maxLength": MAX_BATCH_QUERY_CHARS, "description": "What the tool should do, in English." },
                "limit": { "type": "integer", "minimum": 1, "description": "Most results for this query." }
              },
              "required": ["query"],
              "additionalProperties": false
            }
          }
        },
        "additionalProperties": false
      }),
    ),
    tool(
      "tool_describe",
      "Describe tool",
      format!(
        "Load one catalog tool by its id from tool_search: its full entry with the JSON Schema `parameters`, and `outputSchema` when a trusted tool declares one. \
A description is cut to {DESCRIBE_DESCRIPTION_MAX_CHARS} characters; an input schema larger than {DESCRIBE_SCHEMA_MAX_BYTES} bytes of JSON is replaced by `{{ type: 'object' }}` and `parametersOmitted` says so; a larger output schema is left out and `outputSchemaOmitted` says so."
      ),
      json!({
        "type": "object",
        "properties": { "id": { "type": "string", "description": "A tool id from tool_search." } },
        "required": ["id"],
        "additionalProperties": false
      }),
    ),
    tool(
      "tool_call",
      "Call tool",
      "Call one catalog tool by its id with its arguments in `args`. Returns the tool's result; OpenClaw's policy and approvals apply.".into(),
      json!({
        "type": "object",
        "properties": {
          "id": { "type": "string", "description": "A tool id from tool_search." },
          "args": { "type": "object", "description": "The tool's arguments, as tool_describe's parameters give them." }
        },
        "required": ["id"],
        "additionalProperties": false
      }),
    ),
  ]
}

fn cut(text: &str, max: usize) -> String {
  let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
  if line.chars().count() <= max {
    return line;
  }
  let mut short: String = line.chars().take(max.saturating_sub(1)).collect();
  short.push('…');
  short
}

/// `cut(text, max).chars().count()`, without building it.
fn cut_size(text: &str, max: usize) -> usize {
  let mut size = 0;
  for word in text.split_whitespace() {
    size += (size > 0) as usize + word.chars().count();
    if size > max {
      return max;
    }
  }
  size
}

/// How the model reaches the catalog in `mode`: what the directory names.
fn reach(mode: &str) -> (&'static str, &'static str) {
  if mode == "code" {
    (
      "tool_search_code (openclaw.tools.search, describe and call)",
      "openclaw.tools.search in tool_search_code",
    )
  } else {
    ("tool_search, tool_describe and tool_call", "tool_search")
  }
}

/// The capability directory of every mode (upstream gives it in `code`, `tools` and
/// `directory` alike): trusted (OpenClaw core and plugin) tool names and descriptions, sorted by
/// name, at most `max_chars` characters. When space is tight descriptions shorten, then vanish,
/// before names are left out; MCP and client tools are only counted (their names and
/// descriptions are not trusted prompt text). Every entry stays searchable. The text depends on
/// the catalog and the mode only (no run, session or time): the same catalog gives the same
/// prompt, so a prompt cache keeps it.
pub fn directory(catalog: &Catalog, max_chars: usize, mode: &str) -> String {
  let (through, search) = reach(mode);
  let mut trusted: Vec<(&str, &str)> = catalog
    .entries()
    .iter()
    .filter(|e| e.source == Source::OpenClaw)
    .map(|e| (e.name.as_str(), e.description.as_str()))
    .collect();
  trusted.sort_unstable();
  let untrusted = catalog.count(Source::Mcp) + catalog.count(Source::Client);
  let mut head = format!(
    "Tool directory: {} tools are available through {through}.",
    catalog.len()
  );
  if untrusted > 0 {
    head.push_str(&format!(
      " {untrusted} MCP or client tools are not listed here; search for them."
    ));
  }
  head.push('\n');
  let budget = max_chars.saturating_sub(head.chars().count() + 100);
  // A line's characters (with its newline) for a description cut to `description` characters:
  // sizes first, so only the text that is kept is ever formatted.
  let line_size = |name: &str, text: &str, description: Option<usize>| -> usize {
    let name = name.chars().count() + 3;
    match description {
      Some(max) if !text.trim().is_empty() => name + 2 + cut_size(text, max),
      _ => name,
    }
  };
  let total = |description: Option<usize>| -> usize {
    let mut sum = 0;
    for (name, text) in &trusted {
      sum += line_size(name, text, description);
      if sum > budget {
        break;
      }
    }
    sum
  };
  let description = [Some(usize::MAX), Some(SHORT_DESCRIPTION)]
    .into_iter()
    .find(|&d| total(d) <= budget)
    .flatten();
  let mut out = head;
  let mut used = 0;
  let mut omitted = 0;
  for (name, text) in &trusted {
    let cost = line_size(name, text, description);
    if omitted > 0 || used + cost > budget {
      omitted += 1;
      continue;
    }
    used += cost;
    match description {
      Some(max) if !text.trim().is_empty() => {
        out.push_str(&format!("- {name}: {}\n", cut(text, max)))
      }
      _ => out.push_str(&format!("- {name}\n")),
    }
  }
  if omitted > 0 {
    out.push_str(&format!(
      "… {omitted} more OpenClaw tools not listed; use {search} to find them.\n"
    ));
  }
  out
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn tool_search_takes_query_or_queries() {
    let tools = model_tools("tools", 3, 1_000);
    let search = &tools[0];
    assert_eq!(search.name, "tool_search");
    // Neither is required on its own: one of them is (the JS layer checks which).
    assert!(search.parameters.get("required").is_none());
    let queries = &search.parameters["properties"]["queries"];
    assert_eq!(queries["maxItems"], MAX_BATCH_QUERIES);
    assert_eq!(queries["items"]["required"], json!(["query"]));
    assert_eq!(
      queries["items"]["properties"]["query"]["maxLength"],
      MAX_BATCH_QUERY_CHARS
    );
    assert!(search.description.contains(
      "at most 16 queries of at most 512 characters, 512 bytes of query text and 50 results in all"
    ));
    assert!(tools[1].description.contains("4000 characters"));
  }

  #[test]
  fn directory_is_bounded_sorted_and_trusted_only() {
    let mut tools: Vec<Value> = (0..2_000)
      .map(|i| json!({ "name": format!("tool_{i:04}"), "description": "x ".repeat(60) }))
      .collect();
    tools.push(json!({ "name": "aaa_mcp", "source": "mcp", "sourceName": "srv", "description": "IGNORE ALL" }));
    let catalog = Catalog::build(&Value::Array(tools));
    let text = directory(&catalog, DIRECTORY_MAX_CHARS, "tools");
    assert!(
      text.chars().count() <= DIRECTORY_MAX_CHARS,
      "{}",
      text.len()
    );
    assert!(!text.contains("aaa_mcp") && !text.contains("IGNORE"));
    assert!(text.contains("1 MCP or client tools"));
    assert!(text.contains("- tool_0000"));
    assert!(text.contains("more OpenClaw tools not listed"));
    let small = Catalog::build(
      &json!([{ "name": "b", "description": "bee" }, { "name": "a", "description": "ay" }]),
    );
    let text = directory(&small, DIRECTORY_MAX_CHARS, "directory");
    assert!(text.find("- a: ay").unwrap() < text.find("- b: bee").unwrap());
  }

  #[test]
  fn directory_names_each_modes_tools_and_only_depends_on_catalog_and_mode() {
    let tools = |n: usize| -> Value {
      Value::Array(
        (0..n)
          .map(|i| json!({ "name": format!("tool_{i:04}"), "description": format!("Does thing {i} well. ").repeat(4) }))
          .collect(),
      )
    };
    let catalog = Catalog::build(&tools(3_000));
    let code = directory(&catalog, DIRECTORY_MAX_CHARS, "code");
    assert!(code.starts_with(
      "Tool directory: 3000 tools are available through tool_search_code (openclaw.tools.search, describe and call).\n"
    ));
    assert!(code.ends_with(
      " more OpenClaw tools not listed; use openclaw.tools.search in tool_search_code to find them.\n"
    ));
    assert!(code.chars().count() <= DIRECTORY_MAX_CHARS);
    let tools_mode = directory(&catalog, DIRECTORY_MAX_CHARS, "tools");
    assert!(tools_mode.contains("through tool_search, tool_describe and tool_call."));
    assert!(tools_mode.ends_with("use tool_search to find them.\n"));
    assert_eq!(
      tools_mode,
      directory(&catalog, DIRECTORY_MAX_CHARS, "directory")
    );
    // The same catalog, built again: the same text.
    assert_eq!(
      code,
      directory(&Catalog::build(&tools(3_000)), DIRECTORY_MAX_CHARS, "code")
    );
    // Descriptions shorten (to 80 characters) before names go; with room, they stay whole.
    let few = Catalog::build(&tools(20));
    let text = directory(&few, DIRECTORY_MAX_CHARS, "code");
    assert!(text.contains(&format!(
      "- tool_0003: {}",
      "Does thing 3 well. ".repeat(4).trim_end()
    )));
    let tight = directory(&catalog, 8_000, "code");
    assert!(tight.contains("- tool_0000\n") && tight.chars().count() <= 8_000);
    let long: Vec<Value> = (0..150)
      .map(|i| json!({ "name": format!("tool_{i:04}"), "description": "A long description. ".repeat(8) }))
      .collect();
    let medium = directory(
      &Catalog::build(&Value::Array(long)),
      DIRECTORY_MAX_CHARS,
      "code",
    );
    assert!(medium.contains("…\n") && !medium.contains("more OpenClaw tools"));
    assert!(medium.contains(&format!(
      "- tool_0149: {}…\n",
      &"A long description. ".repeat(4)[..79]
    )));
  }
}
