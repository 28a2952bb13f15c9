//! The cell state machine and the worker pool (DESIGN decisions 4, 5, 6, 11, 14).
//!
//! A cell is one exec and its continuations. Its VM occupies a worker only while JavaScript
//! runs; otherwise it is parked in the cell (`Idle` inside a leg, `Suspended` between legs) and
//! re-queued when a host result, a timer or its wall clock arrives. One leg is one exec or
//! wait: it ends `completed`, `failed`, or `waiting` (the VM stays parked under a fresh runId).

use crate::clock;
use crate::error::{ErrorCode, Failure, messages, panic_message};
use crate::executor::Message;
use crate::frontend::{self as source, Language};
use crate::result::{self, PendingEntry, Status};
use crate::run::Run;
use crate::sandbox::bridge::{Outcome, VmHost};
use crate::sandbox::limits::{Kill, Signals};
use crate::sandbox::{Delivery, SliceEnd, Vm};
use crate::store::{STORE, new_token};
use crate::telemetry::{Counters, cell_event};
use crossbeam_channel::{Receiver, Sender, unbounded};
use dashmap::DashMap;
use parking_lot::Mutex;
use serde_json::json;
use std::collections::{HashMap, VecDeque};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock, Weak};
use std::time::{Duration, Instant};
use tokio::task::AbortHandle;

/// Stack of a worker thread: preparing a cell may need all of `PREPARE_STACK` (hostile nesting;
/// only touched pages are committed); QuickJS itself stops at its own 1 MiB cap.
pub const WORKER_STACK: usize = source::PREPARE_STACK;
/// Cells in a leg (running or idle) before new legs queue.
pub const DEFAULT_MAX_ACTIVE_CELLS: usize = 1024;
/// How long a slice may run past its CPU deadline before it counts as stuck. QuickJS polls the
/// interrupt handler only from bytecode and some builtins; a builtin looping natively (an
/// `Array.prototype` method on a huge array-like, say) never sees the deadline. Past this grace
/// the leg fails `timeout` at once and the worker is replaced (its thread is left to finish
/// the loop, then exits).
pub const STUCK_GRACE: Duration = Duration::from_secs(1);

static NEXT_CELL: AtomicU64 = AtomicU64::new(1);

// ---------------------------------------------------------------------------------------------
// Worker pool

enum Job {
  Run(Arc<Cell>),
  Exit,
}

struct Pool {
  sender: Sender<Job>,
  receiver: Receiver<Job>,
  /// (running workers, wanted workers)
  workers: Mutex<(usize, usize)>,
}

static POOL: LazyLock<Pool> = LazyLock::new(|| {
  let (sender, receiver) = unbounded();
  let wanted = std::thread::available_parallelism().map_or(2, |n| n.get());
  Pool {
    sender,
    receiver,
    workers: Mutex::new((0, wanted)),
  }
});

/// Starts a worker thread; false if the OS refused one.
fn spawn_worker(index: usize) -> bool {
  let receiver = POOL.receiver.clone();
  std::thread::Builder::new()
    .name(format!("code-mode-worker-{index}"))
    .stack_size(WORKER_STACK)
    .spawn(move || {
      lower_priority();
      loop {
        // Between jobs, an idle worker tops up the warm pool; it blocks only when that is full.
        let job = match receiver.try_recv() {
          Ok(job) => job,
          Err(_) if refill_warm_pool() => continue,
          Err(_) => match spin_recv(&receiver) {
            Some(job) => job,
            None => match receiver.recv() {
              Ok(job) => job,
              Err(_) => break,
            },
          },
        };
        match job {
          // An abandoned worker was already replaced and left the pool's count: it exits.
          Job::Run(cell) if cell.run_slice() == SliceRun::Abandoned => break,
          Job::Run(_) => {}
          Job::Exit => break,
        }
      }
    })
    .is_ok()
}

/// How long an idle worker polls for its next job before it sleeps. A cell waiting on a fast
/// tool gets its result back within this window; picking it up without a futex wake-up (tens of
/// µs when the CPU has gone idle, more under a hypervisor) is most of a nested call's cost.
const SPIN: Duration = Duration::from_micros(50);

/// Polls the queue for up to [`SPIN`]; None when nothing came.
fn spin_recv(receiver: &Receiver<Job>) -> Option<Job> {
  let until = Instant::now() + SPIN;
  loop {
    for _ in 0..64 {
      if let Ok(job) = receiver.try_recv() {
        return Some(job);
      }
      std::hint::spin_loop();
    }
    if Instant::now() >= until {
      return None;
    }
  }
}

