//! One sandbox process as the addon sees it: its channel, what it was told (catalogs, runs,
//! controllers, data), the requests it owes an answer, the cells it holds, and how it ended.

use super::inbox::Inbox;
use super::writer::Writer;
use code_mode_protocol::wire::{self, Answer, Command};
use parking_lot::Mutex;
use std::collections::{HashMap, HashSet, VecDeque};
use std::path::Path;
use std::process::{Child, Command as Spawn, Stdio};
use std::sync::atomic::{AtomicU8, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Instant;

/// Where a process stands with the supervisor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Phase {
  /// Takes new runs and cells.
  Accepting = 0,
  /// Takes nothing new; serves the cells it holds until they end or it is killed.
  Retiring = 1,
  /// Ended: every cell and request it held has failed.
  Dead = 2,
}

/// Where a process's commands go: its pipe (`writer.rs`), or, in the Rust tests, a sandbox
/// running in the test process.
pub trait Outbox: Send + Sync {
  /// Sends one frame; false when the channel is closed.
  fn send(&self, frame: Vec<u8>) -> bool;
  /// Bytes sent and not read yet.
  fn backlog(&self) -> usize;
  /// Stops sending.
  fn close(&self);
}

impl Outbox for Writer {
  fn send(&self, frame: Vec<u8>) -> bool {
    Writer::send(self, frame)
  }
  fn backlog(&self) -> usize {
    Writer::backlog(self)
  }
  fn close(&self) {
    Writer::close(self)
  }
}

/// Who gets a request's answer (called exactly once: with the answer, or with an error if the
/// process ends first).
pub type Responder = Box<dyn FnOnce(Answer) + Send>;

/// What a process was told, so each thing is sent once.
#[derive(Default)]
pub struct Told {
  pub catalogs: HashSet<u64>,
  pub runs: HashSet<u64>,
  pub controllers: HashSet<String>,
  /// Executor data texts by id, oldest first (the process keeps the last few).
  pub data: VecDeque<u64>,
}

/// What confines a process from outside it and lives as long as the `Process`: on Windows its
/// Job object (crates/confine/src/windows.rs), whose closing kills the process; nothing elsewhere.
#[cfg(windows)]
type Confinement = code_mode_confine::windows::Job;
#[cfg(not(windows))]
struct Confinement;

pub struct Process {
  pub id: u64,
  /// The operating system's id of the process (the test suites watch its `/proc` entries).
  #[cfg_attr(not(feature = "testing"), allow(dead_code))]
  pub pid: u32,
  writer: Arc<dyn Outbox>,
  /// Its reports (none in the Rust tests, whose sandboxes dispatch directly).
  pub inbox: Option<Inbox>,
  child: Mutex<Option<Child>>,
  /// Held, never read: set once right after the process starts (`spawn`), dropped with this.
  _confinement: OnceLock<Confinement>,
  phase: AtomicU8,
  pub told: Mutex<Told>,
  requests: Mutex<HashMap<u64, Responder>>,
  /// Legs whose start on a worker someone watches: where to write when (ms, never 0).
  starts: Mutex<HashMap<u64, Arc<AtomicU64>>>,
  /// Code-mode cells alive here (in a leg or parked) and executor cells.
  pub cells: Mutex<HashSet<u64>>,
  pub executor_cells: Mutex<HashSet<u64>>,
  /// Executor continuations parked here (from a cell's `park` until it resumes or is disposed):
  /// counted against `maxSuspendedCells` only while this process lives (`executor_parked` in
  /// `src/sandbox/mod.rs`), so cells lost with it hold no slot.
  pub parked_executor: AtomicUsize,
  /// Milliseconds (since the supervisor started) of the last heartbeat (its clock thread).
  last_heard: AtomicU64,
  /// When the unanswered ping was sent (0: none out); its answer proves the sandbox's reader reads.
  pub ping_since: AtomicU64,
  /// Threads given up on here: (frozen, spinning).
  pub stuck: Mutex<(u32, u32)>,
  /// When it stopped taking new work.
  pub retiring_since: Mutex<Option<Instant>>,
  /// How it ended, once it has.
  pub ending: OnceLock<String>,
  /// The last thing it logged (it explains a failed start).
  pub last_log: Mutex<Option<String>>,
}

