//! Admission: at most `maxActiveCells` legs in flight at once across every host (code mode,
//! Tool Search, the OpenClaw executor) and every sandbox process. Later legs wait their turn
//! in order, and fail `runtime_unavailable` once they have waited their own timeout. Time spent
//! waiting here never counts against a leg: its clocks start in the sandbox, when it runs.

use crate::error::{ErrorCode, Failure, FailurePhase};
use parking_lot::Mutex;
use std::collections::VecDeque;
use std::sync::LazyLock;
use std::time::{Duration, Instant};

/// Legs in flight before new ones queue.
pub const DEFAULT_MAX_ACTIVE_CELLS: usize = 1024;

struct Waiting {
  id: u64,
  until: Instant,
  start: Box<dyn FnOnce() + Send>,
  fail: Box<dyn FnOnce(Failure) + Send>,
}

struct State {
  active: usize,
  max: usize,
  next: u64,
  queue: VecDeque<Waiting>,
}

static STATE: LazyLock<Mutex<State>> = LazyLock::new(|| {
  Mutex::new(State {
    active: 0,
    max: DEFAULT_MAX_ACTIVE_CELLS,
    next: 1,
    queue: VecDeque::new(),
  })
});

/// What happened to a leg asking for admission.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admitted {
  /// `start` ran.
  Now,
  /// Queued as number `n` (for [`cancel`]); `start` or `fail` runs later.
  Queued(u64),
}

/// Starts a leg now if there is room, else queues it for up to `timeout`. Exactly one of
/// `start` and `fail` runs, once; every started leg must be [`release`]d when it ends.
pub fn admit(
  timeout: Duration,
  start: impl FnOnce() + Send + 'static,
  fail: impl FnOnce(Failure) + Send + 'static,
) -> Admitted {
  let mut state = STATE.lock();
  if state.active < state.max && state.queue.is_empty() {
    state.active += 1;
    drop(state);
    start();
    return Admitted::Now;
  }
  let id = state.next;
  state.next += 1;
  state.queue.push_back(Waiting {
    id,
    until: Instant::now() + timeout,
    start: Box::new(start),
    fail: Box::new(fail),
  });
  Admitted::Queued(id)
}

/// A leg ended: the next queued one starts.
pub fn release() {
  let next = {
    let mut state = STATE.lock();
    state.active = state.active.saturating_sub(1);
    take_next(&mut state)
  };
  if let Some(next) = next {
    (next.start)();
  }
}

fn take_next(state: &mut State) -> Option<Waiting> {
  if state.active >= state.max {
    return None;
  }
  let next = state.queue.pop_front()?;
  state.active += 1;
  Some(next)
}

/// Takes a queued leg out (its leg was aborted); false when it is no longer queued.
pub fn cancel(id: u64) -> bool {
  let mut state = STATE.lock();
  let before = state.queue.len();
  state.queue.retain(|w| w.id != id);
  state.queue.len() != before
}

/// Fails the queued legs that waited their timeout (the supervisor calls it a few times a
/// second).
pub fn expire_queued() {
  let now = Instant::now();
  let expired: VecDeque<Waiting> = {
    let mut state = STATE.lock();
    if state.queue.iter().all(|w| w.until > now) {
      return;
    }
    let (expired, kept) = std::mem::take(&mut state.queue)
      .into_iter()
      .partition(|w| w.until <= now);
    state.queue = kept;
    expired
  };
  for waiting in expired {
    (waiting.fail)(
      Failure::new(
        ErrorCode::RuntimeUnavailable,
        "code mode runtime is at capacity (maxActiveCells): the cell waited its timeout for a slot.",
      )
      .in_phase(FailurePhase::Host),
    );
  }
}

/// Sets the cap (`maxActiveCells`) and starts queued legs the new room allows.
pub fn set_max(max: usize) {
  let started: Vec<Waiting> = {
    let mut state = STATE.lock();
    state.max = max.max(1);
    std::iter::from_fn(|| take_next(&mut state)).collect()
  };
  for next in started {
    (next.start)();
  }
}

/// Legs in flight now, and legs queued (the test suites watch it).
#[cfg_attr(not(feature = "testing"), allow(dead_code))]
pub fn load() -> (usize, usize) {
  let state = STATE.lock();
  (state.active, state.queue.len())
}
