//! A cell between legs: host outcomes arriving for its requests (counted against its snapshot
//! cap while it is parked), a leg ending `waiting` with the VM parked in the store under a fresh
//! token, the token's expiry, and an abort from the host. Separate from `cell.rs` because it is
//! the part of the machine driven from outside a leg (Node's main thread and the clock thread).

use super::finish::End;
use super::{Cell, Phase, STORE};
use crate::error::{ErrorCode, Failure, FailurePhase, messages};
use crate::limits::{Kill, kill_failure};
use crate::store::new_token;
use crate::vm::{Delivery, Vm};
use crate::{DropReason, Ended, LegEnd, admission, clock};
use std::sync::Arc;
use std::time::Instant;

impl Cell {
  /// Host outcomes for this cell's pending requests.
  pub(super) fn deliver(self: &Arc<Self>, deliveries: impl IntoIterator<Item = Delivery>) {
    let mut st = self.state.lock();
    if st.phase == Phase::Done {
      return;
    }
    st.inbox.extend(deliveries);
    // A parked cell runs again only on `wait`, and starts nothing meanwhile (its queued calls
    // wait for that leg). What it holds counts against its snapshot cap as it arrives: the VM,
    // the results waiting for it, the calls queued behind its cap, and the inputs of its calls
    // the host is still running.
    if st.phase == Phase::Suspended
      && let Some(vm) = st.vm.as_ref()
    {
      let inbox: usize = st
        .inbox
        .iter()
        .map(|d| d.payload.as_ref().map_or(0, String::len))
        .sum();
      let held = vm.memory_used() + inbox + held_for_calls(vm);
      if held > self.limits().max_snapshot_bytes {
        drop(st);
        self.finish(None, End::Overflowed(held));
      }
      return;
    }
    self.requeue_if_idle(&mut st, false);
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

  /// Ends the leg with `waiting`: the VM stays parked under a fresh token.
  pub(super) fn suspend(self: &Arc<Self>, vm: Box<Vm>, reason: &'static str) {
    vm.collect_garbage();
    let limits = self.limits();
    let bytes = vm.memory_used() + held_for_calls(&vm);
    let max = limits.max_snapshot_bytes;
    if bytes > max {
      let failure = Failure::new(
        ErrorCode::SnapshotLimitExceeded,
        format!(
          "suspended {} needs {bytes} bytes (its memory and the inputs of its pending tool calls), over {} ({max} bytes).",
          limits.names.cell, limits.names.max_snapshot
        ),
      );
      return self.finish(Some(vm), End::Failed(failure));
    }
    let Some(token) = new_token() else {
      let failure = Failure::internal("code mode cell could not be suspended: no random token.")
        .in_phase(FailurePhase::Host);
      return self.finish(Some(vm), End::Failed(failure));
    };
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
    let Some(leg) = st.leg.take() else {
      // Only a slice of a leg suspends; without one there is no caller to tell.
      drop(st);
      let failure =
        Failure::internal("code mode cell suspended outside a leg.").in_phase(FailurePhase::Host);
      return self.finish(Some(vm), End::Failed(failure));
    };
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
      floating: Vec::new(),
    });
  }
}

/// What a parked cell's calls make the host hold for it: the inputs of the calls it is running
/// and the calls queued behind its cap. A parked cell answers for them, so that no number of
/// parked cells holds more of the gateway's memory than their snapshot caps allow.
fn held_for_calls(vm: &Vm) -> usize {
  vm.state.lock().pending_input_bytes()
}
