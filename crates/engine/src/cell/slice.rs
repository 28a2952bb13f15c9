//! A worker's slice of a cell's leg: prepare the program on the first slice, run jobs and
//! timers until the cell completes, fails or has nothing ready, then park it idle inside the leg
//! (re-queued by a host outcome, a timer or its wall clock). Also the watchdog's hook for a slice
//! stuck in native code. Separate from `cell.rs` because it is what runs on the worker threads
//! (`pool.rs`), under the slice's deadline.

use super::finish::End;
use super::{Cell, CellState, Phase};
use crate::error::{ErrorCode, Failure, FailurePhase, panic_message};
use crate::limits::{Kill, kill_failure};
use crate::pool::{self, Job};
use crate::state::Outcome;
use crate::vm::{self, Delivery, SliceEnd, Vm};
use crate::watchdog::{self, Overrun};
use crate::{Prepare, clock, stuck};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::time::Instant;

impl Cell {
  /// Re-queues an idle cell whose leg can take host work (or must wind down: `force`).
  pub(super) fn requeue_if_idle(self: &Arc<Self>, st: &mut CellState, force: bool) {
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

  /// Worker entry: runs the cell until it completes, fails, or has nothing ready to run
  /// (`None`: it was not queued, or has no leg).
  fn run_slice(self: &Arc<Self>) -> Option<()> {
    crate::testing::at_job(self.host().label());
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
      return Some(());
    }

    let started = Instant::now();
    self.signals.set_deadline(Some(started + budget));
    let running = stuck::begin();
    let weak: std::sync::Weak<dyn Overrun> = Arc::downgrade(self) as _;
    watchdog::watch(
      self.id,
      weak,
      slice,
      (started, budget),
      &running,
      Some(&self.signals),
    );
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
    Some(())
  }

  /// The watchdog of slice number `slice`: still running far past its CPU deadline, it is
  /// stuck in native code that never polls the interrupt handler. The leg fails now; the
  /// worker is replaced and its thread keeps the VM until the native loop returns (the kill
  /// flag then stops the guest at its next poll and the VM is dropped there).
  fn overran(self: &Arc<Self>, slice: u64) -> bool {
    {
      let st = self.state.lock();
      if st.phase != Phase::Running || st.slices != slice {
        return false;
      }
      // Under the state lock, so the worker sees the kill if it returns right now.
      self.signals.kill(Kill::Timeout);
    }
    let job: Arc<dyn Job> = self.clone();
    pool::give_up(&job);
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
      let vm = slot.as_mut().ok_or_else(no_vm)?;
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
    let vm = slot.as_mut().ok_or_else(no_vm)?;
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
}

impl Job for Cell {
  fn run(self: Arc<Self>) {
    let _ = self.run_slice();
  }

  fn tenant(&self) -> u64 {
    self.host().tenant()
  }

  fn panicked(self: Arc<Self>, message: String) {
    // The runtime failed around the cell, not the cell: a runtime failure (phase host).
    let failure = Failure::new(
      ErrorCode::RuntimeUnavailable,
      format!("code mode runtime failed: {message}"),
    )
    .in_phase(FailurePhase::Host);
    self.finish(None, End::Failed(failure));
  }
}

impl Overrun for Cell {
  fn overran(self: Arc<Self>, slice: u64) -> bool {
    Cell::overran(&self, slice)
  }
}

/// A slice past its preparation found no VM: the runtime's fault, never the guest's.
fn no_vm() -> Failure {
  Failure::internal("code mode cell has no VM.").in_phase(FailurePhase::Host)
}
