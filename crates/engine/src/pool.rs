//! The worker pool: threads that run jobs (slices of cells, hosts' tasks), one at a time each,
//! fair between tenants.
//!
//! A job belongs to a tenant ([`Job::tenant`]: a session, say). Ready jobs wait in one queue per
//! tenant; a free worker takes the oldest job of the tenant running the fewest jobs now, and a
//! tenant runs at most the pool's size of them at once. So a tenant with many jobs ready waits
//! behind its own, never another tenant behind it.
//!
//! Nothing preempts JavaScript, so a busy loop holds its thread until its deadline. A job
//! running past [`LONG_SLICE`] therefore leaves the pool's count: a stand-in worker takes its
//! place (the next tenant's job never waits for that deadline), and the long job's thread lowers
//! its own priority at the guest's next interrupt poll (short work gets the cores first) and
//! exits when the job returns. At most [`LONG_SLICES_PER_WORKER`] × the pool's size jobs are
//! long at once; past that, long jobs keep their workers.
//!
//! An idle worker spins briefly for the next job, then sleeps on the pool's condition variable
//! (warm VMs are built in the background, `background.rs`).

use super::{WORKER_STACK, clock, priority};
use parking_lot::{Condvar, Mutex};
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock};
use std::time::{Duration, Instant};

/// What a worker runs: one slice of a cell (`cell/slice.rs`) or a host's task (`bare.rs`).
pub trait Job: Send + Sync + 'static {
  /// Runs it. A job the watchdog gave up on meanwhile ([`give_up`]) has had its worker
  /// replaced; that thread exits once `run` returns.
  fn run(self: Arc<Self>);
  /// `run` panicked outside the parts that catch their own panics: the job ends its work with
  /// a failure, so that no caller waits for it forever.
  fn panicked(self: Arc<Self>, message: String);
  /// Whose work it is: jobs of one tenant share the pool fairly with other tenants' (see the
  /// module's docs).
  fn tenant(&self) -> u64;
}

/// A job past this is long: its worker is replaced, and its thread gives way to short work.
/// Long enough that a cell's ordinary slices (a nested call, a few ms of JavaScript) never are.
pub const LONG_SLICE: Duration = Duration::from_millis(100);

/// How often running jobs are checked for being long.
const LONG_SCAN: Duration = Duration::from_millis(50);

/// How fast a tenant's past use of the workers fades (see `Sched::used`).
const USAGE_HALF_LIFE: Duration = Duration::from_secs(1);

/// Long jobs each worker may stand in for at once (each is a thread of its own). The sandbox's
/// address-space backstop counts these threads (`address_space` in crates/confine/src/lib.rs).
pub const LONG_SLICES_PER_WORKER: usize = 4;

/// A job a worker is running.
struct Busy {
  tenant: u64,
  /// The job's address, for [`give_up`].
  job: usize,
  started: Instant,
  /// The worker thread's priority request (`priority.rs`).
  nice: priority::Request,
  /// Long: replaced by a stand-in; its thread exits after the job (unless the pool is short:
  /// then it rejoins, at its lowered priority).
  long: bool,
  /// Given up on by the watchdog: replaced; its thread exits if it ever returns.
  given_up: bool,
}

struct Sched {
  /// Ready jobs by tenant, and the tenants that have some, in the order they are served.
  queues: HashMap<u64, VecDeque<Arc<dyn Job>>>,
  order: VecDeque<u64>,
  /// Jobs running by tenant (given-up jobs no longer count).
  running: HashMap<u64, usize>,
  /// Worker time each tenant's jobs took lately (halved every [`USAGE_HALF_LIFE`]): among
  /// tenants running as many jobs, the one that used the least goes first.
  used: HashMap<u64, Duration>,
  /// When `used` was last halved.
  halved: Instant,
  /// What each worker runs now, by worker number.
  busy: HashMap<u64, Busy>,
  /// Workers that count toward the pool (not running a long or given-up job), and how many
  /// are wanted.
  workers: usize,
  wanted: usize,
  /// Long jobs now.
  long: usize,
  started: bool,
  next_worker: u64,
}

