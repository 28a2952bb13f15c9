//! Code mode's host functions: what a cell's prelude (`src/prelude.js`) calls to search,
//! describe and call the run's catalog, read MCP and API files, and build namespaces.
//!
//! Everything the guest can ask of the run goes through here as strings and numbers: catalog
//! views as JSON text, nested calls as JSON input. Nothing here ever hands the guest a host
//! object. Output, timers and yields are the engine's (`crates/engine/src/core_fns.rs`).

use crate::mcp;
use crate::run::GuestRun;
use code_mode_catalog::CatalogEntry;
use code_mode_catalog::Source;
use code_mode_catalog::calls::{NestedCall, Via, nested_tool_call_id};
use code_mode_engine::{
  self as engine, Bound, Guest, MAX_QUEUED_REQUESTS, Pending, VmState, throw, throw_type,
};
use parking_lot::Mutex;
use rquickjs::{Ctx, Object, Value};
use std::sync::Arc;

/// Code mode's kind of VM: its half of the prelude and these functions.
pub static CODE_MODE: Guest<GuestRun> = Guest::new(include_str!("prelude.js"), install);

/// Adds `$name` to the `host` object a prelude receives: a function of the run its VM is bound
/// to (`$run`), under the engine's guard, so a panic in it is the cell's failure, never the
/// process's. Its guest arguments are typed as rquickjs converts them.
macro_rules! host_fn {
  ($host:expr, $bound:ident, $name:literal, |$ctx:ident, $run:ident $(, $arg:ident : $ty:ty)*| $body:expr) => {{
    // The function owns its handle on the VM (the body may use it as `$bound` too).
    let $bound = $bound.clone();
    $host.set(
      $name,
      rquickjs::Function::new(
        $host.ctx().clone(),
        move |$ctx: rquickjs::Ctx<'js>, $($arg: $ty),*| {
          code_mode_engine::guarded(&$ctx, $bound.state(), || {
            #[allow(unused_variables)]
            let $run = $bound.host_or_throw(&$ctx)?;
            $body
          })
        },
      )?,
    )?;
  }};
}
pub(crate) use host_fn;

/// Nested call kinds of [`start_call`]: a catalog id, an MCP catalog id, a namespace callable.
pub(crate) const CALL_TOOL: u32 = 0;
pub(crate) const CALL_MCP: u32 = 1;
pub(crate) const CALL_NAMESPACE: u32 = 2;

/// What a pending nested call is, as `pendingToolCalls[].method` names it.
fn method(via: &Via) -> &'static str {
  match via {
    Via::Catalog => "call",
    Via::Mcp => "mcp",
    Via::Namespace { .. } => "namespace",
  }
}

/// A search's `limit` argument for [`GuestRun::search_limit`]: `None` when absent; anything but a
/// number is NaN, which it refuses.
fn limit_arg(limit: &Value<'_>) -> Option<f64> {
  if limit.is_undefined() || limit.is_null() {
    None
  } else {
    Some(limit.as_number().unwrap_or(f64::NAN))
  }
}

/// A guest's search (`tools.search`, `openclaw.tools.search`), counted: the hits as JSON text,
/// with `queryTruncated` when only the query's first part was searched.
pub(crate) fn search(
  ctx: &Ctx<'_>,
  run: &GuestRun,
  query: &str,
  limit: &Value<'_>,
) -> rquickjs::Result<String> {
  let limit = run
    .search_limit(limit_arg(limit))
    .map_err(|m| throw_type(ctx, m))?;
  Ok(run.search(query, limit).guest_json())
}

/// A guest's describe (`tools.describe`, `openclaw.tools.describe`), counted: the entry with its
/// `parameters`, or the guest error saying the id is not one it can use.
pub(crate) fn describe(ctx: &Ctx<'_>, run: &GuestRun, id: &str) -> rquickjs::Result<String> {
  run
    .describe(id)
    .ok_or_else(|| throw(ctx, &run.unknown_tool(id)))
}

