//! The sandbox engine: QuickJS VMs, the threads that run them, and the cells that own them.
//!
//! It knows nothing of catalogs, MCP, namespaces or result shapes. A host (code mode's `Run`,
//! in `src/run.rs`) reaches it through this module's interface:
//! - a [`Guest`]: the host's half of the guest prelude and the host functions it installs in
//!   every VM of that kind (they reach the VM's [`VmState`] and, through it, their [`Host`]);
//! - [`Host`]: where the engine sends what cells produce: request batches (the sink for bridge
//!   requests), cancellations, and the end of every leg;
//! - [`Cell::exec`], [`Cell::resume`], [`deliver`] (settle) and [`Cell::abort`];
//! - [`Limits`], read from the host at the start of every leg, and [`configure`].
//!
//! ## Threads
//! - **Node's main thread** calls in: `exec`, `resume`, `deliver`, `abort`. It never runs guest
//!   JavaScript and never waits on a worker.
//! - **Workers** (`pool.rs`, `worker_threads` of them) run one slice of one cell at a time:
//!   prepare its program on the first slice, then run jobs and timers until the cell completes,
//!   fails or has nothing ready. Tenants ([`Host::tenant`]) share them fairly; a slice running
//!   long hands its worker to a stand-in and finishes at a lower priority (`pool.rs`).
//! - **Background threads** (`background.rs`, two, in the idle scheduling class) build warm VMs,
//!   free retired ones (`warm.rs`) and run hosts' preparation ahead of the next cell.
//! - **The clock thread** (`clock.rs`) fires every timed event: guest timers, leg wall clocks,
//!   queued legs' admission timeouts, parked cells' expiry, and the watchdog's scan.
//! - **Abandoned workers**: a slice stuck in native code past its deadline is given up on
//!   (`watchdog.rs`); its thread keeps the VM until the native loop returns, then exits. While as
//!   many are stuck as the pool has workers, new legs fail `runtime_unavailable` (`pool.rs`).
//!
//! ## Locks, in the order they may be taken (a lock is never taken while a later one is held)
//! 1. `Cell::state` (cell.rs), then `Cell::host` (the host driving it; leaf).
//! 2. `VmState` (one VM's bridge state, shared with its host functions). Held by host functions
//!    while the guest runs; never while building an exception (that can run guest code).
//! 3. Process-wide tables, each a leaf taken alone or under the two above: the worker pool's
//!    counts (`pool.rs`), the store's shards (`store.rs`), the live-cell map (`cell.rs`), the
//!    warm and retired VM lists (`warm.rs`).
//! 4. Leaves, never held while another lock is taken: the admission queue (`admission.rs`) and
//!    the watchdog table (`watchdog.rs`, taken under a host's lock by `bare::watch_signals`);
//!    both release their lock before touching a cell.
//!
//! Host callbacks ([`Host`]) are called with no engine lock held.

mod admission;
pub mod background;
pub mod bare;
pub mod bytecode;
mod cell;
pub mod clock;
mod core_fns;
pub mod limits;
pub mod output;
mod pool;
mod priority;
pub mod state;
pub mod store;
pub mod stuck;
pub mod testing;
pub mod text;
pub mod vm;
mod warm;
mod watchdog;

/// Failures, codes and phases, shared with every layer above.
pub use code_mode_protocol::error;

pub use cell::{Cell, deliver};
pub use code_mode_protocol::leg::{DropReason, Ended, LegEnd, LegTag, OutputItem, PendingRequest};
pub use core_fns::{guarded, request_promise, throw, throw_type};

#[cfg(any(test, feature = "testing"))]
pub use pool::abandoned_workers;
pub use pool::{LONG_SLICES_PER_WORKER, set_max_abandoned, worker_count};
pub use state::{MAX_QUEUED_REQUESTS, Pending, VmState};
pub use vm::Delivery;

/// Process-wide settings: worker threads, cells in a leg at once (later legs queue, see
/// `admission.rs`) and parked cells at once.
pub fn configure(
  worker_threads: Option<usize>,
  max_active_cells: Option<usize>,
  max_parked_cells: Option<usize>,
) {
  if let Some(n) = worker_threads {
    pool::set_workers(n);
  }
  if let Some(n) = max_active_cells {
    admission::set_max(n);
  }
  if let Some(n) = max_parked_cells {
    cell::STORE.set_cap(n);
  }
}

