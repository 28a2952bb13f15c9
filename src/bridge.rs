//! The host bridge: native functions a VM's prelude calls, closed over that cell's state.
//!
//! Everything the guest can ask of the host goes through here as strings and numbers: catalog
//! views as JSON text, nested calls as JSON input, output items as text. Nothing here ever
//! hands the guest a host object.

use super::limits::{Kill, Signals};
use crate::catalog::Source;
use crate::catalog::{self, CatalogEntry};
use crate::error::panic_message;
use crate::mcp;
use crate::run::{NestedCall, Run, Via};
use parking_lot::Mutex;
use rquickjs::{Ctx, Exception, Function, JsLifetime, Object, Promise, Value};
use serde_json::Value as Json;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Timers a cell may have pending at once (DESIGN decision 11).
pub const MAX_TIMERS: usize = 1_000;

/// What a pending bridge entry is, as `pendingToolCalls[].method` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
  Call,
  Mcp,
  Namespace,
  Yield,
}

impl Method {
  pub fn as_str(self) -> &'static str {
    match self {
      Method::Call => "call",
      Method::Mcp => "mcp",
      Method::Namespace => "namespace",
      Method::Yield => "yield",
    }
  }
}

#[derive(Debug, Clone)]
pub struct Pending {
  pub method: Method,
  pub tool_id: Option<String>,
  /// The nested `toolCallId` (calls) or a `yield_<n>` id.
  pub id: String,
}

#[derive(Debug, Clone, PartialEq)]
pub enum OutputItem {
  Text(String),
  /// JSON text of the value.
  Json(String),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
  /// JSON text of the completion value.
  Value(String),
  /// JSON `{name, message, stack}` of the uncaught guest error.
  Error(String),
}

/// The resolving functions of every nested call's promise, by bridge id: a result settles its
/// promise from Rust, with no guest-visible table and no JavaScript in between.
#[derive(Default)]
pub struct CallPromises<'js>(RefCell<HashMap<u32, (Function<'js>, Function<'js>)>>);

// SAFETY: `Changed` is the same struct with the `'js` lifetime swapped, as the trait requires.
unsafe impl<'js> JsLifetime<'js> for CallPromises<'js> {
  type Changed<'to> = CallPromises<'to>;
}

impl<'js> CallPromises<'js> {
  /// Keeps the resolve and reject functions of call `id`'s promise until its result arrives.
  pub fn insert(&self, id: u32, resolve: Function<'js>, reject: Function<'js>) {
    self.0.borrow_mut().insert(id, (resolve, reject));
  }

  /// The resolve and reject functions of call `id`'s promise, if it has one.
  pub fn take(&self, id: u32) -> Option<(Function<'js>, Function<'js>)> {
    self.0.borrow_mut().remove(&id)
  }
}

/// One cell's host-side state, shared by its bridge functions and its driver.
pub struct VmHost {
  /// The run the cell belongs to; `None` while the VM waits, warm, in the pool.
  pub run: Option<Arc<Run>>,
  pub cell_id: u64,
  /// The exec/wait `toolCallId` of the current leg.
  pub parent_tool_call_id: Option<String>,
  next_id: u32,
  pub pending: BTreeMap<u32, Pending>,
  /// The leg's shared `yield_control()` entry in `pending`, if any.
  yield_entry: Option<u32>,
  /// Timer id → due instant.
  pub timers: BTreeMap<u32, Instant>,
  pub output: Vec<OutputItem>,
  pub output_bytes: usize,
  pub outcome: Option<Outcome>,
  pub yielded: bool,
  /// Calls started but not yet sent to the JS layer: a JSON array in the making, sent as one
  /// message when it is full, when the slice ends, or when the oldest has waited
  /// [`OUTBOX_WAIT`] (checked as calls start and at the guest's interrupt polls). A call
  /// started with nothing else in flight is sent at once.
  outbox: Vec<u8>,
  outbox_calls: usize,
  outbox_since: Option<Instant>,
  signals: Arc<Signals>,
}

/// Calls taken out of a cell's outbox, sent once the host lock is released.
pub struct CallBatch {
  run: Arc<Run>,
  cell: u64,
  bytes: Vec<u8>,
}

impl CallBatch {
  pub fn send(self) {
    self.run.send_calls(self.cell, self.bytes);
  }
}

/// Calls sent in one message at most: a `Promise.all` over many tools reaches the executor in
/// a few batches while the guest is still starting the rest, and their outcomes come back
/// together (a cell woken once per batch, not once per call).
const OUTBOX_MAX_CALLS: usize = 32;
/// How long a started call may wait in the outbox while the guest keeps running.
pub const OUTBOX_WAIT: Duration = Duration::from_micros(100);

