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
//! without its lock (`pool::wanted_workers`), and the guests' compiled preludes (a `OnceLock`
//! that building a VM would otherwise wait on) are made before the sandbox locks down
//! (crates/sandbox/src/platform.rs), never first here.

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
/// Each thread's handle, by its number (`None`: the OS refused it).
static HANDLES: OnceLock<[Option<Thread>; THREADS]> = OnceLock::new();
static START: Once = Once::new();

/// Queues `work` for a background thread; gives it back when [`MAX_QUEUED`] jobs already wait
/// or the queue's lock stays taken (the caller then drops it, or does what must happen, itself).
pub fn submit(work: Work) -> Result<(), Work> {
  if !running() {
    return Err(work);
  }
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

/// Whether any background thread runs (started on first use). With none, [`submit`] refuses
/// every job and callers do their work themselves; no warm VM is built.
pub fn running() -> bool {
  start();
  HANDLES
    .get()
    .is_some_and(|handles| handles.iter().any(Option::is_some))
}

/// Unparks one parked thread, if any (a busy one sees the work when it next looks).
fn rouse() {
  let Some(handles) = HANDLES.get() else {
    return;
  };
  for (parked, thread) in PARKED.iter().zip(handles) {
    if let Some(thread) = thread
      && parked.swap(false, Ordering::SeqCst)
    {
      thread.unpark();
      return;
    }
  }
}

/// Starts the threads on first use, as far as the OS grants them.
fn start() {
  START.call_once(|| {
    let handles = std::array::from_fn(|n| {
      std::thread::Builder::new()
        .name(format!("code-mode-idle-{n}"))
        .stack_size(WORKER_STACK)
        .spawn(move || run(n))
        .ok()
        .map(|handle| handle.thread().clone())
    });
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
      // Until there is nothing left (a `wake` meanwhile marks it dirty again), or a job is
      // queued: jobs go first (a finished VM to free, the spare the next cell takes).
      if let Some(&step) = HOUSEKEEPING.get() {
        while catch_unwind(step).unwrap_or(false) {
          if QUEUED.load(Ordering::SeqCst) > 0 {
            DIRTY.store(true, Ordering::SeqCst);
            break;
          }
        }
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
  use std::time::{Duration, Instant};

  /// Submits `work`, retrying while the queue's lock is missed (a background thread preempted
  /// while holding it, on a loaded machine) or the queue is full, for up to 10 s.
  fn submit_within(mut work: Work) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while let Err(back) = submit(work) {
      assert!(
        Instant::now() < deadline,
        "the queue refused a job for 10 s"
      );
      work = back;
      std::thread::sleep(Duration::from_millis(1));
    }
  }

  #[test]
  fn jobs_run_on_idle_threads_and_a_full_queue_gives_work_back() {
    assert!(running());
    let (tx, rx) = mpsc::channel();
    let report = tx.clone();
    submit_within(Box::new(move || {
      #[cfg(target_os = "linux")]
      // SAFETY: a plain query of the calling thread's policy.
      let policy = unsafe { libc::sched_getscheduler(0) };
      #[cfg(not(target_os = "linux"))]
      let policy = 0;
      let name = std::thread::current().name().map(str::to_owned);
      report.send((policy, name)).unwrap();
    }));
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
      submit_within(Box::new(move || {
        started.send((0, None)).unwrap();
        let _ = hold.lock().recv();
      }));
    }
    for _ in 0..THREADS {
      rx.recv_timeout(Duration::from_secs(10)).unwrap();
    }
    while QUEUED.load(Ordering::SeqCst) < MAX_QUEUED {
      submit_within(Box::new(|| {}));
    }
    assert!(submit(Box::new(|| {})).is_err());
    // Released, the threads drain the queue and take new work.
    drop(hold_tx);
    let (done_tx, done_rx) = mpsc::channel();
    submit_within(Box::new(move || done_tx.send(()).unwrap()));
    done_rx.recv_timeout(Duration::from_secs(10)).unwrap();
  }
}
