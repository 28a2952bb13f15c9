//! Call batches: the nested calls a cell started, as one JSON array the JS layer expands
//! (`forEachCall` in `lib/generated/protocol.js`), in the layout of
//! `code_mode_protocol::packed::batch`:
//! `[parentToolCallId | null, (call, toolIndex, input, namespace | 0)…]`, where `toolIndex`
//! indexes the run's catalog entries (`CatalogEntry::index`) and the nested `toolCallId` is
//! `<nested_id_prefix()><cell>_<call>`: the JS layer rebuilds each `NestedToolCall` from that
//! and its own run scope.

use crate::CatalogEntry;
use code_mode_protocol::packed::batch;
use std::io::Write;
use std::sync::OnceLock;

// `write_call` writes the parent first and each call's fields in this order.
const _: () = assert!(
  batch::PARENT == 0
    && batch::HEADER == 1
    && batch::STRIDE == 4
    && batch::CALL == 0
    && batch::TOOL_INDEX == 1
    && batch::INPUT == 2
    && batch::NAMESPACE == 3
);

/// One nested call as the bridge starts it.
pub struct NestedCall<'a> {
  pub call: u32,
  pub entry: &'a CatalogEntry,
  pub input_json: &'a str,
  pub parent_tool_call_id: Option<&'a str>,
  pub via: Via<'a>,
}

/// Which guest surface made a nested call.
pub enum Via<'a> {
  /// `tools.call` or a `tools.<name>` shortcut.
  Catalog,
  /// `MCP.<server>.<tool>()`.
  Mcp,
  /// A plugin namespace callable; `input_json` holds the guest's argument list, which the JS
  /// layer maps to the tool input.
  Namespace {
    /// The namespace's id and global name, and the path of the callable.
    id: &'a str,
    global_name: &'a str,
    path: &'a [String],
    index: usize,
  },
}

/// What every nested `toolCallId` starts with, `cm_<nonce>_`: the addon's, so the pending lists
/// of `waiting` results name calls as the JS layer does (the rest is `<cell>_<call>`).
static NESTED_ID_PREFIX: OnceLock<String> = OnceLock::new();

/// Sets the prefix the addon chose (once: its first `Configure`).
pub fn set_nested_id_prefix(prefix: String) {
  let _ = NESTED_ID_PREFIX.set(prefix);
}

/// What every nested `toolCallId` starts with (`cm_0_` until the addon says).
pub fn nested_id_prefix() -> &'static str {
  NESTED_ID_PREFIX.get_or_init(|| "cm_0_".into())
}

/// `cm_<nonce>_<cell>_<call>` (written by hand: this runs on every nested call).
pub fn nested_tool_call_id(cell: u64, call: u32) -> String {
  fn push_number(out: &mut String, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
      at -= 1;
      digits[at] = b'0' + (n % 10) as u8;
      n /= 10;
      if n == 0 {
        break;
      }
    }
    out.extend(digits[at..].iter().map(|&d| d as char));
  }
  let mut id = String::with_capacity(40);
  id.push_str(nested_id_prefix());
  push_number(&mut id, cell);
  id.push(batch::ID_SEPARATOR);
  push_number(&mut id, call.into());
  id
}

/// Appends one nested call to `out`, the cell's batch being built. Refuses an input that is
/// not exactly one JSON value: spliced raw, it could end its call early and forge another.
pub fn write_call(call: NestedCall, out: &mut Vec<u8>) -> Result<(), &'static str> {
  if serde_json::from_str::<serde::de::IgnoredAny>(call.input_json).is_err() {
    return Err("tool input must be JSON-serialisable");
  }
  if out.is_empty() {
    out.push(b'[');
    match call.parent_tool_call_id {
      Some(parent) => push_json(out, &parent),
      None => out.extend_from_slice(b"null"),
    }
  }
  let _ = write!(out, ",{},{},", call.call, call.entry.index);
  out.extend_from_slice(call.input_json.as_bytes());
  match call.via {
    Via::Catalog | Via::Mcp => {
      out.push(b',');
      out.extend_from_slice(batch::NO_NAMESPACE.as_bytes());
    }
    Via::Namespace {
      id,
      global_name,
      path,
      index,
    } => {
      let path = path.join(".");
      let via = serde_json::json!({
        "id": id,
        "globalName": global_name,
        "path": path,
        "index": index,
      });
      out.push(b',');
      push_json(out, &via);
    }
  }
  Ok(())
}

/// Appends `value` as JSON text.
fn push_json(out: &mut Vec<u8>, value: &impl serde::Serialize) {
  #[allow(
    clippy::expect_used,
    reason = "serialising strings and plain JSON data into memory cannot fail"
  )]
  serde_json::to_writer(&mut *out, value).expect("JSON data serialises");
}

/// Closes a batch written by [`write_call`]: the payload of a [`super::Message::Calls`].
pub fn finish_batch(mut batch: Vec<u8>) -> String {
  batch.push(b']');
  // Only UTF-8 went in: guest JSON text, serde's output and ASCII.
  String::from_utf8(batch).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}
