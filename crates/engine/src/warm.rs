//! Warm VMs (runtime, context and prelude built off the critical path, claimed by new cells)
//! and retired ones (freed later). Both are built and freed by the background threads
//! (`background.rs`), at idle priority.

use super::vm::Vm;
use super::{AnyGuest, background, pool};
use parking_lot::Mutex;
use std::panic::catch_unwind;
use std::sync::LazyLock;

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

/// Finished VMs waiting to be freed in the background (freeing one is a few dozen µs that need
/// not delay a leg's result or the next job).
static RETIRED: LazyLock<Mutex<Vec<Vm>>> = LazyLock::new(|| Mutex::new(Vec::new()));
/// Past this many, a finished VM is freed at once.
const MAX_RETIRED: usize = 32;

/// Frees a finished VM later, in the background; at once if the list is full or no background
/// thread runs. Its lock held too long (a background thread holding it may be waiting for a
/// core), the free is queued as a background job, or done here if that is refused too.
pub fn retire(vm: Box<Vm>) {
  if !background::running() {
    return drop(vm);
  }
  match RETIRED.try_lock_for(background::SHARED_LOCK_WAIT) {
    Some(mut retired) if retired.len() < MAX_RETIRED => {
      retired.push(*vm);
      drop(retired);
      background::wake(housekeeping);
    }
    Some(full) => {
      drop(full);
      drop(vm);
    }
    None => drop(background::submit(Box::new(move || drop(vm)))),
  }
}

/// One piece of housekeeping (background threads): free a retired VM, or build a warm one if
/// the pool is short of two per worker. False when there is nothing to do.
pub(crate) fn housekeeping() -> bool {
  let retired = RETIRED.lock().pop();
  match retired {
    Some(vm) => {
      drop(vm);
      true
    }
    None => {
      let wanted = pool::wanted_workers() * WARM_PER_WORKER;
      let short = {
        let warm = WARM.lock();
        warm.guest.filter(|_| warm.vms.len() < wanted)
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
  }
}

/// A warm VM of `guest`, if one is ready; the pool is kept for `guest` from now on, and the
/// background threads top it up. None as well when the list's lock is held too long: the cell
/// builds its own VM.
pub(crate) fn take(guest: &'static dyn AnyGuest) -> Option<Box<Vm>> {
  let taken = take_for(guest);
  // After a switch of guests, so that the next VM built is of this one.
  background::wake(housekeeping);
  taken
}

fn take_for(guest: &'static dyn AnyGuest) -> Option<Box<Vm>> {
  let mut warm = WARM.try_lock_for(background::SHARED_LOCK_WAIT)?;
  if !warm.guest.is_some_and(|g| same(g, guest)) {
    warm.guest = Some(guest);
    let others = std::mem::take(&mut warm.vms);
    drop(warm);
    others.into_iter().for_each(|vm| retire(Box::new(vm)));
    return None;
  }
  warm.vms.pop().map(Box::new)
}
