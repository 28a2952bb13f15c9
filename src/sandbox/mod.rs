//! The addon's half of the sandbox processes (ARCHITECTURE.md, "Sandbox processes"): it starts
//! them lazily, routes runs and cells to them, reads their reports, watches them, retires a
//! process whose threads got stuck, and kills one that must go. The sandbox's half is the
//! `code-mode-sandbox` executable (`crates/sandbox`).
//!
//! Policy, in one place:
//! - `sandboxProcesses` slots, each holding at most one accepting process, started when first
//!   routed to. A run (or an executor cell's data) is routed by a number, so the cells of one
//!   run share a process and its catalog, and an executor's prepared VMs are found again.
//! - A process whose worker got stuck in native code past its deadline (the sandbox freezes
//!   that thread) retires: it takes nothing new, a fresh process takes its slot, and it keeps
//!   serving the cells already in it. It is killed once it holds no work, [`RETIRE_BOUND`]
//!   after it retired, when more than [`MAX_RETIRING`] are retiring, or [`SPINNING_BOUND`]
//!   after a stuck thread it could not freeze (that thread still burns a core).
//! - A process that stops reporting for [`SILENT_BOUND`] while it holds work, or stops reading
//!   its channel ([`MAX_BACKLOG`]), is killed.
//! - Whatever ends a process, every leg and request it held fails `runtime_unavailable`
//!   (phase `host`), and every cell parked in it is lost (a later `wait` says so).

mod inbox;
pub mod process;
pub mod reading;
mod writer;

use crate::error::{ErrorCode, Failure, FailurePhase};
use code_mode_protocol::leg::Ended;
use code_mode_protocol::wire::{Command, Counts, Report, Settings};
use parking_lot::Mutex;
use process::{Phase, Process};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Sender, channel};
use std::sync::{Arc, LazyLock};
use std::time::{Duration, Instant};

/// How long a retiring process keeps serving the cells parked in it.
pub const RETIRE_BOUND: Duration = Duration::from_secs(120);
/// Retiring processes kept at most; past it the oldest is killed (its cells are lost).
pub const MAX_RETIRING: usize = 2;
/// How long a process with a stuck thread it could not freeze lives on.
pub const SPINNING_BOUND: Duration = Duration::from_millis(1500);
/// How long a process holding work may go without a heartbeat (its clock thread sends one
/// every second) or leave a ping unanswered (its channel reader answers at once).
pub const SILENT_BOUND: Duration = Duration::from_secs(5);
/// Bytes a process may leave unread before it counts as not reading.
pub const MAX_BACKLOG: usize = 512 << 20;
/// How often the supervisor looks.
const TICK: Duration = Duration::from_millis(200);

/// [`RETIRE_BOUND`] and [`SILENT_BOUND`] as the supervisor applies them: the tests shorten them
/// (`__testSandboxPolicy`), so that what happens at each bound is tested, not just written down.
static RETIRE_MS: AtomicU64 = AtomicU64::new(RETIRE_BOUND.as_millis() as u64);
static SILENT_MS: AtomicU64 = AtomicU64::new(SILENT_BOUND.as_millis() as u64);

fn retire_bound() -> Duration {
  Duration::from_millis(RETIRE_MS.load(Ordering::Relaxed))
}

/// Sets the retire and silence bounds (`None`: the default) for the tests.
#[cfg(feature = "testing")]
pub fn set_bounds_for_tests(retire_ms: Option<u64>, silent_ms: Option<u64>) {
  let default = |bound: Duration| bound.as_millis() as u64;
  RETIRE_MS.store(
    retire_ms.unwrap_or(default(RETIRE_BOUND)),
    Ordering::Relaxed,
  );
  SILENT_MS.store(
    silent_ms.unwrap_or(default(SILENT_BOUND)),
    Ordering::Relaxed,
  );
}
/// How long a caller waits for a process to start.
const START_BOUND: Duration = Duration::from_secs(10);

/// The executable's file name.
pub const EXECUTABLE: &str = if cfg!(windows) {
  "code-mode-sandbox.exe"
} else {
  "code-mode-sandbox"
};

