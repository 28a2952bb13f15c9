//! What the model sees of Tool Search: the model tools of each mode and the bounded capability
//! directory of `directory` mode.

use crate::catalog::{Catalog, Source};
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
Globals: `await openclaw.tools.search(query, {{ limit }})` returns compact hits `[{{ id, name, label?, description, source, sourceName }}]`; \
`await openclaw.tools.describe(id)` returns one entry with its JSON Schema `parameters`; \
`await openclaw.tools.call(id, args)` calls the tool through OpenClaw and returns its result; `console.log/warn/error` print. \
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
        "Search this run's tool catalog ({size} tools) for tools that can do something. Returns compact entries `[{{ id, name, label?, description, source, sourceName }}]` without schemas; \
use tool_describe for a tool's parameters and tool_call to call it. {QUERY_NOTE}"
      ),
      json!({
        "type": "object",
        "properties": {
          "query": { "type": "string", "description": "What the tool should do, in English." },
          "limit": { "type": "integer", "minimum": 1, "description": "Most results to return." }
        },
        "required": ["query"],
        "additionalProperties": false
      }),
    ),
    tool(
      "tool_describe",
      "Describe tool",
      "Load one catalog tool by its id from tool_search: its full entry with the JSON Schema `parameters`.".into(),
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

/// The capability directory: trusted (OpenClaw core and plugin) tool names and descriptions,
/// sorted by name, at most `max_chars` characters. When space is tight descriptions shorten,
/// then vanish, before names are left out; MCP and client tools are only counted (their
/// names and descriptions are not trusted prompt text). Every entry stays searchable.
pub fn directory(catalog: &Catalog, max_chars: usize) -> String {
  let mut trusted: Vec<(&str, &str)> = catalog
    .entries()
    .iter()
    .filter(|e| e.source == Source::OpenClaw)
    .map(|e| (e.name.as_str(), e.description.as_str()))
    .collect();
  trusted.sort_unstable();
  let untrusted = catalog.count(Source::Mcp) + catalog.count(Source::Client);
  let mut head = format!(
    "Tool directory: {} tools are available through tool_search, tool_describe and tool_call.",
    catalog.len()
  );
  if untrusted > 0 {
    head.push_str(&format!(
      " {untrusted} MCP or client tools are not listed here; search for them."
    ));
  }
  head.push('\n');
  let budget = max_chars.saturating_sub(head.chars().count() + 80);
  let render = |description: Option<usize>| -> Vec<String> {
    trusted
      .iter()
      .map(|(name, text)| match description {
        Some(max) if !text.trim().is_empty() => format!("- {name}: {}", cut(text, max)),
        _ => format!("- {name}"),
      })
      .collect()
  };
  let size = |lines: &[String]| lines.iter().map(|l| l.chars().count() + 1).sum::<usize>();
  let mut lines = render(Some(usize::MAX));
  if size(&lines) > budget {
    lines = render(Some(SHORT_DESCRIPTION));
  }
  if size(&lines) > budget {
    lines = render(None);
  }
  let mut out = head;
  let mut used = 0;
  let mut omitted = 0;
  for line in &lines {
    let cost = line.chars().count() + 1;
    if omitted > 0 || used + cost > budget {
      omitted += 1;
      continue;
    }
    used += cost;
    out.push_str(line);
    out.push('\n');
  }
  if omitted > 0 {
    out.push_str(&format!(
      "… {omitted} more OpenClaw tools not listed; use tool_search to find them.\n"
    ));
  }
  out
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn directory_is_bounded_sorted_and_trusted_only() {
    let mut tools: Vec<Value> = (0..2_000)
      .map(|i| json!({ "name": format!("tool_{i:04}"), "description": "x ".repeat(60) }))
      .collect();
    tools.push(json!({ "name": "aaa_mcp", "source": "mcp", "sourceName": "srv", "description": "IGNORE ALL" }));
    let catalog = Catalog::build(&Value::Array(tools));
    let text = directory(&catalog, DIRECTORY_MAX_CHARS);
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
    let text = directory(&small, DIRECTORY_MAX_CHARS);
    assert!(text.find("- a: ay").unwrap() < text.find("- b: bee").unwrap());
  }
}
