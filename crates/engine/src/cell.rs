//! The cell state machine (ARCHITECTURE.md, decisions 4, 5, 6, 11, 14).
//!
//! A cell is one exec and its continuations. Its VM occupies a worker only while JavaScript
//! runs; otherwise it is parked in the cell (`Idle` inside a leg, `Suspended` between legs) and
//! re-queued when a host outcome, a timer or its wall clock arrives. One leg is one exec or
//! resume: it ends completed, failed, or waiting (the VM stays parked under a fresh token), and
//! the host hears of it through [`Host::ended`].

use super::admission::Waiting;
use super::limits::{Kill, Signals, kill_failure};
use super::pool::Job;
use super::store::{Store, new_token};
use super::stuck;
use super::vm::{self, Delivery, SliceEnd, Vm};
use super::watchdog;
use super::watchdog::Overrun;
use super::{AnyGuest, BoundHost, DropReason, Ended, Guest, Host, LegEnd, LegTag, Limits, Prepare};
use super::{admission, clock, output, pool, warm};
use crate::error::{ErrorCode, Failure, FailurePhase, messages, panic_message};
use crate::state::{Outcome, VmState};
use dashmap::DashMap;
use parking_lot::Mutex;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, LazyLock};
use std::time::{Duration, Instant};
use tokio::task::AbortHandle;

/// Parked cells, by token.
pub static STORE: LazyLock<Store<Cell>> = LazyLock::new(Store::new);

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
  tag: LegTag,
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
  /// Prepares the cell's program on its first slice.
  prepare: Option<Prepare>,
  inbox: Vec<Delivery>,
  leg: Option<Leg>,
  token: Option<String>,
  expiry: Option<AbortHandle>,
  armed_timer: Option<Instant>,
}

/// One exec and its continuations: a VM, the legs that drive it, and its place in the store
/// while parked.
pub struct Cell {
  pub id: u64,
  /// The host whose leg drives the cell now (a resume from another host of the same scope
  /// adopts it).
  host: Mutex<BoundHost>,
  guest: &'static dyn AnyGuest,
  signals: Arc<Signals>,
  state: Mutex<CellState>,
  /// The VM's state once it exists, so a cell whose slice is stuck can still report its
  /// output and cancel its requests.
  vm_state: Mutex<Option<Arc<Mutex<VmState>>>>,
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

/// Delivers host outcomes to the live cell `cell`'s pending requests (none if it is gone).
pub fn deliver(cell: u64, deliveries: impl IntoIterator<Item = Delivery>) {
  if let Some(cell) = CELLS.get(&cell).map(|cell| cell.clone()) {
    cell.deliver(deliveries);
  }
}

/// How a leg ends.
enum End {
  Completed(String),
  Failed(Failure),
  /// Dropped between legs (abort or expiry): no leg result to send.
  Dropped(DropReason),
  /// Dropped between legs: what it held while parked grew to this many bytes, past
  /// `maxSnapshotBytes`.
  Overflowed(usize),
}

impl Cell {
  fn new(id: u64, host: BoundHost, guest: &'static dyn AnyGuest, prepare: Prepare) -> Arc<Cell> {
    // A warm VM if one is ready (binding runs no JavaScript); otherwise the first slice builds one.
    let vm = warm::take(guest);
    let signals = match &vm {
      Some(vm) => {
        vm.bind(host.clone(), id);
        vm.signals.clone()
      }
      None => Signals::new(),
    };
    Arc::new(Cell {
      id,
      host: Mutex::new(host),
      guest,
      signals,
      state: Mutex::new(CellState {
        phase: Phase::Queued,
        slices: 0,
        abandoned: None,
        vm,
        prepare: Some(prepare),
        inbox: Vec::new(),
        leg: None,
        token: None,
        expiry: None,
        armed_timer: None,
      }),
      vm_state: Mutex::new(None),
    })
  }

  fn new_leg(tag: LegTag) -> Leg {
    Leg {
      tag,
      admitted: false,
      first_run: None,
      cpu_used: Duration::ZERO,
      wall_expired: false,
      wall: None,
    }
  }

