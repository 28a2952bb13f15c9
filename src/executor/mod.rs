//! The OpenClaw executor host, the addon's half: `compileExecutorController` and
//! `NativeExecutorCell`, a handle on one cell that lives in a sandbox process
//! (`crates/sandbox/src/executor/`). The contract (`execute`, boundaries, continuations) is
//! driven from `lib/openclaw-executor.js`; each leg's promise settles with the leg's outcome
//! JSON, whatever happens to the process.

use crate::admission;
use crate::promise::{self, Settle};
use crate::sandbox::{self, process::Phase, process::Process};
use code_mode_protocol::wire::{Answer, Command, Data};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use parking_lot::Mutex;
use std::collections::VecDeque;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

/// Controllers by key (a hash of the source), newest last: sent to each process before its
/// first cell of that controller.
static CONTROLLERS: Mutex<Vec<(String, Arc<str>)>> = Mutex::new(Vec::new());
const MAX_CONTROLLERS: usize = 4;

/// Data texts by id, newest last: a run sends the same catalog with every cell, and a process
/// keeps the last few it was sent (`crates/sandbox/src/lib.rs`, `MAX_DATA`).
static DATA: Mutex<VecDeque<(u64, Arc<String>)>> = Mutex::new(VecDeque::new());
const MAX_DATA: usize = 8;
static NEXT_DATA: AtomicU64 = AtomicU64::new(1);
static NEXT_CELL: AtomicU64 = AtomicU64::new(1);

fn hash(text: &str) -> u64 {
  let mut hasher = DefaultHasher::new();
  text.hash(&mut hasher);
  hasher.finish()
}

use code_mode_protocol::executor::{LegAnswer, failed_json};

/// One leg's answer, as `start` and `next` resolve it.
#[napi(object)]
pub struct ExecutorLegAnswer {
  /// The leg's outcome as JSON: a boundary, a failure, or `{"status":"completed",…}`.
  pub outcome: String,
  /// A completed cell's value as JSON text. It comes beside the outcome, not in it, so that the
  /// event loop parses only the outcome (crates/protocol/src/executor.rs).
  pub value: Option<String>,
}

impl From<LegAnswer> for ExecutorLegAnswer {
  fn from(answer: LegAnswer) -> Self {
    ExecutorLegAnswer {
      outcome: answer.outcome,
      value: answer.value,
    }
  }
}

/// An answer with no value: a failure made here.
fn failed_answer(code: &str, message: &str) -> ExecutorLegAnswer {
  LegAnswer::from(failed_json(code, message)).into()
}

/// The outcome of a leg aborted or disposed before it started.
fn never_started() -> ExecutorLegAnswer {
  failed_answer(
    "aborted",
    "code mode execution aborted before the cell started",
  )
}

/// Compiles an OpenClaw guest controller in a sandbox process, once per source; resolves with
/// its key for `NativeExecutorCell.start`, and rejects with QuickJS's message when the source
/// does not compile.
#[napi(catch_unwind, ts_return_type = "Promise<string>")]
pub fn compile_executor_controller<'env>(env: &'env Env, source: String) -> Result<Object<'env>> {
  let (settle, promise) = promise::create::<String>(env)?;
  let key = format!("{:016x}", hash(&source));
  {
    let mut controllers = CONTROLLERS.lock();
    controllers.retain(|(k, _)| *k != key);
    if controllers.len() >= MAX_CONTROLLERS {
      controllers.remove(0);
    }
    controllers.push((key.clone(), source.into()));
  }
  match sandbox::process_for(0) {
    Err(failure) => settle.reject(failure.message),
    Ok(process) => define_controller(&process, &key, Some((settle, key.clone()))),
  }
  Ok(promise)
}

