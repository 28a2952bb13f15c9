//! The MCP surface of a run: `MCP.<server>.<tool>()` identifiers, argument checks, and the
//! virtual `API` declaration files rendered from the tools' JSON Schemas.
//!
//! Built once per run from the catalog's MCP entries (which stay out of `ALL_TOOLS`/`tools.*`);
//! every call dispatches by exact catalog id through the same executor as `tools.call`.

pub mod api;
pub mod dts;

use code_mode_catalog::{Catalog, CatalogEntry, names};
use serde_json::{Map, Value, json};
use std::collections::HashSet;

/// Words a generated identifier may not be besides `names::RESERVED_WORDS` (a `.d.ts` cannot
/// declare `function delete`) and `names::PROTOTYPE_NAMES`: the helpers on every server.
const SERVER_HELPERS: &[&str] = &["prototype", "$api", "resources", "prompts"];

/// `chrome-devtools` → `chromeDevtools`, `take_snapshot` → `takeSnapshot`, `fetchURL` kept.
pub fn camel_case(name: &str) -> String {
  let mut out = String::with_capacity(name.len());
  let mut upper_next = false;
  for ch in name.chars() {
    if ch.is_ascii_alphanumeric() || ch == '$' {
      if out.is_empty() {
        out.push(ch.to_ascii_lowercase());
      } else if upper_next {
        out.push(ch.to_ascii_uppercase());
      } else {
        out.push(ch);
      }
      upper_next = false;
    } else {
      upper_next = !out.is_empty();
    }
  }
  if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
    out.insert(0, '_');
  }
  out
}

/// A unique, non-reserved identifier for `name` among `taken` (numeric suffix on collision).
fn unique_ident(name: &str, taken: &mut HashSet<String>) -> String {
  let base = camel_case(name);
  let mut ident = base.clone();
  let mut n = 2;
  while names::RESERVED_WORDS.contains(&ident.as_str())
    || SERVER_HELPERS.contains(&ident.as_str())
    || names::PROTOTYPE_NAMES.contains(&ident.as_str())
    || taken.contains(&ident)
  {
    ident = format!("{base}{n}");
    n += 1;
  }
  taken.insert(ident.clone());
  ident
}

/// Where a callable sits on its server object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Group {
  Tools,
  Resources,
  Prompts,
}

#[derive(Debug, Clone)]
pub struct McpTool {
  /// Identifier inside its group (`createIssue`, or `read` for `resources_read`).
  pub ident: String,
  pub group: Group,
  /// Index of the catalog entry.
  pub entry: usize,
}

#[derive(Debug, Clone)]
pub struct McpServer {
  /// The server's own name (`chrome-devtools`).
  pub name: String,
  /// Its key on `MCP` and its file name (`chromeDevtools`, `mcp/chromeDevtools.d.ts`).
  pub ident: String,
  pub tools: Vec<McpTool>,
}

pub struct McpSurface {
  pub servers: Vec<McpServer>,
  files: api::Files,
}

impl McpSurface {
  pub fn build(catalog: &Catalog) -> McpSurface {
    let mut servers: Vec<McpServer> = Vec::new();
    let mut server_idents = HashSet::new();
    // Idents per (server, group), so `resources.list` and a tool named `list` coexist.
    let mut group_idents: Vec<[HashSet<String>; 3]> = Vec::new();
    for (index, entry) in catalog.entries().iter().enumerate() {
      let Some(binding) = &entry.mcp else { continue };
      let position = match servers.iter().position(|s| s.name == binding.server) {
        Some(position) => position,
        None => {
          servers.push(McpServer {
            name: binding.server.clone(),
            ident: unique_ident(&binding.server, &mut server_idents),
            tools: Vec::new(),
          });
          group_idents.push(Default::default());
          servers.len() - 1
        }
      };
      let (group, name) = match binding.operation.as_str() {
        "resources_list" => (Group::Resources, "list"),
        "resources_read" => (Group::Resources, "read"),
        "prompts_list" => (Group::Prompts, "list"),
        "prompts_get" => (Group::Prompts, "get"),
        _ => (Group::Tools, binding.tool.as_str()),
      };
      let taken = &mut group_idents[position][group as usize];
      let ident = if group == Group::Tools {
        unique_ident(name, taken)
      } else {
        // `list`/`read`/`get` are fixed names inside their group object.
        let mut ident = name.to_string();
        let mut n = 2;
        while taken.contains(&ident) {
          ident = format!("{name}{n}");
          n += 1;
        }
        taken.insert(ident.clone());
        ident
      };
      servers[position].tools.push(McpTool {
        ident,
        group,
        entry: index,
      });
    }
    let files = api::Files::render(&servers, catalog);
    McpSurface { servers, files }
  }

