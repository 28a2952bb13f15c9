//! What confines a `code-mode-sandbox` process beyond its being a separate process, on the
//! platforms whose lock-down is not `crates/sandbox/src/harden.rs` (Linux):
//!
//! - [`windows`]: the parent's side (a Job object the addon puts the process in before it sends
//!   the first frame: killed with the gateway, no new processes, no UI, a memory cap) and the
//!   child's (its token lowered to Low integrity with every privilege removed, then process
//!   mitigation policies);
//! - [`macos`]: the child's side (resource limits, then the `pure-computation` Seatbelt profile).
//!
//! And [`address_space`], the backstop above every VM's memory cap that each platform enforces
//! its own way (Linux `RLIMIT_AS`, Windows the job's per-process memory limit).
//!
//! No napi and no engine here, only the operating system's interfaces, so that the Windows and
//! macOS modules compile on Linux too: `tools/ci/check-platforms.sh` builds them under
//! `--cfg code_mode_check_windows --cfg code_mode_check_macos`, where they type-check (and the
//! pure parts of the Windows module run their tests) but cannot link or run. SECURITY.md says
//! what each platform gets.

#[cfg(any(target_os = "macos", code_mode_check_macos))]
pub mod macos;
#[cfg(any(windows, code_mode_check_windows))]
pub mod windows;

/// The stack of each of the engine's workers (`WORKER_STACK` in crates/engine/src/lib.rs;
/// crates/sandbox/src/lib.rs checks at compile time that the two agree). Here so that the addon,
/// which does not link the engine, computes the same [`address_space`] as the sandbox.
pub const WORKER_STACK: u64 = 256 << 20;

/// Long jobs each worker may stand in for at once, each on a thread of its own
/// (`LONG_SLICES_PER_WORKER` in crates/engine/src/pool.rs; crates/sandbox/src/lib.rs checks at
/// compile time that the two agree).
pub const LONG_SLICES_PER_WORKER: u64 = 4;

/// Memory the sandbox process may have: the stacks of its workers, of the threads running long
/// jobs and of eight more (the reader, the clock, the two background threads, spare), a heap for
/// each at the largest memory cap (2 GiB: code mode's `memoryLimitBytes` goes to 1 GiB, and the
/// `quickjs` executor's VM holds twice its limit, crates/sandbox/src/executor/session.rs), and room
/// for parked cells, abandoned
/// threads and the allocator's reservations, for `worker_threads` workers (the first
/// `Configure` the process gets). A backstop to the per-VM memory caps, not the cap itself:
/// Linux sets it as `RLIMIT_AS` (address space), Windows as the Job object's per-process limit
/// on committed memory (which counts less than address space does, so the same number is
/// looser there).
pub fn address_space(worker_threads: u32) -> u64 {
  const HEAP_PER_THREAD: u64 = 2 << 30;
  let threads = u64::from(worker_threads) * (1 + LONG_SLICES_PER_WORKER) + 8;
  threads
    .saturating_mul(WORKER_STACK + HEAP_PER_THREAD)
    .saturating_add(16 << 30)
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn the_address_space_grows_with_the_workers() {
    // 4 workers, 16 long jobs and 8 more threads, each a 256 MiB stack and a 2 GiB heap, and
    // 16 GiB more.
    assert_eq!(address_space(4), 28 * (2304 << 20) + (16 << 30));
    assert_eq!(
      address_space(5) - address_space(4),
      5 * ((256 << 20) + (2 << 30))
    );
    // The largest `workerThreads` the addon accepts does not overflow.
    assert!(address_space(u32::MAX) > address_space(256));
  }

  /// The platform check (tools/ci/check-platforms.sh) needs the two cfg names declared for
  /// `unexpected_cfgs`, and CI must run it.
  #[test]
  fn the_platform_check_is_declared_and_run() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let read = |path: &str| std::fs::read_to_string(format!("{root}/{path}")).unwrap();
    let manifest = read("Cargo.toml");
    for name in ["code_mode_check_windows", "code_mode_check_macos"] {
      assert!(
        manifest.contains(&format!("'cfg({name})'")),
        "Cargo.toml's [workspace.lints.rust] unexpected_cfgs does not declare {name}"
      );
    }
    let script = read("tools/ci/check-platforms.sh");
    for name in [
      "code_mode_check_windows",
      "code_mode_check_macos",
      "clippy",
      "test",
    ] {
      assert!(
        script.contains(name),
        "tools/ci/check-platforms.sh does not run {name}"
      );
    }
    assert!(
      read(".ci/run")
        .lines()
        .any(|line| line.starts_with("step ") && line.contains("tools/ci/check-platforms.sh")),
      ".ci/run has no step that runs tools/ci/check-platforms.sh"
    );
  }
}
