//! Background work: building warm VMs, freeing finished ones (`warm.rs`), and hosts' own
//! preparation ahead of the next cell (the OpenClaw executor's spare VMs). None of it is on a
//! leg's path, so it runs on threads of its own in the lowest scheduling class (Linux
//! `SCHED_IDLE`): any other thread that wakes, the gateway's or a worker, takes the core from
//! it at once. A worker (nice 5) building a VM instead kept the core for up to its slice, and
//! Node's threads waited behind it (up to 0.4 ms, measured with `perf sched`).
//!
//! A thread in that class may wait long for a core on a busy machine, so nothing on a leg's
//! path ever waits for one of these threads: they sleep by parking (no lock), the queue is
//! bounded, and the locks they share with workers (this queue, the warm and retired lists, the
//! executor's spares) are taken by workers only for a bounded time, after which a worker does
//! the work itself: frees a VM at once, builds its own. These threads read the pool's size
//! without its lock (`pool::wanted_workers`).

use super::WORKER_STACK;
use parking_lot::Mutex;
use std::collections::VecDeque;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Once, OnceLock};
use std::thread::Thread;
use std::time::Duration;

/// Threads per process: two, so that one long build (a large catalog's controller) does not
/// hold up the warm pool. They use a core only when nothing else wants it.
const THREADS: usize = 2;

/// Jobs waiting at most; past this, [`submit`] refuses. Each may hold a finished VM.
const MAX_QUEUED: usize = 8;

/// The longest a worker waits for a lock it shares with these threads before doing the work
/// itself (such a lock is held for a few list operations).
pub const SHARED_LOCK_WAIT: Duration = Duration::from_micros(50);

/// A job: runs once, on a background thread, with no deadline of its own.
pub type Work = Box<dyn FnOnce() + Send>;

static JOBS: Mutex<VecDeque<Work>> = Mutex::new(VecDeque::new());
/// Jobs in [`JOBS`], read without its lock.
static QUEUED: AtomicUsize = AtomicUsize::new(0);
/// Housekeeping may have work ([`wake`]) since a thread last looked.
static DIRTY: AtomicBool = AtomicBool::new(false);
/// The housekeeping step [`wake`] was given (`warm::housekeeping`).
static HOUSEKEEPING: OnceLock<fn() -> bool> = OnceLock::new();
/// Which threads are parked, or about to park, with nothing to do.
static PARKED: [AtomicBool; THREADS] = [const { AtomicBool::new(false) }; THREADS];
static HANDLES: OnceLock<Vec<Thread>> = OnceLock::new();
static START: Once = Once::new();

/// Queues `work` for a background thread; gives it back when [`MAX_QUEUED`] jobs already wait
/// or the queue's lock stays taken (the caller then drops it, or does what must happen, itself).
pub fn submit(work: Work) -> Result<(), Work> {
  start();
  {
    let Some(mut jobs) = JOBS.try_lock_for(SHARED_LOCK_WAIT) else {
      return Err(work);
    };
    if jobs.len() >= MAX_QUEUED {
      return Err(work);
    }
    jobs.push_back(work);
    QUEUED.fetch_add(1, Ordering::SeqCst);
  }
  rouse();
  Ok(())
}

/// Tells the background threads that housekeeping may have work: a cell took a warm VM, or a
/// finished one was retired. `step` does one piece of it and says whether it found any; the
/// threads run it until it finds none. Never blocks.
pub(crate) fn wake(step: fn() -> bool) {
  let _ = HOUSEKEEPING.set(step);
  start();
  if !DIRTY.swap(true, Ordering::SeqCst) {
    rouse();
  }
}

/// Unparks one parked thread, if any (a busy one sees the work when it next looks).
fn rouse() {
  let Some(handles) = HANDLES.get() else {
    return;
  };
  for (parked, thread) in PARKED.iter().zip(handles) {
    if parked.swap(false, Ordering::SeqCst) {
      thread.unpark();
      return;
    }
  }
}

/// Starts the threads on first use, as far as the OS grants them. With none, jobs wait until
/// the queue is full and callers then do their work themselves; warm VMs are not built.
fn start() {
  START.call_once(|| {
    let handles = (0..THREADS)
      .filter_map(|n| {
        std::thread::Builder::new()
          .name(format!("code-mode-idle-{n}"))
          .stack_size(WORKER_STACK)
          .spawn(move || run(n))
          .ok()
          .map(|handle| handle.thread().clone())
      })
      .collect();
    let _ = HANDLES.set(handles);
  });
}