/// What the operator configured (`configureCodeModeRuntime`).
#[derive(Debug, Clone)]
struct Config {
  processes: usize,
  threads: usize,
  max_parked: usize,
}

type Started = std::sync::mpsc::Sender<Result<Arc<Process>, String>>;

/// What the supervisor thread is asked to do.
enum Request {
  /// Start a process for a caller waiting on `Started`.
  Start(Started),
  /// Start a process for every empty slot, so that the next cell finds one warm.
  Fill,
}

struct Supervisor {
  epoch: Instant,
  config: Mutex<Config>,
  slots: Mutex<Vec<Option<Arc<Process>>>>,
  retiring: Mutex<Vec<Arc<Process>>>,
  executable: Mutex<Option<PathBuf>>,
  /// The supervisor thread, which starts every process (see `process::spawn`).
  spawner: Mutex<Option<Sender<Request>>>,
  next_process: AtomicU64,
  next_request: AtomicU64,
  nested_id_prefix: String,
  debug: bool,
}

static SUPERVISOR: LazyLock<Supervisor> = LazyLock::new(|| {
  let parallelism = std::thread::available_parallelism().map_or(2, |n| n.get());
  let processes = default_processes(parallelism);
  Supervisor {
    epoch: Instant::now(),
    config: Mutex::new(Config {
      processes,
      threads: default_threads(parallelism, processes),
      max_parked: DEFAULT_MAX_PARKED,
    }),
    slots: Mutex::new(vec![None; processes]),
    retiring: Mutex::new(Vec::new()),
    executable: Mutex::new(None),
    spawner: Mutex::new(None),
    next_process: AtomicU64::new(1),
    next_request: AtomicU64::new(1),
    nested_id_prefix: format!("cm_{}_", random_hex(4)),
    debug: std::env::var_os("OPENCLAW_CODE_MODE_SANDBOX_DEBUG").is_some_and(|v| v == "1"),
  }
});

/// Parked cells in the gateway at once, by default (OpenClaw's own cap, docs/executor-contract.md).
pub const DEFAULT_MAX_PARKED: usize = 64;

/// Worker threads per process by default: the cores divided among the processes, and at least
/// four, so that two cells stuck in native code (until the watchdog gives up on them) leave
/// threads for everyone else.
pub fn default_threads(parallelism: usize, processes: usize) -> usize {
  parallelism.div_ceil(processes).max(4)
}

/// Sandbox processes by default: one per eight cores, at least one and at most eight.
pub fn default_processes(parallelism: usize) -> usize {
  parallelism.div_ceil(8).clamp(1, 8)
}

fn random_hex(bytes: usize) -> String {
  let mut raw = vec![0u8; bytes];
  // Uniqueness across gateway restarts, not secrecy: a clock fallback is enough.
  if getrandom::fill(&mut raw).is_err() {
    let nanos = std::time::SystemTime::now()
      .duration_since(std::time::UNIX_EPOCH)
      .map_or(0, |d| d.as_nanos());
    raw = nanos.to_le_bytes()[..bytes].to_vec();
  }
  raw.iter().map(|b| format!("{b:02x}")).collect()
}

/// What every nested `toolCallId` starts with (`cm_<nonce>_`).
pub fn nested_id_prefix() -> &'static str {
  &SUPERVISOR.nested_id_prefix
}

/// A fresh request number (answers name it).
pub fn next_request() -> u64 {
  SUPERVISOR.next_request.fetch_add(1, Ordering::Relaxed)
}

/// Milliseconds since the supervisor started (never 0 once it runs).
pub fn now_ms() -> u64 {
  SUPERVISOR.epoch.elapsed().as_millis() as u64
}

/// Where the executable is: next to the addon, as the JS layer found it when it loaded the
/// addon. `OPENCLAW_CODE_MODE_SANDBOX` overrides it.
pub fn set_executable(path: PathBuf) {
  *SUPERVISOR.executable.lock() = Some(path);
}