impl VmHost {
  pub fn new(signals: Arc<Signals>) -> Self {
    VmHost {
      run: None,
      cell_id: 0,
      parent_tool_call_id: None,
      next_id: 0,
      pending: BTreeMap::new(),
      yield_entry: None,
      timers: BTreeMap::new(),
      output: Vec::new(),
      output_bytes: 0,
      outcome: None,
      yielded: false,
      outbox: Vec::new(),
      outbox_calls: 0,
      outbox_since: None,
      signals,
    }
  }

  /// The batch of calls not yet sent, with the run to send it through.
  pub fn take_outbox(&mut self) -> Option<CallBatch> {
    if self.outbox_calls == 0 {
      return None;
    }
    self.outbox_calls = 0;
    self.outbox_since = None;
    Some(CallBatch {
      run: self.run.clone()?,
      cell: self.cell_id,
      bytes: std::mem::take(&mut self.outbox),
    })
  }

  /// The outbox if its oldest call has waited [`OUTBOX_WAIT`] by `now`.
  pub fn take_overdue_outbox(&mut self, now: Instant) -> Option<CallBatch> {
    match self.outbox_since {
      Some(since) if now.duration_since(since) >= OUTBOX_WAIT => self.take_outbox(),
      _ => None,
    }
  }

  fn next_id(&mut self) -> u32 {
    self.next_id += 1;
    self.next_id
  }

  pub fn calls_in_flight(&self) -> usize {
    self.pending.len() - usize::from(self.yield_entry.is_some())
  }

  /// The shared yield entry, if the leg has one.
  pub fn yield_entry(&self) -> Option<u32> {
    self.yield_entry
  }

  /// Settles pending entry `id`: false if there is none (already settled or never made).
  pub fn take_pending(&mut self, id: u32) -> bool {
    if self.yield_entry == Some(id) {
      self.yield_entry = None;
    }
    self.pending.remove(&id).is_some()
  }

  /// The bound run. Bridge functions only run after `Vm::bind`, so it is always there.
  pub fn run(&self) -> Arc<Run> {
    self
      .run
      .clone()
      .expect("a VM runs guest code only once bound to a run")
  }

  fn output_cap(&self) -> usize {
    self
      .run
      .as_ref()
      .map_or(0, |run| run.config.max_output_bytes as usize)
  }

  /// Appends an output item, counting bytes as produced; crossing the cap is terminal.
  pub fn push_output(&mut self, item: OutputItem) {
    if self.signals.killed() == Kill::Output {
      return;
    }
    let len = match &item {
      OutputItem::Text(t) | OutputItem::Json(t) => t.len(),
    };
    let room = self.output_cap().saturating_sub(self.output_bytes);
    if len <= room {
      self.output_bytes += len;
      self.output.push(item);
      return;
    }
    // Keep what fits of a text item; a JSON value is all or nothing.
    if let OutputItem::Text(text) = item {
      let mut end = room;
      while !text.is_char_boundary(end) {
        end -= 1;
      }
      if end > 0 {
        self.output.push(OutputItem::Text(text[..end].to_string()));
      }
      self.output_bytes += end;
    }
    self.signals.kill(Kill::Output);
  }

  /// Takes the items produced since the previous result.
  pub fn take_output(&mut self) -> Vec<OutputItem> {
    self.output_bytes = 0;
    std::mem::take(&mut self.output)
  }

  /// Earliest pending timer.
  pub fn next_timer(&self) -> Option<Instant> {
    self.timers.values().min().copied()
  }

  /// Removes and returns the timers due at `now`, earliest first.
  pub fn due_timers(&mut self, now: Instant) -> Vec<u32> {
    let mut due: Vec<(Instant, u32)> = self
      .timers
      .iter()
      .filter(|(_, at)| **at <= now)
      .map(|(id, at)| (*at, *id))
      .collect();
    due.sort_unstable();
    for (_, id) in &due {
      self.timers.remove(id);
    }
    due.into_iter().map(|(_, id)| id).collect()
  }
}

fn error<'js>(ctx: &Ctx<'js>, message: &str) -> rquickjs::Error {
  Exception::throw_message(ctx, message)
}

fn type_error<'js>(ctx: &Ctx<'js>, message: &str) -> rquickjs::Error {
  Exception::throw_type(ctx, message)
}

