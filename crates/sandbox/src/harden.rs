//! The Linux lock-down, applied once start-up is done (Firecracker's jailer and `seccompiler`
//! are the model): no file descriptors but the channel and standard error, resource limits, no
//! new privileges, not dumpable, and a seccomp-bpf allow-list on every thread.
//!
//! After it, the process can read and write its channel, allocate and free memory (never
//! executable), start and stop threads, sleep and wait, read clocks and random bytes, lower a
//! thread's priority and signal its own threads. Three filters decide every system call:
//! - the kill list ends the process at once: a new program (`execve`), a new process (`fork`,
//!   `clone` without `CLONE_THREAD`), sockets, `ptrace` and the cross-process memory calls,
//!   signals to other processes, executable memory, namespaces, mounts, `bpf`, `io_uring`,
//!   `userfaultfd`, keys and credentials;
//! - the allow-list lets the calls above through;
//! - anything else fails with `EPERM` and the process goes on (a library that reads a file
//!   lazily, such as the CPU count from `/proc`, gets an error, not a dead process; a hostile
//!   cell must not be able to end its neighbours' cells by reaching such a path).
//!
//! `clone3` answers ENOSYS, so the C library falls back to `clone`, whose flags a filter can
//! check.

use code_mode_protocol::wire::Settings;
use seccompiler::{
  BpfProgram, SeccompAction, SeccompCmpArgLen as Len, SeccompCmpOp as Op, SeccompCondition,
  SeccompFilter, SeccompRule, TargetArch,
};
use std::collections::BTreeMap;

pub fn lock_down(settings: &Settings, debug: bool) -> Result<(), String> {
  close_other_fds();
  let limits = [
    (libc::RLIMIT_CORE, 0),
    (libc::RLIMIT_FSIZE, 0),
    (libc::RLIMIT_NOFILE, 3),
    (libc::RLIMIT_MEMLOCK, 0),
    (libc::RLIMIT_MSGQUEUE, 0),
    // A backstop to the per-VM memory caps (the same number caps a Windows job's memory).
    (
      libc::RLIMIT_AS,
      code_mode_confine::address_space(settings.worker_threads),
    ),
  ];
  for (resource, value) in limits {
    let limit = libc::rlimit {
      rlim_cur: value as libc::rlim_t,
      rlim_max: value as libc::rlim_t,
    };
    // SAFETY: setrlimit reads the struct passed by reference.
    if unsafe { libc::setrlimit(resource, &limit) } != 0 {
      return Err(format!(
        "setrlimit({resource}) failed: {}",
        std::io::Error::last_os_error()
      ));
    }
  }
  // SAFETY: plain prctl calls with integer arguments.
  unsafe {
    if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
      return Err(format!(
        "PR_SET_NO_NEW_PRIVS failed: {}",
        std::io::Error::last_os_error()
      ));
    }
    libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0);
  }
  if debug {
    install_sigsys_reporter();
  }
  let kill = if debug {
    SeccompAction::Trap
  } else {
    SeccompAction::KillProcess
  };
  let killed = filter(kill_list()?, SeccompAction::Allow, kill)?;
  let mut clone3 = BTreeMap::new();
  clone3.insert(libc::SYS_clone3, Vec::new());
  let no_clone3 = filter(
    clone3,
    SeccompAction::Allow,
    SeccompAction::Errno(libc::ENOSYS as u32),
  )?;
  let allow = filter(
    allowed()?,
    SeccompAction::Errno(libc::EPERM as u32),
    SeccompAction::Allow,
  )?;
  // The allow-list goes last: installing a filter takes a `prctl` that the allow-list refuses.
  for program in [killed, no_clone3, allow] {
    seccompiler::apply_filter_all_threads(&program).map_err(|e| format!("seccomp: {e}"))?;
  }
  Ok(())
}

fn filter(
  rules: BTreeMap<i64, Vec<SeccompRule>>,
  mismatch: SeccompAction,
  matched: SeccompAction,
) -> Result<BpfProgram, String> {
  let arch = if cfg!(target_arch = "aarch64") {
    TargetArch::aarch64
  } else {
    TargetArch::x86_64
  };
  SeccompFilter::new(rules, mismatch, matched, arch)
    .and_then(BpfProgram::try_from)
    .map_err(|e| format!("seccomp filter: {e}"))
}

fn rule(conditions: Vec<(u8, Op, u64)>) -> Result<SeccompRule, String> {
  let conditions = conditions
    .into_iter()
    .map(|(arg, op, value)| SeccompCondition::new(arg, Len::Qword, op, value))
    .collect::<Result<Vec<_>, _>>()
    .map_err(|e| e.to_string())?;
  SeccompRule::new(conditions).map_err(|e| e.to_string())
}