/// Sends controller `key` to `process` unless it has it; `answer` learns whether it compiled.
fn define_controller(process: &Arc<Process>, key: &str, answer: Option<(Settle<String>, String)>) {
  let fresh = process.told.lock().controllers.insert(key.to_string());
  let source = CONTROLLERS
    .lock()
    .iter()
    .find(|(k, _)| k == key)
    .map(|(_, source)| source.clone());
  let Some(source) = source else {
    if let Some((settle, _)) = answer {
      settle.reject("the code mode controller is not loaded");
    }
    return;
  };
  if !fresh {
    if let Some((settle, key)) = answer {
      settle.resolve(key);
    }
    return;
  }
  let request = sandbox::next_request();
  let command = Command::Compile {
    request,
    key: key.to_string(),
    source: source.to_string(),
  };
  let told = process.clone();
  let forget = key.to_string();
  process.request(
    request,
    &command,
    Box::new(move |reply| {
      let compiled = match reply {
        Answer::Unit => Ok(()),
        Answer::Error(message) => Err(message),
        _ => Err("the sandbox answered a compile with something else".into()),
      };
      if compiled.is_err() {
        told.told.lock().controllers.remove(&forget);
      }
      if let Some((settle, key)) = answer {
        match compiled {
          Ok(()) => settle.resolve(key),
          Err(message) => settle.reject(message),
        }
      }
    }),
  );
}

/// The data globals for `process`: known there already, or sent now.
fn data_for(process: &Arc<Process>, text: String) -> Data {
  let id = {
    let mut table = DATA.lock();
    // Compared by length, then bytes (no hashing of a large catalog's megabytes per cell).
    match table
      .iter()
      .find(|(_, known)| known.len() == text.len() && **known == text)
    {
      Some((id, _)) => *id,
      None => {
        let id = NEXT_DATA.fetch_add(1, Ordering::Relaxed);
        if table.len() >= MAX_DATA {
          table.pop_front();
        }
        table.push_back((id, Arc::new(text.clone())));
        id
      }
    }
  };
  let mut told = process.told.lock();
  if told.data.contains(&id) {
    return Data::Known { id };
  }
  if told.data.len() >= MAX_DATA {
    told.data.pop_front();
  }
  told.data.push_back(id);
  Data::New { id, text }
}

/// Routes cells with the same data to the same process (its prepared VMs are there): a cheap
/// fingerprint of the text, not a hash of all of it.
fn affinity(data: &str) -> u64 {
  let bytes = data.as_bytes();
  let head = &bytes[..bytes.len().min(256)];
  let tail = &bytes[bytes.len().saturating_sub(256)..];
  let mut hasher = DefaultHasher::new();
  (bytes.len(), head, tail).hash(&mut hasher);
  hasher.finish()
}

/// Limits of one executor cell (`tools.codeMode` as the gateway resolved it).
#[napi(object)]
pub struct ExecutorCellLimits {
  /// The VM's heap limit (`memoryLimitBytes`), clamped to 1 MiB..4 GB; 64 MiB when not finite.
  pub memory_limit_bytes: f64,
  /// Tool requests the cell may have pending at once (`maxPendingToolCalls`), at least 1.
  pub max_pending_tool_calls: u32,
  /// The cell's `maxOutputBytes`: an error text longer than this is cut in the sandbox, before
  /// it is copied or escaped.
  pub max_output_bytes: Option<f64>,
}

/// A request the host settled, as a continuation's `settledRequests` gives it.
#[napi(object, object_to_js = false)]
#[derive(serde::Serialize)]
pub struct ExecutorSettledRequest {
  /// The request's id (one of the cell's pending requests).
  pub id: String,
  /// Whether the request succeeded.
  pub ok: bool,
  /// Its result (ok) or error, as JSON text.
  pub json: String,
}

/// A leg's promise, settled once by whichever of its paths ends it.
type Pending = Arc<Mutex<Option<Settle<ExecutorLegAnswer>>>>;

/// What a leg that got its slot checks before it is sent.
#[derive(Default)]
struct Gate {
  /// The leg was aborted (cleared when the next leg is made).
  aborted: bool,
  /// The cell is disposed: no leg goes out any more.
  disposed: bool,
}