/// Guest JavaScript yields the CPU to the gateway: with every core busy running cells, Node's
/// event loop (and everything else in the process) still gets scheduled first.
fn lower_priority() {
  #[cfg(target_os = "linux")]
  // SAFETY: plain syscalls on the calling thread's own id; a failure only leaves the default
  // priority in place.
  unsafe {
    let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
    libc::setpriority(libc::PRIO_PROCESS, tid, 5);
  }
}

// ---------------------------------------------------------------------------------------------
// Warm VMs: runtime, context and prelude built off the critical path, claimed by new cells.

/// Warm VMs kept per worker thread.
const WARM_PER_WORKER: usize = 2;

static WARM: LazyLock<Mutex<Vec<Vm>>> = LazyLock::new(|| Mutex::new(Vec::new()));

/// Finished VMs waiting to be freed by an idle worker (freeing one is a few dozen µs that need
/// not delay a leg's result or the next job).
static RETIRED: LazyLock<Mutex<Vec<Vm>>> = LazyLock::new(|| Mutex::new(Vec::new()));
/// Past this many, a finished VM is freed at once.
const MAX_RETIRED: usize = 32;

/// Workers doing housekeeping (building warm VMs, freeing retired ones) right now. At most all
/// but one, so a new job always finds a worker that is about to be free.
static HOUSEKEEPING: AtomicUsize = AtomicUsize::new(0);

/// Frees a finished VM later, on an idle worker.
fn retire(vm: Box<Vm>) {
  let mut retired = RETIRED.lock();
  if retired.len() < MAX_RETIRED {
    retired.push(*vm);
  } else {
    drop(retired);
    drop(vm);
  }
}

/// One piece of idle-time housekeeping: free a retired VM, or build a warm one if the pool is
/// short. False when there is nothing to do (or another worker is already at it).
fn refill_warm_pool() -> bool {
  let workers = POOL.workers.lock().0;
  let limit = workers.saturating_sub(1).max(1);
  if HOUSEKEEPING.fetch_add(1, Ordering::AcqRel) >= limit {
    HOUSEKEEPING.fetch_sub(1, Ordering::AcqRel);
    return false;
  }
  let retired = RETIRED.lock().pop();
  let worked = match retired {
    Some(vm) => {
      drop(vm);
      true
    }
    None if WARM.lock().len() < workers * WARM_PER_WORKER => match catch_unwind(Vm::warm) {
      Ok(Ok(vm)) => {
        WARM.lock().push(vm);
        true
      }
      _ => false,
    },
    None => false,
  };
  HOUSEKEEPING.fetch_sub(1, Ordering::AcqRel);
  worked
}

fn take_warm() -> Option<Box<Vm>> {
  WARM.lock().pop().map(Box::new)
}

/// Brings the pool to its wanted size (spawning or retiring workers).
fn balance_pool() {
  let mut workers = POOL.workers.lock();
  while workers.0 < workers.1 {
    if !spawn_worker(workers.0 + 1) {
      break;
    }
    workers.0 += 1;
  }
  while workers.0 > workers.1 {
    workers.0 -= 1;
    let _ = POOL.sender.send(Job::Exit);
  }
}

fn schedule(cell: Arc<Cell>) {
  if POOL.workers.lock().0 == 0 {
    balance_pool();
  }
  let _ = POOL.sender.send(Job::Run(cell));
}

/// A worker is stuck in native code: it no longer counts as one, and a fresh thread takes its
/// place so the pool keeps its size.
fn replace_stuck_worker() {
  let mut workers = POOL.workers.lock();
  if !spawn_worker(workers.0 + 1) {
    workers.0 = workers.0.saturating_sub(1);
  }
}

// ---------------------------------------------------------------------------------------------
// Watchdog: a slice stuck in native code (a QuickJS builtin looping without polling the
// interrupt handler) is given up on `STUCK_GRACE` past its CPU deadline. Slices are noted in a
// table that one periodic task scans, so a slice costs a map insert, not a timer.

struct Watched {
  cell: Weak<Cell>,
  slice: u64,
  give_up: Instant,
}

static WATCHED: LazyLock<Mutex<HashMap<u64, Watched>>> =
  LazyLock::new(|| Mutex::new(HashMap::new()));

/// How often the watchdog looks.
const WATCH_PERIOD: Duration = Duration::from_millis(250);

fn watch(cell: &Arc<Cell>, slice: u64, give_up: Instant) {
  static STARTED: std::sync::Once = std::sync::Once::new();
  STARTED.call_once(|| clock::every(WATCH_PERIOD, scan_watched));
  let watched = Watched {
    cell: Arc::downgrade(cell),
    slice,
    give_up,
  };
  WATCHED.lock().insert(cell.id, watched);
}