/// The allow-list: syscall → conditions (any rule matching allows it; none listed: always).
fn allowed() -> Result<BTreeMap<i64, Vec<SeccompRule>>, String> {
  let mut map: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
  let always = [
    libc::SYS_futex,
    libc::SYS_sched_yield,
    libc::SYS_munmap,
    libc::SYS_mremap,
    libc::SYS_madvise,
    libc::SYS_brk,
    libc::SYS_set_robust_list,
    libc::SYS_rseq,
    libc::SYS_gettid,
    libc::SYS_getpid,
    libc::SYS_exit,
    libc::SYS_exit_group,
    libc::SYS_rt_sigreturn,
    libc::SYS_rt_sigprocmask,
    // The process's own handlers (Rust's stack-overflow handler resets SIGSEGV to crash).
    libc::SYS_rt_sigaction,
    libc::SYS_sigaltstack,
    libc::SYS_clock_gettime,
    libc::SYS_clock_getres,
    libc::SYS_clock_nanosleep,
    libc::SYS_nanosleep,
    libc::SYS_gettimeofday,
    libc::SYS_getrandom,
    libc::SYS_sched_getaffinity,
    libc::SYS_restart_syscall,
    libc::SYS_close,
    // Answered ENOSYS by the second filter.
    libc::SYS_clone3,
  ];
  for syscall in always {
    map.insert(syscall, Vec::new());
  }
  // The channel (fds 0 and 1) and standard error only.
  map.insert(libc::SYS_read, vec![rule(vec![(0, Op::Eq, 0)])?]);
  map.insert(
    libc::SYS_write,
    vec![rule(vec![(0, Op::Eq, 1)])?, rule(vec![(0, Op::Eq, 2)])?],
  );
  map.insert(libc::SYS_writev, vec![rule(vec![(0, Op::Eq, 2)])?]);
  // Memory, never executable.
  let no_exec = |arg| rule(vec![(arg, Op::MaskedEq(libc::PROT_EXEC as u64), 0)]);
  map.insert(libc::SYS_mmap, vec![no_exec(2)?]);
  map.insert(libc::SYS_mprotect, vec![no_exec(2)?]);
  // Threads only: `clone` with CLONE_THREAD (a new process would need it clear).
  map.insert(
    libc::SYS_clone,
    vec![rule(vec![(
      0,
      Op::MaskedEq(libc::CLONE_THREAD as u64),
      libc::CLONE_THREAD as u64,
    )])?],
  );
  // Signals to this process's own threads (the freezer, `abort`).
  // SAFETY: getpid cannot fail.
  let pid = unsafe { libc::getpid() } as u64;
  map.insert(libc::SYS_tgkill, vec![rule(vec![(0, Op::Eq, pid)])?]);
  // Thread names.
  map.insert(
    libc::SYS_prctl,
    vec![rule(vec![(0, Op::Eq, libc::PR_SET_NAME as u64)])?],
  );
  // Workers lower their own priority (never raise it), and no other thread's or process's:
  // `who` 0 is the calling thread.
  map.insert(
    libc::SYS_setpriority,
    vec![rule(vec![
      (0, Op::Eq, libc::PRIO_PROCESS as u64),
      (1, Op::Eq, 0),
      (2, Op::Le, 19),
    ])?],
  );
  // The background threads enter the idle scheduling class (crates/engine/src/background.rs):
  // only the calling thread, only that class (one an unprivileged thread can never leave).
  map.insert(
    libc::SYS_sched_setscheduler,
    vec![rule(vec![
      (0, Op::Eq, 0),
      (1, Op::Eq, libc::SCHED_IDLE as u64),
    ])?],
  );
  Ok(map)
}