/// The native half of one OpenClaw cell (`lib/openclaw-executor.js` drives it): a handle on
/// the cell in its sandbox process, where its VM lives between legs.
#[napi]
pub struct NativeExecutorCell {
  id: u64,
  /// (memory limit, max pending tool calls, max output bytes)
  limits: (u64, u32, u64),
  process: Mutex<Option<Arc<Process>>>,
  /// Whether the leg is aborted and the cell disposed. A leg's command is sent under it, and an
  /// abort and the dispose too: a leg that waited for its slot (`maxActiveCells`) goes out
  /// before them or not at all, so the sandbox never hears of a leg after its abort or of a cell
  /// after its dispose.
  gate: Arc<Mutex<Gate>>,
  /// The leg waiting for its slot, if any: its admission number and its promise.
  queued: Arc<Mutex<Option<(u64, Pending)>>>,
  /// Parked: counted in its process's `parked_executor` (`sandbox::executor_parked`).
  parked: AtomicBool,
  /// When the running leg started on a worker (`sandbox::now_ms`; 0 while it waits).
  leg_started: Arc<AtomicU64>,
  /// The sandbox answered a leg with a final outcome (completed or failed) and forgot the cell
  /// itself: disposing it sends nothing.
  ended: Arc<AtomicBool>,
}

impl NativeExecutorCell {
  /// The cell is no longer parked (resumed or disposed).
  fn unpark(&self) {
    if self.parked.swap(false, Ordering::AcqRel)
      && let Some(process) = self.process.lock().as_ref()
    {
      process.parked_executor.fetch_sub(1, Ordering::AcqRel);
    }
  }

  /// Runs a leg: admitted, sent, and answered on every path.
  fn leg(
    &self,
    settle: Settle<ExecutorLegAnswer>,
    process: Arc<Process>,
    timeout_ms: f64,
    command: impl FnOnce(u64) -> Command + Send + 'static,
  ) {
    let settle: Pending = Arc::new(Mutex::new(Some(settle)));
    let failed = settle.clone();
    let waiting = settle.clone();
    let started = self.leg_started.clone();
    started.store(0, Ordering::Release);
    let ended = self.ended.clone();
    self.gate.lock().aborted = false;
    let gate = self.gate.clone();
    let queued = self.queued.clone();
    let start = move || {
      queued.lock().take();
      let open = gate.lock();
      if open.aborted || open.disposed {
        // Aborted or disposed once `abort`/`dispose` could no longer take it off the queue: its
        // slot is passed on.
        drop(open);
        admission::release();
        if let Some(settle) = settle.lock().take() {
          settle.resolve(never_started());
        }
        return;
      }
      let request = sandbox::next_request();
      let command = command(request);
      process.watch_start(request, started);
      let answered = settle.clone();
      let lost = process.clone();
      process.request(
        request,
        &command,
        Box::new(move |answer| {
          admission::release();
          let answer = match answer {
            Answer::Leg(answer) => {
              // Anything but a boundary ends the cell there (crates/sandbox/src/executor/mod.rs).
              if !answer.outcome.starts_with(r#"{"status":"boundary""#) {
                ended.store(true, Ordering::Release);
              }
              answer.into()
            }
            Answer::Error(message) => failed_answer("runtime_unavailable", &message),
            _ => failed_answer("runtime_unavailable", &lost.lost()),
          };
          if let Some(settle) = answered.lock().take() {
            settle.resolve(answer);
          }
        }),
      );
      drop(open);
    };
    let fail = move |failure: crate::error::Failure| {
      if let Some(settle) = failed.lock().take() {
        settle.resolve(failed_answer(failure.code.as_str(), &failure.message));
      }
    };
    let wait = if timeout_ms.is_finite() && timeout_ms > 0.0 {
      Duration::from_secs_f64(timeout_ms.min(1e9) / 1000.0)
    } else {
      Duration::ZERO
    };
    if let admission::Admitted::Queued(number) = admission::admit(wait, start, fail) {
      *self.queued.lock() = Some((number, waiting));
    }
  }