  pub fn files(&self) -> &api::Files {
    &self.files
  }

  /// The guest's view: `[{ key, tools: [[ident, id]], resources: [...], prompts: [...] }]`.
  pub fn guest_json(&self, catalog: &Catalog) -> String {
    let servers: Vec<Value> = self
      .servers
      .iter()
      .map(|server| {
        let group = |g: Group| -> Vec<Value> {
          server
            .tools
            .iter()
            .filter(|t| t.group == g)
            .map(|t| json!([t.ident, catalog.entries()[t.entry].id]))
            .collect()
        };
        json!({
          "key": server.ident,
          "tools": group(Group::Tools),
          "resources": group(Group::Resources),
          "prompts": group(Group::Prompts),
        })
      })
      .collect();
    Value::Array(servers).to_string()
  }

  fn server(&self, key: &str) -> Option<&McpServer> {
    self.servers.iter().find(|s| s.ident == key)
  }

  /// `MCP.$api()` (no server) and `MCP.<server>.$api(toolName?, { schema? })`.
  pub fn api_header(
    &self,
    catalog: &Catalog,
    server: Option<&str>,
    tool: Option<&str>,
    schema: bool,
  ) -> Result<Value, String> {
    let Some(key) = server else {
      let servers: Vec<Value> = self
        .servers
        .iter()
        .map(|s| json!({ "server": s.ident, "name": s.name, "path": api::server_path(&s.ident), "tools": s.tools.len() }))
        .collect();
      return Ok(
        json!({ "path": api::INDEX_PATH, "servers": servers, "declaration": self.files.index() }),
      );
    };
    let server = self
      .server(key)
      .ok_or_else(|| format!("Unknown MCP server: {key}"))?;
    let Some(name) = tool else {
      let path = api::server_path(&server.ident);
      let tools: Vec<String> = server.tools.iter().map(qualified).collect();
      return Ok(json!({
        "server": server.ident,
        "name": server.name,
        "path": path,
        "tools": tools,
        "declaration": self.files.read(&path).unwrap_or_default(),
      }));
    };
    let found = server
      .tools
      .iter()
      .find(|t| qualified(t) == name || (t.group == Group::Tools && t.ident == name))
      .ok_or_else(|| format!("Unknown MCP tool: {}.{name}", server.ident))?;
    let entry = &catalog.entries()[found.entry];
    let mut header = Map::new();
    header.insert("server".into(), json!(server.ident));
    header.insert("tool".into(), json!(qualified(found)));
    header.insert("id".into(), json!(entry.id));
    header.insert("description".into(), json!(entry.description));
    header.insert(
      "declaration".into(),
      json!(dts::tool_declaration(found, entry)),
    );
    if schema {
      header.insert("schema".into(), parameters(entry));
    }
    Ok(Value::Object(header))
  }
}

/// `createIssue`, `resources.read`, `prompts.get`.
pub fn qualified(tool: &McpTool) -> String {
  match tool.group {
    Group::Tools => tool.ident.clone(),
    Group::Resources => format!("resources.{}", tool.ident),
    Group::Prompts => format!("prompts.{}", tool.ident),
  }
}

/// The entry's input schema as JSON (`{}` when it has none).
pub fn parameters(entry: &CatalogEntry) -> Value {
  entry
    .parameters
    .as_deref()
    .and_then(|p| serde_json::from_str(p).ok())
    .unwrap_or_else(|| json!({}))
}

