#!/usr/bin/env bash
# CI gate: the committed binding.js and binding.d.ts are what napi generates from the Rust exports
# now. Builds the addon alone (debug, no features: the `testing` feature would add its `__test*`
# exports, and the profile changes nothing napi writes) into a temporary folder with
# `tools/build.mjs --no-sandbox`, and fails on any difference, showing it.
#
#   tools/ci/check-bindings.sh
#
# Fix a failure with `npm run build` (or `node tools/build.mjs --no-sandbox`, quicker) and commit
# both files.
set -euo pipefail
cd "$(dirname "$0")/../.."

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
if ! node tools/build.mjs --no-sandbox --out "$out" >"$out/build.log" 2>&1; then
  cat "$out/build.log" >&2
  echo "check-bindings: the addon did not build" >&2
  exit 1
fi

stale=()
for file in binding.js binding.d.ts; do
  if ! diff -u --label "$file (committed)" --label "$file (generated)" "$file" "$out/$file"; then
    stale+=("$file")
  fi
done
if [ ${#stale[@]} -gt 0 ]; then
  echo "check-bindings: stale ${stale[*]}: not what the Rust exports generate (the diff above);" \
    "run \`npm run build\` and commit them" >&2
  exit 1
fi
echo "check-bindings: binding.js and binding.d.ts match the Rust exports"