/// Adds code mode's functions to the `host` object its prelude receives.
fn install<'js>(
  _ctx: &Ctx<'js>,
  host: &Object<'js>,
  bound: &Bound<GuestRun>,
) -> rquickjs::Result<()> {
  host_fn!(
    host,
    bound,
    "call",
    |ctx, run, kind: u32, target: String, input: String| {
      let id = start_call(&ctx, &run, bound.state(), kind, target, input)?;
      engine::request_promise(&ctx, id)
    }
  );
  host_fn!(
    host,
    bound,
    "search",
    |ctx, run, query: String, limit: Value<'js>| search(&ctx, &run, &query, &limit)
  );
  host_fn!(host, bound, "describe", |ctx, run, id: String| describe(
    &ctx, &run, &id
  ));
  host_fn!(host, bound, "catalog", |ctx, run| Ok(
    run.catalog().all_tools_json().to_string()
  ));
  host_fn!(host, bound, "safeNames", |ctx, run| Ok(
    run.catalog().safe_names_json().to_string()
  ));
  // One `tools.<name>` at a time (the id, or '' when it is none): a cell that only searches
  // does not build a function per tool.
  host_fn!(host, bound, "safeName", |ctx, run, name: String| {
    Ok(
      run
        .catalog()
        .safe_name(&name)
        .map_or(String::new(), |e| e.id.clone()),
    )
  });
  host_fn!(host, bound, "mcp", |ctx, run| Ok(
    run.mcp().guest_json(run.catalog())
  ));
  host_fn!(
    host,
    bound,
    "mcpApi",
    |ctx, run, server: Option<String>, tool: Option<String>, schema: bool| {
      run
        .mcp()
        .api_header(run.catalog(), server.as_deref(), tool.as_deref(), schema)
        .map(|header| header.to_string())
        .map_err(|message| throw(&ctx, &message))
    }
  );
  host_fn!(host, bound, "apiList", |ctx, run, prefix: String| {
    let prefix = (!prefix.is_empty()).then_some(prefix.as_str());
    run
      .mcp()
      .files()
      .list(prefix)
      .map(|v| v.to_string())
      .map_err(|m| throw(&ctx, &m))
  });
  host_fn!(host, bound, "apiRead", |ctx, run, path: String| {
    run
      .mcp()
      .files()
      .read_checked(&path)
      .map_err(|m| throw(&ctx, &m))
  });
  host_fn!(host, bound, "namespaces", |ctx, run| Ok(
    crate::namespaces::guest_json(run.namespaces())
  ));
  Ok(())
}

