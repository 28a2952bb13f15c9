//! What the sandbox reports about a run's cells (calls started, calls cancelled, legs ended,
//! the process gone), checked against what the addon placed where, and turned into the run's
//! counters, events and leg results. Separate because it is where the addon takes input from
//! a process that runs hostile code.

use super::Run;
use super::cells::{LIVE, remember_lost};
use crate::admission;
use crate::error::{ErrorCode, Failure, messages};
use crate::protocol::types::CodeModeCellEvent;
use crate::protocol::{
  Message,
  result::{self, Status},
};
use crate::sandbox::{RunRoutes, process::Process};
use crate::telemetry::Counters;
use code_mode_protocol::leg::{DropReason, Ended, LegEnd};
use code_mode_protocol::wire::Counts;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// The run of `cell`, if `process` holds that cell for run `run`. A sandbox process is where
/// hostile code runs: a report counts only for cells the addon itself placed in that process,
/// for the run driving them now, so a process taken over by a cell can act for no other
/// cell's run, session or token.
fn owned(process: &Arc<Process>, run: u64, cell: u64) -> Option<Arc<Run>> {
  let live = LIVE.get(&cell)?;
  (Arc::ptr_eq(&live.process, process) && live.run.id == run).then(|| live.run.clone())
}

/// This host's handlers for the supervisor's reports (`crate::sandbox::route_runs`).
pub(crate) const ROUTES: RunRoutes = RunRoutes {
  calls: on_calls,
  cancel: on_cancel,
  ended: on_ended,
  died: process_died,
};

/// Nested calls a cell started (a sandbox report).
fn on_calls(process: &Arc<Process>, run: u64, cell: u64, batch: String) {
  if let Some(run) = owned(process, run, cell) {
    run.port.send(Message::Calls {
      cell,
      payload: batch,
    });
  }
}

/// A cell ended with calls in flight (a sandbox report).
fn on_cancel(process: &Arc<Process>, run: u64, cell: u64) {
  if let Some(run) = owned(process, run, cell) {
    run.port.send(Message::AbortCell { cell });
  }
}

/// A leg ended or a parked cell was dropped (a sandbox report).
fn on_ended(process: &Arc<Process>, run: u64, ended: Ended, counts: Counts) {
  if let Some(run) = owned(process, run, ended.cell) {
    run.add(counts);
    run.ended(process, ended);
  }
}

/// A process died: every cell in it is lost.
fn process_died(process: &Arc<Process>) {
  let cells: Vec<u64> = process.cells.lock().iter().copied().collect();
  let message = process.lost();
  for cell in cells {
    if let Some(run) = LIVE.get(&cell).map(|live| live.run.clone()) {
      run.lose_cell(cell, &message);
    }
  }
}

impl Run {
  /// Calls cell `cell` left running as it ended (the sandbox's list, checked by the JS layer
  /// against the calls it has): a completion's keep running within their run's budget
  /// (`Message::Floating`, lib/run.js), told to this run and to every run that drove the cell
  /// before (their JS layers hold the calls they started); any other end aborts them.
  fn left_running(&self, cell: u64, end: &Option<LegEnd>, floating: &[(u32, u64)]) {
    let mut ports = vec![self.port.clone()];
    if let Some(live) = LIVE.get(&cell) {
      ports.extend(
        live
          .earlier
          .iter()
          .filter_map(|run| run.upgrade())
          .map(|run| run.port.clone()),
      );
    }
    let completed = matches!(end, Some(LegEnd::Completed { .. }));
    let calls = serde_json::to_string(floating).unwrap_or_default();
    for port in ports {
      port.send(if completed {
        Message::Floating {
          cell,
          calls: calls.clone(),
        }
      } else {
        Message::AbortCell { cell }
      });
    }
  }

  /// Adds what the sandbox counted.
  fn add(&self, counts: Counts) {
    let add = |counter: &AtomicU64, n: u32| {
      if n > 0 {
        counter.fetch_add(n.into(), Ordering::Relaxed);
      }
    };
    add(&self.telemetry.searches, counts.searches);
    add(&self.telemetry.describes, counts.describes);
    add(&self.telemetry.calls, counts.calls);
    add(
      &self.telemetry.typescript_transforms,
      counts.typescript_transforms,
    );
  }