fn unwatch(cell: u64) {
  WATCHED.lock().remove(&cell);
}

fn scan_watched() {
  let now = Instant::now();
  let overdue: Vec<(Weak<Cell>, u64)> = WATCHED
    .lock()
    .values()
    .filter(|w| w.give_up <= now)
    .map(|w| (w.cell.clone(), w.slice))
    .collect();
  for (cell, slice) in overdue {
    if let Some(cell) = cell.upgrade() {
      unwatch(cell.id);
      cell.overran(slice);
    }
  }
}

/// Worker threads currently running.
#[cfg(test)]
pub fn worker_count() -> usize {
  POOL.workers.lock().0
}

/// Process-wide settings from `configureCodeModeRuntime`.
pub fn configure(worker_threads: Option<usize>, max_active_cells: Option<usize>) {
  if let Some(n) = worker_threads {
    let started = {
      let mut workers = POOL.workers.lock();
      workers.1 = n.clamp(1, 256);
      workers.0 > 0
    };
    if started {
      balance_pool();
    }
  }
  if let Some(n) = max_active_cells {
    ADMISSION.lock().max = n.max(1);
    release(false);
  }
}

// ---------------------------------------------------------------------------------------------
// Admission: at most `max` cells in a leg; later legs wait their turn (up to their timeout).

struct Admission {
  active: usize,
  max: usize,
  queue: VecDeque<Weak<Cell>>,
}

static ADMISSION: LazyLock<Mutex<Admission>> = LazyLock::new(|| {
  Mutex::new(Admission {
    active: 0,
    max: DEFAULT_MAX_ACTIVE_CELLS,
    queue: VecDeque::new(),
  })
});

fn admit(cell: &Arc<Cell>) -> bool {
  let mut admission = ADMISSION.lock();
  if admission.active < admission.max && admission.queue.is_empty() {
    admission.active += 1;
    true
  } else {
    admission.queue.push_back(Arc::downgrade(cell));
    false
  }
}

