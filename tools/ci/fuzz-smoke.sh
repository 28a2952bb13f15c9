#!/usr/bin/env bash
# CI gate: every cargo-fuzz target in fuzz/ builds and survives a short run. Stable Rust: the
# targets link libFuzzer through libfuzzer-sys, and rustc's stable SanitizerCoverage flags give it
# coverage (what `cargo fuzz build --dev -s none` passes, without installing cargo-fuzz). Each
# target runs FUZZ_SECONDS (default 20) over its seeds in fuzz/seeds/<target> and whatever
# libFuzzer derives from them; a panic, a failed check, a timeout or running out of memory fails,
# and the input that did it is kept as fuzz/artifacts/<target>/crash-* (or timeout-*, oom-*).
# Replay one with `fuzz/target/<host>/debug/<target> <file>`.
#
#   tools/ci/fuzz-smoke.sh                  # every target
#   FUZZ_SECONDS=300 tools/ci/fuzz-smoke.sh typescript
set -euo pipefail
cd "$(dirname "$0")/../.."

seconds=${FUZZ_SECONDS:-20}
host=$(rustc -vV | sed -n 's/^host: //p')
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for file in fuzz/fuzz_targets/*.rs; do targets+=("$(basename "$file" .rs)"); done
fi

# fuzz/ is a workspace of its own (its flags must not reach the root's builds), with a lock of
# its own: it must link what the shipped sandbox links.
tree() { cargo tree -q --locked "$@" -p code-mode-sandbox -e normal --prefix none --target "$host" | sed 's/ (\*)$//' | sort -u; }
if ! diff <(tree --features testing) <(tree --manifest-path fuzz/Cargo.toml); then
  echo "fuzz-smoke: fuzz/Cargo.lock resolves code-mode-sandbox's dependencies unlike Cargo.lock (above):" \
    "copy the versions over (cargo update --manifest-path fuzz/Cargo.toml -p <crate> --precise <version>)" >&2
  exit 1
fi

# --target keeps the coverage flags off build scripts and proc macros.
RUSTFLAGS="--cfg fuzzing -Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares" \
  cargo build -q --manifest-path fuzz/Cargo.toml --locked --target "$host" --bins

failed=()
for target in "${targets[@]}"; do
  binary=fuzz/target/$host/debug/$target
  seeds=fuzz/seeds/$target
  if [ ! -x "$binary" ] || [ ! -d "$seeds" ]; then
    echo "fuzz-smoke: no target $target (fuzz/fuzz_targets/$target.rs) or no seeds ($seeds)" >&2
    exit 2
  fi
  artifacts=fuzz/artifacts/$target
  mkdir -p "$artifacts"
  corpus=$(mktemp -d)
  log=$corpus.log
  # New inputs go to the first folder (a throwaway one); the seeds are only read.
  if "$binary" -max_total_time="$seconds" -timeout=30 -rss_limit_mb=2048 \
    -artifact_prefix="$artifacts/" "$corpus" "$seeds" >"$log" 2>&1; then
    echo "fuzz-smoke: $target: $(grep -o 'Done [0-9]* runs in [0-9]* second(s)' "$log" || echo done)," \
      "coverage $(grep -o 'DONE *cov: [0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')"
  else
    cat "$log" >&2
    echo "fuzz-smoke: $target failed; the input is in $artifacts/" >&2
    failed+=("$target")
  fi
  rm -rf "$corpus" "$log"
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz-smoke: failed: ${failed[*]}" >&2
  exit 1
fi
