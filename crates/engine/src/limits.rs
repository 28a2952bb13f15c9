//! Per-VM limits: the allocator (where the memory cap becomes terminal), the interrupt
//! handler (CPU deadline, terminal kills), and the failure each kill ends a cell with.
//!
//! QuickJS reports an allocation failure as a catchable `InternalError`. The cap must be
//! terminal, so a refusal at the runtime's memory limit also raises a kill flag that the
//! interrupt handler turns into QuickJS's uncatchable interrupt at the guest's next poll.

use super::Limits;
use crate::error::{ErrorCode, Failure, FailurePhase, messages};
use rquickjs::allocator::Allocator;
use std::sync::Arc;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};
use std::time::Instant;

/// Why a VM must stop now. Stored in [`Signals::kill`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Kill {
  None = 0,
  Timeout = 1,
  Memory = 2,
  Output = 3,
  Aborted = 4,
  /// Rust code under the VM panicked (see [`Signals::panicked`]).
  Panic = 5,
}

impl Kill {
  fn from_u8(v: u8) -> Kill {
    match v {
      1 => Kill::Timeout,
      2 => Kill::Memory,
      3 => Kill::Output,
      4 => Kill::Aborted,
      5 => Kill::Panic,
      _ => Kill::None,
    }
  }
}

/// State shared by a VM, its allocator, its interrupt handler and the cell that owns it.
pub struct Signals {
  /// CPU deadline of the current slice, in nanoseconds since [`epoch`]; `u64::MAX` = none.
  deadline: AtomicU64,
  kill: AtomicU8,
  /// What the first panic under this VM said.
  panic: parking_lot::Mutex<Option<String>>,
}

fn epoch() -> Instant {
  static EPOCH: OnceLock<Instant> = OnceLock::new();
  *EPOCH.get_or_init(Instant::now)
}

fn nanos(at: Instant) -> u64 {
  at.saturating_duration_since(epoch())
    .as_nanos()
    .min(u64::MAX as u128 - 1) as u64
}

impl Signals {
  pub fn new() -> Arc<Signals> {
    Arc::new(Signals {
      deadline: AtomicU64::new(u64::MAX),
      kill: AtomicU8::new(Kill::None as u8),
      panic: parking_lot::Mutex::new(None),
    })
  }

  /// The current CPU deadline, if any.
  pub fn deadline(&self) -> Option<Instant> {
    match self.deadline.load(Ordering::Relaxed) {
      u64::MAX => None,
      nanos => Some(epoch() + std::time::Duration::from_nanos(nanos)),
    }
  }

  pub fn set_deadline(&self, at: Option<Instant>) {
    self
      .deadline
      .store(at.map_or(u64::MAX, nanos), Ordering::Relaxed);
  }

  /// Raises a kill reason; the first one wins.
  pub fn kill(&self, reason: Kill) {
    let _ = self.kill.compare_exchange(
      Kill::None as u8,
      reason as u8,
      Ordering::AcqRel,
      Ordering::Acquire,
    );
  }

  /// Rust code under this VM panicked: the cell must end `internal_error` with `message`.
  pub fn panicked(&self, message: String) {
    self.panic.lock().get_or_insert(message);
    self.kill(Kill::Panic);
  }

  pub fn panic_message(&self) -> Option<String> {
    self.panic.lock().clone()
  }

  pub fn killed(&self) -> Kill {
    Kill::from_u8(self.kill.load(Ordering::Acquire))
  }

  /// The interrupt handler: true stops the guest with an uncatchable error.
  pub fn interrupt_handler(self: &Arc<Self>) -> Box<dyn FnMut() -> bool + Send> {
    let signals = self.clone();
    Box::new(move || {
      crate::priority::on_interrupt_poll();
      if signals.killed() != Kill::None {
        return true;
      }
      let deadline = signals.deadline.load(Ordering::Relaxed);
      if deadline != u64::MAX && nanos(Instant::now()) >= deadline {
        signals.kill(Kill::Timeout);
        return true;
      }
      false
    })
  }
}

unsafe extern "C" {
  /// Vendored QuickJS patch: the runtime's `malloc_state.malloc_size`.
  fn JS_GetMallocSize(rt: *mut rquickjs::qjs::JSRuntime) -> usize;
}

/// Bytes the runtime of `ctx` holds, as its memory limit counts them.
pub fn bytes_held(ctx: &rquickjs::Ctx<'_>) -> usize {
  // SAFETY: `ctx` is a live context, so its runtime is live; the accessor only reads a counter.
  unsafe { JS_GetMallocSize(rquickjs::qjs::JS_GetRuntime(ctx.as_raw().as_ptr())) }
}