struct Pool {
  sched: Mutex<Sched>,
  /// Signalled when a job is queued or may have become runnable.
  ready: Condvar,
  /// Bumped on every such change, so that a spinning worker notices without the lock.
  changes: AtomicU64,
  /// Workers spinning for the next change now.
  spinning: AtomicUsize,
}

static POOL: LazyLock<Pool> = LazyLock::new(|| Pool {
  sched: Mutex::new(Sched::new(default_workers())),
  ready: Condvar::new(),
  changes: AtomicU64::new(0),
  spinning: AtomicUsize::new(0),
});

/// The pool's size until [`set_workers`]: one worker per core.
fn default_workers() -> usize {
  std::thread::available_parallelism().map_or(2, |n| n.get())
}

/// The pool's wanted size (0: the default), readable without the pool's lock: the background
/// threads run at idle priority and must never hold a lock the workers wait on (`background.rs`).
static WANTED: AtomicUsize = AtomicUsize::new(0);

/// Workers the pool is sized for.
pub(super) fn wanted_workers() -> usize {
  match WANTED.load(Ordering::Relaxed) {
    0 => default_workers(),
    n => n,
  }
}

/// What a free worker does next.
enum Next {
  Run(Arc<dyn Job>),
  /// Nothing runnable; the pool's change count when it looked.
  Idle(u64),
  /// The pool has more workers than it wants: this one leaves.
  Exit,
}

impl Sched {
  /// A pool of `wanted` workers, none started.
  fn new(wanted: usize) -> Sched {
    Sched {
      queues: HashMap::new(),
      order: VecDeque::new(),
      running: HashMap::new(),
      used: HashMap::new(),
      halved: Instant::now(),
      busy: HashMap::new(),
      workers: 0,
      wanted,
      long: 0,
      started: false,
      next_worker: 1,
    }
  }

  /// Counts a change that may let a waiting worker run something.
  fn changed(&self) {
    POOL.changes.fetch_add(1, Ordering::AcqRel);
  }

  fn push(&mut self, tenant: u64, job: Arc<dyn Job>) {
    let queue = self.queues.entry(tenant).or_default();
    if queue.is_empty() {
      self.order.push_back(tenant);
    }
    queue.push_back(job);
    self.changed();
  }

  /// Worker `worker`'s next job: the oldest of the tenant that runs the fewest jobs now (and
  /// fewer than the pool's size), of those the one that used the workers least lately, of
  /// those the first in serving order.
  fn next(&mut self, worker: u64, nice: &priority::Request) -> Next {
    if self.workers > self.wanted {
      self.workers -= 1;
      return Next::Exit;
    }
    let mut best: Option<(usize, (usize, Duration))> = None;
    for (at, tenant) in self.order.iter().enumerate() {
      let running = self.running.get(tenant).copied().unwrap_or(0);
      let rank = (running, self.used.get(tenant).copied().unwrap_or_default());
      if running < self.wanted && best.is_none_or(|(_, least)| rank < least) {
        best = Some((at, rank));
      }
    }
    let Some((at, _)) = best else {
      return Next::Idle(POOL.changes.load(Ordering::Acquire));
    };
    let Some(tenant) = self.order.remove(at) else {
      return Next::Idle(POOL.changes.load(Ordering::Acquire));
    };
    let Some(job) = self.queues.get_mut(&tenant).and_then(VecDeque::pop_front) else {
      self.queues.remove(&tenant);
      return Next::Idle(POOL.changes.load(Ordering::Acquire));
    };
    // Round robin: a tenant with more ready jobs goes to the back of the line.
    if self
      .queues
      .get(&tenant)
      .is_some_and(|queue| !queue.is_empty())
    {
      self.order.push_back(tenant);
    } else {
      self.queues.remove(&tenant);
    }
    *self.running.entry(tenant).or_default() += 1;
    nice.clear();
    self.busy.insert(
      worker,
      Busy {
        tenant,
        job: job_address(&job),
        started: Instant::now(),
        nice: nice.clone(),
        long: false,
        given_up: false,
      },
    );
    // Jobs left for others: `schedule` wakes no one while a worker spins, so the worker that
    // takes a job passes the wake-up on.
    if !self.order.is_empty() {
      POOL.ready.notify_one();
    }
    Next::Run(job)
  }

