//! Exports for the test suites only, built with the `testing` feature (`npm test` turns it on;
//! a release build has none of them): fault injection in the sandbox processes, their ids and
//! states, containment probes, and the protocol's Rust ends.

use crate::promise;
use crate::sandbox;
use code_mode_catalog::calls;
use code_mode_protocol::wire::{Answer, Command, Testing};
use napi::bindgen_prelude::*;
use napi_derive::napi;

/// TEST ONLY (the test suites; never call it in production). Arms one injected fault in the
/// sandbox process of the next leg of `runId` (of any run without it): `"slice"` (its next VM
/// slice panics), `"job"` (its next job panics on a worker outside the slice's own guard),
/// `"bridge"` (its next nested tool call panics inside the native bridge), `"sync"` (panics at
/// once, inside this synchronous entry point), `"off"` (disarms every fault).
#[napi(js_name = "__testPanic", catch_unwind)]
pub fn test_panic(kind: String, run_id: Option<String>) -> Result<()> {
  match kind.as_str() {
    "sync" => {
      code_mode_protocol::injected::quiet_injected_panics();
      panic!("test fault: panic injected in a synchronous entry point")
    }
    "slice" | "job" | "bridge" | "off" => {
      sandbox::arm_for_tests(Testing::Fault { kind, run: run_id });
      Ok(())
    }
    _ => Err(Error::new(
      Status::InvalidArg,
      format!("unknown fault {kind:?}"),
    )),
  }
}

/// TEST ONLY. The next VM slice (of a cell of `runId`, if given) blocks `ms` milliseconds
/// without polling the interrupt handler, as a QuickJS builtin looping natively would.
#[napi(js_name = "__testStall", catch_unwind)]
pub fn test_stall(ms: u32, run_id: Option<String>) {
  sandbox::arm_for_tests(Testing::Stall { ms, run: run_id });
}

/// TEST ONLY. Worker threads the sandbox processes have given up on so far (stuck in native
/// code past a deadline), in every process, frozen or not.
#[napi(js_name = "__testAbandonedWorkers", catch_unwind)]
pub fn test_abandoned_workers() -> u32 {
  sandbox::threads_given_up() as u32
}

/// TEST ONLY. Legs admitted (in flight) and legs queued for admission now (`maxActiveCells`),
/// across every host.
#[napi(js_name = "__testAdmission", catch_unwind)]
pub fn test_admission() -> Vec<u32> {
  let (active, queued) = crate::admission::load();
  vec![active as u32, queued as u32]
}

/// TEST ONLY. Runs alive in this process (code mode's and Tool Search's): a run lives until its
/// JavaScript object is collected.
#[napi(js_name = "__testLiveRuns", catch_unwind)]
pub fn test_live_runs() -> u32 {
  crate::run::live_runs() as u32
}

/// TEST ONLY. The ids of the sandbox processes alive now (accepting or retiring).
#[napi(js_name = "__testSandboxPids", catch_unwind)]
pub fn test_sandbox_pids() -> Vec<u32> {
  sandbox::pids()
}

/// TEST ONLY. Shortens the supervisor's bounds: how long a retiring process keeps its parked
/// cells (`retireBoundMs`) and how long a process holding work may stay silent
/// (`silentBoundMs`); leave one out for its default.
#[napi(js_name = "__testSandboxPolicy", catch_unwind)]
pub fn test_sandbox_policy(retire_bound_ms: Option<u32>, silent_bound_ms: Option<u32>) {
  sandbox::set_bounds_for_tests(
    retire_bound_ms.map(u64::from),
    silent_bound_ms.map(u64::from),
  );
}

/// TEST ONLY. The sandbox process runs with affinity `affinity` go to plays dead for `ms`: no
/// heartbeat, no ping answered (its cells keep running).
#[napi(js_name = "__testSilence", catch_unwind)]
pub fn test_silence(ms: u32, affinity: u32) -> Result<()> {
  let process = sandbox::process_for(affinity.into()).map_err(|f| Error::from_reason(f.message))?;
  process.send(&Command::Testing(Testing::Silence { ms }));
  Ok(())
}

/// TEST ONLY. `true`: threads read the reports of every sandbox process started from now on, as
/// on Windows, rather than Node's event loop (`src/sandbox/reading.rs`); `false`: back to the
/// loop.
#[napi(js_name = "__testReadReportsOnThreads", catch_unwind)]
pub fn test_read_reports_on_threads(on: bool) {
  sandbox::reading::read_on_threads_for_tests(on);
}