/// Cells parked in this process now.
pub fn parked_cells() -> usize {
  cell::STORE.len()
}

use crate::error::{Failure, LimitNames};
use rquickjs::{Ctx, Object};
use std::any::{Any, TypeId};
use std::marker::PhantomData;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

/// Stack of a worker thread. A host's program preparation runs there (parsing hostile nesting
/// needs deep stacks; only touched pages are committed); QuickJS stops at its own 1 MiB cap.
pub const WORKER_STACK: usize = 256 << 20;

/// The limits of a cell's legs, as its host configured them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
  /// Guest CPU time per leg, and the leg's wall clock.
  pub timeout: Duration,
  pub memory_limit_bytes: usize,
  /// Output bytes per leg, the completion value included.
  pub max_output_bytes: usize,
  /// A parked VM may hold at most this much.
  pub max_snapshot_bytes: usize,
  /// How long a parked cell waits for its next leg.
  pub snapshot_ttl: Duration,
  /// How the host's users know these limits, for failure messages.
  pub names: &'static LimitNames,
}

/// Maps a (line, column) of a program to the user's own source.
pub type Positions = Box<dyn Fn(u32, u32) -> Option<(u32, u32)> + Send>;

/// A cell's program, prepared by the host's front end on the cell's first slice.
pub struct Program {
  /// A strict script whose value is the cell's main function (called once, awaited).
  pub code: String,
  /// The script's name in stack traces.
  pub filename: &'static str,
  /// Maps a (line, column) of `code` to the user's own source.
  pub positions: Positions,
}

/// Prepares a cell's program on a worker. The deadline is the slice's CPU deadline: the
/// interrupt handler cannot stop native parsing, so the preparation must watch it itself.
pub type Prepare = Box<dyn FnOnce(Option<Instant>) -> Result<Program, Failure> + Send>;

/// Whoever drives cells: code mode's `Run` (`src/run.rs`). Called from workers and the clock
/// thread, with no engine lock held.
pub trait Host: Send + Sync + 'static {
  /// Limits of the cell's legs.
  fn limits(&self) -> &Limits;
  /// A name for fault injection in tests (code mode: the runId).
  fn label(&self) -> &str;
  /// Whose cells these are (a session, say): the workers are shared fairly between tenants
  /// (`pool.rs`), so one tenant's busy cells never hold up another's.
  fn tenant(&self) -> u64;
  /// Requests the guest started, as the bytes the host's own functions queued in the VM's
  /// outbox (see [`VmState::outbox`]); sent in the order they were started.
  fn send_requests(&self, cell: u64, batch: Vec<u8>);
  /// The cell ended with requests in flight: cancel them.
  fn cancel_requests(&self, cell: u64);
  /// A leg ended, or a parked cell was dropped. Its results are this host's to report.
  fn ended(&self, ended: Ended);
}

/// A host as a VM and its cell keep it: for the engine, and, typed, for the host's functions.
#[derive(Clone)]
pub struct BoundHost {
  host: Arc<dyn Host>,
  any: Arc<dyn Any + Send + Sync>,
}

impl BoundHost {
  pub fn new<H: Host>(host: Arc<H>) -> BoundHost {
    BoundHost {
      host: host.clone(),
      any: host,
    }
  }

  pub fn host(&self) -> &Arc<dyn Host> {
    &self.host
  }
}

/// What a guest's host functions capture: their VM's state, and through it the host of type
/// `H` the VM is bound to. A VM of a `Guest<H>` is only ever bound to an `H` (`Cell::exec` and
/// `Cell::resume` take one), so the host is there, typed, whenever guest code runs.
pub struct Bound<H> {
  state: Arc<parking_lot::Mutex<VmState>>,
  host: PhantomData<fn() -> H>,
}

impl<H: Host> Bound<H> {
  pub fn state(&self) -> &Arc<parking_lot::Mutex<VmState>> {
    &self.state
  }

  /// The host the VM is bound to; `None` only before it is bound (no guest code runs then).
  pub fn host(&self) -> Option<Arc<H>> {
    self
      .state
      .lock()
      .bound()
      .and_then(|b| b.any.downcast::<H>().ok())
  }

