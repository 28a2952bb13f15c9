//! Plugin namespaces: the process-wide registry, its validation, per-run visibility, and the
//! checks on a run's serialised scopes.
//!
//! The trusted plugin loader registers a namespace (`Issues`, `Calendar`…) backed by tools the
//! plugin owns. A run shows it only when every required tool is in the run's catalog with
//! `sourceName === pluginId`; each callable in its scope may target only one of those tools.
//! Scopes are built by `createScope(ctx)` in the JS layer and arrive here as [`NamespaceScope`]s.

use crate::catalog::{Catalog, Source, names, names::is_identifier};
use napi_derive::napi;
use parking_lot::Mutex;
use serde_json::Value;

/// Globals a namespace may not take: code mode's own, and the engine's built-ins.
const RESERVED_GLOBALS: &[&str] = &[
  "ALL_TOOLS",
  "tools",
  "MCP",
  "API",
  "namespaces",
  "text",
  "json",
  "yield_control",
  "console",
  "setTimeout",
  "clearTimeout",
  "globalThis",
  "undefined",
  "NaN",
  "Infinity",
  "eval",
  "Object",
  "Function",
  "Array",
  "Number",
  "Boolean",
  "String",
  "Symbol",
  "BigInt",
  "Math",
  "JSON",
  "Date",
  "RegExp",
  "Promise",
  "Proxy",
  "Reflect",
  "Map",
  "Set",
  "WeakMap",
  "WeakSet",
  "WeakRef",
  "FinalizationRegistry",
  "Error",
  "EvalError",
  "RangeError",
  "ReferenceError",
  "SyntaxError",
  "TypeError",
  "URIError",
  "InternalError",
  "AggregateError",
  "SuppressedError",
  "Iterator",
  "ArrayBuffer",
  "SharedArrayBuffer",
  "DataView",
  "Atomics",
  "Int8Array",
  "Uint8Array",
  "Uint8ClampedArray",
  "Int16Array",
  "Uint16Array",
  "Int32Array",
  "Uint32Array",
  "Float16Array",
  "Float32Array",
  "Float64Array",
  "BigInt64Array",
  "BigUint64Array",
  "DisposableStack",
  "AsyncDisposableStack",
  "DOMException",
  "parseInt",
  "parseFloat",
  "isNaN",
  "isFinite",
  "decodeURI",
  "decodeURIComponent",
  "encodeURI",
  "encodeURIComponent",
  "escape",
  "unescape",
  "queueMicrotask",
  "btoa",
  "atob",
  "performance",
  "require",
  "process",
  "module",
  "exports",
  "import",
  "fetch",
];

/// Scope keys that could reach a prototype, and the path separator.
const UNSAFE_SEGMENTS: &[&str] = &["__proto__", "constructor", "prototype"];
pub const PATH_SEPARATOR: char = '.';

#[derive(Debug, Clone, PartialEq)]
pub struct Registration {
  pub plugin_id: String,
  pub id: String,
  pub global_name: String,
  pub description: String,
  pub prompt: Option<String>,
  pub required_tool_names: Vec<String>,
}

/// The namespaces registered in one JavaScript realm (the main thread, or a worker thread of
/// its own): where their `createScope` callbacks live too (`lib/namespaces.js`), so that a
/// registration and its callback always exist together. The addon keeps one per realm
/// (`src/lib.rs`, napi instance data).
#[derive(Default)]
pub struct Registry(Mutex<Vec<Registration>>);

/// A name a namespace may not take as its global: code mode's own and the engine's globals, a
/// word a cell cannot use as a name (`await`, `let`, `arguments`: a cell is a strict async
/// function body), and `Object.prototype`'s members (`__proto__` would set the prototype of the
/// guest's `namespaces` object instead of adding to it).
pub fn is_reserved_global(name: &str) -> bool {
  RESERVED_GLOBALS.contains(&name)
    || names::RESERVED_WORDS.contains(&name)
    || names::PROTOTYPE_NAMES.contains(&name)
    || name.starts_with("__openclaw")
}

