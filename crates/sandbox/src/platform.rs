//! What the sandbox executable asks of its operating system: the channel, dying with the
//! parent, start-up before the lock-down, the lock-down itself (`harden.rs` on Linux,
//! crates/confine on Windows and macOS), and freezing threads the watchdog gave up on.
//! SECURITY.md says what each platform gets.

use code_mode_protocol::wire::{Report, Settings};
use code_mode_sandbox::Sink;
use std::io::{BufReader, Read, Write};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

/// Where `Stuck` reports go.
static SINK: OnceLock<Arc<dyn Sink>> = OnceLock::new();
/// Threads given up on so far, and those of them frozen.
static GIVEN_UP: AtomicU32 = AtomicU32::new(0);
static FROZEN: AtomicU32 = AtomicU32::new(0);

/// Ends the process now, running nothing else (threads may be mid-work).
pub fn exit_now(code: i32) -> ! {
  #[cfg(unix)]
  // SAFETY: `_exit` takes an int and never returns; it runs no handlers, which is the point.
  unsafe {
    libc::_exit(code)
  }
  #[cfg(not(unix))]
  std::process::exit(code)
}

/// The channel: standard input and output (two pipes the addon made).
pub fn channel() -> (impl Read, impl Write + Send + 'static) {
  #[cfg(unix)]
  {
    use std::os::fd::FromRawFd;
    // SAFETY: the addon starts this process with the channel as fds 0 and 1, and nothing else
    // in the process owns them.
    let (input, output) = unsafe { (std::fs::File::from_raw_fd(0), std::fs::File::from_raw_fd(1)) };
    (BufReader::with_capacity(64 << 10, input), output)
  }
  #[cfg(not(unix))]
  {
    (
      BufReader::with_capacity(64 << 10, std::io::stdin()),
      std::io::stdout(),
    )
  }
}

/// Linux: the kernel kills this process when the thread that started it (the addon's
/// supervisor thread, which lives as long as the gateway) ends. Windows: the addon's Job object
/// kills it when the gateway's handle to the job closes (crates/confine/src/windows.rs). And
/// everywhere the closed channel ends it.
pub fn die_with_parent(parent: Option<u32>) {
  #[cfg(target_os = "linux")]
  // SAFETY: plain prctl and getppid calls with integer arguments.
  unsafe {
    libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
    // The parent may have died before the line above: then it is already gone.
    if parent.is_some_and(|pid| libc::getppid() as u32 != pid) {
      exit_now(0);
    }
  }
  #[cfg(not(target_os = "linux"))]
  let _ = parent;
}

/// Drops every capability the process has (a gateway running as root starts it with all of
/// them): the bounding set, then the effective, permitted and inheritable sets (the ambient set
/// goes with them). Capabilities are per thread: called first, before any thread starts, so every
/// thread the process ever has inherits none. Seccomp is the barrier (`harden.rs`); this is what
/// is left to a thread if a call the filter allows could use one. An error means the process must
/// run nothing.
#[cfg(target_os = "linux")]
pub fn drop_capabilities() -> Result<(), String> {
  // Bounding set first: dropping from it needs CAP_SETPCAP, which goes below. A number past the
  // kernel's last capability fails with EINVAL, and without CAP_SETPCAP (not root) each fails
  // with EPERM: then there is nothing in the other sets to drop either.
  for cap in 0..64 {
    // SAFETY: a plain prctl call with integer arguments.
    unsafe { libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0) };
  }
  /// `struct __user_cap_header_struct` (linux/capability.h).
  #[repr(C)]
  struct Header {
    version: u32,
    pid: libc::c_int,
  }
  /// `struct __user_cap_data_struct`, two of them for 64-bit capability sets.
  #[repr(C)]
  #[derive(Clone, Copy)]
  struct Data {
    effective: u32,
    permitted: u32,
    inheritable: u32,
  }
  const LINUX_CAPABILITY_VERSION_3: u32 = 0x2008_0522;
  let header = Header {
    version: LINUX_CAPABILITY_VERSION_3,
    pid: 0,
  };
  let none = [Data {
    effective: 0,
    permitted: 0,
    inheritable: 0,
  }; 2];
  // SAFETY: capset reads a version-3 header and two data structs, both live for the call.
  if unsafe { libc::syscall(libc::SYS_capset, &header, none.as_ptr()) } != 0 {
    return Err(format!(
      "capset to no capabilities failed: {}",
      std::io::Error::last_os_error()
    ));
  }
  Ok(())
}

