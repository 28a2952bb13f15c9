//! The QuickJS VM of one cell: runtime, limits, prelude, bridge, and the drive loop.
//!
//! A `Vm` is `Send` (rquickjs `parallel`): it runs on whichever worker picks its cell up and
//! is parked, costing no thread, while it waits for host work.

pub mod bridge;
mod bytecode;
pub mod limits;

use crate::error::{ErrorCode, Failure};
use crate::frontend::{Language, PositionMap, Program};
use crate::run::Run;
use bridge::{Outcome, VmHost};
use limits::{Kill, Signals, VmAllocator};
use parking_lot::Mutex;
use rquickjs::context::EvalOptions;
use rquickjs::{CatchResultExt, Context, Ctx, Function, JsLifetime, Object, Runtime, Value};
use std::cell::RefCell;
use std::sync::Arc;
use std::time::Instant;

const PRELUDE: &str = include_str!("prelude.js");
/// QuickJS stack cap: deep recursion becomes a catchable RangeError well before the worker's
/// own stack (see `scheduler::WORKER_STACK`) is at risk.
const MAX_STACK: usize = 1 << 20;

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

/// A host result for a pending bridge entry.
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
  /// No job left to run; the cell waits for host work (or has none: see the scheduler).
  Idle,
}

pub struct Vm {
  // Field order matters: the context goes before its runtime.
  ctx: Context,
  _rt: Runtime,
  pub host: Arc<Mutex<VmHost>>,
  pub signals: Arc<Signals>,
  positions: Option<(Language, PositionMap)>,
  /// The cell's code has been compiled and called.
  pub started: bool,
}

/// A warm VM's memory cap until it is claimed: room for the runtime and prelude only.
const WARM_LIMIT: usize = 4 << 20;

fn runtime_failure(signals: &Signals, what: &str, error: impl std::fmt::Display) -> Failure {
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

impl Vm {
  /// A VM bound to a cell: a warm one from `warm()`, then `bind()`.
  pub fn new(run: Arc<Run>, cell_id: u64, signals: Arc<Signals>) -> Result<Vm, Failure> {
    let limit = run.config.memory_limit_bytes as usize;
    let vm = Vm::build(signals, WARM_LIMIT.max(limit))?;
    vm.bind(run, cell_id);
    Ok(vm)
  }

  /// A VM with limits, prelude and bridge, not yet bound to a run (for the warm pool).
  pub fn warm() -> Result<Vm, Failure> {
    Vm::build(Signals::new(), WARM_LIMIT)
  }

  /// Gives a warm VM its cell: run, id and memory cap. No JavaScript runs here.
  pub fn bind(&self, run: Arc<Run>, cell_id: u64) {
    self
      ._rt
      .set_memory_limit(run.config.memory_limit_bytes as usize);
    let mut host = self.host.lock();
    host.run = Some(run);
    host.cell_id = cell_id;
  }

  fn build(signals: Arc<Signals>, memory_limit: usize) -> Result<Vm, Failure> {
    let host = Arc::new(Mutex::new(VmHost::new(signals.clone())));
    let rt = Runtime::new_with_alloc(VmAllocator::new(signals.clone()))
      .map_err(|e| runtime_failure(&signals, "start", e))?;
    rt.set_memory_limit(memory_limit);
    rt.set_max_stack_size(MAX_STACK);
    let mut limits = signals.interrupt_handler();
    let outbox = host.clone();
    rt.set_interrupt_handler(Some(Box::new(move || {
      // A cell that must stop sends its started calls when the slice ends, if still alive.
      let stop = limits();
      if !stop {
        bridge::flush_overdue_calls(&outbox);
      }
      stop
    })));
    rt.set_host_promise_rejection_tracker(Some(Box::new(track_rejection)));
    let ctx = Context::full(&rt).map_err(|e| runtime_failure(&signals, "start", e))?;
    ctx
      .with(|ctx| -> rquickjs::Result<()> {
        let _ = ctx.store_userdata(Rejections::default());
        let _ = ctx.store_userdata(bridge::CallPromises::default());
        let prelude: Function = bytecode::prelude(&ctx, PRELUDE)?.get()?;
        let hooks: Object = prelude.call((bridge::host_object(&ctx, &host)?,))?;
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
      host,
      signals,
      positions: None,
      started: false,
    })
  }

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
      language,
      positions,
    } = program;
    self.positions = Some((language, positions));
    self.started = true;
    let signals = self.signals.clone();
    let compiled = self.ctx.with(|ctx| {
      // The run's namespaces become globals now that the VM knows its run.
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
      options.filename = Some(language.filename().into());
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
  pub fn drive(&mut self, deliveries: Vec<Delivery>, host_work: bool) -> SliceEnd {
    let host = self.host.clone();
    let signals = self.signals.clone();
    self.ctx.with(|ctx| {
      let hooks = Self::hooks(&ctx);
      let calls = ctx
        .userdata::<bridge::CallPromises>()
        .expect("the call table is installed with the VM");
      for delivery in deliveries {
        if !host.lock().take_pending(delivery.call) {
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
    let Some((language, positions)) = &self.positions else {
      return head.to_string();
    };
    let file = format!("{}:", language.filename());
    for (at, _) in stack.match_indices(&file) {
      let rest = &stack[at + file.len()..];
      let mut parts = rest.splitn(3, |c: char| !c.is_ascii_digit());
      let line = parts.next().and_then(|l| l.parse::<u32>().ok());
      let column = parts.next().and_then(|c| c.parse::<u32>().ok());
      if let (Some(line), Some(column)) = (line, column)
        && let Some((line, column)) = positions.user_position(line, column)
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

/// Reports rejections still unhandled once the job queue is empty (DESIGN decision 12).
fn flush_rejections<'js>(ctx: &Ctx<'js>, hooks: &Hooks<'js>, host: &Mutex<VmHost>) {
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
    host.lock().push_output(bridge::OutputItem::Text(format!(
      "Unhandled promise rejection: {text}"
    )));
  }
}