// Where the VMs' blocks come from: mimalloc, or with the `sanitize` feature the C library's
// malloc, which AddressSanitizer and valgrind watch block by block (tools/ci/quickjs-asan.sh).
#[cfg(all(feature = "sanitize", target_os = "linux"))]
use libc::{calloc, free, malloc, malloc_usable_size as usable_size, realloc};
#[cfg(not(feature = "sanitize"))]
use libmimalloc_sys::{
  mi_calloc as calloc, mi_free as free, mi_malloc as malloc, mi_realloc as realloc,
  mi_usable_size as usable_size,
};
#[cfg(all(feature = "sanitize", not(target_os = "linux")))]
compile_error!("the `sanitize` feature is for Linux (tools/ci/quickjs-asan.sh)");

/// The VMs' allocator: mimalloc, called directly. QuickJS allocates every object, string and
/// shape here (its own small-block arenas are off, see vendor/rquickjs-sys): mimalloc pools small
/// blocks across VMs without a per-block header, and frees blocks allocated on another worker
/// thread (a parked cell resumes anywhere). The runtime counts the bytes and enforces the cap
/// itself (`Runtime::set_memory_limit`); a refusal reaches this allocator as
/// `realloc(null, usize::MAX)` (vendored patch), which raises the terminal memory kill.
pub struct VmAllocator {
  signals: Arc<Signals>,
}

impl VmAllocator {
  pub fn new(signals: Arc<Signals>) -> Self {
    VmAllocator { signals }
  }
}

// SAFETY: every call forwards to mimalloc's (with `sanitize`, the C library's)
// malloc/calloc/realloc/free, which return blocks aligned for any C type (as QuickJS needs) or
// null, and accept null in free/realloc. The one request this wrapper answers itself,
// `realloc(null, usize::MAX)`, gets null, as either would answer it.
unsafe impl Allocator for VmAllocator {
  fn alloc(&mut self, size: usize) -> *mut u8 {
    // SAFETY: plain allocation.
    unsafe { malloc(size) }.cast()
  }

  fn calloc(&mut self, count: usize, size: usize) -> *mut u8 {
    // SAFETY: plain allocation; both allocators check `count * size` for overflow.
    unsafe { calloc(count, size) }.cast()
  }

  unsafe fn dealloc(&mut self, ptr: *mut u8) {
    // SAFETY: the caller guarantees `ptr` came from this allocator, i.e. from `malloc`.
    unsafe { free(ptr.cast()) }
  }

  unsafe fn realloc(&mut self, ptr: *mut u8, new_size: usize) -> *mut u8 {
    if ptr.is_null() && new_size == usize::MAX {
      // The runtime refused an allocation at its memory limit.
      self.signals.kill(Kill::Memory);
      return std::ptr::null_mut();
    }
    // SAFETY: the caller guarantees `ptr` came from this allocator; on failure the old block
    // is left untouched.
    unsafe { realloc(ptr.cast(), new_size) }.cast()
  }

  unsafe fn usable_size(ptr: *mut u8) -> usize {
    // SAFETY: forwarded contract; both answer 0 for null.
    unsafe { usable_size(ptr.cast()) }
  }
}

/// The failure a kill ends a cell with, naming the limit it crossed.
pub fn kill_failure(kill: Kill, limits: &Limits, signals: &Signals) -> Failure {
  match kill {
    // Only the host functions' guard (`guarded`) reports a panic through the signals.
    Kill::Panic => Failure::internal(format!(
      "code mode runtime failed: {}",
      signals.panic_message().unwrap_or_default()
    ))
    .in_phase(FailurePhase::Bridge),
    Kill::Timeout => Failure::new(
      ErrorCode::Timeout,
      format!(
        "{} exceeded {} ({} ms of guest CPU time).",
        limits.names.cell,
        limits.names.timeout,
        limits.timeout.as_millis()
      ),
    ),
    Kill::Memory => Failure::new(
      ErrorCode::MemoryLimitExceeded,
      format!(
        "{} exceeded {} ({} bytes).",
        limits.names.cell, limits.names.memory, limits.memory_limit_bytes
      ),
    ),
    Kill::Output => Failure::new(
      ErrorCode::OutputLimitExceeded,
      format!(
        "{} exceeded {} ({} bytes).",
        limits.names.output, limits.names.max_output, limits.max_output_bytes
      ),
    ),
    Kill::Aborted | Kill::None => Failure::new(ErrorCode::Aborted, messages::ABORTED),
  }
}
