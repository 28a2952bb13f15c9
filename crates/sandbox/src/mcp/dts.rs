//! JSON Schema → TypeScript declarations for the virtual `mcp/*.d.ts` files.
//!
//! Enums become literal unions, `oneOf`/`anyOf`/type arrays unions, `allOf` intersections,
//! `integer` is `number`, objects list required keys first, descriptions become JSDoc (with
//! `*/` escaped). Local `$ref`s are followed; anything unknown, cyclic or too deep is `unknown`,
//! so every file stays a valid declaration file whatever the schema says.

use super::{Group, McpServer, McpTool, parameters, qualified};
use code_mode_catalog::{Catalog, CatalogEntry, names::is_identifier};
use serde_json::{Map, Value};

const MAX_DEPTH: usize = 8;

/// Shared result types. Interfaces with identical members (and no index signature) so they
/// merge with the same declarations in this package's `guest.d.ts`.
pub const RESULT_TYPES: &str = "interface McpToolResult {
  /** Tool results. */
  content?: unknown[];
  structuredContent?: unknown;
  isError?: boolean;
  /** resources.read */
  contents?: unknown[];
  /** resources.list */
  resources?: unknown[];
  /** prompts.list */
  prompts?: unknown[];
  /** prompts.get */
  messages?: unknown[];
  description?: string;
  nextCursor?: string;
  _meta?: unknown;
}

interface McpApiHeader {
  declaration: string;
  server?: string;
  name?: string;
  tool?: string;
  id?: string;
  path?: string;
  description?: string;
  tools?: unknown[];
  servers?: unknown[];
  schema?: unknown;
}
";

/// A JSDoc block at `indent`, or nothing when there is nothing to say.
fn jsdoc(out: &mut String, indent: &str, lines: &[String]) {
  let lines: Vec<String> = lines
    .iter()
    .flat_map(|l| {
      l.lines()
        .map(str::trim_end)
        .map(str::to_string)
        .collect::<Vec<_>>()
    })
    .filter(|l| !l.trim().is_empty())
    .map(|l| l.replace("*/", "*\\/"))
    .collect();
  match lines.as_slice() {
    [] => {}
    [one] => out.push_str(&format!("{indent}/** {one} */\n")),
    many => {
      out.push_str(&format!("{indent}/**\n"));
      for line in many {
        out.push_str(&format!("{indent} * {line}\n"));
      }
      out.push_str(&format!("{indent} */\n"));
    }
  }
}

fn key(name: &str) -> String {
  if is_identifier(name) {
    name.to_string()
  } else {
    // A string always serialises.
    serde_json::to_string(name).unwrap_or_default()
  }
}

fn literal(value: &Value) -> Option<String> {
  match value {
    Value::String(_) | Value::Bool(_) | Value::Null => Some(value.to_string()),
    Value::Number(n) if n.as_f64().is_some_and(f64::is_finite) => Some(n.to_string()),
    _ => None,
  }
}

fn union(parts: Vec<String>) -> String {
  let mut seen: Vec<String> = Vec::new();
  for part in parts {
    if !seen.contains(&part) {
      seen.push(part);
    }
  }
  if seen.iter().any(|p| p == "unknown") {
    return "unknown".into();
  }
  match seen.len() {
    0 => "never".into(),
    1 => seen.remove(0),
    _ => seen.join(" | "),
  }
}

/// Renders schemas against one root (for `$ref`).
struct Renderer<'a> {
  root: &'a Value,
  refs: Vec<String>,
}

