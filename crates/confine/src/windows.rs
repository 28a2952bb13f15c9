//! Windows. Two halves, one on each side of the process boundary:
//!
//! - the addon's: a [`Job`] the sandbox process is put in right after it starts and before the
//!   addon writes its first frame (the sandbox runs no guest input before it reads that frame,
//!   so nothing runs unconfined): the process dies when the job's last handle closes (the
//!   gateway ended), can start no process, dies on an unhandled exception instead of waiting on
//!   Windows Error Reporting, may commit at most [`crate::address_space`], and may not touch
//!   the desktop, the clipboard, global atoms, other processes' USER handles, display settings
//!   or system parameters, nor log off or shut down;
//! - the sandbox's: [`lock_down`], once start-up is done: its own token lowered to Low integrity
//!   with every privilege removed (both or the process runs nothing), then process mitigation
//!   policies, best effort.
//!
//! Not done (SECURITY.md): no restricted token with deny-only SIDs and no AppContainer (either
//! needs the process created with that token, which `std::process::Command` cannot do), so a
//! compromised sandbox can still read what the user can read and open network connections.

use std::io;
use std::mem::{offset_of, size_of};
use std::ptr;
use windows_sys::Win32::Foundation::{CloseHandle, ERROR_NOT_ALL_ASSIGNED, GetLastError, HANDLE};
use windows_sys::Win32::Security::{
  AdjustTokenPrivileges, CreateWellKnownSid, GetLengthSid, GetTokenInformation,
  LUID_AND_ATTRIBUTES, SE_PRIVILEGE_REMOVED, SECURITY_MAX_SID_SIZE, SID_AND_ATTRIBUTES,
  SetTokenInformation, TOKEN_ADJUST_DEFAULT, TOKEN_ADJUST_PRIVILEGES, TOKEN_MANDATORY_LABEL,
  TOKEN_PRIVILEGES, TOKEN_QUERY, TokenIntegrityLevel, TokenPrivileges, WinLowLabelSid,
};
use windows_sys::Win32::System::JobObjects::{
  AssignProcessToJobObject, CreateJobObjectW, JOB_OBJECT_LIMIT_ACTIVE_PROCESS,
  JOB_OBJECT_LIMIT_DIE_ON_UNHANDLED_EXCEPTION, JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
  JOB_OBJECT_LIMIT_PROCESS_MEMORY, JOB_OBJECT_UILIMIT_DESKTOP, JOB_OBJECT_UILIMIT_DISPLAYSETTINGS,
  JOB_OBJECT_UILIMIT_EXITWINDOWS, JOB_OBJECT_UILIMIT_GLOBALATOMS, JOB_OBJECT_UILIMIT_HANDLES,
  JOB_OBJECT_UILIMIT_READCLIPBOARD, JOB_OBJECT_UILIMIT_SYSTEMPARAMETERS,
  JOB_OBJECT_UILIMIT_WRITECLIPBOARD, JOBOBJECT_BASIC_UI_RESTRICTIONS,
  JOBOBJECT_EXTENDED_LIMIT_INFORMATION, JOBOBJECTINFOCLASS, JobObjectBasicUIRestrictions,
  JobObjectExtendedLimitInformation, SetInformationJobObject,
};
use windows_sys::Win32::System::SystemServices::{
  PROCESS_MITIGATION_DYNAMIC_CODE_POLICY, PROCESS_MITIGATION_EXTENSION_POINT_DISABLE_POLICY,
  PROCESS_MITIGATION_IMAGE_LOAD_POLICY, PROCESS_MITIGATION_STRICT_HANDLE_CHECK_POLICY,
  PROCESS_MITIGATION_SYSTEM_CALL_DISABLE_POLICY, SE_GROUP_INTEGRITY,
};
use windows_sys::Win32::System::Threading::{
  DETACHED_PROCESS, GetCurrentProcess, OpenProcessToken, PROCESS_MITIGATION_POLICY,
  ProcessDynamicCodePolicy, ProcessExtensionPointDisablePolicy, ProcessImageLoadPolicy,
  ProcessStrictHandleCheckPolicy, ProcessSystemCallDisablePolicy, SetProcessMitigationPolicy,
};

