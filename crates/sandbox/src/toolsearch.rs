//! Tool Search's kind of VM: `openclaw.tools.search/describe/call` over the run's whole catalog
//! (MCP entries included), and `console.log/warn/error` from the engine; nothing else.
//!
//! The run behind the VM is a code-mode [`GuestRun`] made for Tool Search (its config mapped from
//! `tools.toolSearch` by the JS layer), so nested calls take code mode's path exactly: the same
//! batches, executor, events and cancellation (`bridge::start_call`).

use crate::bridge::{self, host_fn};
use crate::run::GuestRun;
use code_mode_catalog::{self as catalog, Source};
use code_mode_engine::{self as engine, Bound, EngineGlobals, Guest, throw};
use rquickjs::{Ctx, Object, Value};

/// Tool Search's guest: its prelude, its functions, and only console's log, warn and error.
pub static TOOL_SEARCH: Guest<GuestRun> = Guest::with_globals(
  include_str!("toolsearch.js"),
  install,
  EngineGlobals::Only(r#"{"console":["log","warn","error"]}"#),
);

/// Nested call kinds of `bridge::start_call` for an entry: a catalog tool, or an MCP tool; the
/// guest error when the id is not in the catalog (fail closed: never a guess).
fn call_kind(ctx: &Ctx<'_>, run: &GuestRun, id: &str) -> rquickjs::Result<u32> {
  match run.catalog().get(id).map(|e| e.source) {
    Some(Source::Mcp) => Ok(bridge::CALL_MCP),
    Some(_) => Ok(bridge::CALL_TOOL),
    None => Err(throw(ctx, &run.unknown_tool(id))),
  }
}

/// A search of the whole catalog, not counted: the structured `tool_search`, which the addon
/// counts as it answers the model. (A query past the caps is cut to its first part;
/// `.truncated` says so.)
pub fn hits<'r>(run: &'r GuestRun, query: &str, limit: usize) -> catalog::SearchResult<'r> {
  run.catalog().search_all_result(query, limit)
}

fn install<'js>(
  _ctx: &Ctx<'js>,
  host: &Object<'js>,
  bound: &Bound<GuestRun>,
) -> rquickjs::Result<()> {
  host_fn!(
    host,
    bound,
    "toolSearch",
    |ctx, run, query: String, limit: Value<'js>| bridge::search(&ctx, &run, &query, &limit)
  );
  host_fn!(host, bound, "toolDescribe", |ctx, run, id: String| {
    bridge::describe(&ctx, &run, &id)
  });
  host_fn!(
    host,
    bound,
    "toolCall",
    |ctx, run, id: String, input: String| {
      let kind = call_kind(&ctx, &run, &id)?;
      let call = bridge::start_call(&ctx, &run, bound.state(), kind, id, input)?;
      engine::request_promise(&ctx, call)
    }
  );
  host_fn!(host, bound, "toolHit", |ctx, run, id: String| run
    .hit(&id)
    .ok_or_else(|| throw(&ctx, &run.unknown_tool(&id))));
  // A `tool_call` cell (the structured tool): its one call was given as data, with the cell.
  // Only that cell's VM defines the global that reaches it (the prelude's `bind`); no guest
  // program ever runs in such a VM.
  host_fn!(host, bound, "hasPreparedCall", |ctx, run| {
    let cell = bound.state().lock().cell_id;
    Ok(run.has_prepared_call(cell))
  });
  host_fn!(host, bound, "preparedCall", |ctx, run| {
    let cell = bound.state().lock().cell_id;
    let (id, input) = run
      .take_prepared_call(cell)
      .ok_or_else(|| throw(&ctx, "this cell has no prepared tool call"))?;
    let kind = call_kind(&ctx, &run, &id)?;
    let call = bridge::start_call(&ctx, &run, bound.state(), kind, id, input)?;
    engine::request_promise(&ctx, call)
  });
  Ok(())
}

/// The program of a `tool_call` cell: its prepared call, its outcome as data (an executor's
/// refusal is reported verbatim).
pub const PREPARED_CALL_PROGRAM: &str = "try { return { ok: true, value: await __openclawToolCall() } }\ncatch (error) { return { ok: false, error: error instanceof Error ? error.message : String(error) } }";
