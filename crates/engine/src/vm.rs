//! The QuickJS VM of one cell: runtime, limits, prelude, host functions, and the drive loop.
//!
//! A `Vm` is `Send` (rquickjs `parallel`): it runs on whichever worker picks its cell up and
//! is parked, costing no thread, while it waits for host work.

use super::limits::{self, Kill, Signals, VmAllocator};
use super::output::OutputItem;
use super::state::{Outcome, VmState};
use super::{
  AnyGuest, BoundHost, Guest, Host, Positions, Program, WORKER_STACK, bytecode, core_fns,
};
use crate::error::{ErrorCode, Failure};
use parking_lot::Mutex;
use rquickjs::context::EvalOptions;
use rquickjs::{CatchResultExt, Context, Ctx, Function, JsLifetime, Object, Runtime, Value};
use std::cell::RefCell;
use std::sync::Arc;
use std::time::Instant;

/// The engine's half of every prelude; the host's half is its [`Guest::prelude`].
const CORE_PRELUDE: &str = include_str!("prelude.js");
/// QuickJS stack cap: deep recursion becomes a catchable RangeError well before the worker's
/// own stack ([`WORKER_STACK`]) is at risk.
const MAX_STACK: usize = 1 << 20;
const _: () = assert!(MAX_STACK * 8 <= WORKER_STACK);

/// The prelude a guest's VMs run: the engine's half called with the host's half and the
/// engine globals the guest gets.
fn compose(guest: &dyn AnyGuest) -> String {
  let trim = |s: &'static str| s.trim_end().trim_end_matches(';');
  format!(
    "(function (host) {{ return ({})(host, {}, {}); }})",
    trim(CORE_PRELUDE),
    trim(guest.prelude()),
    guest.globals().literal()
  )
}

/// The prelude's hooks, kept inside the runtime so they die with it.
struct Hooks<'js> {
  bind: Function<'js>,
  start: Function<'js>,
  resume: Function<'js>,
  fail: Function<'js>,
  fire: Function<'js>,
  describe_rejection: Function<'js>,
}

// SAFETY: `Changed` is the same struct with the `'js` lifetime swapped, as the trait requires.
unsafe impl<'js> JsLifetime<'js> for Hooks<'js> {
  type Changed<'to> = Hooks<'to>;
}

/// Promises rejected with no handler yet: `(promise, reason)`.
#[derive(Default)]
struct Rejections<'js>(RefCell<Vec<(Value<'js>, Value<'js>)>>);

// SAFETY: as above.
unsafe impl<'js> JsLifetime<'js> for Rejections<'js> {
  type Changed<'to> = Rejections<'to>;
}

/// A host's outcome for a pending request.
#[derive(Debug, Clone)]
pub struct Delivery {
  pub call: u32,
  pub ok: bool,
  /// JSON text of the value (ok) or the error message; `None` resolves with `undefined`.
  pub payload: Option<String>,
}

/// How a slice of guest execution ended.
pub enum SliceEnd {
  Done(Outcome),
  Killed(Kill),
  /// No job left to run; the cell waits for host work (or has none: see `cell/slice.rs`).
  Idle,
}

pub struct Vm {
  // Field order matters: the context goes before its runtime.
  ctx: Context,
  _rt: Runtime,
  pub state: Arc<Mutex<VmState>>,
  pub signals: Arc<Signals>,
  /// The program's file name and position map, once started.
  positions: Option<(&'static str, Positions)>,
  /// The cell's code has been compiled and called.
  pub started: bool,
}

/// A warm VM's memory cap until it is claimed: room for the runtime and prelude only.
const WARM_LIMIT: usize = 4 << 20;

pub(super) fn runtime_failure(
  signals: &Signals,
  what: &str,
  error: impl std::fmt::Display,
) -> Failure {
  if signals.killed() == Kill::Memory {
    Failure::new(
      ErrorCode::MemoryLimitExceeded,
      "code mode cell exceeded memoryLimitBytes.",
    )
  } else {
    Failure::new(
      ErrorCode::RuntimeUnavailable,
      format!("code mode runtime could not {what}: {error}"),
    )
  }
}

/// A runtime on the engine's allocator, capped at `memory_limit` bytes and [`MAX_STACK`]; its
/// interrupt handler is the caller's to set (code mode's also flushes the outbox, see `build`).
pub(super) fn runtime(signals: &Arc<Signals>, memory_limit: usize) -> Result<Runtime, Failure> {
  let rt = Runtime::new_with_alloc(VmAllocator::new(signals.clone()))
    .map_err(|e| runtime_failure(signals, "start", e))?;
  rt.set_memory_limit(memory_limit);
  rt.set_max_stack_size(MAX_STACK);
  Ok(rt)
}

impl Vm {
  /// A VM bound to a cell: as a warm one from `warm()`, then `bind()`.
  pub(crate) fn new(
    guest: &'static dyn AnyGuest,
    host: BoundHost,
    cell_id: u64,
    signals: Arc<Signals>,
  ) -> Result<Vm, Failure> {
    let limit = host.host().limits().memory_limit_bytes;
    let vm = Vm::build(guest, signals, WARM_LIMIT.max(limit))?;
    vm.bind(host, cell_id);
    Ok(vm)
  }

