#!/usr/bin/env bash
# CI gate: the Windows and macOS confinement (crates/confine) compiles, passes clippy, and its
# pure parts pass their tests, on this Linux machine, which has neither platform's target. Their
# modules are compiled under `--cfg code_mode_check_windows` and `--cfg code_mode_check_macos`:
# windows-sys declares its functions without a link attribute off Windows, and the macOS
# functions are declared by hand, so both type-check here. They cannot run here, so the tests
# call no system function (the Windows job's limits, the privilege list, the mitigation flags):
# the linker drops the functions that would, and the test binary links. The build goes to its
# own folder (other RUSTFLAGS would rebuild the workspace's usual one from scratch).
#
#   tools/ci/check-platforms.sh
set -euo pipefail
cd "$(dirname "$0")/../.."

target=${CARGO_TARGET_DIR:-target}/platform-check
both="--cfg code_mode_check_windows --cfg code_mode_check_macos"

RUSTFLAGS=$both cargo check -p code-mode-confine --all-targets --target-dir "$target"
RUSTFLAGS=$both cargo clippy -p code-mode-confine --all-targets --target-dir "$target" -- -D warnings
RUSTFLAGS=$both cargo test -p code-mode-confine --target-dir "$target"
