//! One VM's bridge state, shared by the engine's and the host's functions inside the VM and
//! by the cell that drives it: pending requests, timers, output, the outcome, and the outbox
//! of requests not yet sent to the host.

use super::limits::{Kill, Signals};
use super::output::{Output, OutputItem};
use super::{BoundHost, Host, PendingRequest};
use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Timers a cell may have pending at once (ARCHITECTURE.md, decision 11).
pub const MAX_TIMERS: usize = 1_000;

/// Requests sent in one batch at most: a `Promise.all` over many tools reaches the host in a
/// few batches while the guest is still starting the rest, and their outcomes come back
/// together (a cell woken once per batch, not once per request).
const OUTBOX_MAX: usize = 32;
/// Bytes a batch grows to at most before it is sent (plus the one request that crossed the
/// mark, itself capped by the host: code mode's `maxToolInputBytes`, at most 64 MiB). Every
/// batch becomes one JavaScript string, and the JS layer parses it in one go on Node's main
/// thread: bounded far below V8's longest string, a batch can neither end the process nor stall
/// the main thread for long.
const OUTBOX_MAX_BYTES: usize = 16 << 20;
/// How long a started request may wait in the outbox while the guest keeps running.
pub const OUTBOX_WAIT: Duration = Duration::from_micros(100);

/// Requests that may wait for a free slot behind the host's in-flight cap, as upstream's
/// queue: past it, starting one more is a guest error.
pub const MAX_QUEUED_REQUESTS: usize = 128;

/// A request the guest waits on.
#[derive(Debug, Clone)]
pub struct Pending {
  /// What kind of request, as `pendingToolCalls[].method` names it (`"yield"` for the
  /// engine's own yield entry).
  pub method: &'static str,
  /// What it targets (code mode: the tool id).
  pub target: Option<String>,
  /// The id the host knows it by (code mode: the nested `toolCallId`, or `yield_<n>`).
  pub id: String,
  /// What the host holds for it until it settles: the bytes written for it in the host's format
  /// (its batch entry, or its own batch when it queues behind the cap), its input counted as
  /// parsed (`code_mode_protocol::parsed`). A parked cell answers for it against its snapshot
  /// cap.
  pub input_bytes: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
  /// JSON text of the completion value.
  Value(String),
  /// JSON `{name, message, stack}` of the uncaught guest error.
  Error(String),
}

pub struct VmState {
  /// The host driving the cell; `None` while the VM waits, warm, in the pool.
  host: Option<BoundHost>,
  pub cell_id: u64,
  /// The current leg's caller id ([`super::LegTag::caller_id`]).
  pub caller_id: Option<String>,
  next_id: u32,
  pub pending: BTreeMap<u32, Pending>,
  /// The leg's shared `yield_control()` entry in `pending`, if any.
  yield_entry: Option<u32>,
  /// Timer id → due instant.
  pub timers: BTreeMap<u32, Instant>,
  pub output: Output,
  pub outcome: Option<Outcome>,
  pub yielded: bool,
  /// Requests started but not yet sent to the host: bytes in the host's own format, sent as
  /// one batch when [`OUTBOX_MAX`] are queued or [`OUTBOX_MAX_BYTES`] written, when the slice
  /// ends, or when the oldest has waited [`OUTBOX_WAIT`] (checked as requests start and at the
  /// guest's interrupt polls). A request started with nothing else in flight is sent at once.
  outbox: Vec<u8>,
  outbox_count: usize,
  outbox_since: Option<Instant>,
  /// Requests started past the host's in-flight cap, oldest first: each is a whole batch in
  /// the host's format, sent as an in-flight request settles. They are in `pending` too.
  queued: VecDeque<(u32, Vec<u8>)>,
  pub signals: Arc<Signals>,
}

/// Requests taken out of a VM's outbox, sent once its state lock is released.
pub struct Batch {
  host: Arc<dyn Host>,
  cell: u64,
  bytes: Vec<u8>,
}

impl Batch {
  /// Sends the batch to the host, out of guest work: the host's channel is shared by every cell
  /// of the process, and a thread frozen while holding it would silence them all.
  pub fn send(self) {
    crate::stuck::outside_guest(|| self.host.send_requests(self.cell, self.bytes));
  }
}

