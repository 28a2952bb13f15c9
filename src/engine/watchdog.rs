//! The watchdog: a slice stuck in native code (a QuickJS builtin looping without polling the
//! interrupt handler) is given up on [`STUCK_GRACE`] past its CPU deadline. Slices are noted
//! in a table that one periodic task on the clock thread scans, so a slice costs a map
//! insert, not a timer.

use super::cell::Cell;
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

struct Watched {
  cell: Weak<Cell>,
  slice: u64,
  give_up: Instant,
}

static WATCHED: LazyLock<Mutex<HashMap<u64, Watched>>> =
  LazyLock::new(|| Mutex::new(HashMap::new()));

/// How often the watchdog looks.
const WATCH_PERIOD: Duration = Duration::from_millis(250);

pub(super) fn watch(cell: &Arc<Cell>, slice: u64, give_up: Instant) {
  static STARTED: std::sync::Once = std::sync::Once::new();
  STARTED.call_once(|| clock::every(WATCH_PERIOD, scan_watched));
  let watched = Watched {
    cell: Arc::downgrade(cell),
    slice,
    give_up,
  };
  WATCHED.lock().insert(cell.id, watched);
}

pub(super) fn unwatch(cell: u64) {
  WATCHED.lock().remove(&cell);
}

fn scan_watched() {
  let now = Instant::now();
  let overdue: Vec<(Weak<Cell>, u64)> = WATCHED
    .lock()
    .values()
    .filter(|w| w.give_up <= now)
    .map(|w| (w.cell.clone(), w.slice))
    .collect();
  for (cell, slice) in overdue {
    if let Some(cell) = cell.upgrade() {
      unwatch(cell.id);
      cell.overran(slice);
    }
  }
}