  /// Takes the leg waiting for its slot off the queue, settled as never started; false when
  /// none waits (it runs, or has ended).
  fn unqueue(&self) -> bool {
    let Some((number, pending)) = self.queued.lock().take() else {
      return false;
    };
    if !admission::cancel(number) {
      return false;
    }
    if let Some(settle) = pending.lock().take() {
      settle.resolve(never_started());
    }
    true
  }

  /// The process holding this cell, if it still holds it.
  fn holder(&self) -> std::result::Result<Arc<Process>, String> {
    if self.gate.lock().disposed {
      return Err("Code Mode continuation has already been consumed or disposed".into());
    }
    match self.process.lock().clone() {
      Some(process) if process.phase() != Phase::Dead => Ok(process),
      Some(process) => Err(process.lost()),
      None => Err("the code mode cell has no VM".into()),
    }
  }
}

#[napi]
impl NativeExecutorCell {
  #[napi(constructor, catch_unwind)]
  pub fn new(limits: ExecutorCellLimits) -> Self {
    // A NaN would clamp to 0, which QuickJS reads as "no limit".
    let memory = if limits.memory_limit_bytes.is_finite() {
      limits.memory_limit_bytes.clamp(1024.0 * 1024.0, 4e9) as u64
    } else {
      64 << 20
    };
    NativeExecutorCell {
      id: NEXT_CELL.fetch_add(1, Ordering::Relaxed),
      limits: (
        memory,
        limits.max_pending_tool_calls.max(1),
        limits
          .max_output_bytes
          .filter(|n| n.is_finite() && *n >= 1.0)
          .map_or(0, |n| n.min(1e9) as u64),
      ),
      process: Mutex::new(None),
      gate: Arc::new(Mutex::new(Gate::default())),
      queued: Arc::new(Mutex::new(None)),
      parked: AtomicBool::new(false),
      leg_started: Arc::new(AtomicU64::new(0)),
      ended: Arc::new(AtomicBool::new(false)),
    }
  }