/// Process-creation flags for the sandbox process: `DETACHED_PROCESS`, no console. A console
/// process started by a gateway that has none would otherwise get a new console, and its
/// `conhost.exe` (started from inside the new process) would count against the job's one
/// process. The channel is two pipes passed as standard handles, so nothing needs a console.
pub const CREATION_FLAGS: u32 = DETACHED_PROCESS;

/// The job's UI restrictions: no other desktop, display settings, logging off or shutting down,
/// global atoms, other processes' USER handles, clipboard, or system parameters.
const UI_RESTRICTIONS: u32 = JOB_OBJECT_UILIMIT_DESKTOP
  | JOB_OBJECT_UILIMIT_DISPLAYSETTINGS
  | JOB_OBJECT_UILIMIT_EXITWINDOWS
  | JOB_OBJECT_UILIMIT_GLOBALATOMS
  | JOB_OBJECT_UILIMIT_HANDLES
  | JOB_OBJECT_UILIMIT_READCLIPBOARD
  | JOB_OBJECT_UILIMIT_WRITECLIPBOARD
  | JOB_OBJECT_UILIMIT_SYSTEMPARAMETERS;

/// A kernel handle this process owns, closed when dropped.
struct Handle(HANDLE);

impl Drop for Handle {
  fn drop(&mut self) {
    // SAFETY: the handle is open and this value alone owns it; nothing uses it after this.
    unsafe { CloseHandle(self.0) };
  }
}

// SAFETY: a kernel handle is a process-wide value, not tied to the thread that opened it, and
// the only calls made with it (setting a job's limits, assigning a process, closing it once on
// drop) may come from any thread.
unsafe impl Send for Handle {}
// SAFETY: as for `Send`: a shared `Handle` only passes its value to thread-safe kernel calls.
unsafe impl Sync for Handle {}

/// An unnamed Job object holding one sandbox process, with the limits the module's doc lists.
/// Dropping it closes the job's handle, which kills the process if it still runs
/// (`JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE`); so does the gateway's exit, which closes the handle.
pub struct Job {
  handle: Handle,
}

impl Job {
  /// A new job; `memory`, when given, is the most each of its processes may commit (bytes).
  pub fn new(memory: Option<u64>) -> io::Result<Job> {
    // SAFETY: null attributes (default security, a handle no child inherits) and a null name
    // (an unnamed job no other process can open by name) are allowed.
    let handle = unsafe { CreateJobObjectW(ptr::null(), ptr::null()) };
    if handle.is_null() {
      return Err(failed("CreateJobObjectW"));
    }
    let job = Job {
      handle: Handle(handle),
    };
    job.set(JobObjectExtendedLimitInformation, &limits(memory))?;
    let ui = JOBOBJECT_BASIC_UI_RESTRICTIONS {
      UIRestrictionsClass: UI_RESTRICTIONS,
    };
    job.set(JobObjectBasicUIRestrictions, &ui)?;
    Ok(job)
  }

  /// Sets one class of the job's information; `info` must be the structure `class` names.
  fn set<T>(&self, class: JOBOBJECTINFOCLASS, info: &T) -> io::Result<()> {
    // SAFETY: `info` is the structure `class` names (both callers above), readable for its
    // whole size during the call; the handle is an open job.
    let ok = unsafe {
      SetInformationJobObject(
        self.handle.0,
        class,
        (info as *const T).cast(),
        size_of::<T>() as u32,
      )
    };
    if ok == 0 {
      return Err(failed(&format!("SetInformationJobObject({class})")));
    }
    Ok(())
  }

  /// Puts `process` in the job. Fails if the process is in a job that cannot hold this one.
  ///
  /// # Safety
  ///
  /// `process` must be an open handle to a process (with `PROCESS_SET_QUOTA` and
  /// `PROCESS_TERMINATE` access: the handle `CreateProcessW` returns, as
  /// `std::process::Child` holds it, has all access) for the length of the call.
  pub unsafe fn assign(&self, process: HANDLE) -> io::Result<()> {
    // SAFETY: the job's handle is open; the caller vouches for `process`.
    if unsafe { AssignProcessToJobObject(self.handle.0, process) } == 0 {
      return Err(failed("AssignProcessToJobObject"));
    }
    Ok(())
  }
}