/// Checks and stores a registration. Errors name the problem (the loader's misuse throws).
pub fn register(registry: &Registry, registration: Registration) -> Result<(), String> {
  let Registration {
    plugin_id,
    id,
    global_name,
    required_tool_names,
    ..
  } = &registration;
  if plugin_id.trim().is_empty() {
    return Err("registerCodeModeNamespaceForPlugin: pluginId must be a non-empty string.".into());
  }
  if id.trim().is_empty() {
    return Err("code mode namespace id must be a non-empty string.".into());
  }
  if !is_identifier(global_name) {
    return Err(format!(
      "code mode namespace globalName \"{global_name}\" is not a JavaScript identifier."
    ));
  }
  if is_reserved_global(global_name) {
    return Err(format!(
      "code mode namespace globalName \"{global_name}\" is reserved."
    ));
  }
  if required_tool_names.is_empty() || required_tool_names.iter().any(|n| n.trim().is_empty()) {
    return Err(format!(
      "code mode namespace \"{id}\" needs requiredToolNames: non-empty tool names."
    ));
  }
  let mut registry = registry.0.lock();
  if registry.iter().any(|r| r.id == *id) {
    return Err(format!(
      "code mode namespace \"{id}\" is already registered."
    ));
  }
  if let Some(other) = registry.iter().find(|r| r.global_name == *global_name) {
    return Err(format!(
      "code mode namespace globalName \"{global_name}\" is already used by \"{}\".",
      other.id
    ));
  }
  registry.push(registration);
  Ok(())
}

pub fn unregister(registry: &Registry, id: &str) -> bool {
  let mut registry = registry.0.lock();
  let before = registry.len();
  registry.retain(|r| r.id != id);
  registry.len() != before
}

/// Removes every namespace of a plugin; returns their ids (the JS layer drops its callbacks).
pub fn clear_plugin(registry: &Registry, plugin_id: &str) -> Vec<String> {
  let mut registry = registry.0.lock();
  let removed = registry
    .iter()
    .filter(|r| r.plugin_id == plugin_id)
    .map(|r| r.id.clone())
    .collect();
  registry.retain(|r| r.plugin_id != plugin_id);
  removed
}

pub fn clear_all(registry: &Registry) {
  registry.0.lock().clear();
}

/// The catalog index of the tool `name` owned by `plugin_id`, if the run has it.
fn owned_tool(catalog: &Catalog, plugin_id: &str, name: &str) -> Option<usize> {
  catalog
    .entries()
    .iter()
    .position(|e| e.source == Source::OpenClaw && e.source_name == plugin_id && e.name == name)
}

/// Registrations whose required tools are all in the run, owned by the registering plugin.
pub fn visible(registry: &Registry, catalog: &Catalog) -> Vec<Registration> {
  registry
    .0
    .lock()
    .iter()
    .filter(|r| {
      r.required_tool_names
        .iter()
        .all(|name| owned_tool(catalog, &r.plugin_id, name).is_some())
    })
    .cloned()
    .collect()
}

/// Registrations [`visible`] leaves out, each with the first required tool the run lacks and
/// why: a tool of that name that is there but not owned by the plugin (most often one given no
/// `sourceName`, so it counts as `core`'s) says so.
pub fn not_visible(registry: &Registry, catalog: &Catalog) -> Vec<Hidden> {
  registry
    .0
    .lock()
    .iter()
    .filter_map(|r| {
      let missing = r
        .required_tool_names
        .iter()
        .find(|name| owned_tool(catalog, &r.plugin_id, name).is_none())?;
      let plugin = &r.plugin_id;
      let same_name = catalog
        .entries()
        .iter()
        .find(|e| e.source == Source::OpenClaw && e.name == *missing);
      let reason = match same_name {
        Some(e) => format!(
          "required tool \"{missing}\" is in this run with sourceName \"{}\", not \"{plugin}\": \
           a namespace's tools must carry its plugin id as sourceName",
          e.source_name
        ),
        None => format!("required tool \"{missing}\" is not in this run"),
      };
      Some(Hidden {
        id: r.id.clone(),
        reason,
      })
    })
    .collect()
}

/// A namespace as one run shows it.
#[derive(Debug, Clone)]
pub struct Installed {
  pub registration: Registration,
  /// The scope's JSON data (callables are filled in by the prelude).
  pub data: String,
  /// `(path, catalog index)` of each callable, by call index.
  pub callables: Vec<(Vec<String>, usize)>,
}

/// A namespace hidden for the run, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Hidden {
  pub id: String,
  pub reason: String,
}

fn check_segment(segment: &str) -> Result<(), String> {
  if segment.is_empty() || UNSAFE_SEGMENTS.contains(&segment) || segment.contains(PATH_SEPARATOR) {
    Err(format!("unsafe scope path segment \"{segment}\""))
  } else {
    Ok(())
  }
}

/// Checks every key of a serialised scope (the JS serializer already did; this is the boundary).
fn check_data(value: &Value, depth: usize) -> Result<(), String> {
  if depth > 64 {
    return Err("scope is nested too deeply".into());
  }
  match value {
    Value::Object(map) => map
      .iter()
      .try_for_each(|(k, v)| check_segment(k).and_then(|_| check_data(v, depth + 1))),
    Value::Array(items) => items.iter().try_for_each(|v| check_data(v, depth + 1)),
    _ => Ok(()),
  }
}