/// Applies the operator's settings; processes already running get the new thread count and
/// cap, and the slots grow or shrink (a slot removed retires its process).
pub fn configure(processes: Option<usize>, threads: Option<usize>, max_parked: Option<usize>) {
  let (config, removed) = {
    let mut config = SUPERVISOR.config.lock();
    if let Some(n) = processes {
      config.processes = n.clamp(1, 64);
    }
    if let Some(n) = threads {
      config.threads = n.clamp(1, 256);
    }
    if let Some(n) = max_parked {
      config.max_parked = n.max(1);
    }
    let mut slots = SUPERVISOR.slots.lock();
    let removed: Vec<Arc<Process>> = if slots.len() > config.processes {
      slots.drain(config.processes..).flatten().collect()
    } else {
      slots.resize(config.processes, None);
      Vec::new()
    };
    (config.clone(), removed)
  };
  for process in removed {
    retire(&process);
  }
  let settings = Command::Configure(settings(&config));
  for process in live_processes() {
    process.send(&settings);
  }
}

/// The process-wide cap on parked cells (`maxSuspendedCells`).
pub fn max_parked() -> usize {
  SUPERVISOR.config.lock().max_parked
}

fn settings(config: &Config) -> Settings {
  Settings {
    worker_threads: config.threads as u32,
    max_parked_cells: config.max_parked as u32,
    nested_id_prefix: SUPERVISOR.nested_id_prefix.clone(),
  }
}

fn live_processes() -> Vec<Arc<Process>> {
  let mut all: Vec<Arc<Process>> = SUPERVISOR.slots.lock().iter().flatten().cloned().collect();
  all.extend(SUPERVISOR.retiring.lock().iter().cloned());
  all
}

/// Executor continuations parked now in live processes. Code mode's parked cells are its token
/// table (`src/run/cells.rs`); both hosts count them together against `maxSuspendedCells`. A
/// continuation lost with its process no longer counts, though the gateway has not disposed it.
pub fn executor_parked() -> usize {
  live_processes()
    .iter()
    .map(|p| p.parked_executor.load(Ordering::Acquire))
    .sum()
}

/// The failure of work that cannot get a process.
pub fn unavailable(message: impl Into<String>) -> Failure {
  Failure::new(ErrorCode::RuntimeUnavailable, message).in_phase(FailurePhase::Host)
}

/// The accepting process for work routed by `affinity`, started if its slot is empty.
pub fn process_for(affinity: u64) -> Result<Arc<Process>, Failure> {
  let slot = {
    let slots = SUPERVISOR.slots.lock();
    let slot = (affinity % slots.len().max(1) as u64) as usize;
    match slots.get(slot) {
      Some(Some(process)) if process.phase() == Phase::Accepting => return Ok(process.clone()),
      _ => slot,
    }
  };
  let process = start().map_err(unavailable)?;
  let mut slots = SUPERVISOR.slots.lock();
  match slots.get_mut(slot) {
    // Another caller filled the slot meanwhile: use theirs, retire the spare.
    Some(Some(existing)) if existing.phase() == Phase::Accepting => {
      let existing = existing.clone();
      drop(slots);
      process.kill("not needed");
      Ok(existing)
    }
    Some(entry) => {
      *entry = Some(process.clone());
      Ok(process)
    }
    None => Ok(process),
  }
}

/// Asks the supervisor thread for `request` (starting that thread the first time).
fn ask(request: Request) {
  let mut spawner = SUPERVISOR.spawner.lock();
  let sender = spawner.get_or_insert_with(start_supervisor_thread);
  if let Err(std::sync::mpsc::SendError(request)) = sender.send(request) {
    // The thread is gone (it cannot end, but if it did): start another.
    let sender = start_supervisor_thread();
    let _ = sender.send(request);
    *spawner = Some(sender);
  }
}

/// Starts a process on the supervisor thread and configures it.
fn start() -> Result<Arc<Process>, String> {
  let (answer, started) = channel();
  ask(Request::Start(answer));
  started
    .recv_timeout(START_BOUND)
    .map_err(|_| "the code mode sandbox process did not start in time.".to_string())?
}