  /// A VM with limits, prelude and functions, not yet bound to a host (for the warm pool).
  pub fn warm<H: Host>(guest: &'static Guest<H>) -> Result<Vm, Failure> {
    Vm::warm_any(guest)
  }

  pub(crate) fn warm_any(guest: &'static dyn AnyGuest) -> Result<Vm, Failure> {
    Vm::build(guest, Signals::new(), WARM_LIMIT)
  }

  /// Gives a warm VM its cell: host, id and memory cap. No JavaScript runs here.
  pub(crate) fn bind(&self, host: BoundHost, cell_id: u64) {
    self
      ._rt
      .set_memory_limit(host.host().limits().memory_limit_bytes);
    let mut state = self.state.lock();
    state.set_host(host);
    state.cell_id = cell_id;
  }

  fn build(
    guest: &'static dyn AnyGuest,
    signals: Arc<Signals>,
    memory_limit: usize,
  ) -> Result<Vm, Failure> {
    let state = Arc::new(Mutex::new(VmState::new(signals.clone())));
    let rt = runtime(&signals, memory_limit)?;
    let mut limits = signals.interrupt_handler();
    let outbox = state.clone();
    rt.set_interrupt_handler(Some(Box::new(move || {
      // A cell that must stop sends its started requests when the slice ends, if still alive.
      let stop = limits();
      if !stop {
        flush_overdue(&outbox);
      }
      stop
    })));
    rt.set_host_promise_rejection_tracker(Some(Box::new(track_rejection)));
    let ctx = Context::full(&rt).map_err(|e| runtime_failure(&signals, "start", e))?;
    ctx
      .with(|ctx| -> rquickjs::Result<()> {
        super::text::install(&ctx)?;
        let _ = ctx.store_userdata(Rejections::default());
        let _ = ctx.store_userdata(core_fns::RequestPromises::default());
        let prelude: Function = bytecode::load(&ctx, guest.bytecode(), || compose(guest))?.get()?;
        let functions = Object::new(ctx.clone())?;
        core_fns::install(&ctx, &functions, &state)?;
        guest.install(&ctx, &functions, &state)?;
        let hooks: Object = prelude.call((functions,))?;
        let _ = ctx.store_userdata(Hooks {
          bind: hooks.get("bind")?,
          start: hooks.get("start")?,
          resume: hooks.get("resume")?,
          fail: hooks.get("fail")?,
          fire: hooks.get("fire")?,
          describe_rejection: hooks.get("describeRejection")?,
        });
        Ok(())
      })
      .map_err(|e| runtime_failure(&signals, "load its prelude", e))?;
    Ok(Vm {
      ctx,
      _rt: rt,
      state,
      signals,
      positions: None,
      started: false,
    })
  }

