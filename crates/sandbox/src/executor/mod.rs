//! The OpenClaw executor host, in the sandbox: upstream's guest controller on the engine's
//! bare VMs. The contract (`execute`, boundaries, continuations) is driven from
//! `lib/openclaw-executor.js` through the addon's `NativeExecutorCell`, a handle on one of the
//! cells here; each leg runs on a worker and answers with the leg's outcome JSON
//! (`session.rs`, written by `session/outcome.rs`).

mod session;
mod stack;

use crate::engine::bytecode;
use crate::engine::limits::Kill;
use crate::engine::stuck;
use crate::engine::{background, bare};
use crate::error::panic_message;
use parking_lot::Mutex;
use session::{Outcome, Session, Step};
use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How a leg's answer gets back to the addon.
pub type Reply = Box<dyn FnOnce(LegAnswer) + Send>;
/// How a parked cell's bytes get back to the addon.
pub type TextReply = Box<dyn FnOnce(String) + Send>;
/// Tells the addon a leg started on a worker (its budget runs from then).
pub type Started = Box<dyn FnOnce() + Send>;

/// Compiled controllers by the addon's key (a hash of the source), newest last; a few at most
/// (one per openclaw version in the gateway).
static CONTROLLERS: Mutex<Vec<(String, Arc<Vec<u8>>)>> = Mutex::new(Vec::new());
const MAX_CONTROLLERS: usize = 4;

/// Compiles an OpenClaw guest controller to bytecode under `key` (once per key); QuickJS's
/// message when it does not compile.
pub fn compile(key: &str, source: &str) -> Result<(), String> {
  if CONTROLLERS.lock().iter().any(|(k, _)| k == key) {
    return Ok(());
  }
  let bytecode =
    stuck::guest(|| bytecode::compile_script(source, session::CONTROLLER_FILE, false, true))
      .map_err(|e| format!("the code mode controller source does not compile: {e}"))?;
  let mut controllers = CONTROLLERS.lock();
  controllers.retain(|(k, _)| k != key);
  if controllers.len() >= MAX_CONTROLLERS {
    controllers.remove(0);
  }
  controllers.push((key.to_string(), Arc::new(bytecode)));
  Ok(())
}

fn controller(key: &str) -> Option<Arc<Vec<u8>>> {
  CONTROLLERS
    .lock()
    .iter()
    .find(|(k, _)| k == key)
    .map(|(_, bytecode)| bytecode.clone())
}

pub use code_mode_protocol::executor::{LegAnswer, failed_json};

struct Shared {
  session: Mutex<Option<Session>>,
  /// The VM's kill switch, readable while a leg holds `session`.
  signals: Mutex<Option<Arc<crate::engine::limits::Signals>>>,
  running: AtomicBool,
  disposed: AtomicBool,
  /// `abort` came, perhaps before the leg's VM was ready: applied as soon as it is.
  aborted: AtomicBool,
  /// (memory limit, max pending tool calls, max error text)
  limits: (usize, usize, usize),
  /// The host's `maxOutputBytes`, when it gave one: each leg's output is cut to it here.
  output_cap: Option<usize>,
  /// Whose work the cell's legs are, for the workers' fair share (`Host::tenant` in
  /// crates/engine/src/lib.rs). The executor contract names no session, so each cell is a
  /// tenant of its own (see [`tenant`]).
  tenant: u64,
}

impl Shared {
  /// Aborts the running leg, or the next one before it runs. The guest sees the kill at its next
  /// poll of the interrupt handler; a leg stuck in native code, which never polls, is given up on
  /// by the watchdog shortly after rather than past its deadline (`bare::watch_signals`: a
  /// refused source that started early may hold a loop of that kind, and its exec has already
  /// answered).
  fn stop(&self) {
    // Set before `signals` is read under its lock: a leg that puts its VM's signals there
    // after this reads `aborted` after that (`run_leg`), and kills them itself.
    self.aborted.store(true, Ordering::Release);
    if let Some(signals) = self.signals.lock().as_ref() {
      signals.kill(Kill::Aborted);
    }
  }
}

/// The tenant of executor cell `id`: apart from every code mode tenant (`RunSpec::tenant`).
pub fn tenant(id: u64) -> u64 {
  id | 1 << 63
}

/// Runs `work` (freeing a VM, preparing a spare) off the channel's reader and outside any
/// watched leg, whose budget a large heap's free could outrun: in the background, or as a task
/// of its own on a worker when the background is too far behind.
fn off_the_leg(tenant: u64, work: background::Work) {
  if let Err(work) = background::submit(work) {
    let _ = bare::spawn(tenant, work, None, Box::new(|| {}));
  }
}

