//! Exports for the test suites only, built with the `testing` feature (`npm test` turns it on;
//! a release build has none of them): fault injection and the protocol's Rust ends.

use crate::{protocol, testing};
use napi::bindgen_prelude::*;
use napi_derive::napi;

/// TEST ONLY (the test suites; never call it in production). Arms one injected panic:
/// `"slice"` (the next VM slice of a cell panics), `"bridge"` (the next nested tool call
/// panics inside the native bridge), `"sync"` (panics at once, inside this synchronous entry
/// point), `"off"` (disarms every fault). `runId` limits the fault to cells of that run.
#[napi(js_name = "__testPanic", catch_unwind)]
pub fn test_panic(kind: String, run_id: Option<String>) -> Result<()> {
  testing::arm_named(&kind, run_id).map_err(|message| Error::new(Status::InvalidArg, message))
}

/// TEST ONLY. The next VM slice (of a cell of `runId`, if given) blocks `ms` milliseconds
/// without polling the interrupt handler, as a QuickJS builtin looping natively would.
#[napi(js_name = "__testStall", catch_unwind)]
pub fn test_stall(ms: u32, run_id: Option<String>) {
  testing::arm(
    testing::Fault::StallSlice(std::time::Duration::from_millis(ms as u64)),
    run_id,
  );
}

/// TEST ONLY. Worker threads the watchdog gave up on that are still stuck in native code.
#[napi(js_name = "__testAbandonedWorkers", catch_unwind)]
pub fn test_abandoned_workers() -> u32 {
  crate::engine::abandoned_workers() as u32
}

/// TEST ONLY. Decodes packed outcomes with the Rust decoder (`src/protocol/settle.rs`), as
/// `settleMany` would receive them: JSON `[[cell, [[call, ok, text], …]], …]`.
#[napi(js_name = "__testDecodeSettled", catch_unwind)]
pub fn test_decode_settled(numbers: Float64ArraySlice, payloads: Utf16String) -> String {
  let runs: Vec<serde_json::Value> = protocol::settle::decode(&numbers, &payloads)
    .into_iter()
    .map(|(cell, outcomes)| {
      let outcomes: Vec<serde_json::Value> = outcomes
        .into_iter()
        .map(|(call, ok, text)| serde_json::json!([call, ok, text]))
        .collect();
      serde_json::json!([cell, outcomes])
    })
    .collect();
  serde_json::Value::Array(runs).to_string()
}

/// TEST ONLY. Writes a call batch with the Rust writer (`src/protocol/calls.rs`) for a catalog
/// of `toolsJson` (`CatalogTool[]`): `calls` is JSON `[[call, toolId, inputJson], …]`. Returns
/// the payload a `Calls` message would carry, or the writer's refusal as `error: …`.
#[napi(js_name = "__testWriteCalls", catch_unwind)]
pub fn test_write_calls(tools_json: String, parent: Option<String>, calls: String) -> String {
  let tools = serde_json::from_str(&tools_json).unwrap_or(serde_json::Value::Null);
  let catalog = crate::catalog::Catalog::build(&tools);
  let calls: Vec<(u32, String, String)> = serde_json::from_str(&calls).unwrap_or_default();
  let mut out = Vec::new();
  for (call, id, input) in &calls {
    let Some(entry) = catalog.get(id) else {
      return format!("error: unknown tool {id}");
    };
    let written = protocol::calls::write_call(
      protocol::calls::NestedCall {
        call: *call,
        entry,
        input_json: input,
        parent_tool_call_id: parent.as_deref(),
        via: protocol::calls::Via::Catalog,
      },
      &mut out,
    );
    if let Err(message) = written {
      return format!("error: {message}");
    }
  }
  protocol::calls::finish_batch(out)
}

/// TEST ONLY. Catalogs built (`NativeCatalog`s made, none found in `lib/catalog-cache.js`) by
/// this process so far.
#[napi(js_name = "__testCatalogBuilds", catch_unwind)]
pub fn test_catalog_builds() -> u32 {
  crate::catalog::building::builds() as u32
}

/// TEST ONLY. One Tool Search search (`Catalog::search_all`) over the catalog of `tools_json`,
/// on this thread: the ids found and the work it took, as JSON `{ ids, postings, candidates }`
/// (postings read, candidates scored).
#[napi(js_name = "__testSearchWork", catch_unwind)]
pub fn test_search_work(tools_json: String, query: String, limit: u32) -> String {
  let catalog = crate::catalog::Catalog::from_json(&tools_json);
  let ids: Vec<&str> = catalog
    .search_all(&query, limit as usize)
    .iter()
    .map(|e| e.id.as_str())
    .collect();
  let (postings, candidates) = crate::catalog::search::last_search_work();
  serde_json::json!({ "ids": ids, "postings": postings, "candidates": candidates }).to_string()
}
