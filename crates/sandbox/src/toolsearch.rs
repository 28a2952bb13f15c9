//! Tool Search's kind of VM: `openclaw.tools.search/describe/call` over the run's whole catalog
//! (MCP entries included), and `console.log/warn/error` from the engine; nothing else.
//!
//! The run behind the VM is a code-mode [`Run`] made for Tool Search (its config mapped from
//! `tools.toolSearch` by the JS layer), so nested calls take code mode's path exactly: the same
//! batches, executor, events and cancellation (`bridge::start_call`).

use crate::bridge;
use crate::run::{Counters, GuestRun};
use code_mode_catalog::{self as catalog, Source};
use code_mode_engine::{self as engine, EngineGlobals, Guest, VmState, guarded, throw, throw_type};
use parking_lot::Mutex;
use rquickjs::{Ctx, Function, Object, Value};
use std::sync::Arc;

/// Tool Search's guest: its prelude, its functions, and only console's log, warn and error.
pub static TOOL_SEARCH: Guest = Guest::with_globals(
  include_str!("toolsearch.js"),
  install,
  EngineGlobals::Only(r#"{"console":["log","warn","error"]}"#),
);

/// Nested call kinds of `bridge::start_call`: a catalog tool, an MCP tool.
const KIND_TOOL: u32 = 0;
const KIND_MCP: u32 = 1;

fn run_of(state: &Mutex<VmState>) -> Arc<GuestRun> {
  GuestRun::of(state.lock().host())
}

use code_mode_catalog::unavailable;

/// A search of the whole catalog (MCP included), counted: `openclaw.tools.search` in a cell.
pub fn search<'r>(run: &'r GuestRun, query: &str, limit: usize) -> catalog::SearchResult<'r> {
  Counters::bump(&run.counters.searches);
  hits(run, query, limit)
}

/// A search of the whole catalog, not counted: the structured `tool_search`, which the addon
/// counts as it answers the model. (A query past the caps is cut to its first part;
/// `.truncated` says so.)
pub fn hits<'r>(run: &'r GuestRun, query: &str, limit: usize) -> catalog::SearchResult<'r> {
  run.catalog().search_all_result(query, limit)
}

/// One entry with its `parameters` as JSON text, counted; `None` when it is not in the catalog.
pub fn describe_json(run: &GuestRun, id: &str) -> Option<String> {
  Counters::bump(&run.counters.describes);
  run
    .catalog()
    .get(id)
    .map(|e| catalog::compact(e, true).to_json())
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
          let kind = match run_of(&s).catalog().get(&id).map(|e| e.source) {
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

  // A `tool_call` cell (the structured tool): its one call was given as data, with the cell.
  // Only that cell's VM defines the global that reaches it (the prelude's `bind`); no guest
  // program ever runs in such a VM.
  let s = state.clone();
  host.set(
    "hasPreparedCall",
    Function::new(ctx.clone(), move |ctx: Ctx<'js>| {
      guarded(&ctx, &s, || {
        let cell = s.lock().cell_id;
        Ok(run_of(&s).has_prepared_call(cell))
      })
    })?,
  )?;
  let s = state.clone();
  host.set(
    "preparedCall",
    Function::new(ctx.clone(), move |ctx: Ctx<'js>| {
      guarded(&ctx, &s, || {
        let cell = s.lock().cell_id;
        let run = run_of(&s);
        let (id, input) = run
          .take_prepared_call(cell)
          .ok_or_else(|| throw(&ctx, "this cell has no prepared tool call"))?;
        let kind = match run.catalog().get(&id).map(|e| e.source) {
          Some(Source::Mcp) => KIND_MCP,
          Some(_) => KIND_TOOL,
          None => return Err(throw(&ctx, &unavailable(&id))),
        };
        let call = bridge::start_call(&ctx, &s, kind, id, input)?;
        engine::request_promise(&ctx, call)
      })
    })?,
  )?;
  Ok(())
}

/// The program of a `tool_call` cell: its prepared call, its outcome as data (an executor's
/// refusal is reported verbatim).
pub const PREPARED_CALL_PROGRAM: &str = "try { return { ok: true, value: await __openclawToolCall() } }\ncatch (error) { return { ok: false, error: error instanceof Error ? error.message : String(error) } }";