/// Everything that needs more of the OS than the lock-down leaves: started now, once.
pub fn start_up(settings: &Settings, sink: Arc<dyn Sink>) {
  let _ = SINK.set(sink);
  // When the machine runs out of memory, the kernel ends a sandbox process (and the cells in
  // it) before it ends the gateway: the most any process may ask for itself, best effort.
  #[cfg(target_os = "linux")]
  let _ = std::fs::write("/proc/self/oom_score_adj", "1000");
  // Threads given up on are frozen here and the addon retires the process at the first: the
  // engine's own cap (which refuses new legs) would only turn one hostile cell into failures of
  // its neighbours' legs.
  code_mode_engine::set_max_abandoned(64);
  code_mode_engine::stuck::set_freezer(code_mode_engine::stuck::Freezer {
    this_thread: freezer::this_thread,
    freeze,
    freeze_self: freezer::freeze_self,
    cpu_time: freezer::cpu_time,
  });
  freezer::install();
  #[cfg(unix)]
  // SAFETY: `tzset` reads the time zone once (QuickJS's local-time functions use it later,
  // when the file system is out of reach).
  unsafe {
    unsafe extern "C" {
      fn tzset();
    }
    tzset();
  }
  let _ = code_mode_engine::store::new_token();
  // The clock thread and the workers start now (lazily they would start after the lock-down,
  // which allows new threads but not what their first start reads).
  code_mode_engine::clock::at(Instant::now(), || {});
  let _ = code_mode_engine::bare::spawn(0, Box::new(|| {}), None, Box::new(|| {}));
  // Compile both guests' preludes and touch the front end once, so the first cell pays neither.
  for kind in [
    code_mode_protocol::wire::GuestKind::CodeMode,
    code_mode_protocol::wire::GuestKind::ToolSearch,
  ] {
    let _ = code_mode_engine::vm::Vm::warm(code_mode_sandbox::guest(kind));
  }
  let _ = code_mode_frontend::prepare("1", code_mode_frontend::Language::TypeScript);
  let _ = settings;
}

/// Locks the process down: Linux `harden.rs`; Windows its token and mitigation policies
/// (crates/confine/src/windows.rs; the addon put it in a Job object before it started);
/// macOS resource limits and a Seatbelt profile (crates/confine/src/macos.rs). An error means
/// the process must run nothing; `Ok` may carry a note on what was applied only in part (the
/// Windows mitigation policies are best effort), for the caller to log. Elsewhere the process
/// is only as isolated as its being a separate process makes it (SECURITY.md).
pub fn lock_down(settings: &Settings, debug: bool) -> Result<Option<String>, String> {
  #[cfg(target_os = "linux")]
  return crate::harden::lock_down(settings, debug).map(|()| None);
  #[cfg(windows)]
  {
    let _ = (settings, debug);
    code_mode_confine::windows::lock_down()
  }
  #[cfg(target_os = "macos")]
  {
    let _ = (settings, debug);
    code_mode_confine::macos::lock_down().map(|()| None)
  }
  #[cfg(not(any(target_os = "linux", windows, target_os = "macos")))]
  {
    let _ = (settings, debug);
    Ok(None)
  }
}

