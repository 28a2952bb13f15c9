//! The OpenClaw executor host: upstream's guest controller on the engine's bare VMs. The
//! contract (`execute`, boundaries, continuations) is driven from `lib/openclaw-executor.js`;
//! this module binds what it needs: controllers compiled once, and a cell whose legs run on the
//! engine's workers and resolve a promise with the leg's outcome JSON (`session.rs`).

mod session;
mod stack;

use crate::engine::bare;
use crate::engine::bytecode;
use crate::engine::limits::Kill;
use crate::error::panic_message;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use parking_lot::Mutex;
use session::{Outcome, Session, Step};
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// A compiled controller: its key (the source's hash, in hex), source and bytecode.
struct Controller {
  key: String,
  source: String,
  bytecode: Arc<Vec<u8>>,
}

/// Compiled controllers, newest last; a few at most (one per openclaw version in the process).
static CONTROLLERS: Mutex<Vec<Controller>> = Mutex::new(Vec::new());
const MAX_CONTROLLERS: usize = 4;

/// Compiles an OpenClaw guest controller to bytecode, once per source: returns its key for
/// `NativeExecutorCell.start`. Throws (with QuickJS's message) when the source does not compile.
#[napi(catch_unwind)]
pub fn compile_executor_controller(source: String) -> Result<String> {
  let key = format!("{:016x}", hash(&source));
  let known = |c: &Controller| c.key == key && c.source == source;
  if CONTROLLERS.lock().iter().any(known) {
    return Ok(key);
  }
  let bytecode =
    bytecode::compile_script(&source, session::CONTROLLER_FILE, false, true).map_err(|e| {
      Error::new(
        Status::InvalidArg,
        format!("the code mode controller source does not compile: {e}"),
      )
    })?;
  let mut controllers = CONTROLLERS.lock();
  controllers.retain(|c| c.key != key);
  if controllers.len() >= MAX_CONTROLLERS {
    controllers.remove(0);
  }
  controllers.push(Controller {
    key: key.clone(),
    source,
    bytecode: Arc::new(bytecode),
  });
  Ok(key)
}

fn controller(key: &str) -> Option<Arc<Vec<u8>>> {
  CONTROLLERS
    .lock()
    .iter()
    .find(|c| c.key == key)
    .map(|c| c.bytecode.clone())
}

/// Limits of one executor cell.
#[napi(object)]
pub struct ExecutorCellLimits {
  pub memory_limit_bytes: f64,
  pub max_pending_tool_calls: u32,
}

struct Shared {
  session: Mutex<Option<Session>>,
  /// The VM's kill switch, readable while a leg holds `session`.
  signals: Mutex<Option<Arc<crate::engine::limits::Signals>>>,
  running: AtomicBool,
  disposed: AtomicBool,
  /// `abort` came, perhaps before the leg's VM was ready: applied as soon as it is.
  aborted: AtomicBool,
  limits: (usize, usize),
}

/// Frees a VM on a worker, not on Node's thread (freeing a large heap takes a while).
fn free_on_worker(session: Session) {
  let _ = bare::spawn(Box::new(move || drop(session)), None, Box::new(|| {}));
}

impl Drop for Shared {
  /// A cell dropped by the garbage collector (never disposed) frees its VM too.
  fn drop(&mut self) {
    if let Some(session) = self.session.get_mut().take() {
      free_on_worker(session);
    }
  }
}

/// The native half of one OpenClaw cell (`lib/openclaw-executor.js` drives it). Its VM lives
/// here between legs: a parked continuation costs what the VM holds, and no thread.
#[napi]
pub struct NativeExecutorCell {
  shared: Arc<Shared>,
}

type Resolve = napi::JsDeferred<String, Box<dyn FnOnce(Env) -> Result<String> + Send>>;

fn resolve(deferred: Resolve, json: String) {
  deferred.resolve(Box::new(move |_| Ok(json)));
}

fn failed_json(code: &str, error: &str) -> String {
  format!(
    "{{\"status\":\"failed\",\"code\":\"{code}\",\"error\":{},\"output\":[]}}",
    serde_json::to_string(error).unwrap_or_default()
  )
}

