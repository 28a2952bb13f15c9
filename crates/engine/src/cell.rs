//! The cell state machine (ARCHITECTURE.md, decisions 4, 5, 6, 11, 14).
//!
//! A cell is one exec and its continuations. Its VM occupies a worker only while JavaScript
//! runs; otherwise it is parked in the cell (`Idle` inside a leg, `Suspended` between legs) and
//! re-queued when a host outcome, a timer or its wall clock arrives. One leg is one exec or
//! resume: it ends completed, failed, or waiting (the VM stays parked under a fresh token), and
//! the host hears of it through [`Host::ended`].
//!
//! This file holds the cell's state and how a leg starts (exec, resume, admission); the rest of
//! the machine is split by who drives it:
//! - `cell/slice.rs`: a worker's slice of a leg (prepare, run, go idle), its wall clock and
//!   timers, and the watchdog's hook;
//! - `cell/park.rs`: host outcomes arriving, a leg ending `waiting` (the cell parked under a
//!   token), its expiry and an abort;
//! - `cell/finish.rs`: the terminal end of a cell and what the host hears of it.

mod finish;
mod park;
mod slice;

use super::admission::Waiting;
use super::limits::Signals;
use super::store::Store;
use super::vm::{Delivery, Vm};
use super::{AnyGuest, BoundHost, Guest, Host, LegTag, Limits, Prepare};
use super::{admission, clock, pool, warm};
use crate::error::{ErrorCode, Failure, messages};
use crate::state::VmState;
use dashmap::DashMap;
use finish::End;
use parking_lot::Mutex;
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

/// Every live cell, by id: where nested results are delivered.
static CELLS: LazyLock<DashMap<u64, Arc<Cell>>> = LazyLock::new(DashMap::new);

/// Delivers host outcomes to the live cell `cell`'s pending requests (none if it is gone).
pub fn deliver(cell: u64, deliveries: impl IntoIterator<Item = Delivery>) {
  if let Some(cell) = CELLS.get(&cell).map(|cell| cell.clone()) {
    cell.deliver(deliveries);
  }
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
}

impl Waiting for Cell {
  fn admitted(&self) -> bool {
    Cell::admitted(self)
  }
}