  /// One job of `tenant` no longer runs. A tenant that was at its share and has jobs queued
  /// may run one more: that counts as a change for idle workers.
  fn release(&mut self, tenant: u64) {
    let Some(running) = self.running.get_mut(&tenant) else {
      return;
    };
    let was_full = *running >= self.wanted;
    *running -= 1;
    if *running == 0 {
      self.running.remove(&tenant);
    }
    if was_full && self.queues.contains_key(&tenant) {
      self.changed();
    }
  }

  /// Worker `worker`'s job returned: true if the worker must exit now.
  fn finished(&mut self, worker: u64) -> bool {
    let Some(busy) = self.busy.remove(&worker) else {
      return false;
    };
    *self.used.entry(busy.tenant).or_default() += busy.started.elapsed();
    if busy.given_up {
      ABANDONED.fetch_sub(1, Ordering::AcqRel);
      return true;
    }
    self.release(busy.tenant);
    if !busy.long {
      return false;
    }
    self.long -= 1;
    // It rejoins only if the pool is short (a stand-in could not be started).
    if self.workers < self.wanted {
      self.workers += 1;
      return false;
    }
    true
  }

  /// Starts a worker that counts toward the pool; false if the OS refused a thread.
  fn spawn_worker(&mut self) -> bool {
    let worker = self.next_worker;
    self.next_worker += 1;
    let spawned = std::thread::Builder::new()
      .name(format!("code-mode-worker-{worker}"))
      .stack_size(WORKER_STACK)
      .spawn(move || work(worker))
      .is_ok();
    if spawned {
      self.workers += 1;
    }
    spawned
  }

  /// Brings the pool up to its wanted size (as far as the OS starts threads); a surplus leaves
  /// as its workers next look for work. Threads are started under the pool's lock: about 35 µs
  /// each, a few at a time.
  fn balance(&mut self) {
    while self.workers < self.wanted && self.spawn_worker() {}
  }
}

fn job_address(job: &Arc<dyn Job>) -> usize {
  Arc::as_ptr(job).cast::<()>() as usize
}

/// A worker thread's life.
fn work(worker: u64) {
  let nice = priority::Request::default();
  priority::start_worker(&nice);
  loop {
    let next = POOL.sched.lock().next(worker, &nice);
    let job = match next {
      Next::Exit => return,
      Next::Run(job) => job,
      Next::Idle(seen) => {
        if spin(seen) {
          continue;
        }
        let mut sched = POOL.sched.lock();
        loop {
          match sched.next(worker, &nice) {
            Next::Idle(_) => POOL.ready.wait(&mut sched),
            Next::Exit => return,
            Next::Run(job) => break job,
          }
        }
      }
    };
    // A panic must neither end this worker silently nor leave the job's caller waiting.
    if let Err(panic) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job.clone().run()))
    {
      let message = code_mode_protocol::error::panic_message(&*panic);
      let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job.panicked(message)));
    }
    let exit = POOL.sched.lock().finished(worker);
    if exit {
      // A job its tenant's share held back may be runnable now; a worker that goes on looks
      // for it itself.
      POOL.ready.notify_one();
      return;
    }
  }
}

/// How long an idle worker polls for its next job before it sleeps. A cell waiting on a fast
/// tool gets its result back within this window; picking it up without a futex wake-up (tens of
/// µs when the CPU has gone idle, more under a hypervisor) is most of a nested call's cost.
const SPIN: Duration = Duration::from_micros(50);

/// Polls the pool's change count for up to [`SPIN`]: true when it moved past `seen`.
fn spin(seen: u64) -> bool {
  POOL.spinning.fetch_add(1, Ordering::AcqRel);
  let changed = spin_for(seen);
  POOL.spinning.fetch_sub(1, Ordering::AcqRel);
  changed
}

fn spin_for(seen: u64) -> bool {
  let until = Instant::now() + SPIN;
  loop {
    for _ in 0..64 {
      if POOL.changes.load(Ordering::Acquire) != seen {
        return true;
      }
      std::hint::spin_loop();
    }
    if Instant::now() >= until {
      return false;
    }
  }
}