/// A registered namespace a run's catalog makes visible, before its scope is built
/// (`NativeRun.namespaceCandidates`).
#[napi(object, object_from_js = false)]
pub struct NamespaceCandidate {
  /// The namespace id.
  pub id: String,
  /// The plugin that registered it.
  pub plugin_id: String,
  /// Its guest global.
  pub global_name: String,
}

impl From<Registration> for NamespaceCandidate {
  fn from(r: Registration) -> Self {
    NamespaceCandidate {
      id: r.id,
      plugin_id: r.plugin_id,
      global_name: r.global_name,
    }
  }
}

/// A candidate's scope as the JS layer built it with the registration's `createScope`
/// (`lib/namespaces.js`), for `NativeRun.installNamespaces`.
#[napi(object, object_to_js = false)]
pub struct NamespaceScope {
  /// The candidate's namespace id.
  pub id: String,
  /// False when no scope was built: the namespace is hidden for `reason`.
  pub ok: bool,
  /// The scope's plain data as JSON text, callables left out.
  pub data_json: Option<String>,
  /// Where the scope's callables are, and the tool each calls.
  pub callables: Option<Vec<NamespaceCallable>>,
  /// Why no scope was built (`createScope` threw, or returned what is not a scope).
  pub reason: Option<String>,
}

/// A callable of a namespace scope: a `createCodeModeNamespaceTool` marker's place and tool.
#[napi(object, object_to_js = false)]
pub struct NamespaceCallable {
  /// Its path in the scope (`['issues', 'create']` for `Issues.issues.create`).
  pub path: Vec<String>,
  /// The catalog tool it calls: one of the registration's `requiredToolNames`.
  pub tool_name: String,
}

/// Validates the scopes the JS layer built for `candidates` and resolves their callables.
pub fn install(
  catalog: &Catalog,
  candidates: &[Registration],
  scopes: &[NamespaceScope],
) -> (Vec<Installed>, Vec<Hidden>) {
  let mut installed = Vec::new();
  let mut hidden = Vec::new();
  for scope in scopes {
    let id = scope.id.clone();
    let Some(registration) = candidates.iter().find(|r| r.id == id) else {
      hidden.push(Hidden {
        id,
        reason: "not a namespace visible to this run".into(),
      });
      continue;
    };
    if !scope.ok {
      let reason = scope.reason.as_deref().unwrap_or("createScope failed");
      hidden.push(Hidden {
        id,
        reason: reason.to_string(),
      });
      continue;
    }
    match resolve(catalog, registration, scope) {
      Ok(namespace) => installed.push(namespace),
      Err(reason) => hidden.push(Hidden { id, reason }),
    }
  }
  (installed, hidden)
}

fn resolve(
  catalog: &Catalog,
  registration: &Registration,
  scope: &NamespaceScope,
) -> Result<Installed, String> {
  let data: Value = match scope.data_json.as_deref() {
    None => Value::Null,
    Some(text) => serde_json::from_str(text).map_err(|e| {
      // serde_json stops at 128 levels, before `check_data` would.
      if e.to_string().starts_with("recursion limit exceeded") {
        "scope is nested too deeply".to_string()
      } else {
        format!("the scope's data is not JSON: {e}")
      }
    })?,
  };
  check_data(&data, 0)?;
  let mut callables = Vec::new();
  for callable in scope.callables.as_deref().unwrap_or_default() {
    let path = &callable.path;
    if path.is_empty() {
      return Err("a callable has an empty path".into());
    }
    path.iter().try_for_each(|s| check_segment(s))?;
    let tool = callable.tool_name.as_str();
    if !registration.required_tool_names.iter().any(|n| n == tool) {
      return Err(format!(
        "callable {} targets \"{tool}\", which is not one of its requiredToolNames",
        path.join(".")
      ));
    }
    let entry = owned_tool(catalog, &registration.plugin_id, tool)
      .ok_or_else(|| format!("tool \"{tool}\" is not in this run"))?;
    if callables.iter().any(|(p, _)| p == path) {
      return Err(format!("two callables at {}", path.join(".")));
    }
    callables.push((path.clone(), entry));
  }
  Ok(Installed {
    registration: registration.clone(),
    data: data.to_string(),
    callables,
  })
}

#[cfg(test)]
mod tests {
  use super::*;
  use serde_json::json;