  /// The first leg: a VM with the data globals (`dataJson`, an object), the controller (`key`
  /// from `compileExecutorController`), then the program. Resolves with the leg's answer.
  #[napi(catch_unwind, ts_return_type = "Promise<ExecutorLegAnswer>")]
  pub fn start<'env>(
    &self,
    env: &'env Env,
    key: String,
    data_json: String,
    source: String,
    location_json: String,
    timeout_ms: f64,
  ) -> Result<Object<'env>> {
    let (settle, promise) = promise::create::<ExecutorLegAnswer>(env)?;
    if self.gate.lock().disposed || self.process.lock().is_some() {
      settle.resolve(failed_answer(
        "runtime_unavailable",
        "a code mode cell starts once",
      ));
      return Ok(promise);
    }
    let process = match sandbox::process_for(affinity(&data_json)) {
      Ok(process) => process,
      Err(failure) => {
        settle.resolve(failed_answer("runtime_unavailable", &failure.message));
        return Ok(promise);
      }
    };
    define_controller(&process, &key, None);
    *self.process.lock() = Some(process.clone());
    process.executor_cells.lock().insert(self.id);
    let (cell, (memory, max_pending, max_output)) = (self.id, self.limits);
    let data = data_for(&process, data_json);
    self.leg(settle, process, timeout_ms, move |request| {
      Command::ExecutorStart {
        request,
        cell,
        controller: key,
        data,
        memory_limit_bytes: memory,
        max_pending_tool_calls: max_pending,
        max_output_bytes: max_output,
        source,
        location: location_json,
        timeout_ms,
      }
    });
    Ok(promise)
  }

  /// A later leg: settles `settled`, keeps pending only the requests named in `pendingIds` (in
  /// the host's order: the host's pending set replaces the cell's, and every request in it is
  /// one of the cell's own), then runs. Resolves with the leg's answer.
  #[napi(catch_unwind, ts_return_type = "Promise<ExecutorLegAnswer>")]
  pub fn next<'env>(
    &self,
    env: &'env Env,
    settled: Vec<ExecutorSettledRequest>,
    pending_ids: Vec<String>,
    timeout_ms: f64,
  ) -> Result<Object<'env>> {
    let (settle, promise) = promise::create::<ExecutorLegAnswer>(env)?;
    self.unpark();
    let process = match self.holder() {
      Ok(process) => process,
      Err(message) => {
        settle.resolve(failed_answer("runtime_unavailable", &message));
        return Ok(promise);
      }
    };
    // The sandbox reads the settled list as JSON text (`crates/sandbox/src/executor/session.rs`).
    let settled = serde_json::to_string(&settled).unwrap_or_else(|_| "[]".into());
    let cell = self.id;
    self.leg(settle, process, timeout_ms, move |request| {
      Command::ExecutorNext {
        request,
        cell,
        settled,
        pending: pending_ids,
        timeout_ms,
      }
    });
    Ok(promise)
  }

  /// Collects the parked VM's garbage and resolves with the bytes it still holds (a
  /// continuation's `retainedBytes`: the VM and the requests it waits on), or -1 when the
  /// gateway already holds `maxSuspendedCells` parked cells (code mode's and the executor's).
  #[napi(catch_unwind, ts_return_type = "Promise<number>")]
  pub fn park<'env>(&self, env: &'env Env) -> Result<Object<'env>> {
    let (settle, promise) = promise::create::<f64>(env)?;
    match self.holder() {
      // Lost with its process (or disposed): nothing is kept, and no slot is taken.
      Err(_) => settle.resolve(0.0),
      Ok(process) => {
        if !self.parked.load(Ordering::Acquire) {
          let parked = crate::run::parked_cells() + sandbox::executor_parked();
          if parked >= sandbox::max_parked() {
            settle.resolve(-1.0);
            return Ok(promise);
          }
          self.parked.store(true, Ordering::Release);
          process.parked_executor.fetch_add(1, Ordering::AcqRel);
        }
        let request = sandbox::next_request();
        process.request(
          request,
          &Command::ExecutorPark {
            request,
            cell: self.id,
          },
          Box::new(move |answer| {
            let bytes = match answer {
              Answer::Text(text) => text.parse::<f64>().unwrap_or(f64::MAX),
              _ => f64::MAX,
            };
            settle.resolve(bytes);
          }),
        );
      }
    }
    Ok(promise)
  }

  /// Milliseconds the running leg has run on a worker, or -1 while it waits for a slot or a
  /// worker: its budget only counts from its start.
  #[napi(catch_unwind)]
  pub fn leg_running_ms(&self) -> f64 {
    match self.leg_started.load(Ordering::Acquire) {
      0 => -1.0,
      at => sandbox::now_ms().saturating_sub(at) as f64,
    }
  }

  /// Stops the running leg (it ends `aborted`); a leg still waiting for its slot never starts.
  #[napi(catch_unwind)]
  pub fn abort(&self) {
    if self.unqueue() {
      return;
    }
    let mut gate = self.gate.lock();
    gate.aborted = true;
    if let Some(process) = self.process.lock().clone() {
      process.send(&Command::ExecutorAbort { cell: self.id });
    }
  }

  /// Frees the VM; later legs fail `runtime_unavailable`. Idempotent.
  #[napi(catch_unwind)]
  pub fn dispose(&self) {
    self.unpark();
    let mut gate = self.gate.lock();
    if gate.disposed {
      return;
    }
    gate.disposed = true;
    self.unqueue();
    if let Some(process) = self.process.lock().take() {
      process.executor_cells.lock().remove(&self.id);
      if !self.ended.load(Ordering::Acquire) {
        process.send(&Command::ExecutorDispose { cell: self.id });
      }
    }
  }
}

impl Drop for NativeExecutorCell {
  /// A cell dropped by the garbage collector (never disposed) frees its VM too.
  fn drop(&mut self) {
    self.dispose();
  }
}