#[napi]
impl NativeExecutorCell {
  #[napi(constructor)]
  pub fn new(limits: ExecutorCellLimits) -> Self {
    // A NaN would clamp to 0, which QuickJS reads as "no limit".
    let memory = if limits.memory_limit_bytes.is_finite() {
      limits.memory_limit_bytes.clamp(1.0 * 1024.0 * 1024.0, 4e9) as usize
    } else {
      64 << 20
    };
    NativeExecutorCell {
      shared: Arc::new(Shared {
        session: Mutex::new(None),
        signals: Mutex::new(None),
        running: AtomicBool::new(false),
        disposed: AtomicBool::new(false),
        aborted: AtomicBool::new(false),
        limits: (memory, limits.max_pending_tool_calls.max(1) as usize),
      }),
    }
  }

  /// The first leg: a VM with the data globals (`dataJson`, an object), the controller (`key`
  /// from `compileExecutorController`), then the program. Resolves with the outcome JSON.
  #[napi(ts_return_type = "Promise<string>")]
  pub fn start<'env>(
    &self,
    env: &'env Env,
    key: String,
    data_json: String,
    source: String,
    location_json: String,
    timeout_ms: f64,
  ) -> Result<Object<'env>> {
    let step = controller(&key).map(|controller| {
      let prepare = Prepare {
        key: SpareKey {
          controller: key,
          memory: self.shared.limits.0,
          max_pending: self.shared.limits.1,
          data: Arc::new(data_json),
        },
        controller,
      };
      (
        Step::Exec {
          source,
          location: location_json,
        },
        Some(prepare),
      )
    });
    self.leg(env, step, timeout_ms)
  }

  /// A later leg: settles `settledJson` (`[{id, ok, json}]`), keeps pending only the requests
  /// named in `pendingIds` (newline-separated, in the host's order: the host's pending set
  /// replaces the cell's, and every request in it is one of the cell's own), then runs. Resolves
  /// with the outcome JSON.
  #[napi(ts_return_type = "Promise<string>")]
  pub fn next<'env>(
    &self,
    env: &'env Env,
    settled_json: String,
    pending_ids: String,
    timeout_ms: f64,
  ) -> Result<Object<'env>> {
    let pending = pending_ids
      .split('\n')
      .filter(|id| !id.is_empty())
      .map(str::to_string)
      .collect();
    self.leg(
      env,
      Some((
        Step::Settle {
          settled: settled_json,
          pending,
        },
        None,
      )),
      timeout_ms,
    )
  }

  fn leg<'env>(
    &self,
    env: &'env Env,
    step: Option<(Step, Option<Prepare>)>,
    timeout_ms: f64,
  ) -> Result<Object<'env>> {
    let (deferred, promise): (Resolve, Object) = env.create_deferred()?;
    let refuse = if self.shared.disposed.load(Ordering::Acquire) {
      Some((
        "runtime_unavailable",
        "Code Mode continuation has already been consumed or disposed".to_string(),
      ))
    } else if step.is_none() {
      Some((
        "runtime_unavailable",
        "the code mode controller is not loaded".to_string(),
      ))
    } else if !(timeout_ms.is_finite() && timeout_ms > 0.0) {
      Some(("timeout", "code mode timeout exceeded".to_string()))
    } else if self.shared.running.swap(true, Ordering::AcqRel) {
      Some((
        "runtime_unavailable",
        "a code mode leg is already running in this cell".to_string(),
      ))
    } else {
      None
    };
    if let Some((code, message)) = refuse {
      resolve(deferred, failed_json(code, &message));
      return Ok(promise);
    }
    let (step, prepare) = step.expect("checked above");
    let deadline = Instant::now() + Duration::from_secs_f64(timeout_ms.min(1e9) / 1000.0);
    let shared = self.shared.clone();
    let once = Arc::new(Mutex::new(Some(deferred)));
    let stuck = once.clone();
    let refused = once.clone();
    let work = Box::new(move || {
      let ran = catch_unwind(AssertUnwindSafe(|| {
        run_leg(&shared, step, prepare, deadline)
      }));
      let (json, finished, prepare) = ran.unwrap_or_else(|panic| {
        let message = format!("code mode runtime failed: {}", panic_message(&*panic));
        (failed_json("internal_error", &message), None, None)
      });
      shared.running.store(false, Ordering::Release);
      if let Some(deferred) = once.lock().take() {
        resolve(deferred, json);
      }
      // After the result is on its way, and as work of its own (no deadline, so the watchdog
      // never counts a slow free against the pool): the finished VM is freed, and the next cell
      // of the same run gets a VM ready for it.
      if finished.is_some() || prepare.is_some() {
        let cleanup = Box::new(move || {
          drop(finished);
          if let Some(prepare) = prepare {
            spares::refill(prepare);
          }
        });
        let _ = bare::spawn(cleanup, None, Box::new(|| {}));
      }
    });
    let stuck_shared = self.shared.clone();
    let on_stuck = Box::new(move || {
      // The VM is still in use on the abandoned thread: this cell can never run again.
      stuck_shared.disposed.store(true, Ordering::Release);
      if let Some(deferred) = stuck.lock().take() {
        resolve(
          deferred,
          failed_json("timeout", "code mode timeout exceeded"),
        );
      }
    });
    if let Err(message) = bare::spawn(work, Some(deadline), on_stuck) {
      self.shared.running.store(false, Ordering::Release);
      if let Some(deferred) = refused.lock().take() {
        resolve(deferred, failed_json("runtime_unavailable", &message));
      }
    }
    Ok(promise)
  }

  /// Collects the parked VM's garbage and resolves with the bytes it still holds (a
  /// continuation's `retainedBytes`).
  #[napi(ts_return_type = "Promise<number>")]
  pub fn park<'env>(&self, env: &'env Env) -> Result<Object<'env>> {
    let (deferred, promise) =
      env.create_deferred::<f64, Box<dyn FnOnce(Env) -> Result<f64> + Send>>()?;
    let shared = self.shared.clone();
    let once = Arc::new(Mutex::new(Some(deferred)));
    let refused = once.clone();
    let work = Box::new(move || {
      let bytes = shared
        .session
        .lock()
        .as_ref()
        .map_or(0, |s| s.retained_bytes());
      if let Some(deferred) = once.lock().take() {
        deferred.resolve(Box::new(move |_| Ok(bytes as f64)));
      }
    });
    if bare::spawn(work, None, Box::new(|| {})).is_err() {
      // No worker to collect on: report what the VM holds now.
      let bytes = self
        .shared
        .session
        .try_lock()
        .and_then(|s| s.as_ref().map(|s| s.vm.memory_used()))
        .unwrap_or(usize::MAX);
      if let Some(deferred) = refused.lock().take() {
        deferred.resolve(Box::new(move |_| Ok(bytes as f64)));
      }
    }
    Ok(promise)
  }

  /// Stops the running leg (it ends `aborted`).
  #[napi]
  pub fn abort(&self) {
    self.shared.aborted.store(true, Ordering::Release);
    if let Some(signals) = self.shared.signals.lock().as_ref() {
      signals.kill(Kill::Aborted);
    }
  }

  /// Frees the VM (on a worker); later legs fail `runtime_unavailable`. Idempotent.
  #[napi]
  pub fn dispose(&self) {
    if self.shared.disposed.swap(true, Ordering::AcqRel) {
      return;
    }
    if let Some(session) = self.shared.session.try_lock().and_then(|mut s| s.take()) {
      free_on_worker(session);
    }
  }
}

