#!/usr/bin/env bash
# CI gate: the vendored QuickJS and its patches (vendor/patches/rquickjs-sys/) under
# AddressSanitizer (with LeakSanitizer) and UndefinedBehaviorSanitizer. Builds code-mode-engine's
# tests into target/asan with the QuickJS C compiled `-fsanitize=address,undefined` (the `cc`
# crate reads CFLAGS) and the VMs on the C library's malloc (the engine's `sanitize` feature:
# ASan cannot see inside mimalloc's pages), then runs them with the ASan runtime preloaded.
# crates/engine/tests/quickjs_patches.rs drives every patched builtin, and stops each patched
# loop at every poll of the interrupt handler; an invalid access, a leak or undefined behaviour
# in the C ends the run with a report naming the line. Linux, with gcc's libasan and libubsan.
#
#   tools/ci/quickjs-asan.sh                    # every test of code-mode-engine
#   tools/ci/quickjs-asan.sh --test quickjs_patches sort   # cargo test arguments
set -euo pipefail
cd "$(dirname "$0")/../.."

if [ "$(uname -s)" != Linux ]; then
  echo "quickjs-asan: Linux only" >&2
  exit 2
fi
# The compiler the cc crate uses, and its sanitizer runtimes.
cc=${CC:-cc}
asan=$("$cc" -print-file-name=libasan.so)
ubsan=$("$cc" -print-file-name=libubsan.so)
if [ ! -e "$asan" ] || [ ! -e "$ubsan" ]; then
  echo "quickjs-asan: \`$cc\` has no libasan.so/libubsan.so (install gcc with its sanitizer runtimes, e.g. Debian's libasan8 and libubsan1)" >&2
  exit 2
fi
host=$(rustc -vV | sed -n 's/^host: //p')
runner=CARGO_TARGET_$(echo "$host" | tr 'a-z-' 'A-Z_')_RUNNER

# A target folder of its own: these flags would otherwise rebuild the normal one.
export CARGO_TARGET_DIR=target/asan
export CFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g"
# With --target these reach only the test binaries, not build scripts or proc macros (which run
# inside cargo and rustc). rustc links with -nodefaultlibs, so the runtimes are named; ASan's
# must come first, which only preloading it ensures.
export RUSTFLAGS="-C link-arg=-lasan -C link-arg=-lubsan"
export "$runner=env LD_PRELOAD=$asan"
export ASAN_OPTIONS=detect_leaks=1:detect_stack_use_after_return=1:strict_string_checks=1
export UBSAN_OPTIONS=print_stacktrace=1
args=(-p code-mode-engine --features sanitize,testing --target "$host")

# The QuickJS in the test binaries must really be instrumented (a CFLAGS that no longer reaches
# it would pass every test, unchecked).
binaries=$(cargo test "${args[@]}" --no-run --message-format=json |
  node -e 'let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => {
    for (const line of s.split("\n")) {
      const m = line && JSON.parse(line)
      if (m.reason === "compiler-artifact" && m.executable) console.log(m.executable)
    }
  })')
for binary in $binaries; do
  if ! nm -D --undefined-only "$binary" | grep __asan_report_load >/dev/null; then
    echo "quickjs-asan: $binary has no ASan-instrumented code: CFLAGS did not reach the QuickJS build" >&2
    exit 1
  fi
done
cargo test "${args[@]}" "$@"