/// Frees a VM off the channel's reader (see [`off_the_leg`]).
fn free_on_worker(tenant: u64, session: Session) {
  off_the_leg(tenant, Box::new(move || drop(session)));
}

impl Drop for Shared {
  fn drop(&mut self) {
    if let Some(session) = self.session.get_mut().take() {
      free_on_worker(self.tenant, session);
    }
  }
}

/// The executor cells of this process, by the addon's number.
#[derive(Default)]
pub struct Cells {
  cells: Arc<Mutex<HashMap<u64, Arc<Shared>>>>,
}

/// What a cell's first leg needs.
pub struct Start {
  pub controller: String,
  /// The host data globals, as JSON (shared by the cells of a run).
  pub data: Arc<String>,
  pub memory_limit_bytes: u64,
  pub max_pending_tool_calls: u32,
  /// The longest error text the cell may produce (`maxOutputBytes`; 0: the default).
  pub max_output_bytes: u64,
  pub source: String,
  pub location: String,
}

impl Cells {
  fn cell(&self, id: u64) -> Option<Arc<Shared>> {
    self.cells.lock().get(&id).cloned()
  }

  /// Takes cell `id` out of the table once a leg of it ends for good (completed or failed):
  /// the addon knows that from the outcome and sends no `dispose` for it.
  fn forget(&self, id: u64) -> Forget {
    let cells = self.cells.clone();
    Arc::new(move || {
      cells.lock().remove(&id);
    })
  }

  /// The first leg: a VM with the data globals, the controller, then the program.
  pub fn start(&self, id: u64, start: Start, timeout_ms: f64, started: Started, reply: Reply) {
    // A NaN would clamp to 0, which QuickJS reads as "no limit".
    let memory = (start.memory_limit_bytes as f64).clamp(1024.0 * 1024.0, 4e9) as usize;
    let shared = Arc::new(Shared {
      session: Mutex::new(None),
      signals: Mutex::new(None),
      running: AtomicBool::new(false),
      disposed: AtomicBool::new(false),
      aborted: AtomicBool::new(false),
      limits: (
        memory,
        start.max_pending_tool_calls.max(1) as usize,
        match start.max_output_bytes {
          0 => session::DEFAULT_MAX_ERROR,
          bytes => bytes as usize,
        },
      ),
      output_cap: (start.max_output_bytes > 0).then_some(start.max_output_bytes as usize),
      tenant: tenant(id),
    });
    self.cells.lock().insert(id, shared.clone());
    let step = controller(&start.controller).map(|controller| {
      let prepare = Prepare {
        key: SpareKey {
          controller: start.controller,
          memory: shared.limits.0,
          max_pending: shared.limits.1,
          max_error: shared.limits.2,
          data: start.data,
        },
        controller,
      };
      (
        Step::Exec {
          source: start.source,
          location: start.location,
        },
        Some(prepare),
      )
    });
    let forget = self.forget(id);
    leg(&shared, step, timeout_ms, started, reply, forget);
  }

  /// A later leg: settles `settled` (`[{id, ok, json}]` JSON), keeps pending only the
  /// requests named in `pending` (the host's pending set replaces the cell's), then runs.
  pub fn next(
    &self,
    id: u64,
    settled: String,
    pending: Vec<String>,
    timeout_ms: f64,
    started: Started,
    reply: Reply,
  ) {
    match self.cell(id) {
      Some(shared) => leg(
        &shared,
        Some((Step::Settle { settled, pending }, None)),
        timeout_ms,
        started,
        reply,
        self.forget(id),
      ),
      None => reply(
        failed_json(
          "runtime_unavailable",
          "Code Mode continuation has already been consumed or disposed",
        )
        .into(),
      ),
    }
  }

  /// Collects the parked VM's garbage and answers the bytes it still holds.
  pub fn park(&self, id: u64, reply: TextReply) {
    let Some(shared) = self.cell(id) else {
      return reply("0".into());
    };
    let once = Arc::new(Mutex::new(Some(reply)));
    let refused = once.clone();
    let work = Box::new(move || {
      let bytes = shared
        .session
        .lock()
        .as_ref()
        .map_or(0, |s| s.retained_bytes());
      if let Some(reply) = once.lock().take() {
        reply(bytes.to_string());
      }
    });
    if bare::spawn(tenant(id), work, None, Box::new(|| {})).is_err()
      && let Some(reply) = refused.lock().take()
    {
      reply(u64::MAX.to_string());
    }
  }

