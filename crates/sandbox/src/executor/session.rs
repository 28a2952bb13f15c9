//! One OpenClaw cell on a bare VM: the host functions upstream's controller calls, the data it
//! reads, and the leg loop (settle, run jobs, check admission, drain, take output, then a
//! boundary, the completed value or a failure), as docs/executor-contract.md describes
//! upstream's worker. Runs on a worker thread; `mod.rs` carries the outcome to Node.
//!
//! This file holds the leg loop and the types it shares with the rest; the rest is split by which
//! side of the VM it faces:
//! - `session/controller.rs`: the leg's calls into upstream's controller (start, settle, take the
//!   output, read the settled value) and the text of a thrown value;
//! - `session/host.rs`: the host functions installed in the VM (`__openclawHostRequest` and the
//!   others) and the rejection tracker;
//! - `session/outcome.rs`: a leg's outcome as the JSON the executor reads.

mod controller;
mod host;
mod outcome;
#[cfg(test)]
mod tests;

use super::stack::Location;
use crate::engine::bare::BareVm;
use crate::engine::bytecode;
use crate::engine::limits::Kill;
use crate::engine::text;
use crate::error::panic_message;
use controller::{call, read_settled, settle, start, stop, take_output};
use host::{install, track_rejection};
use parking_lot::Mutex;
use rquickjs::promise::PromiseState;
use rquickjs::{CatchResultExt, CaughtError, Object, Value};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, OnceLock};

pub use outcome::answer;

/// Upstream's file name for the controller (its frames are dropped from stacks, see `stack.rs`).
pub const CONTROLLER_FILE: &str = "openclaw-code-mode:controller.js";
/// A leg's output, and a cell's value, as JSON bytes at most: far below V8's string limit and
/// above what upstream's capture keeps of either (`maxSnapshotBytes`, 10 MiB by default).
const MAX_RESULT_BYTES: usize = 64 << 20;
/// How many times `memoryLimitBytes` a cell's VM may hold. Upstream's QuickJS-WASI is a 32-bit
/// build: its values, pointers and object headers take about half the bytes of this 64-bit one.
/// Measured as the longest array each fits in 64 MiB: of `{ a, b }` objects 1.74 times as long
/// upstream, of numbers 2.27, of strings 1.51, of closures 1.70; OpenClaw's controller over a
/// 30,000-tool catalog fits upstream's 64 MiB and needed 89 MB here. With twice the bytes, a cell
/// that fits upstream's VM fits this one (docs/executor-contract.md, "Memory").
pub const WASM32_HEAP_FACTOR: usize = 2;
/// The largest heap a cell's VM gets, whatever `memoryLimitBytes` says (upstream's 32-bit VM
/// cannot pass 4 GiB either).
const MAX_HEAP_BYTES: usize = 4_000_000_000;

static ENCODING: OnceLock<Option<Vec<u8>>> = OnceLock::new();

/// A request the guest started and the host has not settled.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
  pub id: String,
  pub method: String,
  /// JSON text of the argument array.
  pub args: String,
  /// What the gateway holds for `args` once it parses them (`code_mode_protocol::parsed`).
  pub cost: usize,
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
#[cfg_attr(test, derive(Clone))]
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
  /// `memoryLimitBytes`, named when the host data does not fit in the VM (which holds
  /// [`WASM32_HEAP_FACTOR`] times it).
  memory_limit: usize,
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
    let heap = memory_limit
      .saturating_mul(WASM32_HEAP_FACTOR)
      .min(MAX_HEAP_BYTES.max(memory_limit));
    let vm = BareVm::new(heap).map_err(|f| f.message)?;
    let bridge = Arc::new(Mutex::new(Bridge {
      max_pending,
      max_error,
      ..Bridge::default()
    }));
    vm.set_rejection_tracker(Box::new(track_rejection));
    vm.with(|ctx| install(&ctx, &bridge))
      .map_err(|e| format!("code mode runtime could not install its host functions: {e}"))?;
    Ok(Session {
      vm,
      bridge,
      memory_limit,
    })
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
        return Err(too_large("value", Some(value.len())));
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
    let prepared = self.vm.with(|ctx| {
      let globals = ctx.globals();
      let unavailable = |what: &str| {
        (
          "runtime_unavailable",
          format!("code mode runtime could not {what}"),
        )
      };
      bytecode::load(&ctx, &ENCODING, || include_str!("encoding.js").to_string())
        .map_err(|_| unavailable("install TextEncoder and TextDecoder"))?;
      // Upstream's QuickJS-WASI has no `Atomics`: its cells see the same globals here.
      globals
        .remove("Atomics")
        .map_err(|_| unavailable("set its globals"))?;
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
        .map_err(|e| {
          // A thrown value that is no Error (an uncatchable kill throws `null`) is named as
          // one: its bare text would read as the message.
          let error = matches!(e, CaughtError::Exception(_));
          match stop(e, None) {
            Stop::Fail(_, message) if error => (
              "runtime_unavailable",
              format!("code mode controller failed to start: {message}"),
            ),
            Stop::Fail(_, message) => (
              "runtime_unavailable",
              format!("code mode controller failed to start: it threw {message}, not an Error"),
            ),
            _ => unavailable("start its controller"),
          }
        })
    });
    // Whatever step ran out (the data's parse, the controller's tables), the memory kill is the
    // cause. Upstream's controller fails such a catalog as a guest `InternalError: out of
    // memory` (`internal_error`); the size of what the host sent is what to shrink.
    prepared.map_err(|failure| {
      if self.vm.killed() != Kill::Memory {
        return failure;
      }
      (
        "internal_error",
        format!(
          "InternalError: out of memory: the catalog, namespaces and API files ({} bytes of \
           JSON) and the code mode controller do not fit in memoryLimitBytes ({} bytes)",
          data.len(),
          self.memory_limit
        ),
      )
    })
  }

  /// What a parked cell retains: the bytes its VM holds once garbage is collected, and the
  /// requests it waits on, their arguments counted as the host holds them once parsed
  /// (`crates/protocol/src/parsed.rs`; they go back to the host at the next boundary).
  pub fn retained_bytes(&self) -> usize {
    self.vm.collect_garbage();
    let bridge = self.bridge.lock();
    let requests: usize = bridge
      .pending
      .iter()
      .map(|r| r.id.len() + r.method.len() + r.cost)
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

/// The failure of a `what` of `bytes` bytes of JSON past [`MAX_RESULT_BYTES`]; `None` when it was
/// read no further than that.
fn too_large(what: &str, bytes: Option<usize>) -> Stop {
  let size = match bytes {
    Some(bytes) => format!("{bytes} bytes of JSON; at most {MAX_RESULT_BYTES}"),
    None => format!("more than {MAX_RESULT_BYTES} bytes of JSON"),
  };
  Stop::Fail(
    "output_limit_exceeded",
    format!("code mode {what} is too large to return ({size})"),
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

thread_local! {
  /// The running leg's `Bridge::max_error`, for failures read where the bridge is not at hand.
  static MAX_ERROR: std::cell::Cell<usize> = const { std::cell::Cell::new(DEFAULT_MAX_ERROR) };
}

/// The longest error text read when the host gave no bound: upstream's largest `maxOutputBytes`.
pub const DEFAULT_MAX_ERROR: usize = 10 << 20;