  /// Counters, events and the leg's result, in that order (a leg's events come first).
  fn ended(&self, process: &Arc<Process>, ended: Ended) {
    let Ended {
      cell,
      leg,
      end,
      dropped,
      token,
      output,
      floating,
    } = ended;
    let caller = leg.as_ref().and_then(|leg| leg.caller_id.as_deref());
    let previous = LIVE.get(&cell).and_then(|live| live.token.clone());
    if !floating.is_empty() {
      self.left_running(cell, &end, &floating);
    }
    let result = match &end {
      Some(LegEnd::Waiting {
        token: parked,
        reason,
        pending,
        snapshot_bytes,
      }) => match self.park(process, cell, parked, previous.as_deref()) {
        Ok(()) => {
          Counters::bump(&self.telemetry.suspended);
          self.telemetry.record_snapshot(*snapshot_bytes as usize);
          self.event(CodeModeCellEvent::CellSuspended {
            run_id: self.scope.run_id.clone(),
            cell_run_id: Some(parked.clone()),
            tool_call_id: caller.map(str::to_owned),
            reason: reason.to_string(),
            pending_tool_calls: pending.len() as u32,
            snapshot_bytes: *snapshot_bytes as f64,
          });
          let status = Status::Waiting {
            run_id: parked,
            reason,
            pending,
          };
          result::to_json(status, output, self.result_telemetry())
        }
        Err(failure) => result::to_json(Status::Failed(&failure), output, self.result_telemetry()),
      },
      end => {
        self.forget_cell(cell, process, [previous.as_deref(), token.as_deref()]);
        // A cell dropped between legs while a wait for it was already on its way (the abort
        // and the resume crossed): that wait's leg ends with the cell, unsettled by nothing
        // else (the sandbox's answer to the resume is about a cell that is no longer there).
        if leg.is_none()
          && let Some(waiting) = self.leg_of(cell)
        {
          self.legs.lock().remove(&waiting);
          admission::release();
          let result = self.failed(Failure::invalid(messages::RUN_UNAVAILABLE));
          self.port.send(Message::LegDone {
            leg: waiting,
            result,
          });
        }
        let aborted = matches!(end, Some(LegEnd::Failed(f)) if f.code == ErrorCode::Aborted)
          || dropped == Some(DropReason::Aborted);
        if aborted {
          Counters::bump(&self.telemetry.aborted);
        }
        match dropped {
          Some(DropReason::SnapshotLimit) => {
            // Parked past its cap: dropped now, and its next `wait` says why.
            if let (Some(token), Some(LegEnd::Failed(failure))) = (&token, end) {
              remember_lost(token, failure.clone());
              self.event(CodeModeCellEvent::CellDropped {
                run_id: self.scope.run_id.clone(),
                cell_run_id: Some(token.clone()),
                tool_call_id: None,
                code: failure.code.into(),
                error: failure.message.clone(),
              });
            }
          }
          Some(reason) => {
            if reason == DropReason::Expired {
              Counters::bump(&self.telemetry.expired);
            }
            let (run_id, cell_run_id, tool_call_id) =
              (self.scope.run_id.clone(), token.clone(), None);
            self.event(match reason {
              DropReason::Expired => CodeModeCellEvent::CellExpired {
                run_id,
                cell_run_id,
                tool_call_id,
              },
              _ => CodeModeCellEvent::CellAborted {
                run_id,
                cell_run_id,
                tool_call_id,
              },
            });
          }
          None if aborted => {
            self.event(CodeModeCellEvent::CellAborted {
              run_id: self.scope.run_id.clone(),
              cell_run_id: token.clone(),
              tool_call_id: caller.map(str::to_owned),
            });
          }
          None => {}
        }
        let telemetry = self.result_telemetry();
        match end {
          Some(LegEnd::Completed { value }) if leg.is_some() => {
            result::to_json(Status::Completed { value }, output, telemetry)
          }
          Some(LegEnd::Failed(failure)) if leg.is_some() => {
            result::to_json(Status::Failed(failure), output, telemetry)
          }
          _ => String::new(),
        }
      }
    };
    if let Some(leg) = leg {
      let state = self.legs.lock().remove(&leg.id);
      if state.is_some() {
        admission::release();
        self.port.send(Message::LegDone {
          leg: leg.id,
          result,
        });
      }
    }
  }
}
