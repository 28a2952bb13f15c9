//! One OpenClaw cell on a bare VM: the host functions upstream's controller calls, the data it
//! reads, and the leg loop (settle, run jobs, check admission, drain, take output, then a
//! boundary, the completed value or a failure), as docs/executor-contract.md describes
//! upstream's worker. Runs on a worker thread; `mod.rs` carries the outcome to Node.

use super::stack::{Location, USER_FILE, format_error, normalize_stack};
use crate::engine::bare::BareVm;
use crate::engine::bytecode;
use crate::engine::limits::{Kill, Signals};
use crate::engine::text;
use crate::error::panic_message;
use code_mode_protocol::executor::{self, ExecutorOutcome, ExecutorRequest, SettlementMode};
use parking_lot::Mutex;
use rquickjs::context::EvalOptions;
use rquickjs::object::Property;
use rquickjs::promise::PromiseState;
use rquickjs::{CatchResultExt, CaughtError, Coerced, Ctx, Function, Object, Promise, Value};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, OnceLock};

/// The bridge methods upstream's worker accepts.
const METHODS: &[&str] = &[
  "search",
  "describe",
  "callValue",
  "resultSave",
  "resultLoad",
  "resultDelete",
  "nodes",
  "yield",
  "namespace",
  "agentSpawn",
  "agentWait",
  "skillsList",
  "skillsRead",
  "sleep",
  "swarmNote",
];

/// Upstream's file name for the controller (its frames are dropped from stacks, see `stack.rs`).
pub const CONTROLLER_FILE: &str = "openclaw-code-mode:controller.js";
const SOURCE_LOCATION_KEY: &str = "__openclawSourceLocation";
/// A call stack passed to `__openclawHostRequest` is cut to this many characters, as upstream.
const MAX_CALL_STACK: usize = 8192;
/// An uncaught error's stack is read up to this many characters (it is only searched for the
/// user's frames).
const MAX_STACK: usize = 64 << 10;
/// One request's arguments, and all pending requests' arguments together, as JSON bytes: what
/// crosses to Node in one boundary stays far below V8's string limit whatever the guest sends.
const MAX_REQUEST_BYTES: usize = 16 << 20;
const MAX_PENDING_BYTES: usize = 64 << 20;
/// A leg's output, and a cell's value, as JSON bytes at most: far below V8's string limit and
/// above what upstream's capture keeps of either (`maxSnapshotBytes`, 10 MiB by default).
const MAX_RESULT_BYTES: usize = 64 << 20;

static ENCODING: OnceLock<Option<Vec<u8>>> = OnceLock::new();

/// A request the guest started and the host has not settled.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
  pub id: String,
  pub method: String,
  /// JSON text of the argument array.
  pub args: String,
}

/// What the host functions share with the leg loop.
#[derive(Debug, Default)]
pub struct Bridge {
  pub pending: Vec<Request>,
  pub canceled: Vec<String>,
  /// Sticky: the guest went past `maxPendingToolCalls`.
  pub admission_failed: bool,
  pub network_observed: bool,
  pub max_pending: usize,
  /// The longest error text the cell may produce, in UTF-16 units (the host cuts it to
  /// `maxOutputBytes` anyway: a larger one is cut here, before it is copied or escaped).
  pub max_error: usize,
  pub location: Option<Location>,
}

/// What a leg starts with.
pub enum Step {
  /// The first leg, on a [`Session::prepare`]d VM: the user program as `buildUserSource` made
  /// it, with its location JSON.
  Exec { source: String, location: String },
  /// A later leg: results to settle (`[{id, ok, json}]` JSON) and the ids of the requests
  /// still pending, in the host's order (its set replaces the cell's).
  Settle {
    settled: String,
    pending: Vec<String>,
  },
}

/// How a leg ended.
pub enum Outcome {
  /// Host work is pending: `awaiting` when the cell's promise is still pending, else draining.
  Boundary {
    awaiting: bool,
    output: String,
    memory_used: usize,
  },
  Completed {
    value: String,
    output: String,
  },
  Failed {
    code: &'static str,
    error: String,
    output: String,
  },
}

pub struct Session {
  pub vm: BareVm,
  pub bridge: Arc<Mutex<Bridge>>,
}

fn failed(code: &'static str, error: impl Into<String>) -> Outcome {
  Outcome::Failed {
    code,
    error: error.into(),
    output: "[]".into(),
  }
}