  /// Starts cell `id` (the host's number for it, unique in the process) for an exec leg of
  /// `host`, in a VM of `guest`; `prepare` makes its program on its first slice.
  /// `before_start` runs before the leg can end (the host tracks the cell there, and anything
  /// it reports there comes before the leg's end).
  pub fn exec<H: Host>(
    id: u64,
    host: Arc<H>,
    guest: &'static Guest<H>,
    leg: LegTag,
    prepare: Prepare,
    before_start: impl FnOnce(&Arc<Cell>),
  ) -> Arc<Cell> {
    let cell = Cell::new(id, BoundHost::new(host), guest, prepare);
    cell.state.lock().leg = Some(Cell::new_leg(leg));
    CELLS.insert(cell.id, cell.clone());
    before_start(&cell);
    cell.enter_leg();
    cell
  }

  /// The host driving the cell now.
  pub fn host(&self) -> Arc<dyn Host> {
    self.host.lock().host().clone()
  }

  fn limits(&self) -> Limits {
    self.host().limits().clone()
  }

  /// The parked cell under `token`, if any.
  pub fn parked(token: &str) -> Option<Arc<Cell>> {
    STORE.get(token)
  }

  /// The live cell `id` (in a leg or parked), if any.
  pub fn live(id: u64) -> Option<Arc<Cell>> {
    CELLS.get(&id).map(|cell| cell.clone())
  }

  /// Starts a wait leg of `host` on a parked cell (the caller checked that `host` may drive
  /// it). `before_start` runs as in [`Cell::exec`].
  pub fn resume<H: Host>(
    self: &Arc<Self>,
    host: Arc<H>,
    leg: LegTag,
    before_start: impl FnOnce(&Arc<Cell>),
  ) -> Result<(), Failure> {
    // Its VM's functions were made for hosts of its guest's type: no other may drive it.
    if self.guest.host_type() != std::any::TypeId::of::<H>() {
      return Err(Failure::invalid(messages::RUN_UNAVAILABLE));
    }
    let host = BoundHost::new(host);
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
      *self.host.lock() = host.clone();
      if let Some(vm) = st.vm.as_ref() {
        let mut state = vm.state.lock();
        state.set_host(host);
        state.caller_id = leg.caller_id.clone();
        state.yielded = false;
        let yields = state.yield_entry();
        drop(state);
        st.inbox.extend(yields.into_iter().map(|call| Delivery {
          call,
          ok: true,
          payload: None,
        }));
      }
      st.leg = Some(Cell::new_leg(leg));
      st.phase = Phase::Queued;
    }
    before_start(self);
    self.enter_leg();
    Ok(())
  }