impl Process {
  /// A process whose commands go to `writer`.
  pub fn new(
    id: u64,
    pid: u32,
    writer: Arc<dyn Outbox>,
    inbox: Option<Inbox>,
    child: Option<Child>,
    now_ms: u64,
  ) -> Arc<Process> {
    Arc::new(Process {
      id,
      pid,
      writer,
      inbox,
      child: Mutex::new(child),
      _confinement: OnceLock::new(),
      phase: AtomicU8::new(Phase::Accepting as u8),
      told: Mutex::new(Told::default()),
      requests: Mutex::new(HashMap::new()),
      starts: Mutex::new(HashMap::new()),
      cells: Mutex::new(HashSet::new()),
      executor_cells: Mutex::new(HashSet::new()),
      parked_executor: AtomicUsize::new(0),
      last_heard: AtomicU64::new(now_ms),
      ping_since: AtomicU64::new(0),
      stuck: Mutex::new((0, 0)),
      retiring_since: Mutex::new(None),
      ending: OnceLock::new(),
      last_log: Mutex::new(None),
    })
  }

  pub fn phase(&self) -> Phase {
    match self.phase.load(Ordering::Acquire) {
      0 => Phase::Accepting,
      1 => Phase::Retiring,
      _ => Phase::Dead,
    }
  }

  /// Moves to `phase` if that is forward; true when it moved.
  pub fn advance(&self, phase: Phase) -> bool {
    self.phase.fetch_max(phase as u8, Ordering::AcqRel) < phase as u8
  }

  /// Sends a command; false when the process is gone.
  pub fn send(&self, command: &Command) -> bool {
    self.phase() != Phase::Dead && self.writer.send(wire::encode(command))
  }

  /// Sends a request: `respond` gets its answer, or an error should the process end first.
  pub fn request(&self, id: u64, command: &Command, respond: Responder) {
    self.requests.lock().insert(id, respond);
    if self.send(command) {
      return;
    }
    // Taken out before it runs: a responder may start another request (a queued leg, through
    // admission), and the lock is not reentrant.
    let respond = self.requests.lock().remove(&id);
    if let Some(respond) = respond {
      respond(Answer::Error(self.lost()));
    }
  }

  /// Notes in `at` when the leg of request `id` starts on a worker (see [`Process::request`]).
  pub fn watch_start(&self, id: u64, at: Arc<AtomicU64>) {
    self.starts.lock().insert(id, at);
  }

  pub(super) fn started(&self, id: u64, now_ms: u64) {
    if let Some(at) = self.starts.lock().remove(&id) {
      at.store(now_ms.max(1), Ordering::Release);
    }
  }

  pub(super) fn answer(&self, id: u64, answer: Answer) {
    self.starts.lock().remove(&id);
    let respond = self.requests.lock().remove(&id);
    if let Some(respond) = respond {
      respond(answer);
    }
  }

  pub(super) fn heard(&self, now_ms: u64) {
    self.last_heard.store(now_ms, Ordering::Release);
  }

  pub fn last_heard(&self) -> u64 {
    self.last_heard.load(Ordering::Acquire)
  }

  /// Bytes sent that the process has not read yet.
  pub fn backlog(&self) -> usize {
    self.writer.backlog()
  }

  /// Work this process holds: live cells, executor cells and unanswered requests.
  pub fn load(&self) -> usize {
    self.cells.lock().len() + self.executor_cells.lock().len() + self.requests.lock().len()
  }

  /// The message a cell or request lost with this process gets.
  pub fn lost(&self) -> String {
    match self.ending.get() {
      Some(how) => {
        format!("the code mode sandbox process running this cell ended ({how}); the cell is lost.")
      }
      None => "the code mode sandbox process running this cell is gone; the cell is lost.".into(),
    }
  }

  /// Kills the process (SIGKILL / TerminateProcess); its reader then finds the channel closed.
  pub fn kill(&self, why: &str) {
    let _ = self.ending.set(why.to_string());
    self.advance(Phase::Dead);
    self.writer.close();
    if let Some(child) = self.child.lock().as_mut() {
      let _ = child.kill();
    }
  }

  /// Fails every request still waiting (the process is gone).
  pub(super) fn fail_requests(&self) {
    let requests: Vec<Responder> = self.requests.lock().drain().map(|(_, r)| r).collect();
    let message = self.lost();
    for respond in requests {
      respond(Answer::Error(message.clone()));
    }
  }

  /// Waits for the process to exit (it was killed or its channel closed) and says how it did.
  pub(super) fn reap(&self) -> String {
    let Some(mut child) = self.child.lock().take() else {
      return "its channel closed".into();
    };
    // A process whose channel closed may still be running (it exits on EOF): make sure.
    let status = match child.try_wait() {
      Ok(Some(status)) => Some(status),
      _ => {
        let _ = child.kill();
        child.wait().ok()
      }
    };
    status.map_or_else(|| "its exit status is unknown".into(), describe_exit)
  }
}