fn unknown_tool(ctx: &Ctx<'_>, id: &str) -> rquickjs::Error {
  error(ctx, &format!("Unknown tool id: {id}"))
}

/// Runs the body of a bridge function. A panic must not reach rquickjs: it would become an
/// exception the guest can catch and carry on from. It kills the cell instead (terminal
/// `internal_error` at the guest's next poll, or when the slice returns) and throws.
fn guarded<'js, R>(
  ctx: &Ctx<'js>,
  signals: &Signals,
  body: impl FnOnce() -> rquickjs::Result<R>,
) -> rquickjs::Result<R> {
  match catch_unwind(AssertUnwindSafe(body)) {
    Ok(result) => result,
    Err(panic) => {
      signals.panicked(panic_message(&*panic));
      Err(error(ctx, "code mode runtime failed."))
    }
  }
}

/// Builds the `host` object handed to the prelude.
pub fn host_object<'js>(
  ctx: &Ctx<'js>,
  state: &Arc<Mutex<VmHost>>,
) -> rquickjs::Result<Object<'js>> {
  let host = Object::new(ctx.clone())?;
  let signals = state.lock().signals.clone();

  let (s, g) = (state.clone(), signals.clone());
  host.set(
    "call",
    Function::new(
      ctx.clone(),
      move |ctx: Ctx<'js>, kind: u32, target: String, input: String| {
        guarded(&ctx, &g, || {
          let id = start_call(&ctx, &s, kind, target, input)?;
          let (promise, resolve, reject) = ctx.promise()?;
          ctx
            .userdata::<CallPromises>()
            .expect("the call table is installed with the VM")
            .insert(id, resolve, reject);
          Ok::<Promise<'js>, rquickjs::Error>(promise)
        })
      },
    )?,
  )?;

  let (s, g) = (state.clone(), signals.clone());
  host.set(
    "search",
    Function::new(
      ctx.clone(),
      move |ctx: Ctx<'js>, query: String, limit: Value<'js>| {
        guarded(&ctx, &g, || {
          let run = s.lock().run();
          let config = &run.config;
          let limit = if limit.is_undefined() || limit.is_null() {
            config.search_default_limit
          } else {
            match limit.as_number() {
              Some(n) if n.is_finite() && n.fract() == 0.0 && n >= 1.0 => {
                n.min(config.max_search_limit as f64) as u32
              }
              _ => return Err(type_error(&ctx, "limit must be a positive integer.")),
            }
          };
          run
            .telemetry
            .searches
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
          let hits: Vec<Json> = run
            .catalog
            .search(&query, limit as usize)
            .into_iter()
            .map(|e| catalog::compact_json(e, false))
            .collect();
          Ok(Json::Array(hits).to_string())
        })
      },
    )?,
  )?;

  let (s, g) = (state.clone(), signals.clone());
  host.set(
    "describe",
    Function::new(ctx.clone(), move |ctx: Ctx<'js>, id: String| {
      guarded(&ctx, &g, || {
        let run = s.lock().run();
        run
          .telemetry
          .describes
          .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        match run.catalog.guest_entry(&id) {
          Some(entry) => Ok(catalog::compact_json(entry, true).to_string()),
          None => Err(unknown_tool(&ctx, &id)),
        }
      })
    })?,
  )?;

  let (s, g) = (state.clone(), signals.clone());
  host.set(
    "catalog",
    Function::new(ctx.clone(), move |ctx: Ctx<'js>| {
      guarded(&ctx, &g, || {
        Ok(s.lock().run().catalog.all_tools_json().to_string())
      })
    })?,
  )?;

  let (s, g) = (state.clone(), signals.clone());
  host.set(
    "safeNames",
    Function::new(ctx.clone(), move |ctx: Ctx<'js>| {
      guarded(&ctx, &g, || {
        let run = s.lock().run();
        let names: Vec<Json> = run
          .catalog
          .safe_names()
          .map(|(name, entry)| serde_json::json!([name, entry.id]))
          .collect();
        Ok(Json::Array(names).to_string())
      })
    })?,
  )?;

  let (s, g) = (state.clone(), signals.clone());
  host.set(
    "out",
    Function::new(
      ctx.clone(),
      move |ctx: Ctx<'js>, kind: u32, text: String| {
        guarded(&ctx, &g, || {
          let item = if kind == 0 {
            OutputItem::Text(text)
          } else {
            OutputItem::Json(text)
          };
          s.lock().push_output(item);
          Ok(())
        })
      },
    )?,
  )?;

  let (s, g) = (state.clone(), signals.clone());
  host.set(
    "timer",
    Function::new(ctx.clone(), move |ctx: Ctx<'js>, delay: f64| {
      guarded(&ctx, &g, || {
        let mut host = s.lock();
        if host.timers.len() >= MAX_TIMERS {
          // Never build an exception under the host lock (see `start_call`).
          drop(host);
          return Err(error(
            &ctx,
            &format!("Too many pending timers: at most {MAX_TIMERS} may be scheduled at once."),
          ));
        }
        let delay = Duration::from_secs_f64((delay / 1000.0).clamp(0.0, 2_147_483.647));
        let id = host.next_id();
        host.timers.insert(id, Instant::now() + delay);
        Ok(id)
      })
    })?,
  )?;

  let (s, g) = (state.clone(), signals.clone());
  host.set(
    "clearTimer",
    Function::new(ctx.clone(), move |ctx: Ctx<'js>, id: u32| {
      guarded(&ctx, &g, || {
        s.lock().timers.remove(&id);
        Ok(())
      })
    })?,
  )?;

  let (s, g) = (state.clone(), signals.clone());
  host.set(
    "yield",
    Function::new(ctx.clone(), move |ctx: Ctx<'js>, _reason: String| {
      guarded(&ctx, &g, || {
        let mut host = s.lock();
        host.yielded = true;
        // Every yield of a leg shares one entry: they all resume together on `wait`, and a
        // loop of yields must not grow `pendingToolCalls` past the output cap.
        if let Some(id) = host.yield_entry {
          return Ok(id);
        }
        let id = host.next_id();
        host.yield_entry = Some(id);
        host.pending.insert(
          id,
          Pending {
            method: Method::Yield,
            tool_id: None,
            id: format!("yield_{id}"),
          },
        );
        Ok(id)
      })
    })?,
  )?;

  let (s, g) = (state.clone(), signals.clone());
  host.set(
    "done",
    Function::new(ctx.clone(), move |ctx: Ctx<'js>, ok: bool, text: String| {
      guarded(&ctx, &g, || {
        let mut host = s.lock();
        if host.outcome.is_none() {
          host.outcome = Some(if ok {
            Outcome::Value(text)
          } else {
            Outcome::Error(text)
          });
        }
        Ok(())
      })
    })?,
  )?;

  let (s, g) = (state.clone(), signals.clone());
  host.set(
    "mcp",
    Function::new(ctx.clone(), move |ctx: Ctx<'js>| {
      guarded(&ctx, &g, || {
        let run = s.lock().run();
        Ok(run.mcp().guest_json(&run.catalog))
      })
    })?,
  )?;

  let (s, g) = (state.clone(), signals.clone());
  host.set(
    "mcpApi",
    Function::new(
      ctx.clone(),
      move |ctx: Ctx<'js>, server: Option<String>, tool: Option<String>, schema: bool| {
        guarded(&ctx, &g, || {
          let run = s.lock().run();
          run
            .mcp()
            .api_header(&run.catalog, server.as_deref(), tool.as_deref(), schema)
            .map(|header| header.to_string())
            .map_err(|message| error(&ctx, &message))
        })
      },
    )?,
  )?;

  let (s, g) = (state.clone(), signals.clone());
  host.set(
    "apiList",
    Function::new(ctx.clone(), move |ctx: Ctx<'js>, prefix: String| {
      guarded(&ctx, &g, || {
        let run = s.lock().run();
        let prefix = (!prefix.is_empty()).then_some(prefix.as_str());
        run
          .mcp()
          .files()
          .list(prefix)
          .map(|v| v.to_string())
          .map_err(|m| error(&ctx, &m))
      })
    })?,
  )?;

  let (s, g) = (state.clone(), signals.clone());
  host.set(
    "apiRead",
    Function::new(ctx.clone(), move |ctx: Ctx<'js>, path: String| {
      guarded(&ctx, &g, || {
        let run = s.lock().run();
        run
          .mcp()
          .files()
          .read_checked(&path)
          .map_err(|m| error(&ctx, &m))
      })
    })?,
  )?;

  let (s, g) = (state.clone(), signals.clone());
  host.set(
    "namespaces",
    Function::new(ctx.clone(), move |ctx: Ctx<'js>| {
      guarded(&ctx, &g, || {
        let run = s.lock().run();
        Ok(crate::namespaces::guest_json(run.installed_namespaces()))
      })
    })?,
  )?;

  Ok(host)
}