  fn enter_leg(self: &Arc<Self>) {
    if let Some(message) = pool::refusal() {
      let failure = Failure::new(ErrorCode::RuntimeUnavailable, message);
      return self.finish(None, End::Failed(failure));
    }
    let weak: std::sync::Weak<dyn Waiting> = Arc::downgrade(self) as _;
    if admission::admit(weak) {
      if let Some(leg) = self.state.lock().leg.as_mut() {
        leg.admitted = true;
      }
      pool::schedule(self.clone());
      return;
    }
    let weak = Arc::downgrade(self);
    let timeout = self.limits().timeout;
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

  /// Host outcomes for this cell's pending requests.
  fn deliver(self: &Arc<Self>, deliveries: impl IntoIterator<Item = Delivery>) {
    let mut st = self.state.lock();
    if st.phase == Phase::Done {
      return;
    }
    st.inbox.extend(deliveries);
    // A parked cell runs again only on `wait`, and starts nothing meanwhile (its queued calls
    // wait for that leg). What it holds counts against its snapshot cap as it arrives: the VM,
    // the results waiting for it, and the calls queued behind its cap.
    if st.phase == Phase::Suspended
      && let Some(vm) = st.vm.as_ref()
    {
      let inbox: usize = st
        .inbox
        .iter()
        .map(|d| d.payload.as_ref().map_or(0, String::len))
        .sum();
      let held = vm.memory_used() + inbox + vm.state.lock().queued_bytes();
      if held > self.limits().max_snapshot_bytes {
        drop(st);
        self.finish(None, End::Overflowed(held));
      }
      return;
    }
    self.requeue_if_idle(&mut st, false);
  }

  /// Re-queues an idle cell whose leg can take host work (or must wind down: `force`).
  fn requeue_if_idle(self: &Arc<Self>, st: &mut CellState, force: bool) {
    let open = st.leg.as_ref().is_some_and(|leg| !leg.wall_expired);
    if st.phase == Phase::Idle && (open || force) {
      st.phase = Phase::Queued;
      pool::schedule(self.clone());
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
      Some(current) if current.tag.id == leg => current.wall_expired = true,
      _ => return,
    }
    self.requeue_if_idle(&mut st, true);
  }

  /// The host aborts the cell (code mode: `run.abort()` or an aborted exec/wait signal): it is
  /// dropped wherever it is.
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
        End::Failed(kill_failure(Kill::Aborted, &self.limits(), &self.signals))
      } else {
        End::Dropped(DropReason::Aborted)
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
      self.finish(None, End::Dropped(DropReason::Expired));
    }
  }

  /// Worker entry: runs the cell until it completes, fails, or has nothing ready to run.
  fn run_slice(self: &Arc<Self>) -> SliceRun {
    crate::testing::at_job(self.host().label());
    match self.run_slice_inner() {
      Some(slice) if self.state.lock().abandoned == Some(slice) => SliceRun::Abandoned,
      _ => SliceRun::Normal,
    }
  }

  /// Returns the number of the slice it ran, if it ran one.
  fn run_slice_inner(self: &Arc<Self>) -> Option<u64> {
    let limits = self.limits();
    let timeout = limits.timeout;
    let (mut slot, prepare, deliveries, host_work, budget, slice) = {
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
        st.prepare.take(),
        deliveries,
        host_work,
        budget,
        slice,
      )
    };
    if self.signals.killed() != Kill::None {
      let failure = kill_failure(self.signals.killed(), &limits, &self.signals);
      self.finish(slot, End::Failed(failure));
      return Some(slice);
    }

    let started = Instant::now();
    self.signals.set_deadline(Some(started + budget));
    let running = stuck::begin();
    let weak: std::sync::Weak<dyn Overrun> = Arc::downgrade(self) as _;
    watchdog::watch(self.id, weak, slice, (started, budget), &running);
    let step = catch_unwind(AssertUnwindSafe(|| {
      self.slice(&mut slot, prepare, deliveries, host_work)
    }));
    watchdog::unwatch(self.id);
    drop(running);
    // The requests the slice started reach the host before anything else the cell sends; a
    // cell the watchdog already ended never starts them.
    if let Some(state) = self.vm_state.lock().clone() {
      if self.state.lock().phase == Phase::Done {
        state.lock().take_outbox();
      } else {
        vm::flush(&state);
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
        ))
        .in_phase(FailurePhase::Host);
        self.finish(None, End::Failed(failure));
      }
      Ok(Err(failure)) => self.finish(slot, End::Failed(failure)),
      Ok(Ok(SliceEnd::Killed(kill))) => self.finish(
        slot,
        End::Failed(kill_failure(kill, &limits, &self.signals)),
      ),
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
          End::Failed(
            Failure::internal("code mode cell lost its VM.").in_phase(FailurePhase::Host),
          ),
        ),
      },
    }
    Some(slice)
  }

  /// The watchdog of slice number `slice`: still running far past its CPU deadline, it is
  /// stuck in native code that never polls the interrupt handler. The leg fails now; the
  /// worker is replaced and its thread keeps the VM until the native loop returns (the kill
  /// flag then stops the guest at its next poll and the VM is dropped there).
  fn overran(self: &Arc<Self>, slice: u64) -> bool {
    {
      let mut st = self.state.lock();
      if st.phase != Phase::Running || st.slices != slice {
        return false;
      }
      st.abandoned = Some(slice);
      // Under the state lock, so the worker sees the kill if it returns right now.
      self.signals.kill(Kill::Timeout);
    }
    pool::replace_stuck_worker();
    let failure = kill_failure(self.signals.killed(), &self.limits(), &self.signals);
    self.finish(None, End::Failed(failure));
    true
  }

  /// The guest part of a slice: prepare and start the cell if new, then drive it.
  fn slice(
    &self,
    slot: &mut Option<Box<Vm>>,
    prepare: Option<Prepare>,
    deliveries: Vec<Delivery>,
    host_work: bool,
  ) -> Result<SliceEnd, Failure> {
    let host = self.host();
    stuck::guest(|| crate::testing::at_slice(host.label()));
    if !slot.as_ref().is_some_and(|vm| vm.started) {
      let prepare = prepare.ok_or_else(|| {
        Failure::internal("code mode cell has no program.").in_phase(FailurePhase::Host)
      })?;
      // Preparing is not guest JavaScript: the interrupt handler cannot stop it, a deadline can
      // (and, past it, the watchdog).
      let deadline = self.signals.deadline();
      let program = stuck::guest(|| prepare(deadline))?;
      if slot.is_none() {
        // Built inside the slice, under its deadline: an interrupt while the prelude loads is
        // the kill's failure (timeout, memory), not a runtime fault.
        let signals = self.signals.clone();
        let bound = self.host.lock().clone();
        match stuck::guest(|| Vm::new(self.guest, bound, self.id, signals)) {
          Ok(vm) => *slot = Some(Box::new(vm)),
          Err(_) if self.signals.killed() != Kill::None => {
            return Ok(SliceEnd::Killed(self.signals.killed()));
          }
          Err(failure) => return Err(failure),
        }
      }
      let vm = slot.as_mut().expect("the VM exists from here on");
      let caller_id = self
        .state
        .lock()
        .leg
        .as_ref()
        .and_then(|leg| leg.tag.caller_id.clone());
      vm.state.lock().caller_id = caller_id;
      *self.vm_state.lock() = Some(vm.state.clone());
      stuck::guest(|| vm.start(program))?;
    }
    let vm = slot.as_mut().expect("the VM exists from here on");
    Ok(stuck::guest(|| vm.drive(deliveries, host_work)))
  }

  fn complete(self: &Arc<Self>, slot: Option<Box<Vm>>, value: String) {
    let limits = self.limits();
    let over = slot.as_ref().is_some_and(|vm| {
      let produced = vm.state.lock().output.bytes();
      produced + value.len() > limits.max_output_bytes
    });
    if over {
      return self.finish(
        slot,
        End::Failed(kill_failure(Kill::Output, &limits, &self.signals)),
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
      let failure = kill_failure(self.signals.killed(), &self.limits(), &self.signals);
      return self.finish(Some(vm), End::Failed(failure));
    }
    if let Some(leg) = st.leg.as_mut() {
      let timeout = self.limits().timeout;
      let deadline = leg.first_run.unwrap_or_else(Instant::now) + timeout;
      if Instant::now() >= deadline {
        leg.wall_expired = true;
      } else if leg.wall.is_none() {
        let (weak, id) = (Arc::downgrade(self), leg.tag.id);
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
      return pool::schedule(self.clone());
    }
    let (yielded, has_work, next_timer) = {
      let state = vm.state.lock();
      (
        state.yielded,
        !state.pending.is_empty() || !state.timers.is_empty(),
        state.next_timer(),
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

  /// Ends the leg with `waiting`: the VM stays parked under a fresh token.
  fn suspend(self: &Arc<Self>, vm: Box<Vm>, reason: &'static str) {
    vm.collect_garbage();
    let limits = self.limits();
    let bytes = vm.memory_used();
    let max = limits.max_snapshot_bytes;
    if bytes > max {
      let failure = Failure::new(
        ErrorCode::SnapshotLimitExceeded,
        format!(
          "suspended {} needs {bytes} bytes, over {} ({max} bytes).",
          limits.names.cell, limits.names.max_snapshot
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
        End::Failed(Failure::invalid(messages::TOO_MANY_SUSPENDED).in_phase(FailurePhase::Host)),
      );
    }
    let leg = st.leg.take().expect("a suspending cell is in a leg");
    if let Some(wall) = &leg.wall {
      wall.abort();
    }
    let (output, pending) = {
      let mut state = vm.state.lock();
      (state.take_output(), state.pending_list())
    };
    st.token = Some(token.clone());
    st.phase = Phase::Suspended;
    st.vm = Some(vm);
    let weak = Arc::downgrade(self);
    let expiring = token.clone();
    st.expiry = Some(clock::at(Instant::now() + limits.snapshot_ttl, move || {
      if let Some(cell) = weak.upgrade() {
        cell.expire(&expiring);
      }
    }));
    drop(st);

    if leg.admitted {
      admission::release(true);
    }
    self.host().ended(Ended {
      cell: self.id,
      leg: Some(leg.tag.clone()),
      end: Some(LegEnd::Waiting {
        token: token.clone(),
        reason: reason.into(),
        pending,
        snapshot_bytes: bytes as u64,
      }),
      dropped: None,
      token: Some(token),
      output,
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
      st.prepare = None;
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
    let host = self.host();
    // Without the VM (its slice is stuck on a worker) read its state through the cell, never
    // blocking: this may run on the clock thread.
    let state = vm
      .as_ref()
      .map(|vm| vm.state.clone())
      .or_else(|| self.vm_state.lock().clone());
    let (output, in_flight) = match state
      .as_ref()
      .and_then(|state| state.try_lock_for(Duration::from_millis(100)))
    {
      Some(mut state) => {
        state.drop_queued();
        (state.take_output(), state.requests_in_flight())
      }
      None => (Vec::new(), usize::from(state.is_some())),
    };
    // Completion leaves requests running in the host (their outcomes are dropped); every other
    // end cancels them.
    if in_flight > 0 && !matches!(end, End::Completed(_)) {
      host.cancel_requests(self.id);
    }
    if leg.as_ref().is_some_and(|leg| leg.admitted) {
      admission::release(true);
    }
    let (end, dropped) = match end {
      End::Completed(value) => (LegEnd::Completed { value }, None),
      End::Failed(mut failure) => {
        // The guest writes most of the message (an uncaught error's): bounded like its output.
        let cap = host.limits().max_output_bytes;
        failure.message = output::bound_text(failure.message, cap, host.limits().names);
        (LegEnd::Failed(failure), None)
      }
      End::Dropped(reason) => (
        LegEnd::Failed(kill_failure(Kill::Aborted, host.limits(), &self.signals)),
        Some(reason),
      ),
      End::Overflowed(bytes) => (
        LegEnd::Failed(Failure::new(
          ErrorCode::SnapshotLimitExceeded,
          format!(
            "suspended {} held {bytes} bytes (its memory, the tool results that reached it and the calls queued behind its cap), over {} ({} bytes).",
            host.limits().names.cell,
            host.limits().names.max_snapshot,
            host.limits().max_snapshot_bytes
          ),
        )),
        Some(DropReason::SnapshotLimit),
      ),
    };
    let tell = leg.is_some() || dropped == Some(DropReason::SnapshotLimit);
    host.ended(Ended {
      cell: self.id,
      end: tell.then_some(end),
      leg: leg.map(|leg| leg.tag),
      dropped,
      token,
      output,
    });
    if let Some(vm) = vm {
      warm::retire(vm);
    }
  }
}

impl Job for Cell {
  fn run(self: Arc<Self>) -> bool {
    self.run_slice() == SliceRun::Abandoned
  }

  fn panicked(self: Arc<Self>, message: String) {
    let failure = Failure::internal(format!("code mode runtime failed: {message}"))
      .in_phase(FailurePhase::Host);
    self.finish(None, End::Failed(failure));
  }
}

impl Waiting for Cell {
  fn admitted(&self) -> bool {
    Cell::admitted(self)
  }
}

impl Overrun for Cell {
  fn overran(self: Arc<Self>, slice: u64) -> bool {
    Cell::overran(&self, slice)
  }
}
