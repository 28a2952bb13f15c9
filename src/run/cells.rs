//! Code mode's cells across the gateway: every live cell (`LIVE`), every parked cell's token
//! (`TOKENS`), the tokens lost with a process or dropped (`LOST`), and what tracking, parking,
//! forgetting and losing a cell does to them. Separate because these tables belong to no one
//! run (every run and process of the gateway shares them), and because parking is where a
//! token's scope is recorded and a reused token is refused.

use super::{LegState, Run, Scope};
use crate::admission;
use crate::error::{Failure, FailurePhase, messages};
use crate::protocol::Message;
use crate::sandbox::{self, process::Process};
use code_mode_protocol::wire::Command;
use dashmap::DashMap;
use parking_lot::Mutex;
use std::collections::VecDeque;
use std::sync::{Arc, LazyLock};

/// A cell alive in a sandbox process (in a leg or parked), as the addon tracks it.
#[derive(Clone)]
pub(super) struct LiveCell {
  pub(super) process: Arc<Process>,
  /// The run driving it now (a `wait` from another run of the same scope adopts it).
  pub(super) run: Arc<Run>,
  /// Its token, while it is parked or being resumed.
  pub(super) token: Option<String>,
  /// Runs that drove it before `run` adopted it: their JS layers may hold calls it started.
  pub(super) earlier: Vec<std::sync::Weak<Run>>,
}

/// A parked cell's token.
#[derive(Clone)]
pub(super) struct Parked {
  pub(super) cell: u64,
  pub(super) scope: Scope,
  pub(super) resuming: bool,
}

/// Every live cell by id (where settles go; what a dead process loses).
pub(super) static LIVE: LazyLock<DashMap<u64, LiveCell>> = LazyLock::new(DashMap::new);
/// Parked cells by token, in every process.
pub(super) static TOKENS: LazyLock<DashMap<String, Parked>> = LazyLock::new(DashMap::new);
/// Tokens of parked cells that ended without a leg (lost with their process, or dropped past
/// their snapshot cap), and the failure a later `wait` gets (the most recent few).
static LOST: LazyLock<Mutex<VecDeque<(String, Failure)>>> =
  LazyLock::new(|| Mutex::new(VecDeque::new()));
const MAX_LOST: usize = 256;

/// Code mode's parked cells in the gateway now (every process).
pub(crate) fn parked_cells() -> usize {
  TOKENS.len()
}

impl Run {
  /// Notes cell `cell` as alive in `process`, driven by this run.
  pub(super) fn track(self: &Arc<Self>, cell: u64, process: &Arc<Process>, token: Option<String>) {
    process.cells.lock().insert(cell);
    self.cells.lock().insert(cell);
    let earlier = LIVE
      .get(&cell)
      .map(|live| {
        let mut earlier = live.earlier.clone();
        if !Arc::ptr_eq(&live.run, self) {
          earlier.push(Arc::downgrade(&live.run));
        }
        earlier
      })
      .unwrap_or_default();
    LIVE.insert(
      cell,
      LiveCell {
        process: process.clone(),
        run: self.clone(),
        token,
        earlier,
      },
    );
    // The process may have died before it was noted: its cells were already failed.
    if process.phase() == sandbox::process::Phase::Dead {
      self.lose_cell(cell, &process.lost());
    }
  }

  /// The leg running cell `cell`, if any.
  pub(super) fn leg_of(&self, cell: u64) -> Option<u32> {
    self
      .legs
      .lock()
      .iter()
      .find(|(_, state)| **state == LegState::Sent(cell))
      .map(|(leg, _)| *leg)
  }

  /// A cell lost with its process: its leg fails, its token is remembered as lost, its nested
  /// calls are aborted.
  pub(super) fn lose_cell(&self, cell: u64, message: &str) {
    let Some((_, live)) = LIVE.remove(&cell) else {
      return;
    };
    live.process.cells.lock().remove(&cell);
    self.cells.lock().remove(&cell);
    if let Some(token) = &live.token {
      TOKENS.remove(token);
      remember_lost(token, sandbox::unavailable(message));
    }
    self.port.send(Message::AbortCell { cell });
    if let Some(leg) = self.leg_of(cell) {
      self.legs.lock().remove(&leg);
      admission::release();
      let result = self.failed(sandbox::unavailable(message));
      self.port.send(Message::LegDone { leg, result });
    }
  }

