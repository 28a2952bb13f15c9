//! The watchdog: a slice stuck in native code (a QuickJS builtin looping without polling the
//! interrupt handler) is given up on [`STUCK_GRACE`] past its CPU deadline. Slices are noted
//! in a table that one periodic task on the clock thread scans, so a slice costs a map
//! insert, not a timer.

use super::clock;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Weak};
use std::time::{Duration, Instant};

/// How long a slice may run past its CPU deadline before it counts as stuck. QuickJS polls the
/// interrupt handler only from bytecode and some builtins; a builtin looping natively (an
/// `Array.prototype` method on a huge array-like, say) never sees the deadline. Past this grace
/// the leg fails `timeout` at once and the worker is replaced (its thread is left to finish
/// the loop, then exits).
pub const STUCK_GRACE: Duration = Duration::from_secs(1);

/// A slice's owner (a cell, see `cell.rs`).
pub trait Overrun: Send + Sync {
  /// Slice number `slice` is still running far past its deadline: give up on it.
  fn overran(self: Arc<Self>, slice: u64);
}

struct Watched {
  owner: Weak<dyn Overrun>,
  slice: u64,
  give_up: Instant,
}

static WATCHED: LazyLock<Mutex<HashMap<u64, Watched>>> =
  LazyLock::new(|| Mutex::new(HashMap::new()));

/// How often the watchdog looks.
const WATCH_PERIOD: Duration = Duration::from_millis(250);

/// Watches slice number `slice` of `owner` (known by `id`) until [`unwatch`].
pub(super) fn watch(id: u64, owner: Weak<dyn Overrun>, slice: u64, give_up: Instant) {
  static STARTED: std::sync::Once = std::sync::Once::new();
  STARTED.call_once(|| clock::every(WATCH_PERIOD, scan_watched));
  let watched = Watched {
    owner,
    slice,
    give_up,
  };
  WATCHED.lock().insert(id, watched);
}

pub(super) fn unwatch(id: u64) {
  WATCHED.lock().remove(&id);
}

fn scan_watched() {
  let now = Instant::now();
  let overdue: Vec<(u64, Weak<dyn Overrun>, u64)> = WATCHED
    .lock()
    .iter()
    .filter(|(_, w)| w.give_up <= now)
    .map(|(id, w)| (*id, w.owner.clone(), w.slice))
    .collect();
  for (id, owner, slice) in overdue {
    if let Some(owner) = owner.upgrade() {
      unwatch(id);
      owner.overran(slice);
    }
  }
}