/// The job's limits: killed when the job closes, one process, death on an unhandled
/// exception, and `memory` bytes of committed memory per process when given (saturated to
/// what `usize` holds).
fn limits(memory: Option<u64>) -> JOBOBJECT_EXTENDED_LIMIT_INFORMATION {
  let mut limits = JOBOBJECT_EXTENDED_LIMIT_INFORMATION::default();
  limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
    | JOB_OBJECT_LIMIT_ACTIVE_PROCESS
    | JOB_OBJECT_LIMIT_DIE_ON_UNHANDLED_EXCEPTION;
  limits.BasicLimitInformation.ActiveProcessLimit = 1;
  if let Some(bytes) = memory {
    limits.BasicLimitInformation.LimitFlags |= JOB_OBJECT_LIMIT_PROCESS_MEMORY;
    limits.ProcessMemoryLimit = usize::try_from(bytes).unwrap_or(usize::MAX);
  }
  limits
}

/// `what failed: the system's message`, kind kept.
fn failed(call: &str) -> io::Error {
  let error = io::Error::last_os_error();
  io::Error::new(error.kind(), format!("{call} failed: {error}"))
}

/// The sandbox's own lock-down, once start-up is done: every privilege removed from its token
/// and the token lowered to Low integrity (an error if either fails: the caller runs nothing
/// then), then the mitigation policies of [`MITIGATIONS`]. Those are best effort (an older
/// Windows lacks some, and one can be refused once the process did what it forbids): `Ok` holds
/// a line naming the ones refused, for the caller to log.
pub fn lock_down() -> Result<Option<String>, String> {
  let token = open_token()?;
  remove_privileges(&token)?;
  lower_integrity(&token)?;
  drop(token);
  let refused = apply_mitigations();
  Ok((!refused.is_empty()).then(|| {
    format!(
      "Windows refused these process mitigation policies; the sandbox runs without them: {}",
      refused.join("; ")
    )
  }))
}

/// This process's primary token, open to read it, adjust its privileges and its default
/// (integrity) information.
fn open_token() -> Result<Handle, String> {
  let mut token: HANDLE = ptr::null_mut();
  // SAFETY: GetCurrentProcess returns a pseudo-handle that needs no closing; OpenProcessToken
  // writes one handle through a valid pointer.
  let ok = unsafe {
    OpenProcessToken(
      GetCurrentProcess(),
      TOKEN_ADJUST_DEFAULT | TOKEN_ADJUST_PRIVILEGES | TOKEN_QUERY,
      &mut token,
    )
  };
  if ok == 0 {
    return Err(format!(
      "OpenProcessToken failed: {}",
      io::Error::last_os_error()
    ));
  }
  Ok(Handle(token))
}

/// `TOKEN_PRIVILEGES` as 32-bit words: the count, then each `LUID_AND_ATTRIBUTES` (the LUID's two
/// words, then the attributes). The asserts below hold the layout to windows-sys's.
const ENTRIES_AT: usize = offset_of!(TOKEN_PRIVILEGES, Privileges) / 4;
const ENTRY_WORDS: usize = size_of::<LUID_AND_ATTRIBUTES>() / 4;
const ATTRIBUTES_AT: usize = offset_of!(LUID_AND_ATTRIBUTES, Attributes) / 4;
const _: () = assert!(
  offset_of!(TOKEN_PRIVILEGES, PrivilegeCount) == 0
    && offset_of!(TOKEN_PRIVILEGES, Privileges) == 4
    && size_of::<LUID_AND_ATTRIBUTES>() == 12
    && offset_of!(LUID_AND_ATTRIBUTES, Attributes) == 8
);

