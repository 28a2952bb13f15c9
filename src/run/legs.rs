//! A run's legs: exec and wait as the JS layer starts them, admission (`maxActiveCells`), the
//! settled calls and aborts the JS layer sends while a leg runs. Separate from the `Run` itself
//! (`src/run.rs`) because this is the part that moves cells in and out of sandbox processes.

use super::cells::{LIVE, TOKENS, abort_cell, lost_token};
use super::validate::{validate_exec, validate_wait};
use super::{LegStart, LegState, Run};
use crate::admission::{self, Admitted};
use crate::error::{ErrorCode, Failure, messages};
use crate::input::Field;
use crate::protocol::Message;
use crate::protocol::types::CodeModeCellEvent;
use crate::sandbox;
use crate::telemetry::Counters;
use code_mode_protocol::leg::LegTag;
use code_mode_protocol::wire::{Command, Program, Settled};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

static NEXT_CELL: AtomicU64 = AtomicU64::new(1);

impl Run {
  /// Checks that apply to exec and wait alike.
  fn usable(&self, leg: &LegStart) -> Result<(), Failure> {
    if !self.active {
      return Err(Failure::invalid(messages::DISABLED));
    }
    if leg.aborted || self.aborted.load(Ordering::Acquire) {
      return Err(Failure::new(ErrorCode::Aborted, messages::ABORTED));
    }
    if !self.config.runtime_supported() {
      return Err(Failure::new(
        ErrorCode::RuntimeUnavailable,
        format!(
          "code mode runtime \"{}\" is not available; code mode fails closed.",
          self.config.runtime
        ),
      ));
    }
    Ok(())
  }

  /// Starts an exec leg. Returns the result JSON at once when the input is refused; otherwise
  /// the result arrives as `LegDone { leg }`.
  pub fn exec(self: &Arc<Self>, input: &Field, leg: LegStart) -> Option<String> {
    Counters::bump(&self.telemetry.execs);
    let prepared = self
      .usable(&leg)
      .and_then(|_| validate_exec(input, &self.config));
    match prepared {
      Err(failure) => Some(self.failed(failure)),
      Ok((code, typescript)) => {
        self.start_cell(leg, Program::Source { code, typescript });
        None
      }
    }
  }

  /// Tool Search's `tool_call`: a cell that makes one call of catalog tool `id` with `input`
  /// (JSON text), given as data. Same contract as `exec`.
  pub fn exec_call(self: &Arc<Self>, id: String, input: String, leg: LegStart) -> Option<String> {
    Counters::bump(&self.telemetry.execs);
    if let Err(failure) = self.usable(&leg) {
      return Some(self.failed(failure));
    }
    self.start_cell(leg, Program::Call { id, input });
    None
  }

  fn start_cell(self: &Arc<Self>, leg: LegStart, program: Program) {
    let cell = NEXT_CELL.fetch_add(1, Ordering::Relaxed);
    let tag = LegTag {
      id: leg.id,
      caller_id: leg.tool_call_id,
    };
    let run = self.clone();
    let start = move || {
      let process = match run.process() {
        Ok(process) => process,
        Err(failure) => return run.unsent(tag.id, failure, true),
      };
      run.define_in(&process);
      sandbox::send_armed(&process, &run.scope.run_id);
      // The leg first: a process that dies from here on fails it (`lose_cell` finds it).
      run.legs.lock().insert(tag.id, LegState::Sent(cell));
      run.track(cell, &process, None);
      let sent = process.send(&Command::Exec {
        run: run.id,
        cell,
        leg: tag.clone(),
        program,
      });
      if !sent {
        run.lose_cell(cell, &process.lost());
      }
    };
    self.admit(leg.id, start, || {});
  }

  /// Admits a leg now or queues it (`start` sends it once admitted); `undo` runs if it never
  /// starts (refused at capacity, or aborted while queued).
  fn admit(
    self: &Arc<Self>,
    leg: u32,
    start: impl FnOnce() + Send + 'static,
    undo: impl FnOnce() + Send + 'static,
  ) {
    let run = self.clone();
    let timeout = Duration::from_millis(self.config.timeout_ms.into());
    // Registered first: the leg can end inside `admit` (started now, or refused).
    self.legs.lock().insert(leg, LegState::Queued(0));
    self.undo.lock().insert(leg, Box::new(undo));
    let starting = self.clone();
    let start = move || {
      starting.undo.lock().remove(&leg);
      start()
    };
    let fail = move |failure: Failure| run.unsent(leg, failure, false);
    if let Admitted::Queued(queued) = admission::admit(timeout, start, fail) {
      let mut legs = self.legs.lock();
      if let Some(state @ LegState::Queued(0)) = legs.get_mut(&leg) {
        *state = LegState::Queued(queued);
      }
    }
  }

  /// A leg that never reached a process ends with `failure`.
  fn unsent(&self, leg: u32, failure: Failure, admitted: bool) {
    if admitted {
      admission::release();
    }
    let undo = self.undo.lock().remove(&leg);
    if let Some(undo) = undo {
      undo();
    }
    self.legs.lock().remove(&leg);
    let result = self.failed(failure);
    self.port.send(Message::LegDone { leg, result });
  }