/// Marks jobs running past [`LONG_SLICE`] long and starts a stand-in for each (clock thread).
fn scan_long() {
  let mut sched = POOL.sched.lock();
  let now = Instant::now();
  if now - sched.halved >= USAGE_HALF_LIFE {
    sched.halved = now;
    sched.used.retain(|_, used| {
      *used /= 2;
      *used >= Duration::from_micros(100)
    });
  }
  let max = sched.wanted * LONG_SLICES_PER_WORKER;
  let due: Vec<u64> = sched
    .busy
    .iter()
    .filter(|(_, busy)| !busy.long && !busy.given_up && now - busy.started >= LONG_SLICE)
    .map(|(worker, _)| *worker)
    .collect();
  for worker in due {
    // A job is long only once its stand-in runs: a pool the OS refuses a thread stays whole.
    if sched.long >= max || !sched.spawn_worker() {
      break;
    }
    if let Some(busy) = sched.busy.get_mut(&worker) {
      busy.long = true;
      busy.nice.lower();
    }
    sched.long += 1;
    sched.workers -= 1;
  }
}

pub(super) fn schedule(job: Arc<dyn Job>) {
  // Read before the pool's lock: a cell reads its host under a lock of its own.
  let tenant = job.tenant();
  {
    let mut sched = POOL.sched.lock();
    if !sched.started {
      sched.started = true;
      sched.balance();
      clock::every(LONG_SCAN, scan_long);
    }
    sched.push(tenant, job);
  }
  // A spinning worker takes it without a wake-up; waking a sleeping one as well would only
  // have it contend for the lock and sleep again.
  if POOL.spinning.load(Ordering::Acquire) == 0 {
    POOL.ready.notify_one();
  }
}

/// Abandoned workers still stuck in native code (see [`give_up`]).
static ABANDONED: AtomicUsize = AtomicUsize::new(0);