  /// The host, or a guest exception saying the VM has none (it never happens: see above).
  pub fn host_or_throw(&self, ctx: &Ctx<'_>) -> rquickjs::Result<Arc<H>> {
    self
      .host()
      .ok_or_else(|| throw(ctx, "code mode runtime failed: the VM has no host"))
  }
}

impl<H> Clone for Bound<H> {
  fn clone(&self) -> Self {
    Bound {
      state: self.state.clone(),
      host: PhantomData,
    }
  }
}

/// Installs a host's own functions on the `host` object its prelude receives.
pub type InstallFn<H> = for<'js> fn(&Ctx<'js>, &Object<'js>, &Bound<H>) -> rquickjs::Result<()>;

/// A kind of VM: the host's half of the guest prelude and the functions it calls, for hosts of
/// type `H`. Declared as a `static` by the host; warm VMs are built per guest.
pub struct Guest<H: Host> {
  /// A parenthesised function expression `(function (host, core) { … return { bind } })`:
  /// it defines the host's globals from `host` (the engine's and the host's functions) and
  /// `core` (the engine prelude's helpers, see `prelude.js`), and returns `bind`, which
  /// runs once the VM knows its host, and optionally `explain(error)`, which may make the
  /// uncaught error a cell ends with clearer.
  pub prelude: &'static str,
  pub install: InstallFn<H>,
  /// Which of the engine's own globals this guest's VMs get (see [`EngineGlobals`]).
  pub globals: EngineGlobals,
  /// The composed prelude, compiled on first use.
  pub bytecode: OnceLock<Option<Vec<u8>>>,
}

/// A [`Guest`] as the engine keeps it, whatever its host type.
pub(crate) trait AnyGuest: Sync + std::panic::RefUnwindSafe {
  fn prelude(&self) -> &'static str;
  fn globals(&self) -> EngineGlobals;
  fn bytecode(&self) -> &OnceLock<Option<Vec<u8>>>;
  fn install<'js>(
    &self,
    ctx: &Ctx<'js>,
    functions: &Object<'js>,
    state: &Arc<parking_lot::Mutex<VmState>>,
  ) -> rquickjs::Result<()>;
  /// The type of host its VMs are bound to.
  fn host_type(&self) -> TypeId;
}

impl<H: Host> AnyGuest for Guest<H> {
  fn prelude(&self) -> &'static str {
    self.prelude
  }
  fn globals(&self) -> EngineGlobals {
    self.globals
  }
  fn bytecode(&self) -> &OnceLock<Option<Vec<u8>>> {
    &self.bytecode
  }
  fn install<'js>(
    &self,
    ctx: &Ctx<'js>,
    functions: &Object<'js>,
    state: &Arc<parking_lot::Mutex<VmState>>,
  ) -> rquickjs::Result<()> {
    let bound = Bound {
      state: state.clone(),
      host: PhantomData,
    };
    (self.install)(ctx, functions, &bound)
  }
  fn host_type(&self) -> TypeId {
    TypeId::of::<H>()
  }
}

/// The engine's own globals a [`Guest`] installs (`prelude.js`): all of them (code
/// mode), or only the named ones. A host whose contract lists its globals (Tool Search: only
/// `console.log/warn/error`) names them instead of deleting them after the fact.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EngineGlobals {
  /// `text`, `json`, `yield_control`, `setTimeout`, `clearTimeout` and the whole `console`.
  All,
  /// A JSON object literal `{ "<global>": true | ["<member>", …] }`: a listed global is
  /// installed, an array installs only those members (`{"console":["log"]}`).
  Only(&'static str),
}

impl EngineGlobals {
  /// The prelude's third argument: `null` for all.
  pub(crate) fn literal(self) -> &'static str {
    match self {
      EngineGlobals::All => "null",
      EngineGlobals::Only(list) => list,
    }
  }
}

impl<H: Host> Guest<H> {
  pub const fn new(prelude: &'static str, install: InstallFn<H>) -> Guest<H> {
    Guest::with_globals(prelude, install, EngineGlobals::All)
  }

  /// A guest that gets only some of the engine's globals.
  pub const fn with_globals(
    prelude: &'static str,
    install: InstallFn<H>,
    globals: EngineGlobals,
  ) -> Guest<H> {
    Guest {
      prelude,
      install,
      globals,
      bytecode: OnceLock::new(),
    }
  }
}
