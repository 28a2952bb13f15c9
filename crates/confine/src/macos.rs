//! macOS: the sandbox's own lock-down, once start-up is done. No core files and no file writes
//! (`RLIMIT_CORE`, `RLIMIT_FSIZE` 0), then the Seatbelt profile `pure-computation`
//! (`sandbox_init` with `kSBXProfilePureComputation`: no file system, network, process
//! creation or IPC services), then no new descriptors (`RLIMIT_NOFILE` 3), as on Linux
//! (crates/sandbox/src/harden.rs). Each step must succeed, or the process runs nothing.
//!
//! Not done: `RLIMIT_AS`, which macOS does not enforce; `RLIMIT_NPROC`, which counts every
//! process of the user, not this one's children (the profile refuses `fork` instead); closing
//! inherited descriptors after start-up (the system's libraries may hold guarded descriptors
//! that closing would crash on). `sandbox_init` is deprecated but is the only public interface
//! to Seatbelt; the profile is applied to the whole process, all threads, for good.

use std::ffi::{CStr, c_char, c_int};

/// `SANDBOX_NAMED` (sandbox.h): `profile` is the name of a built-in profile.
const SANDBOX_NAMED: u64 = 1;

// In libSystem (libsystem_sandbox), which every program links: no link attribute is needed.
unsafe extern "C" {
  /// The name of the built-in profile that refuses all operating-system services. sandbox.h
  /// declares it `extern const char kSBXProfilePureComputation[]`: the symbol is the string
  /// itself, so it is declared as its first character and passed by address.
  #[allow(non_upper_case_globals, reason = "the C symbol's name")]
  static kSBXProfilePureComputation: c_char;
  /// Puts the process in a sandbox for good: 0, or -1 and an error text in `*errorbuf`.
  fn sandbox_init(profile: *const c_char, flags: u64, errorbuf: *mut *mut c_char) -> c_int;
  /// Frees what `sandbox_init` put in `errorbuf`.
  fn sandbox_free_error(errorbuf: *mut c_char);
}

/// Locks the process down (this module's doc); the error says which step failed.
pub fn lock_down() -> Result<(), String> {
  // The resource's type is the platform's (a C `int` on macOS, glibc's own type under the Linux
  // check build), so it is left to inference.
  let set = |resource, value: libc::rlim_t, name: &str| {
    let limit = libc::rlimit {
      rlim_cur: value,
      rlim_max: value,
    };
    // SAFETY: setrlimit reads the struct passed by reference.
    if unsafe { libc::setrlimit(resource, &limit) } != 0 {
      return Err(format!(
        "setrlimit({name}) failed: {}",
        std::io::Error::last_os_error()
      ));
    }
    Ok(())
  };
  set(libc::RLIMIT_CORE, 0, "RLIMIT_CORE")?;
  set(libc::RLIMIT_FSIZE, 0, "RLIMIT_FSIZE")?;
  enter_sandbox()?;
  // After the profile, so that `sandbox_init` may open what it needs (Seatbelt does not mediate
  // `setrlimit`).
  set(libc::RLIMIT_NOFILE, 3, "RLIMIT_NOFILE")
}

/// Applies the `pure-computation` profile.
fn enter_sandbox() -> Result<(), String> {
  let mut error: *mut c_char = std::ptr::null_mut();
  // SAFETY: the profile is a NUL-terminated string in libSystem; `error` is a valid place for
  // sandbox_init to leave an error text, freed below with sandbox_free_error only if set.
  let status = unsafe {
    sandbox_init(
      std::ptr::addr_of!(kSBXProfilePureComputation),
      SANDBOX_NAMED,
      &mut error,
    )
  };
  let text = if error.is_null() {
    None
  } else {
    // SAFETY: a non-null error from sandbox_init is a NUL-terminated string it allocated, read
    // once and then freed, never used again.
    unsafe {
      let text = CStr::from_ptr(error).to_string_lossy().into_owned();
      sandbox_free_error(error);
      Some(text)
    }
  };
  if status != 0 {
    return Err(format!(
      "sandbox_init(pure-computation) failed: {}",
      text.unwrap_or_else(|| format!("status {status}"))
    ));
  }
  Ok(())
}
