//! Code mode's host functions: what a cell's prelude (`src/prelude.js`) calls to search,
//! describe and call the run's catalog, read MCP and API files, and build namespaces.
//!
//! Everything the guest can ask of the run goes through here as strings and numbers: catalog
//! views as JSON text, nested calls as JSON input. Nothing here ever hands the guest a host
//! object. Output, timers and yields are the engine's (`crates/engine/src/core_fns.rs`).

use crate::mcp;
use crate::run::{Counters, GuestRun};
use code_mode_catalog::Source;
use code_mode_catalog::calls::{NestedCall, Via, nested_tool_call_id};
use code_mode_catalog::{self as catalog, CatalogEntry};
use code_mode_engine::{
  self as engine, Guest, MAX_QUEUED_REQUESTS, Pending, VmState, guarded, throw, throw_type,
};
use parking_lot::Mutex;
use rquickjs::{Ctx, Function, Object, Value};
use std::sync::Arc;

/// Code mode's kind of VM: its half of the prelude and these functions.
pub static CODE_MODE: Guest = Guest::new(include_str!("prelude.js"), install);

/// What a pending nested call is, as `pendingToolCalls[].method` names it.
fn method(via: &Via) -> &'static str {
  match via {
    Via::Catalog => "call",
    Via::Mcp => "mcp",
    Via::Namespace { .. } => "namespace",
  }
}

/// The run a VM's functions serve.
fn run_of(state: &Mutex<VmState>) -> Arc<GuestRun> {
  GuestRun::of(state.lock().host())
}

/// A search's `limit` argument for [`GuestRun::search_limit`]: `None` when absent; anything but a
/// number is NaN, which it refuses.
pub(crate) fn limit_arg(limit: &Value<'_>) -> Option<f64> {
  if limit.is_undefined() || limit.is_null() {
    None
  } else {
    Some(limit.as_number().unwrap_or(f64::NAN))
  }
}

fn unknown_tool(ctx: &Ctx<'_>, id: &str) -> rquickjs::Error {
  throw(ctx, &format!("Unknown tool id: {id}"))
}