/// One leg on a worker: takes a ready VM (or prepares one) on the first, runs, and keeps it
/// parked for the next leg or hands it back to be freed once the outcome is sent.
fn run_leg(
  shared: &Shared,
  step: Step,
  prepare: Option<Prepare>,
  deadline: Instant,
) -> (String, Option<Session>, Option<Prepare>) {
  let mut slot = shared.session.lock();
  if shared.disposed.load(Ordering::Acquire) {
    let json = failed_json(
      "runtime_unavailable",
      "Code Mode continuation has already been consumed or disposed",
    );
    return (json, slot.take(), None);
  }
  if slot.is_none() {
    let Some(prepare) = &prepare else {
      return (
        failed_json("runtime_unavailable", "the code mode cell has no VM"),
        None,
        None,
      );
    };
    match spares::take(&prepare.key).map_or_else(|| spares::build(prepare, deadline), Ok) {
      Ok(session) => {
        *shared.signals.lock() = Some(session.vm.signals.clone());
        *slot = Some(session);
      }
      Err((code, message)) => return (failed_json(code, &message), None, None),
    }
  }
  let session = slot.as_mut().expect("built above");
  if shared.aborted.load(Ordering::Acquire) {
    session.vm.signals.kill(Kill::Aborted);
  }
  session.vm.signals.set_deadline(Some(deadline));
  let outcome = session.leg(step);
  session.vm.signals.set_deadline(None);
  let json = session::outcome_json(&outcome, &session.bridge.lock());
  // A cell disposed while its leg ran keeps nothing.
  let keep =
    matches!(outcome, Outcome::Boundary { .. }) && !shared.disposed.load(Ordering::Acquire);
  if keep {
    session.bridge.lock().canceled.clear();
    return (json, None, prepare);
  }
  *shared.signals.lock() = None;
  (json, slot.take(), prepare)
}