impl Session {
  pub fn new(memory_limit: usize, max_pending: usize, max_error: usize) -> Result<Session, String> {
    let vm = BareVm::new(memory_limit).map_err(|f| f.message)?;
    let bridge = Arc::new(Mutex::new(Bridge {
      max_pending,
      max_error,
      ..Bridge::default()
    }));
    vm.set_rejection_tracker(Box::new(track_rejection));
    vm.with(|ctx| install(&ctx, &bridge))
      .map_err(|e| format!("code mode runtime could not install its host functions: {e}"))?;
    Ok(Session { vm, bridge })
  }

  /// Runs one leg. Never panics: a panic under the VM becomes an `internal_error`.
  pub fn leg(&mut self, step: Step) -> Outcome {
    match catch_unwind(AssertUnwindSafe(|| self.run(step))) {
      Ok(outcome) => outcome,
      Err(panic) => failed(
        "internal_error",
        format!("code mode runtime failed: {}", panic_message(&*panic)),
      ),
    }
  }

  fn run(&mut self, step: Step) -> Outcome {
    let bridge = self.bridge.clone();
    let max_error = bridge.lock().max_error;
    MAX_ERROR.with(|max| max.set(max_error));
    let signals = self.vm.signals.clone();
    // Output taken this leg: the outcome carries it, a failure after the take too (as upstream).
    let mut taken: Option<String> = None;
    let ended = self.vm.with(|ctx| -> Result<Ended, Stop> {
      match step {
        Step::Exec { source, location } => {
          bridge.lock().location = Location::parse(&location);
          start(&ctx, &source, &location, &bridge)?;
        }
        Step::Settle { settled, pending } => {
          replace_pending(&bridge, pending)?;
          settle(&ctx, &settled, &signals)?;
        }
      }
      while ctx.execute_pending_job() {
        if signals.killed() != Kill::None {
          return Err(Stop::Killed);
        }
      }
      if signals.killed() != Kill::None {
        return Err(Stop::Killed);
      }
      if bridge.lock().admission_failed {
        return Err(Stop::Fail(
          "invalid_input",
          "too many pending code mode tool calls".into(),
        ));
      }
      let location = bridge.lock().location.clone();
      let location = location.as_ref();
      let globals = ctx.globals();
      let admission: Value = call(&ctx, &globals, "__openclawAdmissionError", location)?;
      if admission.is_string() {
        let max = bridge.lock().max_error;
        let message = text::text(&ctx, &admission, max).unwrap_or_default();
        return Err(Stop::Fail("invalid_input", message));
      }
      let _: Value = call(&ctx, &globals, "__openclawDrainQueuedRequests", location)?;
      taken = Some(take_output(&ctx, location)?);
      let result: Value = globals
        .get("__openclawResult")
        .catch(&ctx)
        .map_err(|e| stop(e, location))?;
      let promise = result.as_promise().cloned();
      let awaiting = promise
        .as_ref()
        .is_some_and(|p| p.state() == PromiseState::Pending);
      let requests = !bridge.lock().pending.is_empty();
      if awaiting && !requests {
        return Err(Stop::Fail(
          "internal_error",
          "code mode promise is pending without host work".into(),
        ));
      }
      if awaiting || requests {
        return Ok(Ended::Boundary {
          awaiting,
          memory_used: crate::engine::limits::bytes_held(&ctx),
        });
      }
      let value = read_settled(&ctx, &bridge, promise.as_ref(), &result)?;
      let rejection: Value = call(&ctx, &globals, "__openclawUnhandledRejection", location)?;
      if let Some(rejected) = rejection.as_promise() {
        read_settled(&ctx, &bridge, Some(rejected), &rejection)?;
      }
      if value.len() > MAX_RESULT_BYTES {
        return Err(too_large("value", value.len()));
      }
      Ok(Ended::Completed { value })
    });
    match ended {
      Ok(ended) => {
        let output = taken.unwrap_or_else(|| "[]".into());
        match ended {
          Ended::Boundary {
            awaiting,
            memory_used,
          } => Outcome::Boundary {
            awaiting,
            output,
            memory_used,
          },
          Ended::Completed { value } => Outcome::Completed { value, output },
        }
      }
      Err(stop) => self.failure(stop, taken),
    }
  }

