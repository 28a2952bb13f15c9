//! The terminal end of a cell: completed, failed or dropped, its VM freed, its token and
//! admission slot released, its requests cancelled, and the host told how its leg ended.
//! Separate from `cell.rs` because every path of the machine ends here, from any thread.

use super::{CELLS, Cell, Phase, STORE};
use crate::error::{ErrorCode, Failure};
use crate::limits::{Kill, kill_failure};
use crate::vm::Vm;
use crate::{DropReason, Ended, LegEnd, admission, output, warm};
use std::sync::Arc;
use std::time::Duration;

/// How a leg ends.
pub(super) enum End {
  Completed(String),
  Failed(Failure),
  /// Dropped between legs (abort or expiry): no leg result to send.
  Dropped(DropReason),
  /// Dropped between legs: what it held while parked grew to this many bytes, past
  /// `maxSnapshotBytes`.
  Overflowed(usize),
}

impl Cell {
  /// Terminal: the cell completes, fails, or is dropped; its VM is freed.
  pub(super) fn finish(self: &Arc<Self>, vm: Option<Box<Vm>>, end: End) {
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
    // The requests in flight, or `None` when they could not be listed (the state stayed locked).
    let (output, in_flight) = match state
      .as_ref()
      .and_then(|state| state.try_lock_for(Duration::from_millis(100)))
    {
      Some(mut state) => {
        state.drop_queued();
        (state.take_output(), Some(state.in_flight_inputs()))
      }
      None => (Vec::new(), state.is_none().then(Vec::new)),
    };
    // Completion leaves requests running in the host (their outcomes are dropped, the host
    // bounds how many it keeps: `Ended::floating`); every other end cancels them, and so does a
    // completion whose requests could not be listed.
    let floating = match in_flight {
      Some(list) if list.is_empty() || matches!(end, End::Completed(_)) => list,
      _ => {
        host.cancel_requests(self.id);
        Vec::new()
      }
    };
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
            "suspended {} held {bytes} bytes (its memory, the tool results that reached it, the inputs of its pending tool calls and the calls queued behind its cap), over {} ({} bytes).",
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
      floating,
    });
    if let Some(vm) = vm {
      warm::retire(vm);
    }
  }
}