impl VmState {
  pub fn new(signals: Arc<Signals>) -> Self {
    VmState {
      host: None,
      cell_id: 0,
      caller_id: None,
      next_id: 0,
      pending: BTreeMap::new(),
      yield_entry: None,
      timers: BTreeMap::new(),
      output: Output::default(),
      outcome: None,
      yielded: false,
      outbox: Vec::new(),
      outbox_count: 0,
      outbox_since: None,
      queued: VecDeque::new(),
      signals,
    }
  }

  /// The bound host. Guest code runs only once its VM is bound, so it is there for the
  /// functions the guest calls (typed, through [`crate::Bound`]).
  pub(crate) fn bound(&self) -> Option<BoundHost> {
    self.host.clone()
  }

  pub(crate) fn set_host(&mut self, host: BoundHost) {
    self.host = Some(host);
  }

  fn output_cap(&self) -> usize {
    self
      .host
      .as_ref()
      .map_or(0, |bound| bound.host().limits().max_output_bytes)
  }

  /// Appends an output item (see [`Output::push`]).
  pub fn push_output(&mut self, item: OutputItem) {
    let cap = self.output_cap();
    self.output.push(item, cap, &self.signals);
  }

  /// Takes the items produced since the previous result.
  pub fn take_output(&mut self) -> Vec<OutputItem> {
    self.output.take()
  }

  pub fn next_id(&mut self) -> u32 {
    self.next_id += 1;
    self.next_id
  }

  /// Requests in flight (the yield entry and queued requests aside).
  pub fn requests_in_flight(&self) -> usize {
    self.pending.len() - usize::from(self.yield_entry.is_some()) - self.queued.len()
  }

  /// The requests in flight (the yield entry and queued requests aside): each id and the bytes
  /// the host holds for it.
  pub fn in_flight_inputs(&self) -> Vec<(u32, u64)> {
    self
      .pending
      .iter()
      .filter(|(id, _)| {
        Some(**id) != self.yield_entry && !self.queued.iter().any(|(q, _)| q == *id)
      })
      .map(|(id, pending)| (*id, pending.input_bytes as u64))
      .collect()
  }

  /// Requests waiting for a slot behind the host's in-flight cap.
  pub fn requests_queued(&self) -> usize {
    self.queued.len()
  }

  /// Bytes of the requests this VM has made and the host has not settled: those the host runs
  /// (their inputs) and those queued behind its in-flight cap (their batches), each counted
  /// once by what was written for it.
  pub fn pending_input_bytes(&self) -> usize {
    self.pending.values().map(|p| p.input_bytes).sum()
  }

  /// Records request `id` as pending but not sent: `batch` (a whole batch of one, in the
  /// host's format) goes to the host once an in-flight request settles. The caller keeps the
  /// queue within [`MAX_QUEUED_REQUESTS`].
  pub fn queue_behind(&mut self, id: u32, pending: Pending, batch: Vec<u8>) {
    self.pending.insert(id, pending);
    self.queued.push_back((id, batch));
  }

  /// The outbox, for a host function to append one request in the host's own format before
  /// it calls [`VmState::queue_request`], and the leg's caller id to name as its parent.
  pub fn outbox(&mut self) -> (&mut Vec<u8>, Option<&str>) {
    (&mut self.outbox, self.caller_id.as_deref())
  }

  /// Records request `id` (already written to the outbox) as pending. Returns the batch to
  /// send now, if one is due: a lone request (nothing else in flight: the sequential `await`
  /// pattern) goes at once; requests started together go in batches.
  pub fn queue_request(&mut self, id: u32, pending: Pending) -> Option<Batch> {
    self.pending.insert(id, pending);
    self.outbox_count += 1;
    let now = Instant::now();
    self.outbox_since.get_or_insert(now);
    if self.requests_in_flight() == 1 || self.outbox_full() {
      self.take_outbox()
    } else {
      self.take_overdue_outbox(now)
    }
  }

  /// The outbox holds a full batch: [`OUTBOX_MAX`] requests or [`OUTBOX_MAX_BYTES`].
  fn outbox_full(&self) -> bool {
    self.outbox_count >= OUTBOX_MAX || self.outbox.len() >= OUTBOX_MAX_BYTES
  }

  /// The batch of requests not yet sent, with the host to send it to.
  pub fn take_outbox(&mut self) -> Option<Batch> {
    if self.outbox_count == 0 {
      return None;
    }
    self.outbox_count = 0;
    self.outbox_since = None;
    Some(Batch {
      host: self.host.as_ref()?.host().clone(),
      cell: self.cell_id,
      bytes: std::mem::take(&mut self.outbox),
    })
  }