  /// Stops the running leg (it ends `aborted`).
  pub fn abort(&self, id: u64) {
    if let Some(shared) = self.cell(id) {
      shared.stop();
    }
  }

  /// Frees the cell's VM (on a worker); later legs fail `runtime_unavailable`. A leg still
  /// running is stopped as by [`Cells::abort`]: no one waits for it any more, and an abort the
  /// addon sent before the leg's start reached this process found no cell to stop.
  pub fn dispose(&self, id: u64) {
    let Some(shared) = self.cells.lock().remove(&id) else {
      return;
    };
    if shared.disposed.swap(true, Ordering::AcqRel) {
      return;
    }
    shared.stop();
    if let Some(session) = shared.session.try_lock().and_then(|mut s| s.take()) {
      free_on_worker(shared.tenant, session);
    }
  }
}

/// Called once a cell's leg ended for good: the cell leaves the table (more calls do nothing).
type Forget = Arc<dyn Fn() + Send + Sync>;

fn leg(
  shared: &Arc<Shared>,
  step: Option<(Step, Option<Prepare>)>,
  timeout_ms: f64,
  started: Started,
  reply: Reply,
  forget: Forget,
) {
  let refuse = if shared.disposed.load(Ordering::Acquire) {
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
  } else if shared.running.swap(true, Ordering::AcqRel) {
    // The leg already running answers for the cell: it stays.
    return reply(
      failed_json(
        "runtime_unavailable",
        "a code mode leg is already running in this cell",
      )
      .into(),
    );
  } else {
    None
  };
  let Some((step, prepare)) = step.filter(|_| refuse.is_none()) else {
    let (code, message) = refuse.unwrap_or(("runtime_unavailable", String::new()));
    forget();
    return reply(failed_json(code, &message).into());
  };
  let budget = Duration::from_secs_f64(timeout_ms.min(1e9) / 1000.0);
  let once = Arc::new(Mutex::new(Some(reply)));
  let stuck_reply = once.clone();
  let refused = once.clone();
  let work_shared = shared.clone();
  let tenant = shared.tenant;
  let stuck_forget = forget.clone();
  let refused_forget = forget.clone();
  let work = Box::new(move || {
    // The budget counts from when a worker takes the leg, not from when it was queued.
    let deadline = Instant::now() + budget;
    started();
    let ran = catch_unwind(AssertUnwindSafe(|| {
      run_leg(&work_shared, step, prepare, deadline)
    }));
    let (answer, finished, prepare, kept) = ran.unwrap_or_else(|panic| {
      let message = format!("code mode runtime failed: {}", panic_message(&*panic));
      (
        failed_json("runtime_unavailable", &message).into(),
        None,
        None,
        false,
      )
    });
    work_shared.running.store(false, Ordering::Release);
    if !kept {
      forget();
    }
    if let Some(reply) = once.lock().take() {
      reply(answer);
    }
    // After the result is on its way: the finished VM is freed, and the next cell of the same
    // run gets a VM ready for it.
    if finished.is_some() || prepare.is_some() {
      off_the_leg(
        tenant,
        Box::new(move || {
          drop(finished);
          if let Some(prepare) = prepare {
            spares::refill(prepare);
          }
        }),
      );
    }
  });
  let stuck_shared = shared.clone();
  let on_stuck = Box::new(move || {
    // The VM is still in use on the abandoned thread: this cell can never run again.
    stuck_shared.disposed.store(true, Ordering::Release);
    stuck_forget();
    if let Some(reply) = stuck_reply.lock().take() {
      reply(failed_json("timeout", "code mode timeout exceeded").into());
    }
  });
  if let Err(message) = bare::spawn(shared.tenant, work, Some(budget), on_stuck) {
    shared.running.store(false, Ordering::Release);
    refused_forget();
    if let Some(reply) = refused.lock().take() {
      reply(failed_json("runtime_unavailable", &message).into());
    }
  }
}

