//! Admission: at most `max` cells in a leg at once; later legs wait their turn, in order (up
//! to their timeout). The queue's lock is never held while a cell is touched.

use super::pool::{self, Job};
use parking_lot::Mutex;
use std::collections::VecDeque;
use std::sync::{LazyLock, Weak};

/// Cells in a leg (running or idle) before new legs queue.
pub const DEFAULT_MAX_ACTIVE_CELLS: usize = 1024;

/// A leg waiting for admission (a cell's, see `cell.rs`).
pub trait Waiting: Job {
  /// Called when its turn comes: true if it still wants to run (it is now admitted and is
  /// scheduled); false if it was dropped, aborted or timed out meanwhile.
  fn admitted(&self) -> bool;
}

struct Admission {
  active: usize,
  max: usize,
  queue: VecDeque<Weak<dyn Waiting>>,
}

static ADMISSION: LazyLock<Mutex<Admission>> = LazyLock::new(|| {
  Mutex::new(Admission {
    active: 0,
    max: DEFAULT_MAX_ACTIVE_CELLS,
    queue: VecDeque::new(),
  })
});

/// Admits a leg now (true), or queues it to be scheduled when its turn comes (false).
pub(super) fn admit(leg: Weak<dyn Waiting>) -> bool {
  let mut admission = ADMISSION.lock();
  if admission.active < admission.max && admission.queue.is_empty() {
    admission.active += 1;
    true
  } else {
    admission.queue.push_back(leg);
    false
  }
}

/// A leg ended (`ended`) or the cap grew: start queued legs while there is room.
pub(super) fn release(mut ended: bool) {
  loop {
    let next = {
      let mut admission = ADMISSION.lock();
      if ended {
        admission.active = admission.active.saturating_sub(1);
        // Once: a queued leg found gone below must not give back the ended leg's slot again.
        ended = false;
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
      Some(leg) if leg.admitted() => {
        pool::schedule(leg);
        return;
      }
      // Gone, aborted or timed out while queued: give the slot back and try the next one.
      _ => {
        ADMISSION.lock().active -= 1;
      }
    }
  }
}

/// Sets the cap (`maxActiveCells`) and starts queued legs the new room allows.
pub fn set_max(max: usize) {
  ADMISSION.lock().max = max.max(1);
  release(false);
}
