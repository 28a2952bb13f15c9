//! The watchdog: a slice stuck in native code (a QuickJS builtin looping without polling the
//! interrupt handler) is given up on [`STUCK_GRACE`] past its deadline, in wall time: its leg
//! fails then and its worker is replaced, however many threads a loaded machine shares its cores
//! between. Its thread is handed to the process's freezer (`stuck.rs`) once it has shown it spins
//! (it used its budget and the grace in CPU time), or after [`STARVED_BOUND`] more: a thread only
//! kept off a core returns by itself, sees the kill at its next poll, and costs its process
//! nothing. Slices are noted in a table that one periodic task on the clock thread scans, so a
//! slice costs a map insert, not a timer.
//!
//! A slice whose VM was killed (an abort, above all) is given up on [`STUCK_GRACE`] after the
//! scan sees the kill rather than past its deadline: guest code sees the kill at its next poll
//! of the interrupt handler, and a native loop never polls. Every host's cells get this the same
//! way, through the [`Signals`] a slice is watched with ([`watch`], [`attach`]).

use super::clock;
use super::limits::{Kill, Signals};
use super::stuck::{self, Slice};
use parking_lot::Mutex;
use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Weak};
use std::time::{Duration, Instant};

/// How long a slice may run past its deadline, or past the kill of its VM, before it counts
/// as stuck (wall time). QuickJS polls the interrupt handler only from bytecode and some
/// builtins; a builtin looping natively (an `Array.prototype` method on a huge array-like, say)
/// never sees the deadline or the kill. Past this grace the leg fails at once (`timeout`, or the
/// kill's own code), the worker is replaced, and its thread is frozen (in the sandbox
/// executable, once it shows it spins) or left to finish the loop and exit.
pub const STUCK_GRACE: Duration = Duration::from_millis(400);

/// How much longer a thread given up on is left unfrozen while it has not used its budget and
/// the grace in CPU time (a loaded machine kept it off a core: it sees the kill at its next poll
/// and returns). A thread blocked without using CPU is frozen after it.
const STARVED_BOUND: Duration = Duration::from_secs(2);

/// A slice's owner (a cell, see `cell/slice.rs`).
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
  /// The thread's CPU time when the slice started, and what it may use before it is stuck
  /// (the slice's budget and the grace), where the platform tells CPU time.
  cpu: Option<(Duration, Duration)>,
  /// The kill switch of the VM the slice runs, once known.
  signals: Option<Weak<Signals>>,
  /// Given up on: its leg has failed and its worker was replaced; the thread is watched until
  /// it is frozen or returns.
  given_up: bool,
}

impl Watched {
  /// Whether to give up on the slice now: past its grace, in wall time.
  fn overdue(&self, now: Instant) -> bool {
    !self.given_up && self.give_up <= now
  }

  /// Whether to freeze the thread of a slice given up on: its thread used its CPU allowance (it
  /// is spinning in native code), or it has been starved or blocked for longer than
  /// [`STARVED_BOUND`] past its grace, or the platform cannot tell.
  fn spinning(&self, now: Instant) -> bool {
    let Some((started, allowance)) = self.cpu else {
      return true;
    };
    if now >= self.give_up + STARVED_BOUND {
      return true;
    }
    stuck::cpu_time(self.thread).is_none_or(|used| used.saturating_sub(started) >= allowance)
  }

  /// Once its VM is killed, the slice has [`STUCK_GRACE`] of CPU time from the first scan that
  /// sees the kill to end, whatever its deadline (a later scan only keeps that bound: both cuts
  /// are minimums). Where the platform does not tell CPU time, it has [`STARVED_BOUND`] more in
  /// wall time, as a thread kept off a core has elsewhere: a kill comes at any moment, and a
  /// slice given up on there costs its process (and other cells in it) soon after.
  fn hasten_if_killed(&mut self, now: Instant) {
    let killed = self
      .signals
      .as_ref()
      .and_then(Weak::upgrade)
      .is_some_and(|signals| signals.killed() != Kill::None);
    if !killed {
      return;
    }
    let grace = if self.cpu.is_some() {
      STUCK_GRACE
    } else {
      STUCK_GRACE + STARVED_BOUND
    };
    self.give_up = self.give_up.min(now + grace);
    if let (Some((started, allowance)), Some(used)) = (&mut self.cpu, stuck::cpu_time(self.thread))
    {
      *allowance = (*allowance).min(used.saturating_sub(*started) + STUCK_GRACE);
    }
  }
}

