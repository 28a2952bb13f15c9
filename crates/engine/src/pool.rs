//! The worker pool: threads that run cell slices, one at a time each.
//!
//! Jobs are cells ready to run, in one unbounded channel. An idle worker spins briefly for
//! the next job, then does housekeeping (`warm.rs`), then sleeps on the channel.

use super::{WORKER_STACK, warm};
use crossbeam_channel::{Receiver, Sender, unbounded};
use parking_lot::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock};
use std::time::{Duration, Instant};

/// What a worker runs: one slice of a cell (`cell/slice.rs`).
pub trait Job: Send + Sync + 'static {
  /// Runs one slice. True when the watchdog gave up on it meanwhile: this worker was already
  /// replaced and must exit.
  fn run(self: Arc<Self>) -> bool;
  /// `run` panicked outside the parts that catch their own panics: the job ends its work with
  /// a failure, so that no caller waits for it forever.
  fn panicked(self: Arc<Self>, message: String);
}

enum Message {
  Run(Arc<dyn Job>),
  Exit,
}

struct Pool {
  sender: Sender<Message>,
  receiver: Receiver<Message>,
  /// (running workers, wanted workers)
  workers: Mutex<(usize, usize)>,
}

static POOL: LazyLock<Pool> = LazyLock::new(|| {
  let (sender, receiver) = unbounded();
  let wanted = std::thread::available_parallelism().map_or(2, |n| n.get());
  Pool {
    sender,
    receiver,
    workers: Mutex::new((0, wanted)),
  }
});

/// Starts a worker thread; false if the OS refused one.
fn spawn_worker(index: usize) -> bool {
  let receiver = POOL.receiver.clone();
  std::thread::Builder::new()
    .name(format!("code-mode-worker-{index}"))
    .stack_size(WORKER_STACK)
    .spawn(move || {
      lower_priority();
      loop {
        // Between jobs, an idle worker tops up the warm pool; it blocks only when that is full.
        let job = match receiver.try_recv() {
          Ok(job) => job,
          Err(_) if warm::housekeeping(worker_count()) => continue,
          Err(_) => match spin_recv(&receiver) {
            Some(job) => job,
            None => match receiver.recv() {
              Ok(job) => job,
              Err(_) => break,
            },
          },
        };
        match job {
          // An abandoned worker was already replaced and left the pool's count: it exits.
          Message::Run(job) => {
            // A panic must neither end this worker silently nor leave the job's caller waiting.
            let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job.clone().run()));
            match ran {
              Ok(true) => {
                ABANDONED.fetch_sub(1, Ordering::AcqRel);
                break;
              }
              Ok(false) => {}
              Err(panic) => {
                let message = code_mode_protocol::error::panic_message(&*panic);
                let _ =
                  std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job.panicked(message)));
              }
            }
          }
          Message::Exit => break,
        }
      }
    })
    .is_ok()
}

/// How long an idle worker polls for its next job before it sleeps. A cell waiting on a fast
/// tool gets its result back within this window; picking it up without a futex wake-up (tens of
/// µs when the CPU has gone idle, more under a hypervisor) is most of a nested call's cost.
const SPIN: Duration = Duration::from_micros(50);

/// Polls the queue for up to [`SPIN`]; None when nothing came.
fn spin_recv(receiver: &Receiver<Message>) -> Option<Message> {
  let until = Instant::now() + SPIN;
  loop {
    for _ in 0..64 {
      if let Ok(job) = receiver.try_recv() {
        return Some(job);
      }
      std::hint::spin_loop();
    }
    if Instant::now() >= until {
      return None;
    }
  }
}

/// Guest JavaScript yields the CPU to the gateway: with every core busy running cells, Node's
/// event loop (and everything else in the process) still gets scheduled first.
fn lower_priority() {
  #[cfg(target_os = "linux")]
  // SAFETY: plain syscalls on the calling thread's own id; a failure only leaves the default
  // priority in place.
  unsafe {
    let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
    libc::setpriority(libc::PRIO_PROCESS, tid, 5);
  }
}

/// Brings the pool to its wanted size (spawning or retiring workers).
fn balance_pool() {
  let mut workers = POOL.workers.lock();
  while workers.0 < workers.1 {
    if !spawn_worker(workers.0 + 1) {
      break;
    }
    workers.0 += 1;
  }
  while workers.0 > workers.1 {
    workers.0 -= 1;
    let _ = POOL.sender.send(Message::Exit);
  }
}

pub(super) fn schedule(job: Arc<dyn Job>) {
  if POOL.workers.lock().0 == 0 {
    balance_pool();
  }
  let _ = POOL.sender.send(Message::Run(job));
}

/// Abandoned workers still stuck in native code (see [`replace_stuck_worker`]).
static ABANDONED: AtomicUsize = AtomicUsize::new(0);

/// Abandoned workers the process keeps at most before it refuses new legs: each one spins a
/// core until its native loop returns, so without a cap a stream of such cells would starve
/// every other cell, and the gateway, of CPU. The pool's own size, and at least two.
fn max_abandoned() -> usize {
  match MAX_ABANDONED.load(Ordering::Relaxed) {
    0 => POOL.workers.lock().1.max(2),
    set => set,
  }
}

/// The cap set by [`set_max_abandoned`] (0: the pool's size).
static MAX_ABANDONED: AtomicUsize = AtomicUsize::new(0);

/// Sets how many abandoned workers the process keeps before it refuses new legs. A process
/// whose abandoned threads cost no CPU (the sandbox executable freezes them, and its supervisor
/// retires it) sets it high; by default it is the pool's size.
pub fn set_max_abandoned(max: usize) {
  MAX_ABANDONED.store(max.max(1), Ordering::Relaxed);
}

/// Abandoned workers still stuck in native code now (for the test suites).
#[cfg(any(test, feature = "testing"))]
pub fn abandoned_workers() -> usize {
  ABANDONED.load(Ordering::Acquire)
}

/// Why no new leg may start now, if the abandoned workers fill their cap.
pub(super) fn refusal() -> Option<String> {
  let (abandoned, max) = (ABANDONED.load(Ordering::Acquire), max_abandoned());
  (abandoned >= max).then(|| {
    format!(
      "code mode runtime is overloaded: {abandoned} worker threads are still stuck in native code past their cells' deadlines (at most {max}); try again once they finish."
    )
  })
}

/// A worker is stuck in native code: it no longer counts as one, and a fresh thread takes its
/// place so the pool keeps its size. It counts as abandoned until its job returns.
pub(super) fn replace_stuck_worker() {
  ABANDONED.fetch_add(1, Ordering::AcqRel);
  let mut workers = POOL.workers.lock();
  if !spawn_worker(workers.0 + 1) {
    workers.0 = workers.0.saturating_sub(1);
  }
}

/// Worker threads currently running.
pub fn worker_count() -> usize {
  POOL.workers.lock().0
}

/// Sets the number of worker threads (1 to 256), starting or retiring workers if the pool runs.
pub fn set_workers(n: usize) {
  let started = {
    let mut workers = POOL.workers.lock();
    workers.1 = n.clamp(1, 256);
    workers.0 > 0
  };
  if started {
    balance_pool();
  }
}