/// Marks every privilege of a `TOKEN_PRIVILEGES` (as 32-bit words, see [`ENTRIES_AT`])
/// `SE_PRIVILEGE_REMOVED`; returns how many there are, or an error if the words are too few for
/// the count they start with.
fn mark_removed(words: &mut [u32]) -> Result<usize, String> {
  let count = *words.first().ok_or("the token's privileges are empty")? as usize;
  let needed = count
    .checked_mul(ENTRY_WORDS)
    .and_then(|n| n.checked_add(ENTRIES_AT))
    .filter(|needed| *needed <= words.len());
  if needed.is_none() {
    return Err(format!(
      "the token's privileges are cut short: {count} listed, {} words",
      words.len()
    ));
  }
  for entry in 0..count {
    words[ENTRIES_AT + entry * ENTRY_WORDS + ATTRIBUTES_AT] = SE_PRIVILEGE_REMOVED;
  }
  Ok(count)
}

/// Removes every privilege from the token for good (`SE_PRIVILEGE_REMOVED`: not disabled, gone,
/// so nothing can enable it again).
fn remove_privileges(token: &Handle) -> Result<(), String> {
  let mut size = 0u32;
  // SAFETY: a null buffer of length 0 asks only for the size, written through a valid pointer
  // (the call fails with ERROR_INSUFFICIENT_BUFFER by design).
  unsafe { GetTokenInformation(token.0, TokenPrivileges, ptr::null_mut(), 0, &mut size) };
  if size == 0 {
    return Err(format!(
      "GetTokenInformation(TokenPrivileges) gave no size: {}",
      io::Error::last_os_error()
    ));
  }
  // Words, so the buffer is aligned for TOKEN_PRIVILEGES (4 bytes).
  let mut words = vec![0u32; (size as usize).div_ceil(4)];
  let bytes = (words.len() * 4) as u32;
  // SAFETY: the buffer is writable for `bytes` bytes and aligned for TOKEN_PRIVILEGES.
  let ok = unsafe {
    GetTokenInformation(
      token.0,
      TokenPrivileges,
      words.as_mut_ptr().cast(),
      bytes,
      &mut size,
    )
  };
  if ok == 0 {
    return Err(format!(
      "GetTokenInformation(TokenPrivileges) failed: {}",
      io::Error::last_os_error()
    ));
  }
  if mark_removed(&mut words)? == 0 {
    return Ok(());
  }
  // SAFETY: the buffer holds a TOKEN_PRIVILEGES whose entries it covers (mark_removed checked);
  // no previous state is asked for, so both out pointers are null with a length of 0.
  let (ok, error) = unsafe {
    let ok = AdjustTokenPrivileges(
      token.0,
      0,
      words.as_ptr().cast(),
      0,
      ptr::null_mut(),
      ptr::null_mut(),
    );
    (ok, GetLastError())
  };
  // It succeeds having changed only some privileges: then the last error says so.
  if ok == 0 || error == ERROR_NOT_ALL_ASSIGNED {
    return Err(format!(
      "AdjustTokenPrivileges (remove every privilege) failed: {}",
      io::Error::from_raw_os_error(error as i32)
    ));
  }
  Ok(())
}

/// Lowers the token's mandatory label to Low integrity (S-1-16-4096): the process can no longer
/// write to, or send window messages to, anything of Medium integrity (the user's files, their
/// processes), though it can still read what the user can.
fn lower_integrity(token: &Handle) -> Result<(), String> {
  // Words, so the SID is aligned (4 bytes).
  let mut sid = [0u32; SECURITY_MAX_SID_SIZE as usize / 4];
  let mut size = SECURITY_MAX_SID_SIZE;
  // SAFETY: the buffer is writable for `size` bytes and aligned for a SID; a label SID needs no
  // domain SID, so that one is null.
  let ok = unsafe {
    CreateWellKnownSid(
      WinLowLabelSid,
      ptr::null_mut(),
      sid.as_mut_ptr().cast(),
      &mut size,
    )
  };
  if ok == 0 {
    return Err(format!(
      "CreateWellKnownSid(WinLowLabelSid) failed: {}",
      io::Error::last_os_error()
    ));
  }
  let label = TOKEN_MANDATORY_LABEL {
    Label: SID_AND_ATTRIBUTES {
      Sid: sid.as_mut_ptr().cast(),
      Attributes: SE_GROUP_INTEGRITY as u32,
    },
  };
  // SAFETY: `label` points at the SID just written to `sid`, which outlives both calls; the
  // length is the label and its SID, as SetTokenInformation asks for TokenIntegrityLevel.
  let ok = unsafe {
    let length = size_of::<TOKEN_MANDATORY_LABEL>() as u32 + GetLengthSid(label.Label.Sid);
    SetTokenInformation(
      token.0,
      TokenIntegrityLevel,
      (&label as *const TOKEN_MANDATORY_LABEL).cast(),
      length,
    )
  };
  if ok == 0 {
    return Err(format!(
      "SetTokenInformation(TokenIntegrityLevel, Low) failed: {}",
      io::Error::last_os_error()
    ));
  }
  Ok(())
}