/// `host.call(kind, target, inputJson)`: checks, records and dispatches one nested call; the
/// caller gives it its promise.
/// Kind 0 is a catalog id (`tools.*`), 1 an MCP catalog id (`MCP.*`, input checked against
/// its schema), 2 a namespace callable `"<namespace>:<callable>"` (input = the argument list).
///
/// The host lock is never held while an exception is built: building one can run guest code
/// (stack trace hooks), and guest code calling back into the bridge would deadlock the worker.
fn start_call(
  ctx: &Ctx<'_>,
  state: &Arc<Mutex<VmHost>>,
  kind: u32,
  target: String,
  input: String,
) -> rquickjs::Result<u32> {
  let (run, killed) = {
    let host = state.lock();
    (host.run(), host.signals.killed())
  };
  // A kill (memory, timeout, output, abort, panic) stops the guest only at its next interrupt
  // poll; until then a catch block could still reach the gateway. A cell that is ending starts
  // no more nested calls.
  if killed != Kill::None {
    return Err(error(ctx, "code mode cell is ending: no more tool calls."));
  }
  crate::testing::at_bridge_call(&run.scope.run_id);
  let (entry, via, method, input): (&CatalogEntry, Via, Method, String) = match kind {
    0 => {
      let entry = run
        .catalog
        .guest_entry(&target)
        .ok_or_else(|| unknown_tool(ctx, &target))?;
      (entry, Via::Catalog, Method::Call, input)
    }
    1 => {
      let entry = run
        .catalog
        .get(&target)
        .filter(|e| e.source == Source::Mcp)
        .ok_or_else(|| unknown_tool(ctx, &target))?;
      let input = mcp::prepare_input(entry, &input).map_err(|m| type_error(ctx, &m))?;
      (entry, Via::Mcp, Method::Mcp, input)
    }
    2 => {
      let forged = || error(ctx, &format!("Unknown namespace callable: {target}"));
      let (ns, index) = target.split_once(':').ok_or_else(forged)?;
      let ns: usize = ns.parse().map_err(|_| forged())?;
      let index: usize = index.parse().map_err(|_| forged())?;
      let namespace = run.installed_namespaces().get(ns).ok_or_else(forged)?;
      let (_, entry) = namespace.callables.get(index).ok_or_else(forged)?;
      (
        &run.catalog.entries()[*entry],
        Via::Namespace { namespace, index },
        Method::Namespace,
        input,
      )
    }
    _ => return Err(unknown_tool(ctx, &target)),
  };
  let max = run.config.max_pending_tool_calls as usize;
  let mut guard = state.lock();
  if guard.calls_in_flight() >= max {
    drop(guard);
    return Err(error(
      ctx,
      &format!("Too many pending tool calls: at most {max} may run at once (maxPendingToolCalls)."),
    ));
  }
  let host = &mut *guard;
  let id = host.next_id();
  let tool_call_id = run.nested_tool_call_id(host.cell_id, id);
  let written = run.write_call(
    NestedCall {
      call: id,
      entry,
      input_json: &input,
      parent_tool_call_id: host.parent_tool_call_id.as_deref(),
      via,
    },
    &mut host.outbox,
  );
  if let Err(message) = written {
    drop(guard);
    return Err(type_error(ctx, message));
  }
  host.pending.insert(
    id,
    Pending {
      method,
      tool_id: Some(entry.id.clone()),
      id: tool_call_id,
    },
  );
  host.outbox_calls += 1;
  let now = Instant::now();
  host.outbox_since.get_or_insert(now);
  // A lone call (nothing else in flight: the sequential `await` pattern) goes at once; calls
  // started together go in batches.
  let batch = if host.calls_in_flight() == 1 || host.outbox_calls >= OUTBOX_MAX_CALLS {
    host.take_outbox()
  } else {
    host.take_overdue_outbox(now)
  };
  drop(guard);
  if let Some(batch) = batch {
    batch.send();
  }
  Ok(id)
}

/// Sends the calls a VM has started but not yet sent (at the end of every slice).
pub fn flush_calls(state: &Mutex<VmHost>) {
  let batch = state.lock().take_outbox();
  if let Some(batch) = batch {
    batch.send();
  }
}

/// At an interrupt poll: sends the started calls if the oldest has waited [`OUTBOX_WAIT`], so a
/// guest that starts a call and then computes for a while does not hold it back. Never waits
/// for the lock (the poll can come while a bridge function holds it).
pub fn flush_overdue_calls(state: &Mutex<VmHost>) {
  let batch = state
    .try_lock()
    .and_then(|mut host| host.take_overdue_outbox(Instant::now()));
  if let Some(batch) = batch {
    batch.send();
  }
}