/// Abandoned workers the process keeps at most before it refuses new legs: each one spins a
/// core until its native loop returns, so without a cap a stream of such cells would starve
/// every other cell, and the gateway, of CPU. The pool's own size, and at least two.
fn max_abandoned() -> usize {
  match MAX_ABANDONED.load(Ordering::Relaxed) {
    0 => POOL.sched.lock().wanted.max(2),
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

/// The watchdog gave up on `job`, stuck in native code: its worker no longer counts (a
/// stand-in takes its place if it was not long already), nor does the job toward its tenant's
/// share. The thread counts as abandoned until the job returns, and then exits. Nothing
/// happens if the job is no longer running.
pub(super) fn give_up(job: &Arc<dyn Job>) {
  let address = job_address(job);
  {
    let mut sched = POOL.sched.lock();
    let Some(busy) = sched
      .busy
      .values_mut()
      .find(|busy| busy.job == address && !busy.given_up)
    else {
      return;
    };
    busy.given_up = true;
    let (tenant, long) = (busy.tenant, busy.long);
    ABANDONED.fetch_add(1, Ordering::AcqRel);
    sched.release(tenant);
    if long {
      sched.long -= 1;
    } else {
      sched.workers -= 1;
    }
    // Also makes up for a stand-in the OS refused earlier.
    sched.balance();
    sched.changed();
  }
  POOL.ready.notify_one();
}

/// Worker threads that count toward the pool now.
pub fn worker_count() -> usize {
  POOL.sched.lock().workers
}

/// Sets the number of worker threads (1 to 256), starting workers if the pool runs; surplus
/// workers leave as they next look for work.
pub fn set_workers(n: usize) {
  {
    let mut sched = POOL.sched.lock();
    sched.wanted = n.clamp(1, 256);
    WANTED.store(sched.wanted, Ordering::Relaxed);
    if sched.started {
      sched.balance();
    }
  }
  POOL.ready.notify_all();
}

#[cfg(test)]
mod tests {
  use super::*;
  use std::sync::mpsc;

  struct Probe {
    tenant: u64,
    work: Mutex<Option<Box<dyn FnOnce() + Send>>>,
  }

  impl Job for Probe {
    fn run(self: Arc<Self>) {
      if let Some(work) = self.work.lock().take() {
        work();
      }
    }
    fn panicked(self: Arc<Self>, _message: String) {}
    fn tenant(&self) -> u64 {
      self.tenant
    }
  }

  fn probe(tenant: u64, work: impl FnOnce() + Send + 'static) -> Arc<dyn Job> {
    Arc::new(Probe {
      tenant,
      work: Mutex::new(Some(Box::new(work))),
    })
  }

  #[test]
  fn a_free_worker_serves_the_tenant_running_fewest_then_the_one_that_used_least() {
    let mut sched = Sched::new(2);
    sched.used.insert(1, Duration::from_secs(1));
    let (a1, a2, b) = (probe(1, || {}), probe(1, || {}), probe(2, || {}));
    sched.push(1, a1.clone());
    sched.push(1, a2.clone());
    sched.push(2, b.clone());
    let nice = priority::Request::default();
    let mut take = |worker| match sched.next(worker, &nice) {
      Next::Run(job) => Some(job_address(&job)),
      _ => None,
    };
    // Tenant 2 came last, but tenant 1 used the workers lately.
    assert_eq!(take(1), Some(job_address(&b)));
    // Then tenant 1 (it runs none, tenant 2 runs one), and tenant 1 again.
    assert_eq!(take(2), Some(job_address(&a1)));
    assert_eq!(take(3), Some(job_address(&a2)));
    assert_eq!(take(4), None);
  }

  /// One test drives the process-wide pool, so that the steps do not race other tests' jobs.
  #[test]
  fn tenants_share_the_pool_and_long_jobs_give_way() {
    set_workers(2);
    let (done, finished) = mpsc::channel::<&'static str>();
    let gate = Arc::new((Mutex::new(false), Condvar::new()));
    // Tenant 1 fills both workers with jobs that wait on the gate, and queues three more.
    for name in ["a1", "a2", "a3", "a4", "a5"] {
      let (gate, done) = (gate.clone(), done.clone());
      schedule(probe(1, move || {
        let (open, cond) = &*gate;
        let mut open = open.lock();
        while !*open {
          cond.wait(&mut open);
        }
        let _ = done.send(name);
      }));
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    while POOL.sched.lock().running.get(&1) != Some(&2) && Instant::now() < deadline {
      std::thread::sleep(Duration::from_millis(1));
    }
    // Tenant 2's job gets a stand-in once tenant 1's jobs are long, ahead of tenant 1's queue
    // (which waits for tenant 1's own jobs: it runs at most the pool's size at once).
    let done2 = done.clone();
    schedule(probe(2, move || {
      let _ = done2.send("b");
    }));
    assert_eq!(
      finished.recv_timeout(Duration::from_secs(10)),
      Ok("b"),
      "another tenant's job runs while the first tenant's jobs hold every worker"
    );
    {
      let sched = POOL.sched.lock();
      assert_eq!(sched.running.get(&1), Some(&2), "tenant 1 runs two jobs");
      assert!(sched.long >= 1, "a stand-in took the place of a long job");
      assert_eq!(
        sched.queues.get(&1).map(VecDeque::len),
        Some(3),
        "tenant 1's other jobs wait for its own"
      );
    }
    *gate.0.lock() = true;
    gate.1.notify_all();
    let mut rest: Vec<_> = (0..5)
      .map(|_| finished.recv_timeout(Duration::from_secs(10)))
      .collect::<Result<_, _>>()
      .unwrap_or_default();
    rest.sort_unstable();
    assert_eq!(rest, ["a1", "a2", "a3", "a4", "a5"]);
    // The long jobs' threads left; the pool is back to its size.
    let deadline = Instant::now() + Duration::from_secs(10);
    let settled = || {
      let sched = POOL.sched.lock();
      sched.long == 0 && sched.busy.is_empty()
    };
    while !settled() && Instant::now() < deadline {
      std::thread::sleep(Duration::from_millis(10));
    }
    let sched = POOL.sched.lock();
    assert_eq!((sched.long, sched.workers, sched.busy.len()), (0, 2, 0));
  }
}