  fn reg(id: &str, global: &str, tools: &[&str]) -> Registration {
    Registration {
      plugin_id: "github".into(),
      id: id.into(),
      global_name: global.into(),
      description: "GitHub issues.".into(),
      prompt: None,
      required_tool_names: tools.iter().map(|s| s.to_string()).collect(),
    }
  }

  // A registry of its own: realms (and tests) do not share one.
  #[test]
  fn registry_visibility_and_install() {
    let registry = Registry::default();
    let other_realm = Registry::default();
    assert!(register(&registry, reg("gh", "Issues", &["list_issues"])).is_ok());
    assert!(
      register(&registry, reg("gh", "Other", &["x"]))
        .unwrap_err()
        .contains("already registered")
    );
    assert!(
      register(&registry, reg("gh2", "Issues", &["x"]))
        .unwrap_err()
        .contains("already used")
    );
    for bad in [
      "tools",
      "JSON",
      "__openclawX",
      "MCP",
      "await",
      "let",
      "yield",
      "arguments",
      "__proto__",
      "constructor",
    ] {
      assert!(
        register(&registry, reg("r", bad, &["x"]))
          .unwrap_err()
          .contains("reserved"),
        "{bad}"
      );
    }
    assert!(
      register(&registry, reg("r", "not-ident", &["x"]))
        .unwrap_err()
        .contains("not a JavaScript identifier")
    );
    assert!(
      register(&registry, reg("r", "Empty", &[]))
        .unwrap_err()
        .contains("requiredToolNames")
    );

    let owned = Catalog::build(&json!([{ "name": "list_issues", "sourceName": "github" }]));
    let foreign = Catalog::build(&json!([{ "name": "list_issues", "sourceName": "evil" }]));
    assert_eq!(visible(&registry, &owned).len(), 1);
    // Another realm registered nothing: it sees nothing, and may register the same id.
    assert!(visible(&other_realm, &owned).is_empty());
    assert!(register(&other_realm, reg("gh", "Issues", &["list_issues"])).is_ok());
    assert!(visible(&registry, &foreign).is_empty());

    let candidates = visible(&registry, &owned);
    let callable = |path: &[&str], tool: &str| NamespaceCallable {
      path: path.iter().map(|s| s.to_string()).collect(),
      tool_name: tool.into(),
    };
    let scope = |id: &str, data: Value, callables: Vec<NamespaceCallable>| NamespaceScope {
      id: id.into(),
      ok: true,
      data_json: Some(data.to_string()),
      callables: Some(callables),
      reason: None,
    };
    let descriptors = [
      scope(
        "gh",
        json!({ "repo": "o/r" }),
        vec![callable(&["list"], "list_issues")],
      ),
      scope("forged", json!({}), vec![]),
    ];
    let (installed, hidden) = install(&owned, &candidates, &descriptors);
    assert_eq!(installed.len(), 1);
    assert_eq!(installed[0].callables[0].0, vec!["list"]);
    assert_eq!(hidden[0].id, "forged");

    for (callables, why) in [
      (
        vec![callable(&["list"], "delete_repo")],
        "not one of its requiredToolNames",
      ),
      (
        vec![callable(&["__proto__", "x"], "list_issues")],
        "unsafe scope path segment",
      ),
      (vec![callable(&[], "list_issues")], "empty path"),
    ] {
      let descriptors = [scope("gh", json!({}), callables)];
      let (installed, hidden) = install(&owned, &candidates, &descriptors);
      assert!(installed.is_empty());
      assert!(hidden[0].reason.contains(why), "{}", hidden[0].reason);
    }
    // Data nested past serde_json's limit, and data that is not JSON.
    let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
    for (data, why) in [(deep.as_str(), "nested too deeply"), ("{", "not JSON")] {
      let descriptors = [NamespaceScope {
        data_json: Some(data.into()),
        ..scope("gh", json!({}), vec![])
      }];
      let (installed, hidden) = install(&owned, &candidates, &descriptors);
      assert!(installed.is_empty());
      assert!(hidden[0].reason.contains(why), "{}", hidden[0].reason);
    }
    let failed = [NamespaceScope {
      id: "gh".into(),
      ok: false,
      data_json: None,
      callables: None,
      reason: Some("createScope threw: boom".into()),
    }];
    assert_eq!(
      install(&owned, &candidates, &failed).1[0].reason,
      "createScope threw: boom"
    );

    assert_eq!(clear_plugin(&registry, "github"), vec!["gh".to_string()]);
    assert!(visible(&registry, &owned).is_empty());
    assert!(!unregister(&registry, "gh"));
  }
}
