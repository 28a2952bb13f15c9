//! The read-only `API` virtual files: `mcp/index.d.ts` plus `mcp/<server>.d.ts` per server,
//! rendered once per run and read without crossing the bridge.

use super::{McpServer, dts};
use code_mode_catalog::Catalog;
use serde_json::{Value, json};

pub const INDEX_PATH: &str = "mcp/index.d.ts";

pub fn server_path(ident: &str) -> String {
  format!("mcp/{ident}.d.ts")
}

/// `(path, content)` in listing order.
pub struct Files(Vec<(String, String)>);

/// Splits a guest path into segments, refusing `.`, `..` and empty segments (a single trailing
/// `/` is allowed for a prefix).
fn segments(path: &str, prefix: bool) -> Result<Vec<&str>, String> {
  let trimmed = if prefix {
    path.strip_suffix('/').unwrap_or(path)
  } else {
    path
  };
  if trimmed.is_empty() {
    return if prefix {
      Ok(Vec::new())
    } else {
      Err(format!("Invalid API path: \"{path}\""))
    };
  }
  let parts: Vec<&str> = trimmed.split('/').collect();
  if parts
    .iter()
    .any(|p| p.is_empty() || *p == "." || *p == "..")
  {
    return Err(format!("Invalid API path: \"{path}\""));
  }
  Ok(parts)
}

impl Files {
  pub fn render(servers: &[McpServer], catalog: &Catalog) -> Files {
    if servers.is_empty() {
      return Files(Vec::new());
    }
    let mut files = vec![(INDEX_PATH.to_string(), dts::render_index(servers))];
    for server in servers {
      files.push((
        server_path(&server.ident),
        dts::render_server(server, catalog),
      ));
    }
    Files(files)
  }

  pub fn index(&self) -> &str {
    self.0.first().map_or("", |(_, content)| content.as_str())
  }

  pub fn read(&self, path: &str) -> Option<String> {
    self
      .0
      .iter()
      .find(|(p, _)| p == path)
      .map(|(_, c)| c.clone())
  }

  /// `API.list(prefix?)`: `[{ path, bytes }]` under a directory prefix.
  pub fn list(&self, prefix: Option<&str>) -> Result<Value, String> {
    let wanted = segments(prefix.unwrap_or(""), true)?;
    let listed: Vec<Value> = self
      .0
      .iter()
      .filter(|(path, _)| {
        let parts: Vec<&str> = path.split('/').collect();
        parts.len() > wanted.len() && parts[..wanted.len()] == wanted[..]
          || wanted.len() == parts.len() && parts == wanted
      })
      .map(|(path, content)| json!({ "path": path, "bytes": content.len() }))
      .collect();
    Ok(Value::Array(listed))
  }

  /// `API.read(path)`.
  pub fn read_checked(&self, path: &str) -> Result<String, String> {
    segments(path, false)?;
    self
      .read(path)
      .ok_or_else(|| format!("Unknown API file: {path}"))
  }
}

#[cfg(test)]
mod tests {
  use super::super::McpSurface;
  use super::*;

  fn files() -> McpSurface {
    let catalog = Catalog::build(&json!([
      { "name": "create_issue", "source": "mcp", "sourceName": "github" },
      { "name": "navigate", "source": "mcp", "sourceName": "chrome-devtools" },
    ]));
    McpSurface::build(&catalog)
  }

  #[test]
  fn lists_and_reads() {
    let surface = files();
    let files = surface.files();
    let all = files.list(None).unwrap();
    let paths: Vec<&str> = all
      .as_array()
      .unwrap()
      .iter()
      .map(|f| f["path"].as_str().unwrap())
      .collect();
    assert_eq!(
      paths,
      vec![
        "mcp/index.d.ts",
        "mcp/github.d.ts",
        "mcp/chromeDevtools.d.ts"
      ]
    );
    assert_eq!(files.list(Some("mcp")).unwrap(), all);
    assert_eq!(files.list(Some("mcp/")).unwrap(), all);
    assert_eq!(
      files
        .list(Some("mcp/github.d.ts"))
        .unwrap()
        .as_array()
        .unwrap()
        .len(),
      1
    );
    assert!(
      files
        .list(Some("other"))
        .unwrap()
        .as_array()
        .unwrap()
        .is_empty()
    );
    assert!(
      files
        .read_checked("mcp/github.d.ts")
        .unwrap()
        .contains("declare namespace MCP.github {")
    );
  }

  #[test]
  fn rejects_odd_paths() {
    let surface = files();
    let files = surface.files();
    for path in [
      "mcp/../etc",
      "./mcp/index.d.ts",
      "mcp//github.d.ts",
      "",
      "mcp/./x",
    ] {
      assert!(
        files
          .read_checked(path)
          .unwrap_err()
          .starts_with("Invalid API path"),
        "{path}"
      );
    }
    assert!(files.list(Some("mcp/..")).is_err());
    assert_eq!(
      files.read_checked("mcp/nope.d.ts").unwrap_err(),
      "Unknown API file: mcp/nope.d.ts"
    );
  }
}