/// Adds code mode's functions to the `host` object its prelude receives.
fn install<'js>(
  ctx: &Ctx<'js>,
  host: &Object<'js>,
  state: &Arc<Mutex<VmState>>,
) -> rquickjs::Result<()> {
  let s = state.clone();
  host.set(
    "call",
    Function::new(
      ctx.clone(),
      move |ctx: Ctx<'js>, kind: u32, target: String, input: String| {
        guarded(&ctx, &s, || {
          let id = start_call(&ctx, &s, kind, target, input)?;
          engine::request_promise(&ctx, id)
        })
      },
    )?,
  )?;

  let s = state.clone();
  host.set(
    "search",
    Function::new(
      ctx.clone(),
      move |ctx: Ctx<'js>, query: String, limit: Value<'js>| {
        guarded(&ctx, &s, || {
          let run = run_of(&s);
          let limit = run
            .search_limit(limit_arg(&limit))
            .map_err(|m| throw_type(&ctx, m))?;
          Counters::bump(&run.counters.searches);
          // The hits, with `queryTruncated` when only the query's first part was searched.
          Ok(run.catalog().search_result(&query, limit).guest_json())
        })
      },
    )?,
  )?;

  let s = state.clone();
  host.set(
    "describe",
    Function::new(ctx.clone(), move |ctx: Ctx<'js>, id: String| {
      guarded(&ctx, &s, || {
        let run = run_of(&s);
        Counters::bump(&run.counters.describes);
        match run.catalog().guest_entry(&id) {
          Some(entry) => Ok(catalog::compact(entry, true).to_json()),
          None => Err(unknown_tool(&ctx, &id)),
        }
      })
    })?,
  )?;

  let s = state.clone();
  host.set(
    "catalog",
    Function::new(ctx.clone(), move |ctx: Ctx<'js>| {
      guarded(&ctx, &s, || {
        Ok(run_of(&s).catalog().all_tools_json().to_string())
      })
    })?,
  )?;

  let s = state.clone();
  host.set(
    "safeNames",
    Function::new(ctx.clone(), move |ctx: Ctx<'js>| {
      guarded(&ctx, &s, || {
        Ok(run_of(&s).catalog().safe_names_json().to_string())
      })
    })?,
  )?;

  // One `tools.<name>` at a time (the id, or '' when it is none): a cell that only searches
  // does not build a function per tool.
  let s = state.clone();
  host.set(
    "safeName",
    Function::new(ctx.clone(), move |ctx: Ctx<'js>, name: String| {
      guarded(&ctx, &s, || {
        let run = run_of(&s);
        Ok(
          run
            .catalog()
            .safe_name(&name)
            .map_or(String::new(), |e| e.id.clone()),
        )
      })
    })?,
  )?;

  let s = state.clone();
  host.set(
    "mcp",
    Function::new(ctx.clone(), move |ctx: Ctx<'js>| {
      guarded(&ctx, &s, || {
        let run = run_of(&s);
        Ok(run.mcp().guest_json(run.catalog()))
      })
    })?,
  )?;

  let s = state.clone();
  host.set(
    "mcpApi",
    Function::new(
      ctx.clone(),
      move |ctx: Ctx<'js>, server: Option<String>, tool: Option<String>, schema: bool| {
        guarded(&ctx, &s, || {
          let run = run_of(&s);
          run
            .mcp()
            .api_header(run.catalog(), server.as_deref(), tool.as_deref(), schema)
            .map(|header| header.to_string())
            .map_err(|message| throw(&ctx, &message))
        })
      },
    )?,
  )?;

  let s = state.clone();
  host.set(
    "apiList",
    Function::new(ctx.clone(), move |ctx: Ctx<'js>, prefix: String| {
      guarded(&ctx, &s, || {
        let run = run_of(&s);
        let prefix = (!prefix.is_empty()).then_some(prefix.as_str());
        run
          .mcp()
          .files()
          .list(prefix)
          .map(|v| v.to_string())
          .map_err(|m| throw(&ctx, &m))
      })
    })?,
  )?;

  let s = state.clone();
  host.set(
    "apiRead",
    Function::new(ctx.clone(), move |ctx: Ctx<'js>, path: String| {
      guarded(&ctx, &s, || {
        let run = run_of(&s);
        run
          .mcp()
          .files()
          .read_checked(&path)
          .map_err(|m| throw(&ctx, &m))
      })
    })?,
  )?;

  let s = state.clone();
  host.set(
    "namespaces",
    Function::new(ctx.clone(), move |ctx: Ctx<'js>| {
      guarded(&ctx, &s, || {
        let run = run_of(&s);
        Ok(crate::namespaces::guest_json(run.namespaces()))
      })
    })?,
  )?;

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
  state: &Arc<Mutex<VmState>>,
  kind: u32,
  target: String,
  input: String,
) -> rquickjs::Result<u32> {
  let (run, ending) = {
    let state = state.lock();
    (GuestRun::of(state.host()), state.ending())
  };
  // A kill (memory, timeout, output, abort, panic) stops the guest only at its next interrupt
  // poll; until then a catch block could still reach the gateway. A cell that is ending starts
  // no more nested calls.
  if ending {
    return Err(throw(ctx, "code mode cell is ending: no more tool calls."));
  }
  code_mode_engine::testing::at_bridge_call(&run.label);
  let cap = run.settings.max_tool_input_bytes as usize;
  if input.len() > cap {
    return Err(throw(
      ctx,
      &format!(
        "tool input is {} bytes, over maxToolInputBytes ({cap} bytes).",
        input.len()
      ),
    ));
  }
  let (entry, via, input): (&CatalogEntry, Via, String) = match kind {
    0 => {
      let entry = run
        .catalog()
        .guest_entry(&target)
        .ok_or_else(|| unknown_tool(ctx, &target))?;
      (entry, Via::Catalog, input)
    }
    1 => {
      let entry = run
        .catalog()
        .get(&target)
        .filter(|e| e.source == Source::Mcp)
        .ok_or_else(|| unknown_tool(ctx, &target))?;
      let input = mcp::prepare_input(entry, &input).map_err(|m| throw_type(ctx, &m))?;
      (entry, Via::Mcp, input)
    }
    2 => {
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
    _ => return Err(unknown_tool(ctx, &target)),
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
        "Too many pending tool calls: {max} are running (maxPendingToolCalls) and \
         {MAX_QUEUED_REQUESTS} more are queued. Await some before starting more."
      ),
    ));
  }
  let state = &mut *guard;
  let id = state.next_id();
  let tool_call_id = nested_tool_call_id(state.cell_id, id);
  let pending = Pending {
    method: method(&via),
    target: Some(entry.id.clone()),
    id: tool_call_id,
  };
  let mut own_batch = Vec::new();
  let (outbox, parent) = state.outbox();
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