fn start_supervisor_thread() -> Sender<Request> {
  let (sender, requests) = channel::<Request>();
  let _ = std::thread::Builder::new()
    .name("code-mode-supervisor".into())
    .spawn(move || {
      loop {
        match requests.recv_timeout(TICK) {
          Ok(Request::Start(answer)) => {
            let _ = answer.send(spawn_one());
          }
          Ok(Request::Fill) => fill(),
          Err(std::sync::mpsc::RecvTimeoutError::Timeout) => tick(),
          Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => return,
        }
      }
    });
  sender
}

/// Starts a process for each empty slot (on the supervisor thread). A slot a caller filled
/// meanwhile keeps the caller's; the spare is not started.
fn fill() {
  loop {
    let empty = SUPERVISOR.slots.lock().iter().any(Option::is_none);
    if !empty {
      return;
    }
    let Ok(process) = spawn_one() else { return };
    let mut slots = SUPERVISOR.slots.lock();
    match slots.iter_mut().find(|slot| slot.is_none()) {
      Some(slot) => *slot = Some(process),
      None => {
        drop(slots);
        process.kill("not needed");
        return;
      }
    }
  }
}

/// The executable to start, or why there is none (no file paths: the message can reach the
/// model).
fn executable() -> Result<PathBuf, String> {
  let path = std::env::var_os("OPENCLAW_CODE_MODE_SANDBOX")
    .map(PathBuf::from)
    .or_else(|| SUPERVISOR.executable.lock().clone());
  match path {
    Some(path) if path.is_file() => Ok(path),
    _ => Err(format!(
      "the code mode sandbox executable ({EXECUTABLE}) is missing from the installed @openclaw/code-mode platform package; reinstall it."
    )),
  }
}

/// Starts sandboxes in the test process instead of as processes (the Rust tests, which have no
/// executable to start): given the process's id and the two ends of its channel, it starts a
/// sandbox that reads commands from the first and writes reports to the second.
pub type InProcess = fn(
  id: u64,
  dispatch: fn(&Arc<Process>, Report),
  died: fn(&Arc<Process>),
  now_ms: u64,
) -> Arc<Process>;

static IN_PROCESS: std::sync::OnceLock<InProcess> = std::sync::OnceLock::new();

/// Runs every sandbox in this process from now on (Rust tests only).
#[cfg(test)]
pub fn run_in_process(start: InProcess) {
  let _ = IN_PROCESS.set(start);
}

fn spawn_one() -> Result<Arc<Process>, String> {
  let id = SUPERVISOR.next_process.fetch_add(1, Ordering::Relaxed);
  // Read first: the process's Windows job caps its memory by the worker count it is told.
  let settings = settings(&SUPERVISOR.config.lock());
  let process = match IN_PROCESS.get() {
    Some(start) => start(id, dispatch, died, now_ms()),
    None => {
      let executable = executable()?;
      process::spawn(
        id,
        &executable,
        SUPERVISOR.debug,
        settings.worker_threads,
        now_ms(),
      )
      .and_then(
        |process| match reading::listen(&process, reading::Routes { dispatch, died }) {
          Ok(()) => Ok(process),
          Err(e) => {
            process.kill("its reports could not be read");
            let _ = process.reap();
            Err(e)
          }
        },
      )
      .map_err(|e| format!("the code mode sandbox process could not start: {e}"))?
    }
  };
  process.send(&Command::Configure(settings));
  Ok(process)
}

/// Where the supervisor sends the reports that concern code-mode runs: the run host's handlers
/// (`src/run/reports.rs`), each with the process it came from. The host hands them over before
/// it asks for its first process, so the supervisor names no layer above it, and reports about
/// runs cannot come before there is a run.
pub struct RunRoutes {
  /// Nested calls a cell started: (process, run, cell, the call batch).
  pub calls: fn(&Arc<Process>, u64, u64, String),
  /// A cell ended with calls in flight: (process, run, cell).
  pub cancel: fn(&Arc<Process>, u64, u64),
  /// A leg ended or a parked cell was dropped: (process, run, the end, the sandbox's counts).
  pub ended: fn(&Arc<Process>, u64, Ended, Counts),
  /// A process died, with every cell in it.
  pub died: fn(&Arc<Process>),
}

