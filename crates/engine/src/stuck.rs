//! Threads the watchdog gives up on: a slice stuck in native code that never polls the
//! interrupt handler (`watchdog.rs`) leaves its thread behind. What happens to that thread is
//! the process's policy, not the engine's: the sandbox executable installs a [`Freezer`] that
//! stops it for good (no more CPU), and by default nothing happens (the thread finishes its
//! loop and exits).
//!
//! A thread may be frozen only inside *guest work* ([`guest`]): preparing a program, building
//! a VM and running guest JavaScript. Engine bookkeeping (the cell's state, the worker pool,
//! the store) is never guest work, and neither is what guest code calls out to
//! ([`outside_guest`]: the host functions, and the sending of requests to the host), which may
//! take locks that other cells' threads need (the channel to the addon, a catalog's search
//! tables). So a frozen thread holds no lock but its own VM's, which nothing waits on for long.
//! A thread asked to freeze while it is out of guest work freezes as soon as it is back.

use std::cell::Cell;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

thread_local! {
  /// The slice or task this thread runs now (0: none).
  static SLICE: Cell<u64> = const { Cell::new(0) };
  /// The slice whose guest work this thread is inside now (0: none).
  static GUEST: Cell<u64> = const { Cell::new(0) };
  /// A slice asked to freeze while this thread was out of its guest work (0: none).
  static DEFERRED: Cell<u64> = const { Cell::new(0) };
}

static NEXT_TOKEN: AtomicU64 = AtomicU64::new(1);

/// What the process does with threads given up on.
pub struct Freezer {
  /// An identity for the calling thread that `freeze` understands.
  pub this_thread: fn() -> u64,
  /// Stops thread `thread` for good if it is still inside the guest work of slice `token`.
  /// Called on the clock thread; must not block.
  pub freeze: fn(thread: u64, token: u64),
  /// Stops the calling thread for good (it was asked to freeze while out of guest work, and is
  /// back in it). Never returns.
  pub freeze_self: fn() -> !,
  /// The CPU time thread `thread` has used so far, where the platform can tell: the watchdog
  /// then gives up only on a thread that used its slice's budget and the grace, not on one a
  /// loaded machine left waiting for a core. Must not block.
  pub cpu_time: fn(thread: u64) -> Option<std::time::Duration>,
}

static FREEZER: OnceLock<Freezer> = OnceLock::new();

/// Installs the process's freezer (once; later calls are ignored).
pub fn set_freezer(freezer: Freezer) {
  let _ = FREEZER.set(freezer);
}

/// The guest slice this thread is inside now, 0 outside one. Reads one thread-local word, so
/// a signal handler may call it.
pub fn current() -> u64 {
  GUEST.with(Cell::get)
}

/// The slice this thread runs now, inside its guest work or out of it (0: none). Reads one
/// thread-local word, so a signal handler may call it.
pub fn current_slice() -> u64 {
  SLICE.with(Cell::get)
}

/// Notes that slice `token`, which this thread runs, was asked to freeze while out of its
/// guest work: it freezes when it is back ([`outside_guest`]). Writes one thread-local word, so
/// a signal handler may call it.
pub fn defer_freeze(token: u64) {
  DEFERRED.with(|d| d.set(token));
}

/// Runs `f` out of the guest work of the slice on this thread: the thread cannot be frozen
/// inside `f`, which may take locks that other threads need. Back in guest work, a freeze asked
/// for meanwhile happens.
pub fn outside_guest<R>(f: impl FnOnce() -> R) -> R {
  struct Back(u64);
  impl Drop for Back {
    fn drop(&mut self) {
      GUEST.set(self.0);
      if self.0 != 0
        && DEFERRED.with(|d| d.replace(0)) == self.0
        && let Some(freezer) = FREEZER.get()
      {
        (freezer.freeze_self)();
      }
    }
  }
  let _back = Back(GUEST.replace(0));
  f()
}

/// A slice (or task) running on this thread, from [`begin`] to its drop.
pub(crate) struct Slice {
  token: u64,
  outer: u64,
  /// The freezer's identity of this thread.
  pub thread: u64,
}

impl Slice {
  pub(crate) fn token(&self) -> u64 {
    self.token
  }
}

/// Starts a slice on this thread: [`guest`] inside it marks where the thread may be frozen.
pub(crate) fn begin() -> Slice {
  let token = NEXT_TOKEN.fetch_add(1, Ordering::Relaxed);
  let outer = SLICE.replace(token);
  let thread = FREEZER.get().map_or(0, |f| (f.this_thread)());
  Slice {
    token,
    outer,
    thread,
  }
}

impl Drop for Slice {
  fn drop(&mut self) {
    SLICE.set(self.outer);
  }
}

/// Runs `f` as guest work of the slice running on this thread (if any): a thread given up on
/// may be frozen anywhere inside it. Hosts wrap the parts of a task that run guest code or
/// parse guest input, and nothing that takes a lock shared beyond their own VM.
pub fn guest<R>(f: impl FnOnce() -> R) -> R {
  struct Restore(u64);
  impl Drop for Restore {
    fn drop(&mut self) {
      GUEST.set(self.0);
    }
  }
  let _restore = Restore(GUEST.replace(SLICE.with(Cell::get)));
  f()
}

/// The CPU time `thread` has used so far, if the process's freezer can tell.
pub(crate) fn cpu_time(thread: u64) -> Option<std::time::Duration> {
  FREEZER.get().and_then(|freezer| (freezer.cpu_time)(thread))
}

/// Asks the freezer to stop `thread` if it is still inside the guest work of `token`.
pub(crate) fn freeze(thread: u64, token: u64) {
  if let Some(freezer) = FREEZER.get() {
    (freezer.freeze)(thread, token);
  }
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn guest_work_is_marked_only_inside_a_slice() {
    assert_eq!(guest(current), 0, "no slice, no guest work");
    let slice = begin();
    assert_eq!(current(), 0);
    assert_eq!(guest(current), slice.token());
    let nested = std::panic::catch_unwind(|| guest(|| panic!("a guest panic")));
    assert!(nested.is_err());
    assert_eq!(current(), 0, "a panic leaves the guest region");
    drop(slice);
    assert_eq!(guest(current), 0);
  }

  #[test]
  fn out_of_guest_work_a_thread_is_not_frozen_until_it_is_back() {
    fn freeze_self() -> ! {
      panic!("frozen")
    }
    set_freezer(Freezer {
      this_thread: || 0,
      freeze: |_, _| {},
      freeze_self,
      cpu_time: |_| None,
    });
    let slice = begin();
    let token = slice.token();
    let frozen = std::panic::catch_unwind(|| {
      guest(|| {
        // A host function: out of guest work, where a freeze request only waits.
        let inside = outside_guest(|| {
          defer_freeze(token);
          current()
        });
        assert_eq!(inside, 0, "not guest work inside");
      })
    });
    assert!(
      frozen.is_err(),
      "back in guest work, the deferred freeze happens"
    );
    // Without a request, leaving guest work and coming back changes nothing.
    guest(|| assert_eq!(outside_guest(current), 0));
    drop(slice);
  }
}