static WATCHED: LazyLock<Mutex<HashMap<u64, Watched>>> =
  LazyLock::new(|| Mutex::new(HashMap::new()));

/// How often the watchdog looks.
const WATCH_PERIOD: Duration = Duration::from_millis(100);

/// Watches slice number `slice` of `owner` (known by `id`), running on this thread as
/// `running` from `started` with `budget`, until [`unwatch`]. `signals` are its VM's, when
/// known now (else see [`attach`]).
pub(super) fn watch(
  id: u64,
  owner: Weak<dyn Overrun>,
  slice: u64,
  (started, budget): (Instant, Duration),
  running: &Slice,
  signals: Option<&Arc<Signals>>,
) {
  static STARTED: std::sync::Once = std::sync::Once::new();
  STARTED.call_once(|| clock::every(WATCH_PERIOD, scan_watched));
  let watched = Watched {
    owner,
    slice,
    give_up: started + budget + STUCK_GRACE,
    thread: running.thread,
    token: running.token(),
    cpu: stuck::cpu_time(running.thread).map(|now| (now, budget + STUCK_GRACE)),
    signals: signals.map(Arc::downgrade),
    given_up: false,
  };
  WATCHED.lock().insert(id, watched);
}

/// The slice `token` runs its guest code under `signals` (a VM it took once it started), or no
/// longer does (`None`). A slice that is not watched is left alone.
pub(super) fn attach(token: u64, signals: Option<&Arc<Signals>>) {
  for watched in WATCHED.lock().values_mut().filter(|w| w.token == token) {
    watched.signals = signals.map(Arc::downgrade);
  }
}

pub(super) fn unwatch(id: u64) {
  WATCHED.lock().remove(&id);
}

/// What a scan does to a watched slice, taken out of the table's lock.
enum Action {
  /// Past its grace: its leg fails now and its worker is replaced.
  GiveUp {
    owner: Weak<dyn Overrun>,
    slice: u64,
  },
  /// Given up on, and spinning (or starved past its bound): its thread is frozen.
  Freeze { thread: u64, token: u64 },
}

fn scan_watched() {
  let now = Instant::now();
  let due: Vec<(u64, Action)> = WATCHED
    .lock()
    .iter_mut()
    .filter_map(|(id, w)| {
      w.hasten_if_killed(now);
      let action = if w.overdue(now) {
        Action::GiveUp {
          owner: w.owner.clone(),
          slice: w.slice,
        }
      } else if w.given_up && w.spinning(now) {
        Action::Freeze {
          thread: w.thread,
          token: w.token,
        }
      } else {
        return None;
      };
      Some((*id, action))
    })
    .collect();
  for (id, action) in due {
    match action {
      Action::GiveUp { owner, slice } => {
        let Some(owner) = owner.upgrade() else {
          continue;
        };
        if !owner.overran(slice) {
          // It ended meanwhile.
          unwatch(id);
          continue;
        }
        // Watched on until it is frozen or returns (its job then unwatches it).
        let frozen = {
          let mut watched = WATCHED.lock();
          match watched.get_mut(&id) {
            Some(w) if w.spinning(now) => watched.remove(&id).map(|w| (w.thread, w.token)),
            Some(w) => {
              w.given_up = true;
              None
            }
            None => None,
          }
        };
        if let Some((thread, token)) = frozen {
          stuck::freeze(thread, token);
        }
      }
      Action::Freeze { thread, token } => {
        // Only if it has not returned meanwhile (its job unwatched it).
        if WATCHED.lock().remove(&id).is_some() {
          stuck::freeze(thread, token);
        }
      }
    }
  }
}