/// The mitigation policies the sandbox applies to itself: the policy, what it is called in a
/// message, and its structure's flags word (bit positions as the Windows documentation of each
/// `PROCESS_MITIGATION_*_POLICY` structure gives its bit fields; no audit-only or opt-out bit).
pub const MITIGATIONS: [(PROCESS_MITIGATION_POLICY, &str, u32); 5] = [
  // ProhibitDynamicCode (bit 0): no executable memory made or changed at run time. QuickJS
  // has no JIT.
  (
    ProcessDynamicCodePolicy,
    "ProcessDynamicCodePolicy (ProhibitDynamicCode)",
    1 << 0,
  ),
  // DisallowWin32kSystemCalls (bit 0): no window-manager or GDI system calls.
  (
    ProcessSystemCallDisablePolicy,
    "ProcessSystemCallDisablePolicy (DisallowWin32kSystemCalls)",
    1 << 0,
  ),
  // DisableExtensionPoints (bit 0): no AppInit DLLs, Winsock LSPs, global hooks or IMEs.
  (
    ProcessExtensionPointDisablePolicy,
    "ProcessExtensionPointDisablePolicy (DisableExtensionPoints)",
    1 << 0,
  ),
  // NoRemoteImages (bit 0), NoLowMandatoryLabelImages (bit 1), PreferSystem32Images (bit 2).
  (
    ProcessImageLoadPolicy,
    "ProcessImageLoadPolicy (NoRemoteImages, NoLowMandatoryLabelImages, PreferSystem32Images)",
    (1 << 0) | (1 << 1) | (1 << 2),
  ),
  // RaiseExceptionOnInvalidHandleReference (bit 0), HandleExceptionsPermanentlyEnabled (bit 1):
  // a bad handle is an exception (and the job makes it the process's death), not an error a
  // probe can go on after.
  (
    ProcessStrictHandleCheckPolicy,
    "ProcessStrictHandleCheckPolicy (RaiseExceptionOnInvalidHandleReference, HandleExceptionsPermanentlyEnabled)",
    (1 << 0) | (1 << 1),
  ),
];

// Each policy's structure is one 32-bit word of flags, so a `u32` is the structure.
const _: () = assert!(
  size_of::<PROCESS_MITIGATION_DYNAMIC_CODE_POLICY>() == 4
    && size_of::<PROCESS_MITIGATION_SYSTEM_CALL_DISABLE_POLICY>() == 4
    && size_of::<PROCESS_MITIGATION_EXTENSION_POINT_DISABLE_POLICY>() == 4
    && size_of::<PROCESS_MITIGATION_IMAGE_LOAD_POLICY>() == 4
    && size_of::<PROCESS_MITIGATION_STRICT_HANDLE_CHECK_POLICY>() == 4
);