static RUN_ROUTES: std::sync::OnceLock<RunRoutes> = std::sync::OnceLock::new();

/// Hands the supervisor the run host's handlers (the first call counts; later ones are the same).
pub fn route_runs(routes: RunRoutes) {
  let _ = RUN_ROUTES.set(routes);
}

/// A report from a process, on whichever thread reads it (`reading.rs`).
fn dispatch(process: &Arc<Process>, report: Report) {
  let runs = RUN_ROUTES.get();
  match report {
    Report::Calls { run, cell, batch } => {
      if let Some(runs) = runs {
        (runs.calls)(process, run, cell, batch)
      }
    }
    Report::CancelCalls { run, cell } => {
      if let Some(runs) = runs {
        (runs.cancel)(process, run, cell)
      }
    }
    Report::Ended { run, ended, counts } => {
      if let Some(runs) = runs {
        (runs.ended)(process, run, *ended, counts)
      }
    }
    Report::Answer { request, answer } => process.answer(request, answer),
    Report::Started { request } => process.started(request, now_ms()),
    Report::Stuck { frozen, spinning } => {
      let mut stuck = process.stuck.lock();
      let more = (frozen + spinning).saturating_sub(stuck.0 + stuck.1);
      *stuck = (frozen, spinning);
      drop(stuck);
      GIVEN_UP.fetch_add(more.into(), Ordering::Relaxed);
      retire(process);
    }
    Report::Heartbeat => process.heard(now_ms()),
    Report::Log { message } => {
      if SUPERVISOR.debug {
        eprintln!("code-mode-sandbox {}: {message}", process.id);
      }
      *process.last_log.lock() = Some(message);
    }
  }
}

/// A process's channel closed (it died or was killed), on a thread that may wait to reap it.
fn died(process: &Arc<Process>) {
  let how = process.reap();
  let how = match process.last_log.lock().clone() {
    Some(log) if process.ending.get().is_none() => format!("{how}: {log}"),
    _ => how,
  };
  let _ = process.ending.set(how);
  process.advance(Phase::Dead);
  forget(process);
  process.fail_requests();
  if let Some(runs) = RUN_ROUTES.get() {
    (runs.died)(process);
  }
}

/// Takes a process out of the slots and the retiring list.
fn forget(process: &Arc<Process>) {
  for slot in SUPERVISOR.slots.lock().iter_mut() {
    if slot.as_ref().is_some_and(|p| Arc::ptr_eq(p, process)) {
      *slot = None;
    }
  }
  SUPERVISOR
    .retiring
    .lock()
    .retain(|p| !Arc::ptr_eq(p, process));
}

/// The process takes no new work; a fresh one takes its slot when next needed.
pub fn retire(process: &Arc<Process>) {
  if !process.advance(Phase::Retiring) {
    return;
  }
  *process.retiring_since.lock() = Some(Instant::now());
  forget(process);
  // Its replacement starts now, so the next cell of any session finds it ready.
  ask(Request::Fill);
  let over = {
    let mut retiring = SUPERVISOR.retiring.lock();
    retiring.push(process.clone());
    (retiring.len() > MAX_RETIRING).then(|| retiring.remove(0))
  };
  if let Some(oldest) = over {
    oldest.kill("killed: too many sandbox processes were retiring");
  }
}