/// `host.call(kind, target, inputJson)`: checks, records and dispatches one nested call; the
/// caller gives it its promise.
/// Kind 0 is a catalog id (`tools.*`), 1 an MCP catalog id (`MCP.*`, input checked against
/// its schema), 2 a namespace callable `"<namespace>:<callable>"` (input = the argument list).
///
/// The host lock is never held while an exception is built: building one can run guest code
/// (stack trace hooks), and guest code calling back into the bridge would deadlock the worker.
pub(crate) fn start_call(
  ctx: &Ctx<'_>,
  run: &GuestRun,
  state: &Arc<Mutex<VmState>>,
  kind: u32,
  target: String,
  input: String,
) -> rquickjs::Result<u32> {
  let ending = state.lock().ending();
  // A kill (memory, timeout, output, abort, panic) stops the guest only at its next interrupt
  // poll; until then a catch block could still reach the gateway. A cell that is ending starts
  // no more nested calls.
  if ending {
    return Err(throw(ctx, "code mode cell is ending: no more tool calls."));
  }
  code_mode_engine::testing::at_bridge_call(&run.label);
  // The gateway parses the input on its main thread: the cap bounds what it holds then
  // (crates/protocol/src/parsed.rs), which a text of many small values far exceeds.
  let cap = run.settings.max_tool_input_bytes as usize;
  let parsed = code_mode_protocol::parsed::parsed_bytes(&input);
  if let Some(refusal) = code_mode_protocol::parsed::over_input_cap(
    input.len(),
    parsed,
    cap,
    run.limits_named().max_tool_input,
  ) {
    return Err(throw(ctx, &refusal));
  }
  let (entry, via, input): (&CatalogEntry, Via, String) = match kind {
    CALL_TOOL => {
      let entry = run
        .catalog()
        .guest_entry(&target)
        .ok_or_else(|| throw(ctx, &run.unknown_tool(&target)))?;
      (entry, Via::Catalog, input)
    }
    CALL_MCP => {
      let entry = run
        .catalog()
        .get(&target)
        .filter(|e| e.source == Source::Mcp)
        .ok_or_else(|| throw(ctx, &run.unknown_tool(&target)))?;
      let input = mcp::prepare_input(entry, &input).map_err(|m| throw_type(ctx, &m))?;
      (entry, Via::Mcp, input)
    }
    CALL_NAMESPACE => {
      let forged = || throw(ctx, &format!("Unknown namespace callable: {target}"));
      let (ns, index) = target.split_once(':').ok_or_else(forged)?;
      let ns: usize = ns.parse().map_err(|_| forged())?;
      let index: usize = index.parse().map_err(|_| forged())?;
      let namespace = run.namespaces().get(ns).ok_or_else(forged)?;
      let (_, entry) = namespace.callables.get(index).ok_or_else(forged)?;
      let entry = run
        .catalog()
        .entries()
        .get(*entry as usize)
        .ok_or_else(forged)?;
      let via = Via::Namespace {
        id: &namespace.id,
        global_name: &namespace.global_name,
        path: &namespace.callables[index].0,
        index,
      };
      (entry, via, input)
    }
    _ => return Err(throw(ctx, &run.unknown_tool(&target))),
  };
  // What the gateway holds for this call while it runs is the input as parsed, not its text: a
  // parked cell answers for it in those terms (`crates/engine/src/cell/park.rs`).
  let parsed = if matches!(via, Via::Mcp) {
    code_mode_protocol::parsed::parsed_bytes(&input)
  } else {
    parsed
  };
  let max = run.settings.max_pending_tool_calls as usize;
  let mut guard = state.lock();
  // Past the cap a call waits in the VM's queue (a batch of its own, sent as an in-flight call
  // settles); past the queue it is a guest error. Below the cap nothing here allocates more
  // than before.
  let queue = guard.requests_in_flight() >= max;
  if queue && guard.requests_queued() >= MAX_QUEUED_REQUESTS {
    // Never build an exception under the state lock (see crates/engine/src/lib.rs, lock order).
    drop(guard);
    return Err(throw(
      ctx,
      &format!(
        "Too many pending tool calls: {max} are running ({}) and \
         {MAX_QUEUED_REQUESTS} more are queued. Await some before starting more.",
        run.limits_named().max_pending
      ),
    ));
  }
  let state = &mut *guard;
  let id = state.next_id();
  let tool_call_id = nested_tool_call_id(state.cell_id, id);
  let mut pending = Pending {
    method: method(&via),
    target: Some(entry.id.clone()),
    id: tool_call_id,
    input_bytes: 0,
  };
  let mut own_batch = Vec::new();
  let (outbox, parent) = state.outbox();
  let before = if queue { 0 } else { outbox.len() };
  let written = run.write_call(
    NestedCall {
      call: id,
      entry,
      input_json: &input,
      parent_tool_call_id: parent,
      via,
    },
    if queue { &mut own_batch } else { outbox },
  );
  if let Err(message) = written {
    drop(guard);
    return Err(throw_type(ctx, message));
  }
  let written = if queue {
    own_batch.len()
  } else {
    state.outbox().0.len().saturating_sub(before)
  };
  pending.input_bytes = written.saturating_sub(input.len()) + parsed;
  if queue {
    state.queue_behind(id, pending, own_batch);
    return Ok(id);
  }
  let batch = state.queue_request(id, pending);
  drop(guard);
  if let Some(batch) = batch {
    batch.send();
  }
  Ok(id)
}