  /// The failed outcome for `stop`, with the output the guest left behind.
  fn failure(&mut self, stop: Stop, taken: Option<String>) -> Outcome {
    let output = taken
      .filter(|o| o.trim() != "[]")
      .or_else(|| self.vm.with(|ctx| take_output(&ctx, None).ok()))
      .unwrap_or_else(|| "[]".into());
    let (code, error) = match (self.vm.killed(), stop) {
      (Kill::Timeout, _) => ("timeout", "code mode timeout exceeded".to_string()),
      (Kill::Memory, _) => ("internal_error", "InternalError: out of memory".to_string()),
      (Kill::Aborted, _) => ("aborted", "code mode execution aborted".to_string()),
      (Kill::Panic, _) => (
        "internal_error",
        format!(
          "code mode runtime failed: {}",
          self.vm.signals.panic_message().unwrap_or_default()
        ),
      ),
      (_, Stop::Fail(code, message)) => (code, message),
      (_, Stop::Caught | Stop::Killed) => (
        "internal_error",
        "code mode runtime failed: the guest controller is missing".to_string(),
      ),
    };
    Outcome::Failed {
      code,
      error,
      output,
    }
  }

  /// Readies a new VM for a cell: `TextEncoder`/`TextDecoder`, the host data globals (`data`,
  /// a JSON object), then the controller, which reads and deletes them. The failure is a code
  /// and a message.
  pub fn prepare(&mut self, data: &str, controller: &[u8]) -> Result<(), (&'static str, String)> {
    self.vm.with(|ctx| {
      let globals = ctx.globals();
      let unavailable = |what: &str| {
        (
          "runtime_unavailable",
          format!("code mode runtime could not {what}"),
        )
      };
      bytecode::load(&ctx, &ENCODING, || include_str!("encoding.js").to_string())
        .map_err(|_| unavailable("install TextEncoder and TextDecoder"))?;
      let data: Object = ctx.json_parse(data).and_then(|v| v.get()).map_err(|_| {
        (
          "invalid_input",
          "invalid code mode worker input".to_string(),
        )
      })?;
      for key in data.keys::<String>() {
        let key = key.map_err(|_| unavailable("read its host data"))?;
        let value: Value = data
          .get(&key)
          .map_err(|_| unavailable("read its host data"))?;
        globals
          .set(key, value)
          .map_err(|_| unavailable("set its host data"))?;
      }
      bytecode::run(&ctx, controller)
        .catch(&ctx)
        .map(|_| ())
        .map_err(|e| match stop(e, None) {
          Stop::Fail(_, message) => (
            "runtime_unavailable",
            format!("code mode controller failed to start: {message}"),
          ),
          _ => unavailable("start its controller"),
        })
    })
  }

  /// What a parked cell retains: the bytes its VM holds once garbage is collected, and the text
  /// of the requests it waits on (their arguments go back to the host at the next boundary).
  pub fn retained_bytes(&self) -> usize {
    self.vm.collect_garbage();
    let bridge = self.bridge.lock();
    let requests: usize = bridge
      .pending
      .iter()
      .map(|r| r.id.len() + r.method.len() + r.args.len())
      .sum::<usize>()
      + bridge.canceled.iter().map(String::len).sum::<usize>();
    self.vm.memory_used() + requests
  }
}

/// How a leg's guest part ended, before its output is attached.
enum Ended {
  Boundary { awaiting: bool, memory_used: usize },
  Completed { value: String },
}

fn too_large(what: &str, bytes: usize) -> Stop {
  Stop::Fail(
    "output_limit_exceeded",
    format!(
      "code mode {what} is too large to return ({bytes} bytes of JSON; at most {MAX_RESULT_BYTES})"
    ),
  )
}

/// Keeps pending only the requests the host names, in its order.
fn replace_pending(bridge: &Mutex<Bridge>, ids: Vec<String>) -> Result<(), Stop> {
  let mut bridge = bridge.lock();
  let mut kept = Vec::with_capacity(ids.len());
  for id in ids {
    let Some(at) = bridge.pending.iter().position(|r| r.id == id) else {
      return Err(Stop::Fail(
        "invalid_input",
        format!("invalid code mode continuation: pending request {id:?} is not one of this cell's"),
      ));
    };
    kept.push(bridge.pending.swap_remove(at));
  }
  bridge.pending = kept;
  Ok(())
}

