//! Bare VMs: the engine's runtime, limits and worker threads with no prelude, for a host that
//! brings its own guest controller (the OpenClaw executor, `src/executor/`), and [`spawn`],
//! which runs a host's piece of work on a worker under the watchdog.
//!
//! A bare VM has the engine's allocator (the memory cap is terminal), its interrupt handler
//! (the deadline in [`Signals`]) and QuickJS's stack cap; everything else, host functions
//! included, is the host's to install.

use super::limits::{Kill, Signals};
use super::pool::{self, Job};
use super::stuck;
use super::vm::{runtime, runtime_failure};
use super::watchdog::{self, Overrun};
use crate::error::Failure;
use parking_lot::Mutex;
use rquickjs::{Context, Ctx, Runtime};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// A QuickJS runtime and context with the engine's limits and no prelude.
pub struct BareVm {
  // Field order matters: the context goes before its runtime.
  ctx: Context,
  rt: Runtime,
  pub signals: Arc<Signals>,
}

impl BareVm {
  /// A VM whose memory is capped at `memory_limit` bytes.
  pub fn new(memory_limit: usize) -> Result<BareVm, Failure> {
    let signals = Signals::new();
    let rt = runtime(&signals, memory_limit)?;
    rt.set_interrupt_handler(Some(signals.interrupt_handler()));
    let ctx = Context::full(&rt).map_err(|e| runtime_failure(&signals, "start", e))?;
    ctx
      .with(|ctx| super::text::install(&ctx))
      .map_err(|e| runtime_failure(&signals, "start", e))?;
    Ok(BareVm { ctx, rt, signals })
  }

  /// Runs `f` in the VM's context.
  pub fn with<R>(&self, f: impl FnOnce(Ctx<'_>) -> R) -> R {
    self.ctx.with(f)
  }

  /// QuickJS calls `tracker(ctx, promise, reason, handled)` when a promise is rejected with no
  /// handler, and again when one is added.
  pub fn set_rejection_tracker(&self, tracker: rquickjs::runtime::RejectionTracker) {
    self.rt.set_host_promise_rejection_tracker(Some(tracker));
  }

  /// Bytes the VM holds, as its memory limit counts them.
  pub fn memory_used(&self) -> usize {
    self.ctx.with(|ctx| super::limits::bytes_held(&ctx))
  }

  pub fn collect_garbage(&self) {
    self.rt.run_gc();
  }

  /// Why the VM was stopped, if it was.
  pub fn killed(&self) -> Kill {
    self.signals.killed()
  }
}

/// A host's piece of work on a worker thread.
struct Task {
  id: u64,
  work: Mutex<Option<Box<dyn FnOnce() + Send>>>,
  /// Called instead of waiting for `work` when it is stuck in native code past its deadline.
  stuck: Mutex<Option<Box<dyn FnOnce() + Send>>>,
  /// How long the work may run once a worker takes it (`None`: unwatched).
  budget: Option<Duration>,
  tenant: u64,
  abandoned: AtomicBool,
}

static NEXT_TASK: AtomicU64 = AtomicU64::new(1 << 62);

impl Job for Task {
  fn run(self: Arc<Self>) {
    let running = stuck::begin();
    if let Some(budget) = self.budget {
      let owner: Arc<dyn Overrun> = self.clone();
      watchdog::watch(
        self.id,
        Arc::downgrade(&owner),
        0,
        (Instant::now(), budget),
        &running,
        None,
      );
    }
    let work = self.work.lock().take();
    if let Some(work) = work
      && catch_unwind(AssertUnwindSafe(work)).is_err()
    {
      // The work reports its own panics; one that escaped it still ends with the failure.
      self.fail();
    }
    watchdog::unwatch(self.id);
    drop(running);
  }

  fn panicked(self: Arc<Self>, _message: String) {
    self.fail();
  }

  fn tenant(&self) -> u64 {
    self.tenant
  }
}

impl Task {
  /// Ends the work with its failure (`stuck`, which settles whatever waits for the work), once.
  fn fail(&self) {
    let stuck = self.stuck.lock().take();
    if let Some(stuck) = stuck {
      stuck();
    }
  }
}

impl Overrun for Task {
  fn overran(self: Arc<Self>, _slice: u64) -> bool {
    if self.abandoned.swap(true, Ordering::AcqRel) {
      return false;
    }
    let job: Arc<dyn Job> = self.clone();
    pool::give_up(&job);
    self.fail();
    true
  }
}

/// The work on this worker (a [`spawn`]ed task) runs guest code under `signals` until the
/// returned guard drops: once they are killed (an abort), a native loop that never sees the kill
/// is given up on [`watchdog::STUCK_GRACE`] after the watchdog notices, as if its budget had run
/// out (its `stuck` runs, and its thread may be frozen), not at its deadline. Outside a watched
/// task it does nothing.
#[must_use = "the signals are watched only while the guard lives"]
pub fn watch_signals(signals: &Arc<Signals>) -> WatchedSignals {
  let slice = stuck::current_slice();
  watchdog::attach(slice, Some(signals));
  WatchedSignals { slice }
}

/// See [`watch_signals`]: work after the guest's (sending its outcome, say) is not given up on
/// for a kill that comes meanwhile.
pub struct WatchedSignals {
  slice: u64,
}

impl Drop for WatchedSignals {
  fn drop(&mut self) {
    watchdog::attach(self.slice, None);
  }
}

/// Runs `work` on a worker thread. If it is still running [`watchdog::STUCK_GRACE`] past `budget`
/// (counted from when a worker takes it; native code that never polls the interrupt
/// handler), `stuck` runs instead on the clock thread, the worker is replaced, and its thread
/// may be frozen inside the parts of `work` it marked as guest work ([`stuck::guest`]).
/// Fails when the workers are full of such stuck work. `tenant` shares the workers fairly with
/// other tenants' work (see `pool.rs`).
pub fn spawn(
  tenant: u64,
  work: Box<dyn FnOnce() + Send>,
  budget: Option<Duration>,
  stuck: Box<dyn FnOnce() + Send>,
) -> Result<(), String> {
  if let Some(refusal) = pool::refusal() {
    return Err(refusal);
  }
  pool::schedule(Arc::new(Task {
    id: NEXT_TASK.fetch_add(1, Ordering::Relaxed),
    work: Mutex::new(Some(work)),
    stuck: Mutex::new(Some(stuck)),
    budget,
    tenant,
    abandoned: AtomicBool::new(false),
  }));
  Ok(())
}
