//! A completed cell's nested calls that are still running (floating): they run on in the
//! gateway and their outcomes are dropped (DESIGN decision 12), but what they make the gateway
//! hold is bounded per run, as a parked cell's pending calls are: at most
//! `maxPendingToolCalls` of them and `maxSnapshotBytes` of their inputs. Past either, the
//! oldest completed cell's floating calls are aborted (their signals fire), so a model that
//! ends every cell at once after firing calls at a slow tool cannot pile them up.

use super::Run;
use crate::protocol::Message;
use std::collections::VecDeque;

/// One run's floating calls, oldest cell first.
#[derive(Default)]
pub(super) struct Floating {
  cells: VecDeque<(u64, Vec<(u32, u64)>)>,
  calls: usize,
  bytes: u64,
}

impl Floating {
  fn remove_calls(&mut self, cell: u64, settled: &[u32]) {
    let Some(at) = self.cells.iter().position(|(c, _)| *c == cell) else {
      return;
    };
    let calls = &mut self.cells[at].1;
    for id in settled {
      if let Some(i) = calls.iter().position(|(call, _)| call == id) {
        let (_, bytes) = calls.swap_remove(i);
        self.calls -= 1;
        self.bytes -= bytes;
      }
    }
    if calls.is_empty() {
      self.cells.remove(at);
    }
  }
}

impl Run {
  /// Cell `cell` completed with `calls` still running: kept, within the run's budget.
  pub(super) fn float(&self, cell: u64, calls: Vec<(u32, u64)>) {
    let max_calls = self.config.max_pending_tool_calls as usize;
    let max_bytes = u64::from(self.config.max_snapshot_bytes);
    let mut evicted = Vec::new();
    {
      let mut floating = self.floating.lock();
      floating.calls += calls.len();
      floating.bytes += calls.iter().map(|(_, bytes)| bytes).sum::<u64>();
      floating.cells.push_back((cell, calls));
      while floating.calls > max_calls || floating.bytes > max_bytes {
        let Some((oldest, calls)) = floating.cells.pop_front() else {
          break;
        };
        floating.calls -= calls.len();
        floating.bytes -= calls.iter().map(|(_, bytes)| bytes).sum::<u64>();
        evicted.push(oldest);
      }
    }
    for cell in evicted {
      self.port.send(Message::AbortCell { cell });
    }
  }

  /// Floating calls of `cell` that settled (outcomes of a cell no longer alive).
  pub(super) fn floating_settled(&self, cell: u64, settled: &[u32]) {
    self.floating.lock().remove_calls(cell, settled);
  }
}