/// Why a leg stopped early.
enum Stop {
  /// The VM was killed (deadline, memory, abort): `Session::failure` reads which.
  Killed,
  /// A controller function was missing or threw.
  Caught,
  Fail(&'static str, String),
}

/// Calls the controller's global function `name` with no arguments.
fn call<'js>(
  ctx: &Ctx<'js>,
  globals: &Object<'js>,
  name: &str,
  location: Option<&Location>,
) -> Result<Value<'js>, Stop> {
  let function: Function = globals.get(name).map_err(|_| Stop::Caught)?;
  function.call(()).catch(ctx).map_err(|e| stop(e, location))
}

/// An interrupt (deadline, memory, abort) surfaces as an exception too; `Session::failure`
/// reads the kill first, so the exception's text is used only when there was none.
fn stop(error: CaughtError<'_>, location: Option<&Location>) -> Stop {
  let value = match error {
    CaughtError::Exception(e) => e.into_value(),
    CaughtError::Value(v) => v,
    CaughtError::Error(_) => return Stop::Caught,
  };
  let ctx = value.ctx().clone();
  let max = MAX_ERROR.with(|max| max.get());
  Stop::Fail("internal_error", error_text(&ctx, &value, location, max))
}

thread_local! {
  /// The running leg's `Bridge::max_error`, for failures read where the bridge is not at hand.
  static MAX_ERROR: std::cell::Cell<usize> = const { std::cell::Cell::new(DEFAULT_MAX_ERROR) };
}

/// The longest error text read when the host gave no bound: upstream's largest `maxOutputBytes`.
pub const DEFAULT_MAX_ERROR: usize = 10 << 20;

/// The first leg on a prepared VM: the source location global, then the program.
fn start(ctx: &Ctx<'_>, source: &str, location: &str, bridge: &Mutex<Bridge>) -> Result<(), Stop> {
  let globals = ctx.globals();
  globals
    .prop(SOURCE_LOCATION_KEY, Property::from(location))
    .map_err(|_| Stop::Caught)?;
  let mut options = EvalOptions::default();
  options.global = true;
  options.strict = false;
  options.promise = true;
  options.filename = Some(USER_FILE.into());
  ctx
    .eval_with_options::<Value, _>(source, options)
    .catch(ctx)
    .map_err(|e| stop(e, bridge.lock().location.as_ref()))?;
  Ok(())
}

/// Settles each `{id, ok, json}` into the guest through `__openclawSettleBridge`.
fn settle(ctx: &Ctx<'_>, settled: &str, signals: &Signals) -> Result<(), Stop> {
  #[derive(serde::Deserialize)]
  struct Settled {
    id: String,
    ok: bool,
    json: String,
  }
  let list: Vec<Settled> = serde_json::from_str(settled).map_err(|e| {
    Stop::Fail(
      "invalid_input",
      format!("invalid code mode continuation: settledRequests: {e}"),
    )
  })?;
  let function: Function = ctx
    .globals()
    .get("__openclawSettleBridge")
    .map_err(|_| Stop::Caught)?;
  for request in list {
    // A throw here is the controller's (an unknown id); upstream carries on too.
    let _ = function
      .call::<_, Value>((request.id, request.ok, request.json))
      .catch(ctx);
    if signals.killed() != Kill::None {
      return Err(Stop::Killed);
    }
  }
  Ok(())
}

/// `__openclawTakeOutputJson()`: the output since the last take, as JSON text of an array.
fn take_output(ctx: &Ctx<'_>, location: Option<&Location>) -> Result<String, Stop> {
  let value = call(ctx, &ctx.globals(), "__openclawTakeOutputJson", location)?;
  let text = value
    .as_string()
    .and_then(|s| s.to_string().ok())
    .unwrap_or_default();
  if text.len() > MAX_RESULT_BYTES {
    return Err(too_large("output", text.len()));
  }
  // Upstream keeps an array and drops anything else (here: anything but exactly one array).
  Ok(if executor::json_array(&text).is_some() {
    text
  } else {
    "[]".into()
  })
}