  #[allow(
    clippy::expect_used,
    reason = "Vm::build stores the hooks before the VM exists; no VM runs without them"
  )]
  fn hooks<'js>(ctx: &Ctx<'js>) -> Hooks<'js> {
    let hooks = ctx
      .userdata::<Hooks>()
      .expect("hooks are installed with the VM");
    Hooks {
      bind: hooks.bind.clone(),
      start: hooks.start.clone(),
      resume: hooks.resume.clone(),
      fail: hooks.fail.clone(),
      fire: hooks.fire.clone(),
      describe_rejection: hooks.describe_rejection.clone(),
    }
  }

  /// Compiles the cell and calls its function; the body runs until its first `await`.
  pub fn start(&mut self, program: Program) -> Result<(), Failure> {
    let Program {
      code,
      filename,
      positions,
    } = program;
    self.positions = Some((filename, positions));
    self.started = true;
    let signals = self.signals.clone();
    let compiled = self.ctx.with(|ctx| {
      // The host's per-run globals are defined now that the VM knows its host.
      if Self::hooks(&ctx)
        .bind
        .call::<_, ()>(())
        .catch(&ctx)
        .is_err()
      {
        return Err((
          "the guest prelude could not bind its run".to_string(),
          String::new(),
        ));
      }
      let mut options = EvalOptions::default();
      options.filename = Some(filename.into());
      // Cells are strict, like modules: a write to a frozen global or an undeclared name
      // throws (and says where) instead of silently doing nothing.
      options.strict = true;
      match ctx
        .eval_with_options::<Function, _>(code, options)
        .catch(&ctx)
      {
        Ok(main) => Ok(Self::hooks(&ctx).start.call::<_, ()>((main,)).is_ok()),
        // QuickJS refused the program (swc accepted it): `{name}: {message}` and, from its
        // stack, the position in the user's source.
        Err(rquickjs::CaughtError::Exception(exception)) => {
          let name: String = exception
            .get("name")
            .unwrap_or_else(|_| "SyntaxError".into());
          let message = exception.message().unwrap_or_default();
          Err((
            format!("{name}: {message}"),
            exception.stack().unwrap_or_default(),
          ))
        }
        Err(error) => Err((error.to_string(), String::new())),
      }
    });
    match compiled {
      Ok(_) => Ok(()),
      Err(_) if signals.killed() != Kill::None => Ok(()),
      Err((head, stack)) => Err(Failure::invalid(self.locate(&head, &stack))),
    }
  }

  /// Delivers host results, runs every ready job and (with `host_work`) every due timer, and
  /// reports where it stopped.
  #[allow(
    clippy::expect_used,
    reason = "Vm::build stores the request table before the VM exists; no VM runs without it"
  )]
  pub fn drive(&mut self, deliveries: Vec<Delivery>, host_work: bool) -> SliceEnd {
    let host = self.state.clone();
    let signals = self.signals.clone();
    self.ctx.with(|ctx| {
      let hooks = Self::hooks(&ctx);
      let calls = ctx
        .userdata::<core_fns::RequestPromises>()
        .expect("the request table is installed with the VM");
      for delivery in deliveries {
        let (known, queued) = host.lock().take_pending(delivery.call);
        if let Some(batch) = queued {
          batch.send();
        }
        if !known {
          continue;
        }
        match calls.take(delivery.call) {
          Some((resolve, reject)) => settle_call(&ctx, &hooks, resolve, reject, delivery),
          // A `yield_control()` entry: its promises live in the prelude.
          None => {
            let _ = hooks.resume.call::<_, ()>((delivery.call,)).catch(&ctx);
          }
        }
        if signals.killed() != Kill::None {
          return SliceEnd::Killed(signals.killed());
        }
      }
      loop {
        while ctx.execute_pending_job() {
          if signals.killed() != Kill::None {
            return SliceEnd::Killed(signals.killed());
          }
        }
        flush_rejections(&ctx, &hooks, &host);
        if signals.killed() != Kill::None {
          return SliceEnd::Killed(signals.killed());
        }
        if let Some(outcome) = host.lock().outcome.take() {
          return SliceEnd::Done(outcome);
        }
        let due = if host_work {
          host.lock().due_timers(Instant::now())
        } else {
          Vec::new()
        };
        if due.is_empty() {
          return SliceEnd::Idle;
        }
        for id in due {
          let _ = hooks.fire.call::<_, ()>((id,)).catch(&ctx);
          if signals.killed() != Kill::None {
            return SliceEnd::Killed(signals.killed());
          }
        }
      }
    })
  }

  /// Collects garbage so a parked VM holds (and reports) only live memory.
  pub fn collect_garbage(&self) {
    self.ctx.with(|ctx| ctx.run_gc());
  }

  /// Bytes the VM holds, as its memory limit counts them (its snapshot size while parked).
  pub fn memory_used(&self) -> usize {
    self.ctx.with(|ctx| limits::bytes_held(&ctx))
  }

  /// Formats an uncaught guest error (`{name, message, stack}` JSON) with its user position.
  pub fn describe_error(&self, info: &str) -> String {
    let info: serde_json::Value = serde_json::from_str(info).unwrap_or_default();
    let field = |key: &str| {
      info
        .get(key)
        .and_then(|v| v.as_str())
        .unwrap_or_default()
        .to_string()
    };
    let (name, message, stack) = (field("name"), field("message"), field("stack"));
    let head = if name.is_empty() {
      message
    } else {
      format!("{name}: {message}")
    };
    self.locate(&head, &stack)
  }

  /// Appends `(line L, column C)` in the user's source, found in a QuickJS stack trace.
  fn locate(&self, head: &str, stack: &str) -> String {
    let Some((filename, positions)) = &self.positions else {
      return head.to_string();
    };
    let file = format!("{filename}:");
    for (at, _) in stack.match_indices(&file) {
      let rest = &stack[at + file.len()..];
      let mut parts = rest.splitn(3, |c: char| !c.is_ascii_digit());
      let line = parts.next().and_then(|l| l.parse::<u32>().ok());
      let column = parts.next().and_then(|c| c.parse::<u32>().ok());
      if let (Some(line), Some(column)) = (line, column)
        && let Some((line, column)) = positions(line, column)
      {
        return format!("{head} (line {line}, column {column})");
      }
    }
    head.to_string()
  }
}

