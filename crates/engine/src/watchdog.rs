//! The watchdog: a slice stuck in native code (a QuickJS builtin looping without polling the
//! interrupt handler) is given up on [`STUCK_GRACE`] past its CPU deadline, and its thread is
//! handed to the process's freezer (`stuck.rs`). Slices are noted in a table that one periodic
//! task on the clock thread scans, so a slice costs a map insert, not a timer.

use super::clock;
use super::stuck::{self, Slice};
use parking_lot::Mutex;
use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Weak};
use std::time::{Duration, Instant};

/// How long a slice may run past its CPU deadline before it counts as stuck. QuickJS polls the
/// interrupt handler only from bytecode and some builtins; a builtin looping natively (an
/// `Array.prototype` method on a huge array-like, say) never sees the deadline. Past this grace
/// the leg fails `timeout` at once, the worker is replaced, and its thread is frozen (in the
/// sandbox executable) or left to finish the loop and exit.
pub const STUCK_GRACE: Duration = Duration::from_millis(400);

/// A slice's owner (a cell, see `cell.rs`).
pub trait Overrun: Send + Sync {
  /// Slice number `slice` is still running far past its deadline: give up on it. True when
  /// it was given up on (it had not ended meanwhile).
  fn overran(self: Arc<Self>, slice: u64) -> bool;
}

struct Watched {
  owner: Weak<dyn Overrun>,
  slice: u64,
  give_up: Instant,
  /// The thread running it and its guest token, for the freezer.
  thread: u64,
  token: u64,
}

static WATCHED: LazyLock<Mutex<HashMap<u64, Watched>>> =
  LazyLock::new(|| Mutex::new(HashMap::new()));

/// How often the watchdog looks.
const WATCH_PERIOD: Duration = Duration::from_millis(100);

/// Watches slice number `slice` of `owner` (known by `id`), running on this thread as
/// `running`, until [`unwatch`].
pub(super) fn watch(
  id: u64,
  owner: Weak<dyn Overrun>,
  slice: u64,
  give_up: Instant,
  running: &Slice,
) {
  static STARTED: std::sync::Once = std::sync::Once::new();
  STARTED.call_once(|| clock::every(WATCH_PERIOD, scan_watched));
  let watched = Watched {
    owner,
    slice,
    give_up,
    thread: running.thread,
    token: running.token(),
  };
  WATCHED.lock().insert(id, watched);
}

pub(super) fn unwatch(id: u64) {
  WATCHED.lock().remove(&id);
}

fn scan_watched() {
  let now = Instant::now();
  let overdue: Vec<(u64, Weak<dyn Overrun>, u64, u64, u64)> = WATCHED
    .lock()
    .iter()
    .filter(|(_, w)| w.give_up <= now)
    .map(|(id, w)| (*id, w.owner.clone(), w.slice, w.thread, w.token))
    .collect();
  for (id, owner, slice, thread, token) in overdue {
    if let Some(owner) = owner.upgrade() {
      unwatch(id);
      if owner.overran(slice) {
        stuck::freeze(thread, token);
      }
    }
  }
}