/// The settled value of the cell (its JSON text), or the failure its rejection means.
fn read_settled<'js>(
  ctx: &Ctx<'js>,
  bridge: &Mutex<Bridge>,
  promise: Option<&Promise<'js>>,
  value: &Value<'js>,
) -> Result<String, Stop> {
  let settled = match promise {
    Some(promise) => match promise.state() {
      PromiseState::Rejected => {
        let reason: Value = match promise.result::<Value>() {
          Some(Err(rquickjs::Error::Exception)) => ctx.catch(),
          Some(Ok(v)) => v,
          _ => Value::new_undefined(ctx.clone()),
        };
        let (location, max) = {
          let bridge = bridge.lock();
          (bridge.location.clone(), bridge.max_error)
        };
        if let Some(object) = reason.as_object()
          && reason.is_error()
        {
          let name = field(ctx, object, "name", 64).unwrap_or_default();
          let message = field(ctx, object, "message", 64).unwrap_or_default();
          if name == "ReferenceError"
            && ["require", "module", "process"]
              .iter()
              .any(|m| message == format!("{m} is not defined"))
          {
            return Err(Stop::Fail(
              "invalid_input",
              "code mode module access is disabled.".into(),
            ));
          }
        }
        return Err(Stop::Fail(
          "internal_error",
          error_text(ctx, &reason, location.as_ref(), max),
        ));
      }
      _ => promise
        .result::<Value>()
        .and_then(Result::ok)
        .unwrap_or_else(|| Value::new_undefined(ctx.clone())),
    },
    None => value.clone(),
  };
  // The controller's `__openclawRunCell` resolves with JSON text; anything else (a guest that
  // replaced `__openclawResult`) goes through `String(value)`, as upstream's `JSON.parse` sees it.
  if settled.is_undefined() {
    return Ok("undefined".into());
  }
  let text =
    text::text(ctx, &settled, MAX_RESULT_BYTES + 1).unwrap_or_else(|| "unprintable value".into());
  if text.len() > MAX_RESULT_BYTES {
    return Err(too_large("value", text.len()));
  }
  Ok(text)
}

/// Property `key` of an error as text, at most `max` UTF-16 units (`None`: missing or not text).
fn field<'js>(ctx: &Ctx<'js>, object: &Object<'js>, key: &str, max: usize) -> Option<String> {
  let value: Value = object.get(key).ok()?;
  if value.is_undefined() {
    return None;
  }
  text::text(ctx, &value, max)
}

/// Upstream's text for a thrown value: `Name: message` and the user's frames for errors,
/// `String(value)` otherwise; lone surrogates as U+FFFD, and at most `max` units of the guest's
/// own text.
fn error_text<'js>(
  ctx: &Ctx<'js>,
  value: &Value<'js>,
  location: Option<&Location>,
  max: usize,
) -> String {
  if let Some(object) = value.as_object()
    && value.is_error()
  {
    let name = field(ctx, object, "name", 1024).unwrap_or_else(|| "Error".into());
    let message = field(ctx, object, "message", max).unwrap_or_default();
    let stack = field(ctx, object, "stack", MAX_STACK).unwrap_or_default();
    return format_error(&name, &message, &stack, location);
  }
  text::text(ctx, value, max).unwrap_or_else(|| "unprintable value".into())
}

/// QuickJS reports a rejection with no handler (and a handler added later): the controller
/// keeps the set, as upstream's worker wires it.
fn track_rejection<'js>(ctx: Ctx<'js>, promise: Value<'js>, reason: Value<'js>, handled: bool) {
  if let Ok(track) = ctx.globals().get::<_, Function>("__openclawTrackRejection") {
    let _ = track
      .call::<_, Value>((promise, reason, handled))
      .catch(&ctx);
  }
}

/// The three host functions, as globals the controller takes and deletes.
fn install<'js>(ctx: &Ctx<'js>, bridge: &Arc<Mutex<Bridge>>) -> rquickjs::Result<()> {
  let globals = ctx.globals();
  let b = bridge.clone();
  globals.set(
    "__openclawHostRequest",
    Function::new(
      ctx.clone(),
      move |ctx: Ctx<'js>,
            method: Coerced<String>,
            args: Coerced<String>,
            id: rquickjs::function::Opt<Value<'js>>,
            stack: rquickjs::function::Opt<Value<'js>>|
            -> rquickjs::Result<String> {
        host_request(&ctx, &b, method.0, args.0, id.0, stack.0)
      },
    )?,
  )?;
  let b = bridge.clone();
  globals.set(
    "__openclawHostCancelRequest",
    Function::new(ctx.clone(), move |id: Coerced<String>| {
      let mut bridge = b.lock();
      if let Some(at) = bridge.pending.iter().position(|r| r.id == id.0) {
        bridge.pending.remove(at);
        bridge.canceled.push(id.0);
      }
    })?,
  )?;
  let b = bridge.clone();
  globals.set(
    "__openclawHostObserveNetworkContent",
    Function::new(ctx.clone(), move || {
      b.lock().network_observed = true;
    })?,
  )?;
  Ok(())
}