fn run(n: usize) {
  lower_to_idle();
  loop {
    let job = (QUEUED.load(Ordering::SeqCst) > 0)
      .then(|| {
        let job = JOBS.lock().pop_front();
        if job.is_some() {
          QUEUED.fetch_sub(1, Ordering::SeqCst);
        }
        job
      })
      .flatten();
    if let Some(job) = job {
      // A panic ends only that job (what it held is dropped as it unwinds).
      let _ = catch_unwind(AssertUnwindSafe(job));
      continue;
    }
    if DIRTY.swap(false, Ordering::SeqCst) {
      // Until there is nothing left; a `wake` meanwhile marks it dirty again.
      if let Some(&step) = HOUSEKEEPING.get() {
        while catch_unwind(step).unwrap_or(false) {}
      }
      continue;
    }
    // Parked only after a last look, so that work queued meanwhile is either seen here or
    // finds this thread marked parked (an unpark before `park` makes it return at once).
    PARKED[n].store(true, Ordering::SeqCst);
    if QUEUED.load(Ordering::SeqCst) == 0 && !DIRTY.load(Ordering::SeqCst) {
      std::thread::park();
    }
    PARKED[n].store(false, Ordering::SeqCst);
  }
}

/// Puts the calling thread in the idle scheduling class. Unprivileged threads can enter it but
/// never leave it, which is why these threads are their own (the sandbox's seccomp filter
/// allows exactly this call, on the calling thread).
fn lower_to_idle() {
  #[cfg(target_os = "linux")]
  {
    let param = libc::sched_param { sched_priority: 0 };
    // SAFETY: `param` is a valid sched_param for the duration of the call; pid 0 is the calling
    // thread; a failure only leaves its priority as it was.
    unsafe {
      libc::sched_setscheduler(0, libc::SCHED_IDLE, &param);
    }
  }
}

#[cfg(test)]
mod tests {
  use super::*;
  use std::sync::mpsc;
  use std::time::Duration;

  #[test]
  fn jobs_run_on_idle_threads_and_a_full_queue_gives_work_back() {
    let (tx, rx) = mpsc::channel();
    let report = tx.clone();
    submit(Box::new(move || {
      #[cfg(target_os = "linux")]
      // SAFETY: a plain query of the calling thread's policy.
      let policy = unsafe { libc::sched_getscheduler(0) };
      #[cfg(not(target_os = "linux"))]
      let policy = 0;
      let name = std::thread::current().name().map(str::to_owned);
      report.send((policy, name)).unwrap();
    }))
    .unwrap_or_else(|_| panic!("an empty queue refused a job"));
    let (policy, name) = rx.recv_timeout(Duration::from_secs(10)).unwrap();
    #[cfg(target_os = "linux")]
    assert_eq!(policy, libc::SCHED_IDLE);
    let _ = policy;
    assert!(name.unwrap().starts_with("code-mode-idle-"));

    // Both threads held, then the queue filled: the next job comes back to its caller.
    let (hold_tx, hold_rx) = mpsc::channel::<()>();
    let hold = std::sync::Arc::new(Mutex::new(hold_rx));
    for _ in 0..THREADS {
      let (hold, started) = (hold.clone(), tx.clone());
      submit(Box::new(move || {
        started.send((0, None)).unwrap();
        let _ = hold.lock().recv();
      }))
      .unwrap_or_else(|_| panic!("refused"));
    }
    for _ in 0..THREADS {
      rx.recv_timeout(Duration::from_secs(10)).unwrap();
    }
    while QUEUED.load(Ordering::SeqCst) < MAX_QUEUED {
      submit(Box::new(|| {})).unwrap_or_else(|_| panic!("refused below the bound"));
    }
    assert!(submit(Box::new(|| {})).is_err());
    // Released, the threads drain the queue.
    drop(hold_tx);
    let (done_tx, done_rx) = mpsc::channel();
    let mut sent = false;
    for _ in 0..1000 {
      let done = done_tx.clone();
      if submit(Box::new(move || done.send(()).unwrap())).is_ok() {
        sent = true;
        break;
      }
      std::thread::sleep(Duration::from_millis(10));
    }
    assert!(sent, "the queue never drained");
    done_rx.recv_timeout(Duration::from_secs(10)).unwrap();
  }
}