/// One leg on a worker: takes a ready VM (or prepares one) on the first, runs, and keeps it
/// parked for the next leg (`true`) or hands it back to be freed once the outcome is sent.
fn run_leg(
  shared: &Shared,
  step: Step,
  prepare: Option<Prepare>,
  deadline: Instant,
) -> (LegAnswer, Option<Session>, Option<Prepare>, bool) {
  let mut slot = shared.session.lock();
  if shared.disposed.load(Ordering::Acquire) {
    let answer = failed_json(
      "runtime_unavailable",
      "Code Mode continuation has already been consumed or disposed",
    );
    return (answer.into(), slot.take(), None, false);
  }
  if slot.is_none() {
    let Some(prepare) = &prepare else {
      return (
        failed_json("runtime_unavailable", "the code mode cell has no VM").into(),
        None,
        None,
        false,
      );
    };
    match spares::take(&prepare.key).map_or_else(|| spares::build(prepare, deadline), Ok) {
      Ok(session) => {
        *shared.signals.lock() = Some(session.vm.signals.clone());
        *slot = Some(session);
      }
      Err((code, message)) => return (failed_json(code, &message).into(), None, None, false),
    }
  }
  let Some(session) = slot.as_mut() else {
    return (
      failed_json("runtime_unavailable", "the code mode cell has no VM").into(),
      None,
      None,
      false,
    );
  };
  let watched = bare::watch_signals(&session.vm.signals);
  if shared.aborted.load(Ordering::Acquire) {
    session.vm.signals.kill(Kill::Aborted);
  }
  session.vm.signals.set_deadline(Some(deadline));
  let outcome = stuck::guest(|| session.leg(step));
  session.vm.signals.set_deadline(None);
  drop(watched);
  // A cell disposed while its leg ran keeps nothing.
  let keep =
    matches!(outcome, Outcome::Boundary { .. }) && !shared.disposed.load(Ordering::Acquire);
  let answer = session::answer(outcome, &session.bridge.lock(), shared.output_cap);
  if keep {
    session.bridge.lock().canceled.clear();
    return (answer, None, prepare, true);
  }
  *shared.signals.lock() = None;
  (answer, slot.take(), prepare, false)
}

/// What a cell's first VM is prepared with.
struct Prepare {
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
  max_error: usize,
  /// The host data globals, as JSON.
  data: Arc<String>,
}

/// VMs prepared ahead (controller run over the host data, no program yet) for the next cell of
/// a run: a gateway sends the same catalog with every exec of a run, and preparing the controller
/// is most of a cell's start. Built on a worker after a cell's result is sent.
mod spares {
  use super::{Prepare, Session, SpareKey};
  use crate::engine::{background, stuck};
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

  /// None as well when the list's lock is held too long (a background thread holding it may be
  /// waiting for a core): the leg builds its own VM.
  pub(super) fn take(key: &SpareKey) -> Option<Session> {
    let mut spares = SPARES.try_lock_for(background::SHARED_LOCK_WAIT)?;
    let at = spares.iter().rposition(|(k, _)| k == key)?;
    Some(spares.remove(at).1)
  }

  /// A new VM, prepared under `deadline`.
  pub(super) fn build(
    prepare: &Prepare,
    deadline: Instant,
  ) -> Result<Session, (&'static str, String)> {
    let mut session = Session::new(
      prepare.key.memory,
      prepare.key.max_pending,
      prepare.key.max_error,
    )
    .map_err(|message| ("runtime_unavailable", message))?;
    session.vm.signals.set_deadline(Some(deadline));
    match stuck::guest(|| session.prepare(&prepare.key.data, &prepare.controller)) {
      Ok(()) => Ok(session),
      Err(_) if session.vm.killed() == crate::engine::limits::Kill::Timeout => {
        Err(("timeout", "code mode timeout exceeded".into()))
      }
      Err(failure) => Err(failure),
    }
  }

  /// Tops up the spares of this preparation. Gives up when the table's lock stays taken: on a
  /// worker (the background refused it), a background thread holding it may be waiting for a
  /// core.
  pub(super) fn refill(prepare: Prepare) {
    let short = || {
      SPARES
        .try_lock_for(background::SHARED_LOCK_WAIT)
        .is_some_and(|spares| spares.iter().filter(|(k, _)| *k == prepare.key).count() < PER_KEY)
    };
    while short() {
      let Ok(session) = build(&prepare, Instant::now() + PREPARE_BUDGET) else {
        return;
      };
      session.vm.signals.set_deadline(None);
      let Some(mut spares) = SPARES.try_lock_for(background::SHARED_LOCK_WAIT) else {
        return;
      };
      let oldest = (spares.len() >= MAX_SPARES).then(|| spares.remove(0));
      spares.push((prepare.key.clone(), session));
      drop(spares);
      drop(oldest);
    }
  }
}
