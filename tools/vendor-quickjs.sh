#!/usr/bin/env bash
# Regenerates vendor/rquickjs-sys: the crates.io rquickjs-sys crate, pruned to the files the
# native build uses, plus vendor/patches/rquickjs-sys/*.patch applied in order. VENDORED.md is the
# one hand-written file there and is kept as it is.
#
#   tools/vendor-quickjs.sh          rewrite vendor/rquickjs-sys (only the files that change)
#   tools/vendor-quickjs.sh --check  exit 1 if vendor/rquickjs-sys is not what the patches make (CI)
#   tools/vendor-quickjs.sh --diff   print that difference as a patch, to record an edit made in
#                                    place as a new file in vendor/patches/rquickjs-sys/
#
# The crate comes from Cargo's download cache; if it is not there, a throwaway project fetches it.
set -euo pipefail
export LC_ALL=C

# To upgrade, change both (the checksum is the crates.io index's `cksum`); see VENDORED.md.
VERSION=0.14.0
SHA256=cee271d0eeba64f0915b846cb7ae02e16faf3dfdffdca91731101d9d30fe3423

# What build.rs reads for native targets (its header_files and source_files); the crate's QuickJS
# tests, docs, tools, qjs/libc sources, wasm32 libc and shim are left out.
KEEP=(
  Cargo.toml
  README.md
  build.rs
  quickjs.bind.h
  quickjs/LICENSE
  quickjs/builtin-array-fromasync.h
  quickjs/builtin-iterator-zip-keyed.h
  quickjs/builtin-iterator-zip.h
  quickjs/cutils.h
  quickjs/dtoa.c
  quickjs/dtoa.h
  quickjs/libregexp-opcode.h
  quickjs/libregexp.c
  quickjs/libregexp.h
  quickjs/libunicode-table.h
  quickjs/libunicode.c
  quickjs/libunicode.h
  quickjs/list.h
  quickjs/quickjs-atom.h
  quickjs/quickjs-c-atomics.h
  quickjs/quickjs-opcode.h
  quickjs/quickjs.c
  quickjs/quickjs.h
  src/
)

root=$(cd "$(dirname "$0")/.." && pwd)
dest=$root/vendor/rquickjs-sys
patches=$root/vendor/patches/rquickjs-sys

mode=write
case "${1:-}" in
  "") ;;
  --check) mode=check ;;
  --diff) mode=diff ;;
  *) echo "usage: $0 [--check | --diff]" >&2; exit 2 ;;
esac

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cache_crate() {
  ls "${CARGO_HOME:-$HOME/.cargo}"/registry/cache/*/"rquickjs-sys-$VERSION.crate" 2>/dev/null | head -n 1 || true
}

crate=$(cache_crate)
if [ -z "$crate" ]; then
  echo "vendor-quickjs: fetching rquickjs-sys $VERSION from crates.io" >&2
  mkdir -p "$work/fetch/src"
  # [workspace]: its own root, whatever directory holds the temp dir.
  cat > "$work/fetch/Cargo.toml" <<EOF
[package]
name = "vendor-quickjs-fetch"
version = "0.0.0"
edition = "2021"

[dependencies]
rquickjs-sys = "=$VERSION"

[workspace]
EOF
  : > "$work/fetch/src/lib.rs"
  (cd "$work/fetch" && cargo fetch --quiet)
  crate=$(cache_crate)
  [ -n "$crate" ] || { echo "vendor-quickjs: cargo fetch left no rquickjs-sys-$VERSION.crate" >&2; exit 1; }
fi

if command -v sha256sum > /dev/null; then
  sum=$(sha256sum "$crate" | cut -d' ' -f1)
else
  sum=$(shasum -a 256 "$crate" | cut -d' ' -f1)
fi
if [ "$sum" != "$SHA256" ]; then
  echo "vendor-quickjs: $crate has sha256 $sum, expected $SHA256" >&2
  exit 1
fi

# The pristine files, pruned as they come out. -m: extraction time as mtime, so Cargo's
# rerun-if-changed sees a rewritten file as new (the crate's own mtimes are from 2006).
tar -xzmf "$crate" -C "$work" "${KEEP[@]/#/rquickjs-sys-$VERSION/}"
new=$work/a
mv "$work/rquickjs-sys-$VERSION" "$new"

for p in "$patches"/*.patch; do
  # The ceiling keeps git from taking a repository above the temp dir for this tree.
  if ! (cd "$new" && GIT_CEILING_DIRECTORIES="$work" git apply --whitespace=nowarn "$p"); then
    echo "vendor-quickjs: ${p#"$root"/} does not apply to rquickjs-sys $VERSION (see vendor/rquickjs-sys/VENDORED.md, Upgrading)" >&2
    exit 1
  fi
done
if [ -f "$dest/VENDORED.md" ]; then
  cp "$dest/VENDORED.md" "$new/VENDORED.md"
fi

if [ "$mode" = write ]; then
  mkdir -p "$dest"
  # Only changed files are written, so a no-op run does not make Cargo rebuild QuickJS.
  (cd "$new" && find . -type f) | while IFS= read -r f; do
    if ! cmp -s "$new/$f" "$dest/$f"; then
      mkdir -p "$(dirname "$dest/$f")"
      cp "$new/$f" "$dest/$f"
      echo "wrote vendor/rquickjs-sys/${f#./}"
    fi
  done
  (cd "$dest" && find . -type f) | while IFS= read -r f; do
    if [ ! -e "$new/$f" ]; then
      rm "$dest/$f"
      echo "removed vendor/rquickjs-sys/${f#./}"
    fi
  done
  find "$dest" -mindepth 1 -type d -empty -delete
  exit 0
fi

# a: what the patches make, b: the tree. Timestamps are dropped so --diff output is a clean patch.
ln -s "$dest" "$work/b"
status=0
(cd "$work" && diff -ruN a b) | sed -E 's/^((---|\+\+\+) [^\t]*)\t.*$/\1/' > "$work/diff" || status=$?
if [ "$status" -gt 1 ]; then
  echo "vendor-quickjs: diff failed" >&2
  exit 2
fi
if [ "$mode" = diff ]; then
  cat "$work/diff"
  [ -s "$work/diff" ] && exit 1
  exit 0
fi
if [ -s "$work/diff" ]; then
  {
    echo "vendor-quickjs: vendor/rquickjs-sys disagrees with rquickjs-sys $VERSION + vendor/patches/rquickjs-sys/*.patch"
    echo "(a: what the patches make, b: the tree). Either record the edit as a patch"
    echo "(tools/vendor-quickjs.sh --diff > vendor/patches/rquickjs-sys/NNNN-name.patch, then add a header)"
    echo "or run tools/vendor-quickjs.sh to rewrite the tree from the patches."
    echo
    head -n 200 "$work/diff"
    lines=$(wc -l < "$work/diff")
    if [ "$lines" -gt 200 ]; then
      echo "... ($lines lines in all; tools/vendor-quickjs.sh --diff prints them)"
    fi
  } >&2
  exit 1
fi
echo "vendor-quickjs: vendor/rquickjs-sys matches rquickjs-sys $VERSION + $(ls "$patches"/*.patch | wc -l | tr -d ' ') patches"
