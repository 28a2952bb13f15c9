//! Worker threads' priority. Workers run below the gateway's threads; a thread running a long
//! slice (`pool.rs`) lowers itself further when the pool asks, at the guest's next interrupt
//! poll (`limits.rs`): a thread changes only its own nice value (the sandbox's seccomp filter
//! allows no other), and Linux lets it lower that, never raise it back.

use std::cell::OnceCell;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

/// The nice value of workers (below the gateway's threads) and of long slices' threads: the
/// lowest, so that short work gets the cores first (CPU shares go by weight: a nice-5 worker
/// weighs 335 against a nice-19 thread's 15).
const WORKER_NICE: i32 = 5;
const LONG_NICE: i32 = 19;

const ASKED: u8 = 1;
const LOWERED: u8 = 2;

/// The pool's request to one worker thread to lower its priority.
#[derive(Clone, Default)]
pub struct Request(Arc<AtomicU8>);

impl Request {
  /// A new job: nothing asked (a thread already lowered stays lowered).
  pub fn clear(&self) {
    self.0.store(0, Ordering::Relaxed);
  }

  /// Asks the thread to lower its priority at its next interrupt poll.
  pub fn lower(&self) {
    self.0.store(ASKED, Ordering::Relaxed);
  }
}

thread_local! {
  /// This worker's request; unset on other threads.
  static REQUEST: OnceCell<Request> = const { OnceCell::new() };
}

/// Called first on a worker thread: it runs at the workers' priority and answers `request`.
pub fn start_worker(request: &Request) {
  set_nice(WORKER_NICE);
  REQUEST.with(|cell| {
    let _ = cell.set(request.clone());
  });
}

/// Called at every interrupt poll of guest code: a thread asked to lower its priority does so,
/// once.
pub fn on_interrupt_poll() {
  REQUEST.with(|cell| {
    if let Some(request) = cell.get()
      && request.0.load(Ordering::Relaxed) == ASKED
    {
      request.0.store(LOWERED, Ordering::Relaxed);
      set_nice(LONG_NICE);
    }
  });
}

/// Sets the calling thread's nice value. Guest JavaScript yields the CPU to the gateway: with
/// every core busy running cells, Node's event loop (and everything else in the process) still
/// gets scheduled first.
fn set_nice(nice: i32) {
  #[cfg(target_os = "linux")]
  // SAFETY: a plain syscall on the calling thread (`who` 0 is the caller on Linux, where the
  // nice value is per thread); a failure only leaves the priority as it was.
  unsafe {
    libc::setpriority(libc::PRIO_PROCESS, 0, nice);
  }
  #[cfg(not(target_os = "linux"))]
  let _ = nice;
}