/// Checks an MCP call's single object argument against the tool's schema: fills top-level
/// `default`s and names missing `required` fields. Returns the input as JSON text.
pub fn prepare_input(entry: &CatalogEntry, input: &str) -> Result<String, String> {
  let mut value: Value = serde_json::from_str(input).map_err(|_| ONE_OBJECT.to_string())?;
  let Some(object) = value.as_object_mut() else {
    return Err(ONE_OBJECT.to_string());
  };
  let schema = parameters(entry);
  let mut changed = false;
  if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
    for (key, property) in properties {
      if let Some(default) = property.get("default")
        && !object.contains_key(key)
      {
        object.insert(key.clone(), default.clone());
        changed = true;
      }
    }
  }
  let missing: Vec<&str> = schema
    .get("required")
    .and_then(Value::as_array)
    .map(|required| {
      required
        .iter()
        .filter_map(Value::as_str)
        .filter(|key| object.get(*key).is_none_or(Value::is_null))
        .collect()
    })
    .unwrap_or_default();
  if !missing.is_empty() {
    return Err(format!(
      "Missing required MCP namespace argument(s): {}",
      missing.join(", ")
    ));
  }
  Ok(if changed {
    value.to_string()
  } else {
    input.to_string()
  })
}

pub const ONE_OBJECT: &str = "MCP namespace tools accept one object argument.";

#[cfg(test)]
mod tests {
  use super::*;

  fn catalog() -> Catalog {
    Catalog::build(&json!([
      { "name": "take_snapshot", "source": "mcp", "sourceName": "chrome-devtools" },
      { "name": "delete", "source": "mcp", "sourceName": "chrome-devtools" },
      { "name": "create_issue", "source": "mcp", "sourceName": "github",
        "parameters": { "type": "object", "required": ["owner", "title"],
          "properties": { "owner": { "type": "string" }, "title": { "type": "string" }, "state": { "type": "string", "default": "open" } } } },
      { "name": "docs_read", "source": "mcp", "sourceName": "docs", "mcp": { "serverName": "docs", "toolName": "read", "operation": "resources_read" } },
      { "name": "docs_list", "source": "mcp", "sourceName": "docs", "mcp": { "serverName": "docs", "toolName": "list", "operation": "resources_list" } },
      { "name": "list", "source": "mcp", "sourceName": "docs" },
      { "name": "x", "source": "mcp", "sourceName": "constructor" },
      { "name": "read", "source": "openclaw" },
    ]))
  }

  #[test]
  fn identifiers() {
    assert_eq!(camel_case("chrome-devtools"), "chromeDevtools");
    assert_eq!(camel_case("take_snapshot"), "takeSnapshot");
    assert_eq!(camel_case("fetchURL"), "fetchURL");
    assert_eq!(camel_case("2fa"), "_2fa");
    let surface = McpSurface::build(&catalog());
    let keys: Vec<&str> = surface.servers.iter().map(|s| s.ident.as_str()).collect();
    assert_eq!(
      keys,
      vec!["chromeDevtools", "github", "docs", "constructor2"]
    );
    let chrome: Vec<&str> = surface.servers[0]
      .tools
      .iter()
      .map(|t| t.ident.as_str())
      .collect();
    assert_eq!(chrome, vec!["takeSnapshot", "delete2"]);
    let docs: Vec<String> = surface.servers[2].tools.iter().map(qualified).collect();
    assert_eq!(docs, vec!["resources.read", "resources.list", "list"]);
  }

  #[test]
  fn inputs_get_defaults_and_required_checks() {
    let catalog = catalog();
    let entry = catalog.get("mcp:github:create_issue").unwrap();
    let filled: Value =
      serde_json::from_str(&prepare_input(entry, r#"{"owner":"o","title":"t"}"#).unwrap()).unwrap();
    assert_eq!(filled["state"], "open");
    assert_eq!(
      prepare_input(entry, r#"{"owner":"o"}"#).unwrap_err(),
      "Missing required MCP namespace argument(s): title"
    );
    assert_eq!(prepare_input(entry, "[1]").unwrap_err(), ONE_OBJECT);
  }

  #[test]
  fn api_headers() {
    let catalog = catalog();
    let surface = McpSurface::build(&catalog);
    let index = surface.api_header(&catalog, None, None, false).unwrap();
    assert_eq!(index["servers"].as_array().unwrap().len(), 4);
    let tool = surface
      .api_header(&catalog, Some("github"), Some("createIssue"), true)
      .unwrap();
    assert_eq!(tool["id"], "mcp:github:create_issue");
    assert!(
      tool["declaration"]
        .as_str()
        .unwrap()
        .contains("function createIssue(input: {")
    );
    assert_eq!(tool["schema"]["required"], json!(["owner", "title"]));
    assert!(
      surface
        .api_header(&catalog, Some("github"), Some("nope"), false)
        .is_err()
    );
    assert!(
      surface
        .api_header(&catalog, Some("nope"), None, false)
        .is_err()
    );
  }
}