fn host_request<'js>(
  ctx: &Ctx<'js>,
  bridge: &Mutex<Bridge>,
  method: String,
  args: String,
  id: Option<Value<'js>>,
  stack: Option<Value<'js>>,
) -> rquickjs::Result<String> {
  let throw = |message: &str| rquickjs::Exception::throw_message(ctx, message);
  let mut b = bridge.lock();
  if b.pending.len() >= b.max_pending {
    b.admission_failed = true;
    drop(b);
    return Err(throw("too many pending code mode tool calls"));
  }
  if !METHODS.contains(&method.as_str()) {
    drop(b);
    return Err(throw("unsupported code mode bridge method"));
  }
  let pending_bytes: usize = b.pending.iter().map(|r| r.args.len()).sum();
  if args.len() > MAX_REQUEST_BYTES || pending_bytes + args.len() > MAX_PENDING_BYTES {
    drop(b);
    return Err(throw(&format!(
      "code mode bridge arguments are too large ({} bytes; at most {MAX_REQUEST_BYTES} per call and {MAX_PENDING_BYTES} for all pending calls)",
      args.len()
    )));
  }
  // The controller's own `JSON.stringify` of an array, passed through as text: checked to be
  // exactly one JSON array, so no text can add fields to the outcome it is spliced into.
  if executor::json_array(&args).is_none() {
    drop(b);
    return Err(throw(
      "invalid code mode bridge arguments: expected an array",
    ));
  }
  let id = id
    .and_then(|v| v.as_string().and_then(|s| s.to_string().ok()))
    .unwrap_or_default();
  let number = id
    .strip_prefix("bridge:")
    .and_then(|rest| rest.strip_prefix(method.as_str()))
    .and_then(|rest| rest.strip_prefix(':'));
  let valid = number
    .is_some_and(|n| !n.is_empty() && !n.starts_with('0') && n.bytes().all(|c| c.is_ascii_digit()))
    && method.bytes().all(|c| c.is_ascii_alphabetic());
  if !valid {
    drop(b);
    return Err(throw("invalid code mode bridge id"));
  }
  if b.pending.iter().any(|r| r.id == id) {
    drop(b);
    return Err(throw("duplicate code mode bridge id"));
  }
  b.pending.push(Request { id, method, args });
  let location = b.location.clone();
  drop(b);
  let stack = stack
    .filter(Value::is_string)
    .and_then(|v| text::text(ctx, &v, MAX_CALL_STACK))
    .unwrap_or_default();
  Ok(normalize_stack(&stack, location.as_ref()).unwrap_or(stack))
}

/// A leg's outcome as the JSON the executor (`lib/openclaw-executor.js`) reads.
pub fn outcome_json(outcome: &Outcome, bridge: &Bridge) -> String {
  let output = executor::array_or_empty;
  let network_content_observed = bridge.network_observed;
  match outcome {
    Outcome::Boundary {
      awaiting,
      output: text,
      memory_used,
    } => ExecutorOutcome::Boundary {
      pending_requests: bridge
        .pending
        .iter()
        .map(|r| ExecutorRequest {
          id: &r.id,
          method: &r.method,
          // Checked to be one JSON array when the guest made the request (`host_request`).
          args: executor::array_or_empty(&r.args),
        })
        .collect(),
      canceled_request_ids: &bridge.canceled,
      settlement_mode: if *awaiting {
        SettlementMode::Awaiting
      } else {
        SettlementMode::Draining {
          required_request_ids: bridge.pending.iter().map(|r| r.id.as_str()).collect(),
        }
      },
      output: output(text),
      memory_used_bytes: *memory_used,
      network_content_observed,
    },
    Outcome::Completed {
      value,
      output: text,
    } => ExecutorOutcome::Completed {
      value,
      output: output(text),
      network_content_observed,
    },
    Outcome::Failed {
      code,
      error,
      output: text,
    } => ExecutorOutcome::Failed {
      code,
      error,
      output: output(text),
      network_content_observed,
    },
  }
  .to_json()
}

#[cfg(test)]
mod tests {
  use super::*;