impl Renderer<'_> {
  fn resolve(&self, reference: &str) -> Option<&Value> {
    let path = reference.strip_prefix("#/")?;
    let mut node = self.root;
    for segment in path.split('/') {
      let segment = segment.replace("~1", "/").replace("~0", "~");
      node = node.get(segment.as_str())?;
    }
    Some(node)
  }

  fn ty(&mut self, schema: &Value, depth: usize, indent: &str) -> String {
    if depth > MAX_DEPTH {
      return "unknown".into();
    }
    let Some(object) = schema.as_object() else {
      return if schema == &Value::Bool(false) {
        "never".into()
      } else {
        "unknown".into()
      };
    };
    if let Some(reference) = object.get("$ref").and_then(Value::as_str) {
      if self.refs.iter().any(|r| r == reference) {
        return "unknown".into();
      }
      let Some(target) = self.resolve(reference).cloned() else {
        return "unknown".into();
      };
      self.refs.push(reference.to_string());
      let rendered = self.ty(&target, depth + 1, indent);
      self.refs.pop();
      return rendered;
    }
    if let Some(value) = object.get("const") {
      return literal(value).unwrap_or_else(|| "unknown".into());
    }
    if let Some(values) = object.get("enum").and_then(Value::as_array) {
      let literals: Option<Vec<String>> = values.iter().map(literal).collect();
      return literals.map_or_else(|| "unknown".into(), union);
    }
    for combinator in ["anyOf", "oneOf"] {
      if let Some(options) = object.get(combinator).and_then(Value::as_array) {
        let parts = options
          .iter()
          .map(|o| self.ty(o, depth + 1, indent))
          .collect();
        return union(parts);
      }
    }
    if let Some(parts) = object.get("allOf").and_then(Value::as_array) {
      let rendered: Vec<String> = parts
        .iter()
        .map(|p| wrap(self.ty(p, depth + 1, indent)))
        .collect();
      return match rendered.len() {
        0 => "unknown".into(),
        1 => rendered[0].clone(),
        _ => rendered.join(" & "),
      };
    }
    match object.get("type") {
      Some(Value::Array(types)) => {
        let parts = types
          .iter()
          .filter_map(Value::as_str)
          .map(|t| self.of_type(t, object, depth, indent))
          .collect();
        union(parts)
      }
      Some(Value::String(t)) => self.of_type(t, object, depth, indent),
      _ if object.contains_key("properties") => self.of_type("object", object, depth, indent),
      _ if object.contains_key("items") => self.of_type("array", object, depth, indent),
      _ => "unknown".into(),
    }
  }

  fn of_type(
    &mut self,
    ty: &str,
    schema: &Map<String, Value>,
    depth: usize,
    indent: &str,
  ) -> String {
    match ty {
      "string" => "string".into(),
      "number" | "integer" => "number".into(),
      "boolean" => "boolean".into(),
      "null" => "null".into(),
      "array" => match schema.get("items") {
        Some(Value::Array(items)) => {
          let parts: Vec<String> = items
            .iter()
            .map(|i| self.ty(i, depth + 1, indent))
            .collect();
          format!("[{}]", parts.join(", "))
        }
        Some(items) => format!("{}[]", wrap(self.ty(items, depth + 1, indent))),
        None => "unknown[]".into(),
      },
      "object" => self.object(schema, depth, indent),
      _ => "unknown".into(),
    }
  }

  fn object(&mut self, schema: &Map<String, Value>, depth: usize, indent: &str) -> String {
    let properties = schema.get("properties").and_then(Value::as_object);
    let additional = schema.get("additionalProperties");
    let Some(properties) = properties.filter(|p| !p.is_empty()) else {
      return match additional {
        Some(Value::Bool(false)) => "Record<string, never>".into(),
        Some(extra @ Value::Object(_)) => {
          format!("Record<string, {}>", self.ty(extra, depth + 1, indent))
        }
        _ => "Record<string, unknown>".into(),
      };
    };
    let required: Vec<&str> = schema
      .get("required")
      .and_then(Value::as_array)
      .map(|r| r.iter().filter_map(Value::as_str).collect())
      .unwrap_or_default();
    let mut keys: Vec<(&String, &Value, bool)> = properties
      .iter()
      .map(|(k, v)| (k, v, required.contains(&k.as_str())))
      .collect();
    keys.sort_by_key(|(_, _, is_required)| !is_required);
    let inner = format!("{indent}  ");
    let mut out = String::from("{\n");
    for (name, property, is_required) in keys {
      // Top-level fields are documented by the function's `@param` lines.
      if let Some(description) = property
        .get("description")
        .and_then(Value::as_str)
        .filter(|_| depth > 0)
      {
        jsdoc(&mut out, &inner, &[description.to_string()]);
      }
      let optional = if is_required { "" } else { "?" };
      let rendered = self.ty(property, depth + 1, &inner);
      out.push_str(&format!("{inner}{}{optional}: {rendered};\n", key(name)));
    }
    if matches!(additional, Some(Value::Bool(true) | Value::Object(_))) {
      out.push_str(&format!("{inner}[key: string]: unknown;\n"));
    }
    out.push_str(indent);
    out.push('}');
    out
  }
}