/// Settles a nested call's promise: with the parsed JSON value, or with an `Error` carrying the
/// executor's message.
fn settle_call<'js>(
  ctx: &Ctx<'js>,
  hooks: &Hooks<'js>,
  resolve: Function<'js>,
  reject: Function<'js>,
  delivery: Delivery,
) {
  let failure = match (delivery.ok, delivery.payload) {
    (true, None) => {
      let _ = resolve.call::<_, ()>((Value::new_undefined(ctx.clone()),));
      return;
    }
    (true, Some(text)) => match ctx.json_parse(text) {
      Ok(value) => {
        let _ = resolve.call::<_, ()>((value,));
        return;
      }
      Err(_) => {
        // Clear the parse error; the guest sees the reason below.
        let _ = ctx.catch();
        "tool result is not valid JSON".to_string()
      }
    },
    (false, text) => text.unwrap_or_default(),
  };
  let _ = hooks.fail.call::<_, ()>((reject, failure)).catch(ctx);
}

/// QuickJS calls this when a promise is rejected with no handler, and again if one is added.
fn track_rejection<'js>(ctx: Ctx<'js>, promise: Value<'js>, reason: Value<'js>, handled: bool) {
  let Some(rejections) = ctx.userdata::<Rejections>() else {
    return;
  };
  let mut list = rejections.0.borrow_mut();
  if handled {
    list.retain(|(p, _)| *p != promise);
  } else {
    list.push((promise, reason));
  }
}

/// Reports rejections still unhandled once the job queue is empty (ARCHITECTURE.md, decision 12).
fn flush_rejections<'js>(ctx: &Ctx<'js>, hooks: &Hooks<'js>, host: &Mutex<VmState>) {
  let reasons: Vec<Value<'js>> = match ctx.userdata::<Rejections>() {
    Some(rejections) => rejections
      .0
      .borrow_mut()
      .drain(..)
      .map(|(_, reason)| reason)
      .collect(),
    None => return,
  };
  for reason in reasons {
    let text: String = hooks
      .describe_rejection
      .call((reason,))
      .unwrap_or_else(|_| "unprintable value".to_string());
    host.lock().push_output(OutputItem::Text(format!(
      "Unhandled promise rejection: {text}"
    )));
  }
}

/// Sends the requests a VM has started but not yet sent (at the end of every slice).
pub fn flush(state: &Mutex<VmState>) {
  let batch = state.lock().take_outbox();
  if let Some(batch) = batch {
    batch.send();
  }
}

/// At an interrupt poll: sends the started requests if the oldest has waited
/// [`super::state::OUTBOX_WAIT`], so a guest that starts a request and then computes for a while
/// does not hold it back. Never waits for the lock (the poll can come while a host function
/// holds it).
fn flush_overdue(state: &Mutex<VmState>) {
  let batch = state
    .try_lock()
    .and_then(|mut state| state.take_overdue_outbox(Instant::now()));
  if let Some(batch) = batch {
    batch.send();
  }
}