  /// A controller with upstream's host-facing names and none of its API: the guest reaches the
  /// host functions directly (`host`), and the cell's value is its JSON.
  const CONTROLLER: &str = r#"
    (() => {
      const host = globalThis.__openclawHostRequest;
      const output = [];
      let rejections = new Set();
      Object.defineProperties(globalThis, {
        host: { value: host },
        cancel: { value: globalThis.__openclawHostCancelRequest },
        log: { value: (t) => output.push({ type: 'text', text: String(t) }) },
        __openclawSettleBridge: { value: (id, ok, json) => { globalThis.settled = [id, ok, json] } },
        __openclawDrainQueuedRequests: { value: () => {} },
        __openclawAdmissionError: { value: () => undefined },
        __openclawRunCell: { value: async (run) => JSON.stringify(await run()) },
        __openclawTakeOutputJson: { value: () => JSON.stringify(output.splice(0)) },
        __openclawTrackRejection: { value: (p, r, handled) => { if (handled) rejections.delete(p); else rejections.add(p) } },
        __openclawUnhandledRejection: { value: () => rejections.values().next().value },
      });
    })();
  "#;

  fn cell(code: &str, max_pending: usize) -> (Session, Outcome) {
    let controller = bytecode::compile_script(CONTROLLER, CONTROLLER_FILE, false, true).unwrap();
    let mut session = Session::new(64 << 20, max_pending, DEFAULT_MAX_ERROR).unwrap();
    session.prepare("{}", &controller).unwrap();
    let source =
      format!("globalThis.__openclawResult = __openclawRunCell(async () => {{\n{code}\n}})");
    let location = r#"{"file":"openclaw-code-mode:user.js","lineOffset":1,"lineCount":1,"columnOffset":0,"endColumn":200}"#;
    let outcome = session.leg(Step::Exec {
      source,
      location: location.into(),
    });
    (session, outcome)
  }

  fn json(session: &Session, outcome: &Outcome) -> serde_json::Value {
    serde_json::from_str(&outcome_json(outcome, &session.bridge.lock())).unwrap()
  }

  #[test]
  fn a_request_makes_a_boundary_and_a_settlement_continues_the_cell() {
    let (mut session, outcome) = cell(
      "log('a'); host('callValue', JSON.stringify(['t', {x: 1}]), 'bridge:callValue:1', ''); await new Promise(() => {})",
      16,
    );
    let v = json(&session, &outcome);
    assert_eq!(v["status"], "boundary");
    assert_eq!(v["settlementMode"]["kind"], "awaiting");
    assert_eq!(v["pendingRequests"][0]["args"][1]["x"], 1);
    assert_eq!(v["output"][0]["text"], "a");
    assert!(v["memoryUsedBytes"].as_u64().unwrap() > 0);
    let next = session.leg(Step::Settle {
      settled: r#"[{"id":"bridge:callValue:1","ok":true,"json":"2"}]"#.into(),
      pending: vec![],
    });
    // The cell's promise never settles and nothing is pending: upstream's failure.
    let v = json(&session, &next);
    assert_eq!(v["status"], "failed");
    assert_eq!(v["error"], "code mode promise is pending without host work");
  }

  #[test]
  fn the_host_refuses_bad_requests_and_caps_pending_ones() {
    for (call, message) in [
      (
        "host('exec', '[]', 'bridge:exec:1')",
        "unsupported code mode bridge method",
      ),
      (
        "host('search', '{}', 'bridge:search:1')",
        "expected an array",
      ),
      (
        "host('search', '[]', 'bridge:search:01')",
        "invalid code mode bridge id",
      ),
      (
        "host('search', '[]', 'bridge:describe:1')",
        "invalid code mode bridge id",
      ),
      (
        "host('search', '[]', 'bridge:search:1'); host('search', '[]', 'bridge:search:1')",
        "duplicate code mode bridge id",
      ),
    ] {
      let (session, outcome) = cell(
        &format!("try {{ {call} }} catch (e) {{ cancel('bridge:search:1'); return e.message }}"),
        16,
      );
      let v = json(&session, &outcome);
      assert!(
        v["value"].as_str().unwrap().contains(message),
        "{call}: {v}"
      );
    }
    let (session, outcome) = cell(
      "for (let i = 1; i <= 3; i++) host('search', '[]', 'bridge:search:' + i)",
      2,
    );
    let v = json(&session, &outcome);
    assert_eq!(v["status"], "failed");
    assert_eq!(v["code"], "invalid_input");
    assert_eq!(v["error"], "too many pending code mode tool calls");
  }

