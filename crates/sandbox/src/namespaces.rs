//! Plugin namespaces as a cell sees them. The addon checks each scope and resolves its
//! callables (the root crate's `src/namespaces.rs`); a VM only reads the result.

use code_mode_protocol::wire::Namespace;
use serde_json::Value;

/// The guest's view of the run's namespaces: `[{ name, data, callables: [path, …] }]`.
pub fn guest_json(namespaces: &[Namespace]) -> String {
  let list: Vec<Value> = namespaces
    .iter()
    .map(|ns| {
      serde_json::json!({
        "name": ns.global_name,
        "data": serde_json::from_str::<Value>(&ns.data).unwrap_or(Value::Null),
        "callables": ns.callables.iter().map(|(path, _)| path.clone()).collect::<Vec<_>>(),
      })
    })
    .collect();
  Value::Array(list).to_string()
}
