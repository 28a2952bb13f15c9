//! Test-only fault injection, compiled only into test builds (`cargo test`, and the `testing`
//! feature that `npm test` turns on); a release build has no-op hooks. Off by default. The test suites arm a fault from the host (the
//! `__testPanic` / `__testStall` exports, or Rust tests directly) to prove that a panic inside
//! the runtime becomes `internal_error` and that a slice stuck in native code is abandoned.
//!
//! Guest code cannot reach any of this: faults are armed only by host code, and the runtime
//! looks at them only while one is armed (one relaxed atomic load otherwise).

#[cfg(any(test, feature = "testing"))]
pub use faults::*;

/// No faults in a release build.
#[cfg(not(any(test, feature = "testing")))]
#[inline(always)]
pub fn at_slice(_run_id: &str) {}

/// No faults in a release build.
#[cfg(not(any(test, feature = "testing")))]
#[inline(always)]
pub fn at_bridge_call(_run_id: &str) {}

/// No faults in a release build.
#[cfg(not(any(test, feature = "testing")))]
#[inline(always)]
pub fn at_job(_run_id: &str) {}

#[cfg(any(test, feature = "testing"))]
mod faults {
  use std::sync::Mutex;
  use std::sync::atomic::{AtomicBool, Ordering};
  use std::time::Duration;

  #[derive(Debug, Clone, Copy, PartialEq, Eq)]
  pub enum Fault {
    /// The next VM slice panics before it runs guest code.
    PanicSlice,
    /// The next cell job panics on its worker outside its slice (where nothing else catches).
    PanicJob,
    /// The next nested tool call panics inside the native bridge function.
    PanicBridge,
    /// The next VM slice blocks this long without polling the interrupt handler, as a QuickJS
    /// builtin looping natively would.
    StallSlice(Duration),
  }

  struct Armed {
    fault: Fault,
    /// Only cells of this run trigger it (Rust tests run in parallel in one process).
    run_id: Option<String>,
  }

  static ANY: AtomicBool = AtomicBool::new(false);
  static ARMED: Mutex<Vec<Armed>> = Mutex::new(Vec::new());

  fn armed() -> std::sync::MutexGuard<'static, Vec<Armed>> {
    ARMED
      .lock()
      .unwrap_or_else(|poisoned| poisoned.into_inner())
  }

  use code_mode_protocol::injected::quiet_injected_panics;

  /// Arms `fault` once, for cells of `run_id` (or of any run).
  pub fn arm(fault: Fault, run_id: Option<String>) {
    quiet_injected_panics();
    armed().push(Armed { fault, run_id });
    ANY.store(true, Ordering::Release);
  }

  #[cfg(feature = "testing")]
  /// Arms a fault by the name the `__testPanic` export takes: `slice`, `bridge`, `sync` (panics
  /// right here, in the calling entry point) or `off`.
  pub fn arm_named(kind: &str, run_id: Option<String>) -> Result<(), String> {
    match kind {
      "slice" => arm(Fault::PanicSlice, run_id),
      "job" => arm(Fault::PanicJob, run_id),
      "bridge" => arm(Fault::PanicBridge, run_id),
      "sync" => {
        quiet_injected_panics();
        panic!("test fault: panic injected in a synchronous entry point")
      }
      "off" => disarm(),
      _ => return Err(format!("unknown fault {kind:?}")),
    }
    Ok(())
  }

  #[cfg(feature = "testing")]
  /// Disarms every fault.
  pub fn disarm() {
    armed().clear();
    ANY.store(false, Ordering::Release);
  }

  /// Consumes the first armed fault that `matches` and applies to `run_id`.
  fn take(matches: impl Fn(&Fault) -> bool, run_id: &str) -> Option<Fault> {
    if !ANY.load(Ordering::Acquire) {
      return None;
    }
    let mut list = armed();
    let at = list
      .iter()
      .position(|a| matches(&a.fault) && a.run_id.as_deref().is_none_or(|r| r == run_id))?;
    let fault = list.remove(at).fault;
    if list.is_empty() {
      ANY.store(false, Ordering::Release);
    }
    Some(fault)
  }

  /// Called at the start of every VM slice.
  pub fn at_slice(run_id: &str) {
    match take(
      |f| matches!(f, Fault::PanicSlice | Fault::StallSlice(_)),
      run_id,
    ) {
      Some(Fault::PanicSlice) => panic!("test fault: panic injected in a VM slice"),
      Some(Fault::StallSlice(time)) => {
        // Spins, as a QuickJS builtin looping natively does (a sleeping thread uses no CPU,
        // which the watchdog tells apart on platforms that report CPU time).
        let until = std::time::Instant::now() + time;
        while std::time::Instant::now() < until {
          std::hint::spin_loop();
        }
      }
      _ => {}
    }
  }

  /// Called at the start of every cell job on a worker, outside the slice's own panic guard.
  pub fn at_job(run_id: &str) {
    if take(|f| *f == Fault::PanicJob, run_id).is_some() {
      panic!("test fault: panic injected in a worker job");
    }
  }

  /// Called by every nested tool call in the bridge.
  pub fn at_bridge_call(run_id: &str) {
    if take(|f| *f == Fault::PanicBridge, run_id).is_some() {
      panic!("test fault: panic injected in a bridge call");
    }
  }
}