fn describe_exit(status: std::process::ExitStatus) -> String {
  #[cfg(unix)]
  {
    use std::os::unix::process::ExitStatusExt;
    if let Some(signal) = status.signal() {
      let name = match signal {
        libc::SIGKILL => "SIGKILL",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGABRT => "SIGABRT",
        libc::SIGSYS => "SIGSYS, a system call the sandbox forbids",
        libc::SIGBUS => "SIGBUS",
        libc::SIGILL => "SIGILL",
        _ => "a signal",
      };
      return format!("killed by {name} ({signal})");
    }
  }
  match status.code() {
    Some(code) => format!("exited with status {code}"),
    None => "exited".into(),
  }
}

/// Starts a process from `executable`; its reports wait in its inbox until someone reads them
/// (`reading.rs`). Runs on the supervisor's own thread (on Linux the process dies when that
/// thread does).
/// `worker_threads` is what its first `Configure` will say (Windows caps its memory by it, as
/// the process itself caps its address space on Linux).
pub fn spawn(
  id: u64,
  executable: &Path,
  debug: bool,
  worker_threads: u32,
  now_ms: u64,
) -> std::io::Result<Arc<Process>> {
  let mut command = Spawn::new(executable);
  command
    .arg(std::process::id().to_string())
    .env_clear()
    .stdin(Stdio::piped())
    .stdout(Stdio::piped())
    .stderr(if debug {
      Stdio::inherit()
    } else {
      Stdio::null()
    });
  if debug {
    command.arg("--debug");
  }
  if let Some(root) = std::env::temp_dir().ancestors().last() {
    command.current_dir(root);
  }
  #[cfg(windows)]
  {
    use std::os::windows::process::CommandExt;
    command.creation_flags(code_mode_confine::windows::CREATION_FLAGS);
  }
  let mut child = command.spawn()?;
  // Confined before anything is written to it: the process runs no guest input before it reads
  // its first frame, so nothing it runs is unconfined. Fail closed.
  let confinement = match confine(&child, worker_threads) {
    Ok(confinement) => confinement,
    Err(e) => {
      let _ = child.kill();
      let _ = child.wait();
      return Err(std::io::Error::new(
        e.kind(),
        format!("the sandbox process could not be confined: {e}"),
      ));
    }
  };
  let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
    let _ = child.kill();
    let _ = child.wait();
    return Err(std::io::Error::other("the sandbox process has no channel"));
  };
  let writer = match Writer::start(stdin, format!("code-mode-sandbox-{id}-out")) {
    Ok(writer) => writer,
    Err(e) => {
      let _ = child.kill();
      let _ = child.wait();
      return Err(e);
    }
  };
  let inbox = match Inbox::new(file_of(stdout)) {
    Ok(inbox) => inbox,
    Err(e) => {
      writer.close();
      let _ = child.kill();
      let _ = child.wait();
      return Err(e);
    }
  };
  let process = Process::new(id, child.id(), writer, Some(inbox), Some(child), now_ms);
  let _ = process._confinement.set(confinement);
  Ok(process)
}

/// Windows: a Job object (crates/confine/src/windows.rs) holding `child` alone, killed when it
/// closes, its memory capped as the sandbox caps its own address space on Linux.
#[cfg(windows)]
fn confine(child: &Child, worker_threads: u32) -> std::io::Result<Confinement> {
  use std::os::windows::io::AsRawHandle;
  let job =
    code_mode_confine::windows::Job::new(Some(code_mode_confine::address_space(worker_threads)))?;
  // SAFETY: the child's handle is open (it is `child`'s, borrowed for the call) and has all
  // access (CreateProcessW's).
  unsafe { job.assign(child.as_raw_handle())? };
  Ok(job)
}

/// Elsewhere the process confines itself (crates/sandbox/src/platform.rs).
#[cfg(not(windows))]
fn confine(_child: &Child, _worker_threads: u32) -> std::io::Result<Confinement> {
  Ok(Confinement)
}

fn file_of(stdout: std::process::ChildStdout) -> std::fs::File {
  #[cfg(unix)]
  return std::os::fd::OwnedFd::from(stdout).into();
  #[cfg(windows)]
  return std::os::windows::io::OwnedHandle::from(stdout).into();
}