/// Applies [`MITIGATIONS`]; returns the ones refused, each with the system's reason.
fn apply_mitigations() -> Vec<String> {
  let mut refused = Vec::new();
  for (policy, name, flags) in MITIGATIONS {
    // SAFETY: every policy's structure is one 32-bit word of flags (asserted above), read
    // during the call from a valid local.
    let ok = unsafe {
      SetProcessMitigationPolicy(policy, (&flags as *const u32).cast(), size_of::<u32>())
    };
    if ok == 0 {
      refused.push(format!("{name}: {}", io::Error::last_os_error()));
    }
  }
  refused
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn the_job_kills_on_close_and_holds_one_process() {
    let limits = limits(None);
    let basic = limits.BasicLimitInformation;
    assert_eq!(
      basic.LimitFlags,
      JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
        | JOB_OBJECT_LIMIT_ACTIVE_PROCESS
        | JOB_OBJECT_LIMIT_DIE_ON_UNHANDLED_EXCEPTION
    );
    assert_eq!(basic.ActiveProcessLimit, 1);
    assert_eq!(limits.ProcessMemoryLimit, 0);
    // Nothing else is limited by accident (a time, a working set, an affinity, a class).
    assert_eq!(basic.PerProcessUserTimeLimit, 0);
    assert_eq!(basic.PerJobUserTimeLimit, 0);
    assert_eq!(basic.MaximumWorkingSetSize, 0);
    assert_eq!(basic.Affinity, 0);
    assert_eq!(basic.PriorityClass, 0);
    assert_eq!(limits.JobMemoryLimit, 0);
  }

  #[test]
  fn the_job_caps_memory_at_the_address_space() {
    let cap = crate::address_space(4);
    let limits = limits(Some(cap));
    assert_ne!(
      limits.BasicLimitInformation.LimitFlags & JOB_OBJECT_LIMIT_PROCESS_MEMORY,
      0
    );
    assert_ne!(
      limits.BasicLimitInformation.LimitFlags & JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
      0
    );
    assert_eq!(limits.ProcessMemoryLimit as u64, cap);
    assert_eq!(limits.JobMemoryLimit, 0);
  }

  #[test]
  fn the_ui_restrictions_are_all_but_the_ime() {
    // JOB_OBJECT_UILIMIT_ALL is these eight and the IME (0x100), which is no security boundary.
    assert_eq!(UI_RESTRICTIONS, 0xff);
  }

  #[test]
  fn every_privilege_is_marked_removed() {
    // Three privileges: count, then (LUID low, LUID high, attributes) each, attributes enabled.
    let mut words = vec![3, 23, 0, 3, 19, 0, 0, 8, 0, 2, 0xdead];
    assert_eq!(mark_removed(&mut words), Ok(3));
    assert_eq!(
      words,
      vec![
        3,
        23,
        0,
        SE_PRIVILEGE_REMOVED,
        19,
        0,
        SE_PRIVILEGE_REMOVED,
        8,
        0,
        SE_PRIVILEGE_REMOVED,
        0xdead
      ]
    );
    let mut none = vec![0];
    assert_eq!(mark_removed(&mut none), Ok(0));
  }

  #[test]
  fn a_short_privilege_list_is_an_error() {
    let mut words = vec![2, 23, 0, 3, 19, 0];
    assert!(mark_removed(&mut words).is_err());
    assert_eq!(words, vec![2, 23, 0, 3, 19, 0], "nothing was written");
    assert!(mark_removed(&mut []).is_err());
    assert!(mark_removed(&mut [u32::MAX]).is_err());
  }

  #[test]
  fn the_mitigations_enforce_and_never_audit_or_opt_out() {
    let policies: Vec<PROCESS_MITIGATION_POLICY> = MITIGATIONS.iter().map(|m| m.0).collect();
    let mut distinct = policies.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), policies.len(), "a policy is listed twice");
    for (policy, name, flags) in MITIGATIONS {
      assert_ne!(flags, 0, "{name} sets nothing");
      // Bits that only audit or let code opt out, by policy (Windows' bit-field layouts).
      let weakening = if policy == ProcessDynamicCodePolicy {
        // AllowThreadOptOut, AllowRemoteDowngrade, AuditProhibitDynamicCode.
        0b1110
      } else if policy == ProcessSystemCallDisablePolicy {
        // AuditDisallowWin32kSystemCalls, AuditDisallowFsctlSystemCalls.
        0b1010
      } else if policy == ProcessImageLoadPolicy {
        // AuditNoRemoteImages, AuditNoLowMandatoryLabelImages.
        0b11000
      } else {
        0
      };
      assert_eq!(flags & weakening, 0, "{name} weakens itself");
    }
    assert!(policies.contains(&ProcessDynamicCodePolicy));
    assert!(policies.contains(&ProcessSystemCallDisablePolicy));
  }
}