  /// The outbox if its oldest request has waited [`OUTBOX_WAIT`] by `now`.
  pub fn take_overdue_outbox(&mut self, now: Instant) -> Option<Batch> {
    match self.outbox_since {
      Some(since) if now.duration_since(since) >= OUTBOX_WAIT => self.take_outbox(),
      _ => None,
    }
  }

  /// The leg's shared yield entry: every yield of a leg shares one, so they all resume
  /// together and a loop of yields cannot grow the pending list.
  pub fn yield_now(&mut self) -> u32 {
    self.yielded = true;
    if let Some(id) = self.yield_entry {
      return id;
    }
    let id = self.next_id();
    self.yield_entry = Some(id);
    self.pending.insert(
      id,
      Pending {
        method: "yield",
        target: None,
        id: format!("yield_{id}"),
        input_bytes: 0,
      },
    );
    id
  }

  /// The shared yield entry, if the leg has one.
  pub fn yield_entry(&self) -> Option<u32> {
    self.yield_entry
  }

  /// Settles pending entry `id`: false if there is none (already settled or never made).
  /// When an in-flight request settles, the oldest queued one takes its slot: its batch is
  /// returned, to send once the lock is released. A cell that is ending starts none.
  pub fn take_pending(&mut self, id: u32) -> (bool, Option<Batch>) {
    if self.yield_entry == Some(id) {
      self.yield_entry = None;
      return (self.pending.remove(&id).is_some(), None);
    }
    if self.pending.remove(&id).is_none() {
      return (false, None);
    }
    if self.queued.is_empty() {
      return (true, None);
    }
    if let Some(at) = self.queued.iter().position(|(queued, _)| *queued == id) {
      // Settled before it was sent (the host never saw it): no slot frees.
      self.queued.remove(at);
      return (true, None);
    }
    if self.ending() {
      return (true, None);
    }
    let batch = self.queued.pop_front().and_then(|(_, bytes)| {
      Some(Batch {
        host: self.host.as_ref()?.host().clone(),
        cell: self.cell_id,
        bytes,
      })
    });
    (true, batch)
  }

  /// Drops the queued requests unsent (the cell is ending).
  pub fn drop_queued(&mut self) {
    for (id, _) in std::mem::take(&mut self.queued) {
      self.pending.remove(&id);
    }
  }

  /// What the cell waits on: its pending requests, then its timers.
  pub fn pending_list(&self) -> Vec<PendingRequest> {
    let mut list: Vec<PendingRequest> = self
      .pending
      .values()
      .map(|p| PendingRequest {
        id: p.id.clone(),
        method: p.method.into(),
        target: p.target.clone(),
      })
      .collect();
    list.extend(self.timers.keys().map(|id| PendingRequest {
      id: format!("timer_{id}"),
      method: "timer".into(),
      target: None,
    }));
    list
  }

  /// Earliest pending timer.
  pub fn next_timer(&self) -> Option<Instant> {
    self.timers.values().min().copied()
  }

  /// Removes and returns the timers due at `now`, earliest first.
  pub fn due_timers(&mut self, now: Instant) -> Vec<u32> {
    let mut due: Vec<(Instant, u32)> = self
      .timers
      .iter()
      .filter(|(_, at)| **at <= now)
      .map(|(id, at)| (*at, *id))
      .collect();
    due.sort_unstable();
    for (_, id) in &due {
      self.timers.remove(id);
    }
    due.into_iter().map(|(_, id)| id).collect()
  }

  /// The VM is ending: true when the guest must start nothing more. A kill stops the guest
  /// only at its next interrupt poll; until then a catch block could still reach the host.
  pub fn ending(&self) -> bool {
    self.signals.killed() != Kill::None
  }
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn a_batch_is_full_at_its_count_or_its_bytes() {
    let mut state = VmState::new(Signals::new());
    assert!(!state.outbox_full());
    state.outbox_count = 2;
    state.outbox.resize(OUTBOX_MAX_BYTES - 1, b' ');
    assert!(!state.outbox_full());
    // Two large inputs fill a batch long before 32 requests do.
    state.outbox.push(b' ');
    assert!(state.outbox_full());
    state.outbox.clear();
    state.outbox_count = OUTBOX_MAX;
    assert!(state.outbox_full());
  }
}
