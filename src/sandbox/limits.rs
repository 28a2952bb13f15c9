//! Per-VM limits: the counting allocator (memory cap, snapshot bytes) and the interrupt
//! handler (CPU deadline, terminal kills).
//!
//! QuickJS reports an allocation failure as a catchable `InternalError`. The cap must be
//! terminal, so the allocator also raises a kill flag that the interrupt handler turns into
//! QuickJS's uncatchable interrupt at the guest's next poll.

use libmimalloc_sys as mi;
use rquickjs::allocator::Allocator;
use std::sync::Arc;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU8, AtomicU64, AtomicUsize, Ordering};
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
  /// Bytes currently allocated by the VM (its snapshot size while parked).
  used: AtomicUsize,
  limit: AtomicUsize,
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
  pub fn new(memory_limit: usize) -> Arc<Signals> {
    Arc::new(Signals {
      deadline: AtomicU64::new(u64::MAX),
      kill: AtomicU8::new(Kill::None as u8),
      used: AtomicUsize::new(0),
      limit: AtomicUsize::new(memory_limit),
      panic: parking_lot::Mutex::new(None),
    })
  }

  /// The memory cap; a warm VM gets its cell's cap when it is claimed.
  pub fn set_limit(&self, bytes: usize) {
    self.limit.store(bytes, Ordering::Relaxed);
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

  pub fn used(&self) -> usize {
    self.used.load(Ordering::Relaxed)
  }

  /// The interrupt handler: true stops the guest with an uncatchable error.
  pub fn interrupt_handler(self: &Arc<Self>) -> Box<dyn FnMut() -> bool + Send> {
    let signals = self.clone();
    Box::new(move || {
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

/// mimalloc with a byte count and a hard cap. QuickJS allocates every object, string and
/// shape here (its own small-block arenas are off, see vendor/rquickjs-sys): mimalloc pools small
/// blocks across VMs without a per-block header, and frees blocks allocated on another worker
/// thread (a parked cell resumes anywhere).
pub struct CountingAllocator {
  signals: Arc<Signals>,
  /// Bytes this VM holds. Only the allocator (one VM, one thread at a time) changes it; the
  /// shared copy in `signals` is a plain store, not a locked add per allocation.
  used: usize,
}

impl CountingAllocator {
  pub fn new(signals: Arc<Signals>) -> Self {
    CountingAllocator { signals, used: 0 }
  }

  fn admit(&self, size: usize) -> bool {
    if self.used.saturating_add(size) > self.signals.limit.load(Ordering::Relaxed) {
      self.signals.kill(Kill::Memory);
      return false;
    }
    true
  }

  fn set_used(&mut self, used: usize) {
    self.used = used;
    self.signals.used.store(used, Ordering::Relaxed);
  }
}

// SAFETY: every call forwards to mimalloc's malloc/calloc/realloc/free, which return blocks
// aligned for any C type (as QuickJS needs) or null, and accept null in free/realloc; this
// wrapper only counts bytes and refuses allocations past the cap by returning null.
unsafe impl Allocator for CountingAllocator {
  fn alloc(&mut self, size: usize) -> *mut u8 {
    if !self.admit(size) {
      return std::ptr::null_mut();
    }
    // SAFETY: plain allocation.
    let ptr = unsafe { mi::mi_malloc(size) }.cast::<u8>();
    if !ptr.is_null() {
      // SAFETY: `ptr` was just returned by mimalloc.
      self.set_used(self.used + unsafe { Self::usable_size(ptr) });
    }
    ptr
  }

  fn calloc(&mut self, count: usize, size: usize) -> *mut u8 {
    let Some(total) = count.checked_mul(size) else {
      return std::ptr::null_mut();
    };
    if !self.admit(total) {
      return std::ptr::null_mut();
    }
    // SAFETY: plain allocation.
    let ptr = unsafe { mi::mi_calloc(count, size) }.cast::<u8>();
    if !ptr.is_null() {
      // SAFETY: `ptr` was just returned by mimalloc.
      self.set_used(self.used + unsafe { Self::usable_size(ptr) });
    }
    ptr
  }

  unsafe fn dealloc(&mut self, ptr: *mut u8) {
    // SAFETY: the caller guarantees `ptr` came from this allocator, i.e. from mimalloc.
    unsafe {
      self.set_used(self.used.saturating_sub(Self::usable_size(ptr)));
      mi::mi_free(ptr.cast());
    }
  }

  unsafe fn realloc(&mut self, ptr: *mut u8, new_size: usize) -> *mut u8 {
    // SAFETY: the caller guarantees `ptr` came from this allocator.
    let old = unsafe { Self::usable_size(ptr) };
    if new_size > old && !self.admit(new_size - old) {
      return std::ptr::null_mut();
    }
    // SAFETY: as above; on failure the old block is left untouched and still counted.
    let new = unsafe { mi::mi_realloc(ptr.cast(), new_size) }.cast::<u8>();
    if !new.is_null() {
      // SAFETY: `new` was just returned by mimalloc.
      let now = unsafe { Self::usable_size(new) };
      self.set_used(self.used.saturating_sub(old) + now);
    }
    new
  }

  unsafe fn usable_size(ptr: *mut u8) -> usize {
    // SAFETY: forwarded contract; mimalloc answers 0 for null.
    unsafe { mi::mi_usable_size(ptr.cast()) }
  }
}