  /// A cell parks under `token` (after `previous`, if it was resumed from one); refused when
  /// the gateway holds `maxSuspendedCells` parked cells, or when this run's session already
  /// holds its share of them (see [`session_share`]).
  pub(super) fn park(
    &self,
    process: &Arc<Process>,
    cell: u64,
    token: &str,
    previous: Option<&str>,
  ) -> Result<(), Failure> {
    if previous.is_none() {
      let max = sandbox::max_parked();
      let refusal = if TOKENS.len() + crate::sandbox::executor_parked() >= max {
        Some(messages::TOO_MANY_SUSPENDED.to_string())
      } else {
        let share = session_share(max);
        (TOKENS.len() >= share && parked_by(&self.scope) >= share).then(|| {
          format!(
            "too many suspended code mode runs for this session: it holds {share}, its share of the gateway's {max} (maxSuspendedCells). Wait on or finish one first."
          )
        })
      };
      if let Some(message) = refusal {
        process.send(&Command::Abort { cell });
        self.forget_cell(cell, process, [None, None]);
        return Err(Failure::invalid(message).in_phase(FailurePhase::Host));
      }
    }
    // The sandbox makes tokens (128 random bits): one it reports twice is not its own
    // randomness, and a process that would take over another cell's token is not trusted again.
    if TOKENS.contains_key(token) {
      process.kill("it reported a token that is already in use");
      self.forget_cell(cell, process, [None, None]);
      return Err(
        Failure::internal("the code mode sandbox reported a token already in use.")
          .in_phase(FailurePhase::Host),
      );
    }
    if let Some(previous) = previous {
      TOKENS.remove(previous);
    }
    TOKENS.insert(
      token.to_string(),
      Parked {
        cell,
        scope: self.scope.clone(),
        resuming: false,
      },
    );
    if let Some(mut live) = LIVE.get_mut(&cell) {
      live.token = Some(token.to_string());
    }
    Ok(())
  }

  /// A cell ended: it is no longer live, parked or this run's.
  pub(super) fn forget_cell(&self, cell: u64, process: &Arc<Process>, tokens: [Option<&str>; 2]) {
    LIVE.remove(&cell);
    process.cells.lock().remove(&cell);
    self.cells.lock().remove(&cell);
    for token in tokens.into_iter().flatten() {
      TOKENS.remove(token);
    }
  }
}

/// The parked cells one session may hold: a quarter of `maxSuspendedCells` (at least one), so
/// that no one session (a hostile model parking cell after cell) takes every slot from the
/// others. A run with no session is a session of its own.
pub(super) fn session_share(max: usize) -> usize {
  (max / 4).max(1)
}

/// Parked cells of `scope`'s tenant ([`Scope::tenant`]), in every process.
fn parked_by(scope: &Scope) -> usize {
  let tenant = scope.tenant();
  TOKENS
    .iter()
    .filter(|parked| parked.scope.tenant() == tenant)
    .count()
}

/// The failure of a `wait` on a token whose cell ended while parked.
pub(super) fn lost_token(token: &str) -> Option<Failure> {
  let lost = LOST.lock();
  let (_, failure) = lost.iter().rev().find(|(lost, _)| lost == token)?;
  Some(failure.clone())
}

pub(super) fn remember_lost(token: &str, failure: Failure) {
  let mut lost = LOST.lock();
  if lost.len() >= MAX_LOST {
    lost.pop_front();
  }
  lost.push_back((token.to_string(), failure));
}

/// Ends a cell wherever it is (its leg fails `aborted`, a parked cell is dropped).
pub(super) fn abort_cell(cell: u64) {
  if let Some(process) = LIVE.get(&cell).map(|live| live.process.clone()) {
    process.send(&Command::Abort { cell });
  }
}

/// The process that holds `cell` now (tests: forging reports from it).
#[cfg(test)]
pub(crate) fn live_process(cell: u64) -> Option<Arc<Process>> {
  LIVE.get(&cell).map(|live| live.process.clone())
}