/// TEST ONLY. Who reads the reports of each sandbox process alive now: `loop` or `thread`.
#[napi(js_name = "__testSandboxReaders", catch_unwind)]
pub fn test_sandbox_readers() -> Vec<String> {
  sandbox::readers().into_iter().map(String::from).collect()
}

/// TEST ONLY. Sandbox processes now: `[accepting, retiring]`.
#[napi(js_name = "__testSandboxCounts", catch_unwind)]
pub fn test_sandbox_counts() -> Vec<u32> {
  let (accepting, retiring) = sandbox::counts();
  vec![accepting as u32, retiring as u32]
}

/// TEST ONLY. Tries one forbidden operation (`open`, `connect`, `execve`, `ptrace`, `fork`) or
/// crashes (`abort`, `segfault`) inside a sandbox process (the one runs with affinity
/// `affinity` go to). Resolves with `refused: <why>`, `succeeded: <what>` (a containment
/// failure) or `ended: <how the process ended>`.
#[napi(
  js_name = "__testProbe",
  catch_unwind,
  ts_return_type = "Promise<string>"
)]
pub fn test_probe<'env>(env: &'env Env, operation: String, affinity: u32) -> Result<Object<'env>> {
  let (settle, promise) = promise::create::<String>(env)?;
  match sandbox::process_for(affinity.into()) {
    Err(failure) => settle.resolve(format!("unavailable: {}", failure.message)),
    Ok(process) => {
      let request = sandbox::next_request();
      let command = Command::Testing(Testing::Probe { request, operation });
      let ended = process.clone();
      process.request(
        request,
        &command,
        Box::new(move |answer| {
          settle.resolve(match answer {
            Answer::Text(what) => format!("succeeded: {what}"),
            Answer::Error(_) if ended.ending.get().is_some() => {
              format!("ended: {}", ended.ending.get().cloned().unwrap_or_default())
            }
            Answer::Error(why) => format!("refused: {why}"),
            other => format!("unexpected: {other:?}"),
          })
        }),
      );
    }
  }
  Ok(promise)
}

/// TEST ONLY. Decodes packed outcomes with the Rust decoder (`src/protocol/settle.rs`), as
/// `settleMany` would receive them: JSON `[[cell, [[call, ok, text], …]], …]`.
#[napi(js_name = "__testDecodeSettled", catch_unwind)]
pub fn test_decode_settled(numbers: Float64ArraySlice, payloads: Utf16String) -> String {
  let runs: Vec<serde_json::Value> = crate::protocol::settle::decode(&numbers, &payloads)
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

/// TEST ONLY. Writes a call batch with the Rust writer (`crates/catalog/src/calls.rs`) for a
/// catalog of `toolsJson` (`CatalogTool[]`): `calls` is JSON `[[call, toolId, inputJson,
/// namespace?], …]`, where a namespace is `{ id, globalName, path: string[], index }`. Returns
/// the payload a `Calls` message would carry, or the writer's refusal as `error: …`.
#[napi(js_name = "__testWriteCalls", catch_unwind)]
pub fn test_write_calls(tools_json: String, parent: Option<String>, calls: String) -> String {
  #[derive(serde::Deserialize)]
  #[serde(rename_all = "camelCase")]
  struct Namespace {
    id: String,
    global_name: String,
    path: Vec<String>,
    index: usize,
  }
  #[derive(serde::Deserialize)]
  struct Call(u32, String, String, #[serde(default)] Option<Namespace>);
  let tools = serde_json::from_str(&tools_json).unwrap_or(serde_json::Value::Null);
  let catalog = crate::catalog::Catalog::build(&tools);
  let list: Vec<Call> = match serde_json::from_str(&calls) {
    Ok(list) => list,
    Err(error) => return format!("error: {error}"),
  };
  let mut out = Vec::new();
  for Call(call, id, input, namespace) in &list {
    let Some(entry) = catalog.get(id) else {
      return format!("error: unknown tool {id}");
    };
    let via = match namespace {
      None => calls::Via::Catalog,
      Some(ns) => calls::Via::Namespace {
        id: &ns.id,
        global_name: &ns.global_name,
        path: &ns.path,
        index: ns.index,
      },
    };
    let written = calls::write_call(
      calls::NestedCall {
        call: *call,
        entry,
        input_json: input,
        parent_tool_call_id: parent.as_deref(),
        via,
      },
      &mut out,
    );
    if let Err(message) = written {
      return format!("error: {message}");
    }
  }
  calls::finish_batch(out)
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