/// The supervisor's periodic look at every process.
fn tick() {
  let now = now_ms();
  for process in live_processes() {
    reading::read_late(&process);
    let (_, spinning) = *process.stuck.lock();
    let since = *process.retiring_since.lock();
    let retired_for = since.map(|at| at.elapsed());
    let why = if spinning > 0 && retired_for.is_some_and(|d| d >= SPINNING_BOUND) {
      Some("killed: a stuck thread could not be stopped")
    } else if retired_for.is_some_and(|d| d >= retire_bound()) {
      Some("killed: it stopped taking work after a stuck cell, and its time ran out")
    } else if retired_for.is_some() && process.load() == 0 {
      Some("ended: retired and idle")
    } else if process.load() > 0 && silent(&process, now) {
      Some("killed: it stopped answering")
    } else if process.backlog() > MAX_BACKLOG {
      Some("killed: it stopped reading its channel")
    } else {
      None
    };
    if let Some(why) = why {
      process.kill(why);
    }
  }
  crate::admission::expire_queued();
}

/// Whether a process holding work stopped answering: no heartbeat, or a ping unanswered, for
/// [`SILENT_BOUND`]. Sends a ping when none is out.
fn silent(process: &Arc<Process>, now: u64) -> bool {
  let bound = SILENT_MS.load(Ordering::Relaxed);
  if now.saturating_sub(process.last_heard()) >= bound {
    return true;
  }
  let since = process.ping_since.load(Ordering::Acquire);
  if since == 0 {
    process.ping_since.store(now.max(1), Ordering::Release);
    let request = next_request();
    let answered = process.clone();
    process.request(
      request,
      &Command::Ping { request },
      Box::new(move |_| answered.ping_since.store(0, Ordering::Release)),
    );
    return false;
  }
  now.saturating_sub(since) >= bound
}

/// The sandbox processes now, for the tests: (accepting, retiring).
#[cfg(feature = "testing")]
pub fn counts() -> (usize, usize) {
  let accepting = SUPERVISOR.slots.lock().iter().flatten().count();
  (accepting, SUPERVISOR.retiring.lock().len())
}

/// The process ids now (the tests watch their CPU and their `/proc` status).
#[cfg(feature = "testing")]
pub fn pids() -> Vec<u32> {
  live_processes().iter().map(|p| p.pid).collect()
}

/// Who reads each live process's reports, `loop` or `thread` (for the tests).
#[cfg(feature = "testing")]
pub fn readers() -> Vec<&'static str> {
  live_processes()
    .iter()
    .map(|p| reading::reader(p))
    .collect()
}

/// Worker threads given up on (stuck in native code past a deadline) in every process so far.
static GIVEN_UP: AtomicU64 = AtomicU64::new(0);

/// Worker threads given up on in every process so far (for the tests).
#[cfg(feature = "testing")]
pub fn threads_given_up() -> u64 {
  GIVEN_UP.load(Ordering::Relaxed)
}

/// Faults armed by the test suites, each sent once: with the next leg of a matching run.
#[cfg(feature = "testing")]
static ARMED: Mutex<Vec<code_mode_protocol::wire::Testing>> = Mutex::new(Vec::new());

/// Arms a test fault for the next leg of `run` (or of any run); `off` disarms every fault,
/// here and in every process.
#[cfg(feature = "testing")]
pub fn arm_for_tests(fault: code_mode_protocol::wire::Testing) {
  use code_mode_protocol::wire::Testing;
  if matches!(&fault, Testing::Fault { kind, .. } if kind == "off") {
    ARMED.lock().clear();
    let command = Command::Testing(fault);
    for process in live_processes() {
      process.send(&command);
    }
  } else {
    ARMED.lock().push(fault);
  }
}

/// Sends `process` the armed faults for a leg of the run labelled `run` (test builds only).
pub fn send_armed(process: &Process, run: &str) {
  #[cfg(feature = "testing")]
  {
    use code_mode_protocol::wire::Testing;
    let matches = |fault: &Testing| match fault {
      Testing::Fault { run: target, .. } | Testing::Stall { run: target, .. } => {
        target.as_deref().is_none_or(|target| target == run)
      }
      _ => false,
    };
    let taken: Vec<Testing> = {
      let mut armed = ARMED.lock();
      let (taken, kept) = std::mem::take(&mut *armed).into_iter().partition(matches);
      *armed = kept;
      taken
    };
    for fault in taken {
      process.send(&Command::Testing(fault));
    }
  }
  #[cfg(not(feature = "testing"))]
  let _ = (process, run);
}
