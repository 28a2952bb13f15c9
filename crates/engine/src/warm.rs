//! Warm VMs (runtime, context and prelude built off the critical path, claimed by new cells)
//! and retired ones (freed later by an idle worker). Both are built and freed by idle workers
//! between jobs.

use super::AnyGuest;
use super::vm::Vm;
use parking_lot::Mutex;
use std::panic::catch_unwind;
use std::sync::LazyLock;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Warm VMs kept per worker thread.
const WARM_PER_WORKER: usize = 2;

/// Warm VMs, all of the guest whose cell started last (the one worth keeping them for).
static WARM: LazyLock<Mutex<Warm>> = LazyLock::new(|| {
  Mutex::new(Warm {
    guest: None,
    vms: Vec::new(),
  })
});

struct Warm {
  guest: Option<&'static dyn AnyGuest>,
  vms: Vec<Vm>,
}

/// Whether two guests are the same `static`.
fn same(a: &'static dyn AnyGuest, b: &'static dyn AnyGuest) -> bool {
  std::ptr::addr_eq(a, b)
}

/// Finished VMs waiting to be freed by an idle worker (freeing one is a few dozen µs that need
/// not delay a leg's result or the next job).
static RETIRED: LazyLock<Mutex<Vec<Vm>>> = LazyLock::new(|| Mutex::new(Vec::new()));
/// Past this many, a finished VM is freed at once.
const MAX_RETIRED: usize = 32;

/// Workers doing housekeeping (building warm VMs, freeing retired ones) right now. At most all
/// but one, so a new job always finds a worker that is about to be free.
static HOUSEKEEPING: AtomicUsize = AtomicUsize::new(0);

/// Frees a finished VM later, on an idle worker.
pub fn retire(vm: Box<Vm>) {
  let mut retired = RETIRED.lock();
  if retired.len() < MAX_RETIRED {
    retired.push(*vm);
  } else {
    drop(retired);
    drop(vm);
  }
}

/// One piece of idle-time housekeeping, on one of `workers` idle workers: free a retired VM, or
/// build a warm one if the pool is short. False when there is nothing to do (or enough other
/// workers are already at it).
pub fn housekeeping(workers: usize) -> bool {
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
    None => {
      let short = {
        let warm = WARM.lock();
        warm
          .guest
          .filter(|_| warm.vms.len() < workers * WARM_PER_WORKER)
      };
      match short.map(|guest| (guest, catch_unwind(|| Vm::warm_any(guest)))) {
        Some((guest, Ok(Ok(vm)))) => {
          let mut warm = WARM.lock();
          // The host may have switched guests meanwhile.
          if warm.guest.is_some_and(|g| same(g, guest)) {
            warm.vms.push(vm);
          }
          true
        }
        _ => false,
      }
    }
  };
  HOUSEKEEPING.fetch_sub(1, Ordering::AcqRel);
  worked
}

/// A warm VM of `guest`, if one is ready; the pool is kept for `guest` from now on.
pub(crate) fn take(guest: &'static dyn AnyGuest) -> Option<Box<Vm>> {
  let mut warm = WARM.lock();
  if !warm.guest.is_some_and(|g| same(g, guest)) {
    warm.guest = Some(guest);
    let others = std::mem::take(&mut warm.vms);
    drop(warm);
    others.into_iter().for_each(|vm| retire(Box::new(vm)));
    return None;
  }
  warm.vms.pop().map(Box::new)
}