  /// Starts a wait leg on a suspended cell (same contract as `exec`).
  pub fn wait(self: &Arc<Self>, input: &Field, leg: LegStart) -> Option<String> {
    Counters::bump(&self.telemetry.waits);
    if leg.aborted {
      // An already-aborted signal drops the cell it names, as an abort during the leg would.
      if let Ok(token) = validate_wait(input)
        && let Some(parked) = TOKENS.get(&token).map(|p| p.clone())
        && parked.scope == self.scope
      {
        abort_cell(parked.cell);
      }
    }
    let resumed = self
      .usable(&leg)
      .and_then(|_| validate_wait(input))
      .and_then(|token| self.resume(token, leg));
    resumed.err().map(|failure| self.failed(failure))
  }

  fn resume(self: &Arc<Self>, token: String, leg: LegStart) -> Result<(), Failure> {
    let cell = {
      let Some(mut parked) = TOKENS.get_mut(&token) else {
        return Err(
          lost_token(&token).unwrap_or_else(|| Failure::invalid(messages::RUN_UNAVAILABLE)),
        );
      };
      if parked.scope != self.scope {
        return Err(Failure::invalid(messages::WRONG_SESSION));
      }
      if parked.resuming {
        return Err(Failure::invalid(messages::ALREADY_RESUMING));
      }
      parked.resuming = true;
      parked.cell
    };
    let Some(process) = LIVE.get(&cell).map(|live| live.process.clone()) else {
      TOKENS.remove(&token);
      return Err(Failure::invalid(messages::RUN_UNAVAILABLE));
    };
    let tag = LegTag {
      id: leg.id,
      caller_id: leg.tool_call_id,
    };
    // Before the leg can end: a leg's events come before its result.
    Counters::bump(&self.telemetry.resumed);
    self.event(CodeModeCellEvent::CellResumed {
      run_id: self.scope.run_id.clone(),
      cell_run_id: Some(token.clone()),
      tool_call_id: tag.caller_id.clone(),
    });
    let run = self.clone();
    let undo_token = token.clone();
    let start = move || {
      run.define_in(&process);
      sandbox::send_armed(&process, &run.scope.run_id);
      // The leg first: a process that dies from here on fails it (`lose_cell` finds it).
      run.legs.lock().insert(tag.id, LegState::Sent(cell));
      run.track(cell, &process, Some(token.clone()));
      let sent = process.send(&Command::Resume {
        run: run.id,
        cell,
        token,
        leg: tag,
      });
      if !sent {
        run.lose_cell(cell, &process.lost());
      }
    };
    // A wait that never starts leaves the cell parked, resumable again.
    let undo = move || {
      if let Some(mut parked) = TOKENS.get_mut(&undo_token) {
        parked.resuming = false;
      }
    };
    self.admit(leg.id, start, undo);
    Ok(())
  }

  /// A nested call settled in the JS layer.
  #[cfg(test)]
  pub fn settle(&self, cell: u64, call: u32, ok: bool, payload: Option<String>) {
    self.settle_many(cell, std::iter::once((call, ok, payload)));
  }

  /// Nested calls of one cell settled in the JS layer: delivered together, so a cell waiting
  /// on many of them runs once for all that arrived at the same time.
  pub fn settle_many(
    &self,
    cell: u64,
    settled: impl IntoIterator<Item = (u32, bool, Option<String>)>,
  ) {
    let Some(process) = LIVE.get(&cell).map(|live| live.process.clone()) else {
      return;
    };
    let cap = (self.config.memory_limit_bytes / 4) as usize;
    let outcomes = settled
      .into_iter()
      .map(|(call, ok, payload)| match payload {
        Some(p) if p.len() > cap => Settled {
          call,
          ok: false,
          payload: Some(format!(
            "tool result is {} bytes, over the bridge payload cap of {cap} bytes ({} / 4).",
            p.len(),
            self.limit_names().memory
          )),
        },
        payload => Settled { call, ok, payload },
      })
      .collect();
    process.send(&Command::Settle { cell, outcomes });
  }

  /// The exec/wait signal for `leg` fired.
  pub fn abort_leg(&self, leg: u32) {
    let state = self.legs.lock().get(&leg).copied();
    match state {
      Some(LegState::Queued(queued)) if queued != 0 && admission::cancel(queued) => {
        self.unsent(
          leg,
          Failure::new(ErrorCode::Aborted, messages::ABORTED),
          false,
        );
      }
      Some(LegState::Sent(cell)) => abort_cell(cell),
      _ => {}
    }
  }

  /// `run.abort()`: every cell of this run is dropped; later exec/wait fail `aborted`.
  pub fn abort(&self) {
    self.aborted.store(true, Ordering::Release);
    let queued: Vec<u32> = self
      .legs
      .lock()
      .iter()
      .filter(|(_, state)| matches!(state, LegState::Queued(_)))
      .map(|(leg, _)| *leg)
      .collect();
    for leg in queued {
      self.abort_leg(leg);
    }
    let cells: Vec<u64> = self.cells.lock().iter().copied().collect();
    for cell in cells {
      // Its token is void now, though the sandbox drops the VM a moment later.
      if let Some(token) = LIVE.get(&cell).and_then(|live| live.token.clone()) {
        TOKENS.remove(&token);
      }
      abort_cell(cell);
    }
  }

  /// Tool Search drops a cell that stopped in `waiting` (it never suspends): false when no such
  /// cell of this run's scope is parked.
  pub fn drop_parked(&self, token: &str) -> bool {
    match TOKENS.get(token).map(|p| p.clone()) {
      Some(parked) if parked.scope == self.scope => {
        abort_cell(parked.cell);
        true
      }
      _ => false,
    }
  }
}