fn wrap(ty: String) -> String {
  if ty.contains(" | ") || ty.contains(" & ") {
    format!("({ty})")
  } else {
    ty
  }
}

/// The input type of a tool: `Record<string, never>` when it takes no parameters.
pub fn input_type(schema: &Value, indent: &str) -> String {
  let empty = schema
    .get("properties")
    .and_then(Value::as_object)
    .is_none_or(|p| p.is_empty());
  let open = matches!(
    schema.get("additionalProperties"),
    Some(Value::Bool(true) | Value::Object(_))
  );
  if empty
    && !open
    && schema.get("$ref").is_none()
    && schema.get("anyOf").is_none()
    && schema.get("oneOf").is_none()
  {
    return "Record<string, never>".into();
  }
  let mut renderer = Renderer {
    root: schema,
    refs: Vec::new(),
  };
  renderer.ty(schema, 0, indent)
}

/// `function name(input: {...}): Promise<McpToolResult>;` with its JSDoc, at `indent`.
fn function(out: &mut String, indent: &str, ident: &str, entry: &CatalogEntry) {
  let schema = parameters(entry);
  let mut doc = Vec::new();
  if !entry.description.trim().is_empty() {
    doc.push(entry.description.clone());
  }
  if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
    for (name, property) in properties {
      if let Some(description) = property.get("description").and_then(Value::as_str) {
        doc.push(format!(
          "@param {name} {}",
          description.lines().next().unwrap_or("")
        ));
      }
    }
  }
  jsdoc(out, indent, &doc);
  let input = input_type(&schema, indent);
  let optional = if input == "Record<string, never>" || !has_required(&schema) {
    "?"
  } else {
    ""
  };
  out.push_str(&format!(
    "{indent}function {ident}(input{optional}: {input}): Promise<McpToolResult>;\n"
  ));
}

fn has_required(schema: &Value) -> bool {
  schema
    .get("required")
    .and_then(Value::as_array)
    .is_some_and(|r| !r.is_empty())
}

/// One tool's declaration (for `$api(toolName)`).
pub fn tool_declaration(tool: &McpTool, entry: &CatalogEntry) -> String {
  let mut out = String::new();
  let name = qualified(tool);
  let ident = name.rsplit('.').next().unwrap_or(&name).to_string();
  function(&mut out, "", &ident, entry);
  out
}

/// `mcp/<server>.d.ts`.
pub fn render_server(server: &McpServer, catalog: &Catalog) -> String {
  let mut out = String::new();
  out.push_str("/// <reference path=\"./index.d.ts\" />\n");
  jsdoc(&mut out, "", &[format!("MCP server \"{}\".", server.name)]);
  out.push_str(&format!("declare namespace MCP.{} {{\n", server.ident));
  out.push_str("  /** Return this TypeScript-style API header. */\n");
  out.push_str(
    "  function $api(toolName?: string, options?: { schema?: boolean }): Promise<McpApiHeader>;\n",
  );
  for tool in server.tools.iter().filter(|t| t.group == Group::Tools) {
    function(&mut out, "  ", &tool.ident, &catalog.entries()[tool.entry]);
  }
  for (group, label) in [(Group::Resources, "resources"), (Group::Prompts, "prompts")] {
    let members: Vec<&McpTool> = server.tools.iter().filter(|t| t.group == group).collect();
    if members.is_empty() {
      continue;
    }
    out.push_str(&format!("  namespace {label} {{\n"));
    for tool in members {
      function(
        &mut out,
        "    ",
        &tool.ident,
        &catalog.entries()[tool.entry],
      );
    }
    out.push_str("  }\n");
  }
  out.push_str("}\n");
  out
}

