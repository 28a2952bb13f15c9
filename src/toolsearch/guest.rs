//! Tool Search's kind of VM: `openclaw.tools.search/describe/call` over the run's whole catalog
//! (MCP entries included), and `console.log/warn/error` from the engine; nothing else.
//!
//! The run behind the VM is a code-mode [`Run`] made for Tool Search (its config mapped from
//! `tools.toolSearch` by the JS layer), so nested calls take code mode's path exactly: the same
//! batches, executor, events and cancellation (`bridge::start_call`).

use crate::bridge;
use crate::catalog::{self, Source};
use crate::engine::{self, EngineGlobals, Guest, VmState, guarded, throw, throw_type};
use crate::run::Run;
use crate::telemetry::Counters;
use parking_lot::Mutex;
use rquickjs::{Ctx, Function, Object, Value};
use std::sync::Arc;

/// Tool Search's guest: its prelude, its functions, and only console's log, warn and error.
pub static TOOL_SEARCH: Guest = Guest::with_globals(
  include_str!("prelude.js"),
  install,
  EngineGlobals::Only(r#"{"console":["log","warn","error"]}"#),
);

/// Nested call kinds of `bridge::start_call`: a catalog tool, an MCP tool.
const KIND_TOOL: u32 = 0;
const KIND_MCP: u32 = 1;

fn run_of(state: &Mutex<VmState>) -> Arc<Run> {
  Run::of(state.lock().host())
}

/// The message a call or describe of an id outside the catalog gets: the tool may have been
/// denied or removed since it was found (fail closed, never a guess).
pub fn unavailable(id: &str) -> String {
  format!(
    "Tool {id} is not available in this run: it is unknown, not allowed, or no longer in the catalog. Search again for a current id."
  )
}

/// A search of the whole catalog (MCP included), counted.
pub fn search<'r>(run: &'r Run, query: &str, limit: usize) -> catalog::SearchResult<'r> {
  Counters::bump(&run.telemetry.searches);
  run.catalog.search_all_result(query, limit)
}

/// Compact search hits as a JSON array (no schemas), counted: the structured `tool_search`.
/// (A query past the caps is cut to its first part; `search(..).truncated` says so.)
pub fn search_json(run: &Run, query: &str, limit: usize) -> String {
  search(run, query, limit).hits_json()
}

/// One entry with its `parameters` as JSON text, counted; `None` when it is not in the catalog.
pub fn describe_json(run: &Run, id: &str) -> Option<String> {
  Counters::bump(&run.telemetry.describes);
  run
    .catalog
    .get(id)
    .map(|e| catalog::compact_json(e, true).to_string())
}

fn install<'js>(
  ctx: &Ctx<'js>,
  host: &Object<'js>,
  state: &Arc<Mutex<VmState>>,
) -> rquickjs::Result<()> {
  let s = state.clone();
  host.set(
    "toolSearch",
    Function::new(
      ctx.clone(),
      move |ctx: Ctx<'js>, query: String, limit: Value<'js>| {
        guarded(&ctx, &s, || {
          let run = run_of(&s);
          let limit = run
            .search_limit(bridge::limit_arg(&limit))
            .map_err(|m| throw_type(&ctx, m))?;
          // The hits, with `queryTruncated` when only the query's first part was searched.
          Ok(search(&run, &query, limit).guest_json())
        })
      },
    )?,
  )?;

  let s = state.clone();
  host.set(
    "toolDescribe",
    Function::new(ctx.clone(), move |ctx: Ctx<'js>, id: String| {
      guarded(&ctx, &s, || {
        let run = run_of(&s);
        describe_json(&run, &id).ok_or_else(|| throw(&ctx, &unavailable(&id)))
      })
    })?,
  )?;

  let s = state.clone();
  host.set(
    "toolCall",
    Function::new(
      ctx.clone(),
      move |ctx: Ctx<'js>, id: String, input: String| {
        guarded(&ctx, &s, || {
          let kind = match run_of(&s).catalog.get(&id).map(|e| e.source) {
            Some(Source::Mcp) => KIND_MCP,
            Some(_) => KIND_TOOL,
            None => return Err(throw(&ctx, &unavailable(&id))),
          };
          let call = bridge::start_call(&ctx, &s, kind, id, input)?;
          engine::request_promise(&ctx, call)
        })
      },
    )?,
  )?;
  Ok(())
}