/// System calls that end the process: what no code of this process makes, and what an
/// attacker who took over a thread would need first.
fn kill_list() -> Result<BTreeMap<i64, Vec<SeccompRule>>, String> {
  let mut map: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
  let always = [
    libc::SYS_execve,
    libc::SYS_execveat,
    libc::SYS_ptrace,
    libc::SYS_process_vm_readv,
    libc::SYS_process_vm_writev,
    libc::SYS_socket,
    libc::SYS_socketpair,
    libc::SYS_connect,
    libc::SYS_bind,
    libc::SYS_listen,
    libc::SYS_accept,
    libc::SYS_accept4,
    libc::SYS_kill,
    libc::SYS_tkill,
    libc::SYS_pidfd_open,
    libc::SYS_pidfd_send_signal,
    libc::SYS_pidfd_getfd,
    libc::SYS_unshare,
    libc::SYS_setns,
    libc::SYS_mount,
    libc::SYS_umount2,
    libc::SYS_pivot_root,
    libc::SYS_chroot,
    libc::SYS_bpf,
    libc::SYS_perf_event_open,
    libc::SYS_userfaultfd,
    libc::SYS_io_uring_setup,
    libc::SYS_io_uring_enter,
    libc::SYS_io_uring_register,
    libc::SYS_keyctl,
    libc::SYS_add_key,
    libc::SYS_request_key,
    libc::SYS_setuid,
    libc::SYS_setgid,
    libc::SYS_setreuid,
    libc::SYS_setregid,
    libc::SYS_setresuid,
    libc::SYS_setresgid,
    libc::SYS_setgroups,
    libc::SYS_init_module,
    libc::SYS_finit_module,
    libc::SYS_kexec_load,
    libc::SYS_memfd_create,
  ];
  for syscall in always {
    map.insert(syscall, Vec::new());
  }
  #[cfg(target_arch = "x86_64")]
  for syscall in [libc::SYS_fork, libc::SYS_vfork] {
    map.insert(syscall, Vec::new());
  }
  // A new process: `clone` without CLONE_THREAD.
  map.insert(
    libc::SYS_clone,
    vec![rule(vec![(0, Op::MaskedEq(libc::CLONE_THREAD as u64), 0)])?],
  );
  // Executable memory.
  let exec = |arg| {
    rule(vec![(
      arg,
      Op::MaskedEq(libc::PROT_EXEC as u64),
      libc::PROT_EXEC as u64,
    )])
  };
  map.insert(libc::SYS_mmap, vec![exec(2)?]);
  map.insert(libc::SYS_mprotect, vec![exec(2)?]);
  map.insert(libc::SYS_pkey_mprotect, vec![exec(2)?]);
  // Signals to another process.
  // SAFETY: getpid cannot fail.
  let pid = unsafe { libc::getpid() } as u64;
  map.insert(libc::SYS_tgkill, vec![rule(vec![(0, Op::Ne, pid)])?]);
  Ok(map)
}

/// Closes every descriptor but the channel (0, 1) and standard error (2).
fn close_other_fds() {
  // SAFETY: close_range takes plain integers; on a kernel without it, fall back to closing
  // each listed descriptor.
  let closed = unsafe { libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, 0u32) } == 0;
  if closed {
    return;
  }
  let Ok(entries) = std::fs::read_dir("/proc/self/fd") else {
    return;
  };
  let fds: Vec<i32> = entries
    .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
    .filter(|fd| *fd > 2)
    .collect();
  for fd in fds {
    // SAFETY: closing a descriptor this process owns; nothing here uses it again.
    unsafe { libc::close(fd) };
  }
}

/// `--debug`: a refused system call is reported on standard error (then the process ends)
/// instead of killing the process silently.
fn install_sigsys_reporter() {
  extern "C" fn on_sigsys(_: libc::c_int, info: *mut libc::siginfo_t, _: *mut libc::c_void) {
    // SAFETY: the kernel passes a valid siginfo for SIGSYS; its `si_syscall` field sits right
    // after the call address (`_sigsys` layout), which libc does not expose.
    let syscall = unsafe {
      let base = info as *const u8;
      let offset = 16 + std::mem::size_of::<*const libc::c_void>();
      *(base.add(offset) as *const libc::c_int)
    };
    let mut text = *b"code-mode-sandbox: seccomp refused system call       \n";
    let mut n = syscall.unsigned_abs();
    let mut at = text.len() - 2;
    loop {
      text[at] = b'0' + (n % 10) as u8;
      n /= 10;
      if n == 0 || at == 0 {
        break;
      }
      at -= 1;
    }
    // SAFETY: write and _exit are async-signal-safe.
    unsafe {
      libc::write(2, text.as_ptr().cast(), text.len());
      libc::_exit(159);
    }
  }
  // SAFETY: a zeroed sigaction with an SA_SIGINFO handler and an empty mask is valid.
  unsafe {
    let mut action: libc::sigaction = std::mem::zeroed();
    action.sa_sigaction = on_sigsys as extern "C" fn(_, _, _) as usize;
    action.sa_flags = libc::SA_SIGINFO;
    libc::sigemptyset(&mut action.sa_mask);
    libc::sigaction(libc::SIGSYS, &action, std::ptr::null_mut());
  }
}