/// The engine's freezer: stops a thread given up on, and tells the addon how many are stopped
/// and how many still spin.
fn freeze(thread: u64, token: u64) {
  GIVEN_UP.fetch_add(1, Ordering::AcqRel);
  freezer::freeze(thread, token);
  // The thread stops in its signal handler; count it a moment later.
  code_mode_engine::clock::at(Instant::now() + Duration::from_millis(100), || {
    let given_up = GIVEN_UP.load(Ordering::Acquire);
    let frozen = FROZEN.load(Ordering::Acquire).min(given_up);
    if let Some(sink) = SINK.get() {
      sink.report(Report::Stuck {
        frozen,
        spinning: given_up - frozen,
      });
    }
  });
}

#[cfg(target_os = "linux")]
mod freezer {
  use super::FROZEN;
  use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

  /// The signal that asks a thread to freeze (nothing else in this process uses it).
  const SIGNAL: libc::c_int = libc::SIGUSR2;
  /// Tokens of the guest work asked to freeze, most recent last (a ring: a handler finds its
  /// own whatever else was asked meanwhile).
  static REQUESTED: [AtomicU64; 64] = [const { AtomicU64::new(0) }; 64];
  static NEXT: AtomicUsize = AtomicUsize::new(0);

  pub fn this_thread() -> u64 {
    // SAFETY: gettid has no arguments and cannot fail.
    unsafe { libc::syscall(libc::SYS_gettid) as u64 }
  }

  /// Runs on the thread asked to freeze: if it is still inside the guest work the watchdog gave
  /// up on, it never returns (sleeping costs no CPU; its memory stays until the process ends).
  extern "C" fn on_signal(_: libc::c_int) {
    use code_mode_engine::stuck;
    let asked =
      |token: u64| token != 0 && REQUESTED.iter().any(|r| r.load(Ordering::Acquire) == token);
    if asked(stuck::current()) {
      freeze_self();
    }
    // Out of its guest work (a host function, a send): it freezes once it is back.
    let slice = stuck::current_slice();
    if asked(slice) {
      stuck::defer_freeze(slice);
    }
  }

  /// Stops the calling thread for good: sleeping costs no CPU; its memory stays until the
  /// process ends. Async-signal-safe (atomics and nanosleep).
  pub fn freeze_self() -> ! {
    FROZEN.fetch_add(1, Ordering::AcqRel);
    loop {
      let hour = libc::timespec {
        tv_sec: 3600,
        tv_nsec: 0,
      };
      // SAFETY: nanosleep is async-signal-safe; a null remainder is allowed.
      unsafe { libc::nanosleep(&hour, std::ptr::null_mut()) };
    }
  }

  pub fn install() {
    // SAFETY: a zeroed sigaction with a plain handler and an empty mask is valid; the handler
    // only reads atomics and thread-local words and sleeps.
    unsafe {
      let mut action: libc::sigaction = std::mem::zeroed();
      action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as usize;
      action.sa_flags = libc::SA_RESTART;
      libc::sigemptyset(&mut action.sa_mask);
      libc::sigaction(SIGNAL, &action, std::ptr::null_mut());
    }
  }