  #[test]
  fn arguments_pass_through_as_the_controller_wrote_them() {
    // A lone surrogate (half an emoji) is valid for JavaScript's JSON.parse on the host side.
    let (session, outcome) = cell(
      "host('callValue', JSON.stringify(['t', {s: '\\uD83D'.slice(0, 1)}]), 'bridge:callValue:1', ''); return 1",
      16,
    );
    let text = outcome_json(&outcome, &session.bridge.lock());
    assert!(text.contains(r#""args":["t",{"s":"\ud83d"}]"#), "{text}");
  }

  #[test]
  fn the_host_pending_set_replaces_the_cells_and_names_only_its_requests() {
    let (mut session, _) = cell(
      "host('search', '[1]', 'bridge:search:1', ''); host('search', '[2]', 'bridge:search:2', ''); await new Promise(() => {})",
      16,
    );
    let next = session.leg(Step::Settle {
      settled: "[]".into(),
      pending: vec!["bridge:search:2".into()],
    });
    let v = json(&session, &next);
    assert_eq!(v["pendingRequests"].as_array().unwrap().len(), 1);
    assert_eq!(v["pendingRequests"][0]["args"][0], 2);
    let next = session.leg(Step::Settle {
      settled: "[]".into(),
      pending: vec!["bridge:search:9".into()],
    });
    let v = json(&session, &next);
    assert_eq!(v["code"], "invalid_input");
    assert!(
      v["error"]
        .as_str()
        .unwrap()
        .contains("not one of this cell's"),
      "{v}"
    );
  }

  #[test]
  fn oversized_arguments_are_refused_in_the_guest() {
    let (session, outcome) = cell(
      "const big = JSON.stringify(['x'.repeat(17 << 20)]); try { host('callValue', big, 'bridge:callValue:1') } catch (e) { return e.message }",
      16,
    );
    let v = json(&session, &outcome);
    assert!(
      v["value"]
        .as_str()
        .unwrap()
        .contains("arguments are too large"),
      "{v}"
    );
  }

  #[test]
  fn a_cancelled_request_is_reported_and_a_fire_and_forget_one_drains() {
    let (session, outcome) = cell(
      "host('sleep', '[5]', 'bridge:sleep:1'); cancel('bridge:sleep:1'); host('callValue', '[]', 'bridge:callValue:2'); return 1",
      16,
    );
    let v = json(&session, &outcome);
    assert_eq!(v["status"], "boundary");
    assert_eq!(v["canceledRequestIds"][0], "bridge:sleep:1");
    assert_eq!(v["settlementMode"]["kind"], "draining");
    assert_eq!(
      v["settlementMode"]["requiredRequestIds"][0],
      "bridge:callValue:2"
    );
  }

  #[test]
  fn errors_carry_user_positions_and_unhandled_rejections_fail_the_cell() {
    let (session, outcome) = cell("null.x", 16);
    let v = json(&session, &outcome);
    assert_eq!(v["code"], "internal_error");
    assert!(
      v["error"]
        .as_str()
        .unwrap()
        .starts_with("TypeError: cannot read property 'x' of null"),
      "{v}"
    );
    let (session, outcome) = cell("Promise.reject(new Error('lost')); return 1", 16);
    let v = json(&session, &outcome);
    assert_eq!(v["status"], "failed");
    assert!(
      v["error"].as_str().unwrap().starts_with("Error: lost"),
      "{v}"
    );
    let (session, outcome) = cell("require('fs')", 16);
    assert_eq!(
      json(&session, &outcome)["error"],
      "code mode module access is disabled."
    );
  }

  #[test]
  fn deadline_and_memory_cap_end_the_leg() {
    let controller = bytecode::compile_script(CONTROLLER, CONTROLLER_FILE, false, true).unwrap();
    let mut session = Session::new(8 << 20, 16, DEFAULT_MAX_ERROR).unwrap();
    session.prepare("{}", &controller).unwrap();
    session.vm.signals.set_deadline(Some(
      std::time::Instant::now() + std::time::Duration::from_millis(50),
    ));
    let outcome = session.leg(Step::Exec {
      source: "globalThis.__openclawResult = __openclawRunCell(async () => { for (;;) {} })".into(),
      location: "{}".into(),
    });
    assert_eq!(json(&session, &outcome)["code"], "timeout");
    let (session, outcome) = cell(
      "const a = []; for (;;) a.push('x'.repeat(1 << 16) + a.length)",
      16,
    );
    assert_eq!(
      json(&session, &outcome)["error"],
      "InternalError: out of memory"
    );
  }
}