/// `mcp/index.d.ts`: shared types, `MCP.$api`, and a line per server.
pub fn render_index(servers: &[McpServer]) -> String {
  let mut out = String::from(
    "// MCP tools of this run. Read one server with API.read(\"mcp/<server>.d.ts\").\n",
  );
  out.push_str(RESULT_TYPES);
  out.push_str("\ndeclare namespace MCP {\n");
  out.push_str("  /** Return the API header of every MCP server of this run. */\n");
  out.push_str("  function $api(): Promise<McpApiHeader>;\n");
  out.push_str("}\n");
  for server in servers {
    out.push_str(&format!(
      "// MCP.{}: {} ({} tool{}) in mcp/{}.d.ts\n",
      server.ident,
      server.name,
      server.tools.len(),
      if server.tools.len() == 1 { "" } else { "s" },
      server.ident
    ));
  }
  out
}

#[cfg(test)]
mod tests {
  use super::*;
  use serde_json::json;

  fn render(schema: Value) -> String {
    input_type(&schema, "")
  }

  #[test]
  fn schema_shapes() {
    assert_eq!(render(json!({})), "Record<string, never>");
    assert_eq!(
      render(json!({ "type": "object", "properties": {} })),
      "Record<string, never>"
    );
    let object = render(json!({
      "type": "object",
      "required": ["title"],
      "properties": {
        "body": { "type": "string", "description": "Body */ text" },
        "title": { "type": "string" },
        "state": { "enum": ["open", "closed"] },
        "count": { "type": "integer" },
        "labels": { "type": "array", "items": { "type": ["string", "null"] } },
        "x-y": { "oneOf": [{ "type": "number" }, { "const": "auto" }] },
        "meta": { "type": "object", "additionalProperties": { "type": "string" } }
      }
    }));
    assert!(object.starts_with("{\n  title: string;\n"), "{object}");
    assert!(object.contains("\n  body?: string;"), "{object}");
    let nested = render(
      json!({ "type": "object", "properties": { "o": { "type": "object", "properties": {
      "body": { "type": "string", "description": "Body */ text" } } } } }),
    );
    assert!(
      nested.contains("/** Body *\\/ text */\n    body?: string;"),
      "{nested}"
    );
    assert!(object.contains("state?: \"open\" | \"closed\";"));
    assert!(object.contains("count?: number;"));
    assert!(object.contains("labels?: (string | null)[];"));
    assert!(object.contains("\"x-y\"?: number | \"auto\";"));
    assert!(object.contains("meta?: Record<string, string>;"));
  }

  #[test]
  fn refs_cycles_and_depth_stay_valid() {
    let schema = json!({
      "type": "object",
      "properties": { "node": { "$ref": "#/$defs/Node" }, "missing": { "$ref": "#/$defs/Nope" } },
      "$defs": { "Node": { "type": "object", "properties": { "next": { "$ref": "#/$defs/Node" } } } }
    });
    let out = render(schema);
    assert!(out.contains("next?: unknown;"), "{out}");
    assert!(out.contains("missing?: unknown;"), "{out}");
    let mut deep = json!({ "type": "string" });
    for _ in 0..20 {
      deep = json!({ "type": "object", "properties": { "a": deep } });
    }
    assert!(render(deep).contains("unknown"));
  }
}