fn hash(text: &str) -> u64 {
  let mut hasher = DefaultHasher::new();
  text.hash(&mut hasher);
  hasher.finish()
}

/// What a cell's first VM is prepared with.
pub(crate) struct Prepare {
  key: SpareKey,
  controller: Arc<Vec<u8>>,
}

/// VMs of the same preparation are interchangeable before their program runs. Compared field by
/// field, the data text last: a length check, then a `memcmp` only when the lengths agree (no
/// hashing of a large catalog's megabytes per cell).
#[derive(Debug, Clone, PartialEq, Eq)]
struct SpareKey {
  controller: String,
  memory: usize,
  max_pending: usize,
  /// The host data globals, as JSON.
  data: Arc<String>,
}

/// VMs prepared ahead (controller run over the host data, no program yet) for the next cell of
/// a run: a gateway sends the same catalog with every exec of a run, and preparing the controller
/// is most of a cell's start. Built on a worker after a cell's result is sent.
mod spares {
  use super::{Prepare, Session, SpareKey};
  use parking_lot::Mutex;
  use std::time::{Duration, Instant};

  /// Spare VMs kept at most (each holds a controller's heap, ~170 KB with a small catalog), and
  /// per preparation: two, so that a cell arriving while the last one's spare is still being
  /// built finds one ready.
  const MAX_SPARES: usize = 6;
  const PER_KEY: usize = 2;
  /// How long preparing a spare may run (the controller and data are the gateway's own).
  const PREPARE_BUDGET: Duration = Duration::from_secs(5);

  static SPARES: Mutex<Vec<(SpareKey, Session)>> = Mutex::new(Vec::new());

  pub(super) fn take(key: &SpareKey) -> Option<Session> {
    let mut spares = SPARES.lock();
    let at = spares.iter().rposition(|(k, _)| k == key)?;
    Some(spares.remove(at).1)
  }

  /// A new VM, prepared under `deadline`.
  pub(super) fn build(
    prepare: &Prepare,
    deadline: Instant,
  ) -> Result<Session, (&'static str, String)> {
    let mut session = Session::new(prepare.key.memory, prepare.key.max_pending)
      .map_err(|message| ("runtime_unavailable", message))?;
    session.vm.signals.set_deadline(Some(deadline));
    match session.prepare(&prepare.key.data, &prepare.controller) {
      Ok(()) => Ok(session),
      Err(_) if session.vm.killed() == crate::engine::limits::Kill::Timeout => {
        Err(("timeout", "code mode timeout exceeded".into()))
      }
      Err(failure) => Err(failure),
    }
  }

  /// Tops up the spares of this preparation.
  pub(super) fn refill(prepare: Prepare) {
    while SPARES
      .lock()
      .iter()
      .filter(|(k, _)| *k == prepare.key)
      .count()
      < PER_KEY
    {
      let Ok(session) = build(&prepare, Instant::now() + PREPARE_BUDGET) else {
        return;
      };
      session.vm.signals.set_deadline(None);
      let mut spares = SPARES.lock();
      let oldest = (spares.len() >= MAX_SPARES).then(|| spares.remove(0));
      spares.push((prepare.key.clone(), session));
      drop(spares);
      drop(oldest);
    }
  }
}