  /// The CPU time thread `thread` (a thread id of this process) has used: the kernel's clock of
  /// that thread (what `pthread_getcpuclockid` returns, made from the thread id).
  pub fn cpu_time(thread: u64) -> Option<std::time::Duration> {
    // CPUCLOCK_PERTHREAD_MASK | CPUCLOCK_SCHED, over the bitwise complement of the thread id
    // (include/linux/posix-timers.h).
    let clock = ((!(thread as libc::pid_t)) << 3) | 6;
    let mut now = libc::timespec {
      tv_sec: 0,
      tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec through a valid pointer; an unknown or exited
    // thread's clock is an error (EINVAL), not undefined behaviour.
    let ok = unsafe { libc::clock_gettime(clock, &mut now) } == 0;
    ok.then(|| std::time::Duration::new(now.tv_sec as u64, now.tv_nsec as u32))
  }

  pub fn freeze(thread: u64, token: u64) {
    let slot = NEXT.fetch_add(1, Ordering::AcqRel) % REQUESTED.len();
    REQUESTED[slot].store(token, Ordering::Release);
    // A thread that has exited is gone from the kernel (ESRCH); one that moved on to other work
    // ignores the signal (its token differs).
    // SAFETY: tgkill with this process's id, a thread id and a signal number.
    unsafe {
      libc::syscall(
        libc::SYS_tgkill,
        libc::getpid(),
        thread as libc::pid_t,
        SIGNAL,
      );
    }
  }
}

/// Where one thread cannot be stopped safely (macOS, Windows), a thread given up on keeps
/// running; the addon replaces the process and kills it soon after (SECURITY.md).
#[cfg(not(target_os = "linux"))]
mod freezer {
  pub fn this_thread() -> u64 {
    0
  }
  /// Not told here: the watchdog goes by wall time alone.
  pub fn cpu_time(_thread: u64) -> Option<std::time::Duration> {
    None
  }
  /// Never asked for here (nothing is frozen); parks the thread for good if it were.
  pub fn freeze_self() -> ! {
    loop {
      std::thread::park();
    }
  }
  pub fn install() {}
  pub fn freeze(_thread: u64, _token: u64) {}
}

/// Tries one forbidden operation from inside the sandbox (the containment tests):
/// `Ok(what succeeded)` is a containment failure, `Err(why not)` the expected answer. The
/// seccomp filter kills the process on most of them before either is said.
#[cfg(feature = "testing")]
pub fn probe(operation: &str) -> Result<String, String> {
  #[cfg(unix)]
  {
    use std::ffi::CString;
    let errno = || std::io::Error::last_os_error().to_string();
    // SAFETY: each arm calls one libc function with valid, NUL-terminated or zeroed arguments
    // and checks its result; nothing here keeps a pointer past the call.
    unsafe {
      match operation {
        "open" => {
          let path = CString::new("/etc/hostname").unwrap_or_default();
          let fd = libc::open(path.as_ptr(), libc::O_RDONLY);
          if fd >= 0 {
            return Ok(format!("open succeeded (fd {fd})"));
          }
          Err(errno())
        }
        "connect" => {
          let fd = libc::socket(libc::AF_INET, libc::SOCK_STREAM, 0);
          if fd < 0 {
            return Err(errno());
          }
          let mut address: libc::sockaddr_in = std::mem::zeroed();
          address.sin_family = libc::AF_INET as libc::sa_family_t;
          address.sin_port = 9u16.to_be();
          address.sin_addr.s_addr = u32::from_be_bytes([127, 0, 0, 1]).to_be();
          let rc = libc::connect(
            fd,
            &address as *const libc::sockaddr_in as *const libc::sockaddr,
            std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t,
          );
          Ok(format!("socket succeeded (fd {fd}); connect returned {rc}"))
        }
        "execve" => {
          let path = CString::new("/bin/true").unwrap_or_default();
          let argv = [path.as_ptr(), std::ptr::null()];
          let envp = [std::ptr::null()];
          libc::execve(path.as_ptr(), argv.as_ptr(), envp.as_ptr());
          Err(errno())
        }
        "ptrace" => {
          let rc = libc::ptrace(libc::PTRACE_ATTACH, libc::getppid(), 0, 0);
          if rc == 0 {
            return Ok("ptrace attached to the parent".into());
          }
          Err(errno())
        }
        "fork" => {
          let pid = libc::fork();
          if pid == 0 {
            libc::_exit(0);
          }
          if pid > 0 {
            return Ok(format!("fork succeeded (pid {pid})"));
          }
          Err(errno())
        }
        "abort" => libc::abort(),
        "segfault" => {
          let null: *mut u8 = std::ptr::null_mut();
          std::ptr::write_volatile(null, 1);
          Err("the write to address 0 returned".into())
        }
        _ => Err(format!("unknown probe {operation:?}")),
      }
    }
  }
  #[cfg(not(unix))]
  {
    match operation {
      "abort" => std::process::abort(),
      _ => Err(format!("no probe {operation:?} on this platform")),
    }
  }
}