/// A leg ended (`ended`) or the cap grew: start queued legs while there is room.
fn release(ended: bool) {
  loop {
    let next = {
      let mut admission = ADMISSION.lock();
      if ended {
        admission.active = admission.active.saturating_sub(1);
      }
      if admission.active >= admission.max {
        return;
      }
      let Some(next) = admission.queue.pop_front() else {
        return;
      };
      admission.active += 1;
      next
    };
    match next.upgrade() {
      Some(cell) if cell.admitted() => {
        schedule(cell);
        return;
      }
      // Gone, aborted or timed out while queued: give the slot back and try the next one.
      _ => {
        ADMISSION.lock().active -= 1;
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Cells

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
  /// Waiting for a worker (or for admission).
  Queued,
  Running,
  /// Parked inside a leg, waiting for host work.
  Idle,
  /// Parked between legs, indexed in the store by `token`.
  Suspended,
  Done,
}

struct Leg {
  /// The JS layer's key for this exec/wait promise.
  id: u32,
  tool_call_id: Option<String>,
  admitted: bool,
  first_run: Option<Instant>,
  cpu_used: Duration,
  wall_expired: bool,
  wall: Option<AbortHandle>,
}

struct CellState {
  phase: Phase,
  /// Slices started so far: tells a slice's watchdog whether its slice is still the one running.
  slices: u64,
  /// The slice the watchdog gave up on (stuck in native code).
  abandoned: Option<u64>,
  vm: Option<Box<Vm>>,
  /// The cell's code until its first slice prepares it.
  source: Option<(String, Language)>,
  inbox: Vec<Delivery>,
  leg: Option<Leg>,
  token: Option<String>,
  expiry: Option<AbortHandle>,
  armed_timer: Option<Instant>,
}

pub struct Cell {
  pub id: u64,
  /// The run whose exec or wait drives the cell now (a wait from a rebuilt `CodeModeRun` of the
  /// same scope adopts it).
  run: Mutex<Arc<Run>>,
  signals: Arc<Signals>,
  state: Mutex<CellState>,
  /// The VM's host state once it exists, so a cell whose slice is stuck can still report its
  /// output and cancel its nested calls.
  host: Mutex<Option<Arc<Mutex<VmHost>>>>,
}

/// How a worker's slice ended, for the worker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SliceRun {
  Normal,
  /// The watchdog gave up on it and replaced this worker.
  Abandoned,
}

/// Every live cell, by id: where nested results are delivered.
static CELLS: LazyLock<DashMap<u64, Arc<Cell>>> = LazyLock::new(DashMap::new);

/// The live cell with this id.
pub fn find_cell(id: u64) -> Option<Arc<Cell>> {
  CELLS.get(&id).map(|cell| cell.clone())
}

/// How a leg ends.
enum End {
  Completed(String),
  Failed(Failure),
  /// Dropped between legs (abort or expiry): no leg result to send.
  Dropped(&'static str),
}

fn kill_failure(kill: Kill, run: &Run, signals: &Signals) -> Failure {
  let config = &run.config;
  match kill {
    Kill::Panic => Failure::internal(format!(
      "code mode runtime failed: {}",
      signals.panic_message().unwrap_or_default()
    )),
    Kill::Timeout => Failure::new(
      ErrorCode::Timeout,
      format!(
        "code mode cell exceeded timeoutMs ({} ms of guest CPU time).",
        config.timeout_ms
      ),
    ),
    Kill::Memory => Failure::new(
      ErrorCode::MemoryLimitExceeded,
      format!(
        "code mode cell exceeded memoryLimitBytes ({} bytes).",
        config.memory_limit_bytes
      ),
    ),
    Kill::Output => Failure::new(
      ErrorCode::OutputLimitExceeded,
      format!(
        "code mode output exceeded maxOutputBytes ({} bytes).",
        config.max_output_bytes
      ),
    ),
    Kill::Aborted | Kill::None => Failure::new(ErrorCode::Aborted, messages::ABORTED),
  }
}

impl Cell {
  fn new(run: Arc<Run>, source: Option<(String, Language)>) -> Arc<Cell> {
    let id = NEXT_CELL.fetch_add(1, Ordering::Relaxed);
    // A warm VM if one is ready (binding runs no JavaScript); otherwise the first slice builds one.
    let vm = take_warm();
    let signals = match &vm {
      Some(vm) => {
        vm.bind(run.clone(), id);
        vm.signals.clone()
      }
      None => Signals::new(),
    };
    Arc::new(Cell {
      id,
      run: Mutex::new(run),
      signals,
      state: Mutex::new(CellState {
        phase: Phase::Queued,
        slices: 0,
        abandoned: None,
        vm,
        source,
        inbox: Vec::new(),
        leg: None,
        token: None,
        expiry: None,
        armed_timer: None,
      }),
      host: Mutex::new(None),
    })
  }

  fn new_leg(id: u32, tool_call_id: Option<String>) -> Leg {
    Leg {
      id,
      tool_call_id,
      admitted: false,
      first_run: None,
      cpu_used: Duration::ZERO,
      wall_expired: false,
      wall: None,
    }
  }

  /// Starts a new cell for an exec leg.
  pub fn exec(
    run: &Arc<Run>,
    leg: u32,
    tool_call_id: Option<String>,
    code: String,
    language: Language,
  ) -> Arc<Cell> {
    let cell = Cell::new(run.clone(), Some((code, language)));
    cell.state.lock().leg = Some(Cell::new_leg(leg, tool_call_id));
    CELLS.insert(cell.id, cell.clone());
    run.track_cell(&cell, leg);
    cell.enter_leg();
    cell
  }

  pub fn run(&self) -> Arc<Run> {
    self.run.lock().clone()
  }

  /// Starts a wait leg on a suspended cell for `run` (the caller checked its scope).
  pub fn resume(
    self: &Arc<Self>,
    run: &Arc<Run>,
    leg: u32,
    tool_call_id: Option<String>,
  ) -> Result<(), Failure> {
    {
      let mut st = self.state.lock();
      match st.phase {
        Phase::Suspended => {}
        Phase::Done => return Err(Failure::invalid(messages::RUN_UNAVAILABLE)),
        _ => return Err(Failure::invalid(messages::ALREADY_RESUMING)),
      }
      if let Some(expiry) = st.expiry.take() {
        expiry.abort();
      }
      *self.run.lock() = run.clone();
      if let Some(vm) = st.vm.as_ref() {
        let mut host = vm.host.lock();
        host.run = Some(run.clone());
        host.parent_tool_call_id = tool_call_id.clone();
        host.yielded = false;
        let yields = host.yield_entry();
        drop(host);
        st.inbox.extend(yields.into_iter().map(|call| Delivery {
          call,
          ok: true,
          payload: None,
        }));
      }
      st.leg = Some(Cell::new_leg(leg, tool_call_id.clone()));
      st.phase = Phase::Queued;
    }
    run.track_cell(self, leg);
    Counters::bump(&run.telemetry.resumed);
    let token = self.state.lock().token.clone();
    run.event(cell_event(
      "cell_resumed",
      &run.scope.run_id,
      token.as_deref(),
      tool_call_id.as_deref(),
      json!({}),
    ));
    self.enter_leg();
    Ok(())
  }

  fn enter_leg(self: &Arc<Self>) {
    if admit(self) {
      if let Some(leg) = self.state.lock().leg.as_mut() {
        leg.admitted = true;
      }
      schedule(self.clone());
      return;
    }
    let weak = Arc::downgrade(self);
    let timeout = Duration::from_millis(self.run().config.timeout_ms as u64);
    clock::at(Instant::now() + timeout, move || {
      if let Some(cell) = weak.upgrade() {
        cell.admission_timeout();
      }
    });
  }

  /// Called by the admission queue: true if the cell still wants to run (now admitted).
  fn admitted(&self) -> bool {
    let mut st = self.state.lock();
    let queued = st.phase == Phase::Queued;
    match st.leg.as_mut() {
      Some(leg) if queued && !leg.admitted => {
        leg.admitted = true;
        true
      }
      _ => false,
    }
  }

  fn admission_timeout(self: &Arc<Self>) {
    let waiting = {
      let st = self.state.lock();
      st.phase == Phase::Queued && st.leg.as_ref().is_some_and(|leg| !leg.admitted)
    };
    if waiting {
      let failure = Failure::new(
        ErrorCode::RuntimeUnavailable,
        "code mode runtime is at capacity (maxActiveCells): the cell waited timeoutMs for a slot.",
      );
      self.finish(None, End::Failed(failure));
    }
  }

  /// Host results for this cell's pending bridge entries.
  pub fn deliver(self: &Arc<Self>, deliveries: impl IntoIterator<Item = Delivery>) {
    let mut st = self.state.lock();
    if st.phase == Phase::Done {
      return;
    }
    st.inbox.extend(deliveries);
    self.requeue_if_idle(&mut st, false);
  }

  /// Re-queues an idle cell whose leg can take host work (or must wind down: `force`).
  fn requeue_if_idle(self: &Arc<Self>, st: &mut CellState, force: bool) {
    let open = st.leg.as_ref().is_some_and(|leg| !leg.wall_expired);
    if st.phase == Phase::Idle && (open || force) {
      st.phase = Phase::Queued;
      schedule(self.clone());
    }
  }

  fn wake_for_timer(self: &Arc<Self>) {
    let mut st = self.state.lock();
    st.armed_timer = None;
    self.requeue_if_idle(&mut st, false);
  }

  fn wall_expired(self: &Arc<Self>, leg: u32) {
    let mut st = self.state.lock();
    match st.leg.as_mut() {
      Some(current) if current.id == leg => current.wall_expired = true,
      _ => return,
    }
    self.requeue_if_idle(&mut st, true);
  }

  /// `run.abort()` or an aborted exec/wait signal: the cell is dropped wherever it is.
  pub fn abort(self: &Arc<Self>) {
    self.signals.kill(Kill::Aborted);
    let drop_now = {
      let st = self.state.lock();
      match st.phase {
        Phase::Idle | Phase::Suspended => true,
        Phase::Queued => st.leg.as_ref().is_some_and(|leg| !leg.admitted),
        Phase::Running | Phase::Done => false,
      }
    };
    if drop_now {
      let end = if self.state.lock().leg.is_some() {
        End::Failed(kill_failure(Kill::Aborted, &self.run(), &self.signals))
      } else {
        End::Dropped("cell_aborted")
      };
      self.finish(None, end);
    }
  }

  fn expire(self: &Arc<Self>, token: &str) {
    let due = {
      let st = self.state.lock();
      st.phase == Phase::Suspended && st.token.as_deref() == Some(token)
    };
    if due {
      self.finish(None, End::Dropped("cell_expired"));
    }
  }

  /// Worker entry: runs the cell until it completes, fails, or has nothing ready to run.
  fn run_slice(self: &Arc<Self>) -> SliceRun {
    match self.run_slice_inner() {
      Some(slice) if self.state.lock().abandoned == Some(slice) => SliceRun::Abandoned,
      _ => SliceRun::Normal,
    }
  }

  /// Returns the number of the slice it ran, if it ran one.
  fn run_slice_inner(self: &Arc<Self>) -> Option<u64> {
    let run = self.run();
    let timeout = Duration::from_millis(run.config.timeout_ms as u64);
    let (mut slot, source, deliveries, host_work, budget, slice) = {
      let mut st = self.state.lock();
      if st.phase != Phase::Queued {
        return None;
      }
      st.phase = Phase::Running;
      st.slices += 1;
      let slice = st.slices;
      let leg = st.leg.as_mut()?;
      // The wall clock starts here; its timer is armed only if the VM ever parks (`after_idle`).
      leg.first_run.get_or_insert_with(Instant::now);
      let host_work = !leg.wall_expired;
      let budget = timeout.saturating_sub(leg.cpu_used);
      let deliveries = if host_work {
        std::mem::take(&mut st.inbox)
      } else {
        Vec::new()
      };
      (
        st.vm.take(),
        st.source.take(),
        deliveries,
        host_work,
        budget,
        slice,
      )
    };
    if self.signals.killed() != Kill::None {
      let failure = kill_failure(self.signals.killed(), &run, &self.signals);
      self.finish(slot, End::Failed(failure));
      return Some(slice);
    }

    let started = Instant::now();
    self.signals.set_deadline(Some(started + budget));
    watch(self, slice, started + budget + STUCK_GRACE);
    let step = catch_unwind(AssertUnwindSafe(|| {
      self.slice(&mut slot, source, deliveries, host_work)
    }));
    unwatch(self.id);
    // The calls the slice started reach the executor before anything else the cell sends; a
    // cell the watchdog already ended never starts them.
    if let Some(host) = self.host.lock().clone() {
      if self.state.lock().phase == Phase::Done {
        host.lock().take_outbox();
      } else {
        crate::sandbox::bridge::flush_calls(&host);
      }
    }
    self.signals.set_deadline(None);
    if let Some(leg) = self.state.lock().leg.as_mut() {
      leg.cpu_used += started.elapsed();
    }

    match step {
      Err(panic) => {
        // A VM that panicked may be inconsistent: leak it rather than run its destructor.
        if let Some(vm) = slot.take() {
          std::mem::forget(vm);
        }
        let failure = Failure::internal(format!(
          "code mode runtime failed: {}",
          panic_message(&*panic)
        ));
        self.finish(None, End::Failed(failure));
      }
      Ok(Err(failure)) => self.finish(slot, End::Failed(failure)),
      Ok(Ok(SliceEnd::Killed(kill))) => {
        self.finish(slot, End::Failed(kill_failure(kill, &run, &self.signals)))
      }
      Ok(Ok(SliceEnd::Done(Outcome::Value(value)))) => self.complete(slot, value),
      Ok(Ok(SliceEnd::Done(Outcome::Error(info)))) => {
        let message = slot
          .as_ref()
          .map_or_else(|| info.clone(), |vm| vm.describe_error(&info));
        self.finish(slot, End::Failed(Failure::internal(message)))
      }
      Ok(Ok(SliceEnd::Idle)) => match slot {
        Some(vm) => self.after_idle(vm),
        None => self.finish(
          None,
          End::Failed(Failure::internal("code mode cell lost its VM.")),
        ),
      },
    }
    Some(slice)
  }

  /// The watchdog of slice number `slice`: still running far past its CPU deadline, it is
  /// stuck in native code that never polls the interrupt handler. The leg fails now; the
  /// worker is replaced and its thread keeps the VM until the native loop returns (the kill
  /// flag then stops the guest at its next poll and the VM is dropped there).
  fn overran(self: &Arc<Self>, slice: u64) {
    {
      let mut st = self.state.lock();
      if st.phase != Phase::Running || st.slices != slice {
        return;
      }
      st.abandoned = Some(slice);
      // Under the state lock, so the worker sees the kill if it returns right now.
      self.signals.kill(Kill::Timeout);
    }
    replace_stuck_worker();
    let failure = kill_failure(self.signals.killed(), &self.run(), &self.signals);
    self.finish(None, End::Failed(failure));
  }

  /// The guest part of a slice: prepare and start the cell if new, then drive it.
  fn slice(
    &self,
    slot: &mut Option<Box<Vm>>,
    source: Option<(String, Language)>,
    deliveries: Vec<Delivery>,
    host_work: bool,
  ) -> Result<SliceEnd, Failure> {
    crate::testing::at_slice(&self.run().scope.run_id);
    if !slot.as_ref().is_some_and(|vm| vm.started) {
      let (code, language) =
        source.ok_or_else(|| Failure::internal("code mode cell has no program."))?;
      let run = self.run();
      if language == Language::TypeScript {
        Counters::bump(&run.telemetry.typescript_transforms);
      }
      // Parsing is not guest JavaScript: the interrupt handler cannot stop it, a deadline can.
      let deadline = self.signals.deadline();
      let program = source::prepare_until(&code, language, deadline)?;
      if slot.is_none() {
        *slot = Some(Box::new(Vm::new(run, self.id, self.signals.clone())?));
      }
      let vm = slot.as_mut().expect("the VM exists from here on");
      let tool_call_id = self
        .state
        .lock()
        .leg
        .as_ref()
        .and_then(|leg| leg.tool_call_id.clone());
      vm.host.lock().parent_tool_call_id = tool_call_id;
      *self.host.lock() = Some(vm.host.clone());
      vm.start(program)?;
    }
    let vm = slot.as_mut().expect("the VM exists from here on");
    Ok(vm.drive(deliveries, host_work))
  }

  fn complete(self: &Arc<Self>, slot: Option<Box<Vm>>, value: String) {
    let over = slot.as_ref().is_some_and(|vm| {
      let produced = vm.host.lock().output_bytes;
      produced + value.len() > self.run().config.max_output_bytes as usize
    });
    if over {
      return self.finish(
        slot,
        End::Failed(kill_failure(Kill::Output, &self.run(), &self.signals)),
      );
    }
    self.finish(slot, End::Completed(value));
  }

  /// The VM has nothing ready: keep waiting inside the leg, or end the leg.
  fn after_idle(self: &Arc<Self>, vm: Box<Vm>) {
    let mut st = self.state.lock();
    if st.phase == Phase::Done {
      return;
    }
    if self.signals.killed() != Kill::None {
      drop(st);
      let failure = kill_failure(self.signals.killed(), &self.run(), &self.signals);
      return self.finish(Some(vm), End::Failed(failure));
    }
    if let Some(leg) = st.leg.as_mut() {
      let timeout = Duration::from_millis(self.run().config.timeout_ms as u64);
      let deadline = leg.first_run.unwrap_or_else(Instant::now) + timeout;
      if Instant::now() >= deadline {
        leg.wall_expired = true;
      } else if leg.wall.is_none() {
        let (weak, id) = (Arc::downgrade(self), leg.id);
        leg.wall = Some(clock::at(deadline, move || {
          if let Some(cell) = weak.upgrade() {
            cell.wall_expired(id);
          }
        }));
      }
    }
    let wall_expired = st.leg.as_ref().is_none_or(|leg| leg.wall_expired);
    if !wall_expired && !st.inbox.is_empty() {
      st.vm = Some(vm);
      st.phase = Phase::Queued;
      drop(st);
      return schedule(self.clone());
    }
    let (yielded, has_work, next_timer) = {
      let host = vm.host.lock();
      (
        host.yielded,
        !host.pending.is_empty() || !host.timers.is_empty(),
        host.next_timer(),
      )
    };
    if yielded || (wall_expired && has_work) {
      drop(st);
      return self.suspend(vm, if yielded { "yield" } else { "pending_tools" });
    }
    if !has_work {
      drop(st);
      let failure = Failure::internal(
        "code mode cell can never finish: it awaits a promise that nothing will settle (no tool call or timer is pending).",
      );
      return self.finish(Some(vm), End::Failed(failure));
    }
    st.vm = Some(vm);
    st.phase = Phase::Idle;
    if let Some(due) = next_timer
      && st.armed_timer.is_none_or(|armed| due < armed)
    {
      st.armed_timer = Some(due);
      let weak = Arc::downgrade(self);
      clock::at(due, move || {
        if let Some(cell) = weak.upgrade() {
          cell.wake_for_timer();
        }
      });
    }
  }

  /// Ends the leg with `waiting`: the VM stays parked under a fresh runId.
  fn suspend(self: &Arc<Self>, vm: Box<Vm>, reason: &'static str) {
    vm.collect_garbage();
    let run = self.run();
    let bytes = vm.memory_used();
    let max = run.config.max_snapshot_bytes as usize;
    if bytes > max {
      let failure = Failure::new(
        ErrorCode::SnapshotLimitExceeded,
        format!(
          "suspended code mode cell needs {bytes} bytes, over maxSnapshotBytes ({max} bytes)."
        ),
      );
      return self.finish(Some(vm), End::Failed(failure));
    }
    let token = new_token();
    let mut st = self.state.lock();
    // The watchdog may have ended the leg while this slice was winding down.
    if st.phase == Phase::Done {
      return;
    }
    let stored = match st.token.take() {
      Some(old) => STORE.replace(&old, token.clone(), self.clone()),
      None => STORE.insert(token.clone(), self.clone()),
    };
    if !stored {
      drop(st);
      return self.finish(
        Some(vm),
        End::Failed(Failure::invalid(messages::TOO_MANY_SUSPENDED)),
      );
    }
    let leg = st.leg.take().expect("a suspending cell is in a leg");
    if let Some(wall) = &leg.wall {
      wall.abort();
    }
    let (output, pending) = {
      let mut host = vm.host.lock();
      let mut pending: Vec<PendingEntry> = host
        .pending
        .values()
        .map(|p| PendingEntry {
          id: p.id.clone(),
          method: p.method.as_str(),
          tool_id: p.tool_id.clone(),
        })
        .collect();
      pending.extend(host.timers.keys().map(|id| PendingEntry {
        id: format!("timer_{id}"),
        method: "timer",
        tool_id: None,
      }));
      (host.take_output(), pending)
    };
    st.token = Some(token.clone());
    st.phase = Phase::Suspended;
    st.vm = Some(vm);
    let ttl = Duration::from_secs(run.config.snapshot_ttl_seconds as u64);
    let weak = Arc::downgrade(self);
    let expiring = token.clone();
    st.expiry = Some(clock::at(Instant::now() + ttl, move || {
      if let Some(cell) = weak.upgrade() {
        cell.expire(&expiring);
      }
    }));
    drop(st);

    Counters::bump(&run.telemetry.suspended);
    run.telemetry.record_snapshot(bytes);
    run.event(cell_event(
      "cell_suspended",
      &run.scope.run_id,
      Some(&token),
      leg.tool_call_id.as_deref(),
      json!({ "reason": reason, "pendingToolCalls": pending.len(), "snapshotBytes": bytes }),
    ));
    let status = Status::Waiting {
      run_id: &token,
      reason,
      pending: &pending,
    };
    let json = result::to_json(status, &output, &run.result_telemetry());
    self.end_leg(&run, &leg, json);
  }

  /// Sends a leg's result and gives its admission slot back.
  fn end_leg(&self, run: &Run, leg: &Leg, result: String) {
    run.forget_leg(leg.id);
    if leg.admitted {
      release(true);
    }
    run.port.send(Message::LegDone {
      leg: leg.id,
      result,
    });
  }

  /// Terminal: the cell completes, fails, or is dropped; its VM is freed.
  fn finish(self: &Arc<Self>, vm: Option<Box<Vm>>, end: End) {
    let (leg, token, vm) = {
      let mut st = self.state.lock();
      if st.phase == Phase::Done {
        return;
      }
      st.phase = Phase::Done;
      st.inbox.clear();
      st.source = None;
      if let Some(expiry) = st.expiry.take() {
        expiry.abort();
      }
      let leg = st.leg.take();
      if let Some(wall) = leg.as_ref().and_then(|l| l.wall.as_ref()) {
        wall.abort();
      }
      (leg, st.token.take(), vm.or_else(|| st.vm.take()))
    };
    if let Some(token) = &token {
      STORE.remove(token);
    }
    CELLS.remove(&self.id);
    let run = &self.run();
    run.forget_cell(self.id);
    // Without the VM (its slice is stuck on a worker) read its host state through the cell,
    // never blocking: this may run on the clock thread.
    let host = vm
      .as_ref()
      .map(|vm| vm.host.clone())
      .or_else(|| self.host.lock().clone());
    let (output, in_flight) = match host
      .as_ref()
      .and_then(|host| host.try_lock_for(Duration::from_millis(100)))
    {
      Some(mut host) => (host.take_output(), host.calls_in_flight()),
      None => (Vec::new(), usize::from(host.is_some())),
    };
    // Completion leaves nested calls running in the gateway (their results are dropped);
    // every other end cancels them.
    if in_flight > 0 && !matches!(end, End::Completed(_)) {
      run.port.send(Message::AbortCell { cell: self.id });
    }
    let aborted = matches!(&end, End::Failed(f) if f.code == ErrorCode::Aborted)
      || matches!(end, End::Dropped("cell_aborted"));
    if aborted {
      Counters::bump(&run.telemetry.aborted);
    }
    if let End::Dropped(kind) = end {
      if kind == "cell_expired" {
        Counters::bump(&run.telemetry.expired);
      }
      run.event(cell_event(
        kind,
        &run.scope.run_id,
        token.as_deref(),
        None,
        json!({}),
      ));
    } else if aborted {
      let tool_call_id = leg.as_ref().and_then(|l| l.tool_call_id.as_deref());
      run.event(cell_event(
        "cell_aborted",
        &run.scope.run_id,
        token.as_deref(),
        tool_call_id,
        json!({}),
      ));
    }
    if let Some(leg) = leg {
      let telemetry = run.result_telemetry();
      let json = match &end {
        End::Completed(value) => result::to_json(Status::Completed { value }, &output, &telemetry),
        End::Failed(failure) => result::to_json(Status::Failed(failure), &output, &telemetry),
        End::Dropped(_) => result::to_json(
          Status::Failed(&kill_failure(Kill::Aborted, run, &self.signals)),
          &output,
          &telemetry,
        ),
      };
      self.end_leg(run, &leg, json);
    }
    if let Some(vm) = vm {
      retire(vm);
    }
  }
}
