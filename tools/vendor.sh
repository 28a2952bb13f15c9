#!/usr/bin/env bash
# Regenerates the vendored crates under vendor/: each is a crates.io crate (the version and
# checksum pinned below), pruned to the files listed for it, plus vendor/patches/<crate>/*.patch
# applied in order. A crate's VENDORED.md is the one hand-written file in its directory and is
# kept as it is. `[patch.crates-io]` in Cargo.toml and fuzz/Cargo.toml points at these trees,
# which are committed, so a fresh clone builds with no extra step; CI's --check guards them.
#
#   tools/vendor.sh CRATE... | --all          rewrite the trees (only the files that change)
#   tools/vendor.sh CRATE... | --all --check  exit 1 if a tree is not what its patches make (CI)
#   tools/vendor.sh CRATE --diff              print that difference as a patch, to record an edit
#                                             made in place as a new vendor/patches/<crate>/ file
#
# The crates come from Cargo's download cache; those not there are fetched by a throwaway project.
# vendor/README.md says how to change a patch and how to upgrade a crate.
set -euo pipefail
export LC_ALL=C

CRATES=(rquickjs-sys swc_ecma_parser swc_ecma_transforms_base swc_ecma_transforms_typescript)

# Sets VERSION, SHA256 (the crates.io index's `cksum`: the sha256 of the .crate Cargo downloads;
# the version must be the one Cargo.lock records for the crate) and KEEP (paths in the crate,
# a trailing / for a whole directory) for the crate named $1.
crate_config() {
  case "$1" in
    rquickjs-sys)
      VERSION=0.14.0
      SHA256=cee271d0eeba64f0915b846cb7ae02e16faf3dfdffdca91731101d9d30fe3423
      # What build.rs reads for native targets (its header_files and source_files); the crate's
      # QuickJS tests, docs, tools, qjs/libc sources, wasm32 libc and shim are left out.
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
      ;;
    # The swc crates whole, but for the Cargo.lock and .cargo_vcs_info.json `cargo package` adds
    # (a path dependency's lock file is never read; the upstream commit is in VENDORED.md).
    swc_ecma_parser)
      VERSION=47.0.0
      SHA256=7ad049339465686a7526cba8e355a13f7422a66dd05f3e0887f33fed84fba69a
      KEEP=(Cargo.toml Cargo.toml.orig examples/ src/)
      ;;
    swc_ecma_transforms_base)
      VERSION=51.0.0
      SHA256=095add0bcc6ec0efb1dfb2ddea464a7b95a01039f9bb65236115f6fe6e6ef837
      KEEP=(Cargo.toml Cargo.toml.orig src/)
      ;;
    swc_ecma_transforms_typescript)
      VERSION=57.0.0
      SHA256=06cfaec2690cb67e166903cfd4400b9e038bd8970bd4f21f47a3eedc142f8d0d
      KEEP=(Cargo.toml Cargo.toml.orig examples/ src/)
      ;;
    *)
      echo "vendor: no vendored crate named '$1' (known: ${CRATES[*]})" >&2
      exit 2
      ;;
  esac
}

usage() {
  echo "usage: $0 CRATE... | --all  [--check | --diff]   (crates: ${CRATES[*]})" >&2
  exit 2
}

mode=write
names=()
for arg in "$@"; do
  case "$arg" in
    --check) mode=check ;;
    --diff) mode=diff ;;
    --all) names+=("${CRATES[@]}") ;;
    -*) usage ;;
    *) crate_config "$arg"; names+=("$arg") ;;
  esac
done
[ "${#names[@]}" -gt 0 ] || usage
if [ "$mode" = diff ] && [ "${#names[@]}" -ne 1 ]; then
  echo "vendor: --diff takes one crate (its output is that crate's patch)" >&2
  exit 2
fi

root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cache_crate() { # name version
  ls "${CARGO_HOME:-$HOME/.cargo}"/registry/cache/*/"$1-$2.crate" 2>/dev/null | head -n 1 || true
}

# One throwaway project fetches every crate missing from the cache.
missing=()
for name in "${names[@]}"; do
  crate_config "$name"
  [ -n "$(cache_crate "$name" "$VERSION")" ] || missing+=("$name = \"=$VERSION\"")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "vendor: fetching ${missing[*]} from crates.io" >&2
  mkdir -p "$work/fetch/src"
  # [workspace]: its own root, whatever directory holds the temp dir.
  {
    printf '[package]\nname = "vendor-fetch"\nversion = "0.0.0"\nedition = "2021"\n\n[dependencies]\n'
    printf '%s\n' "${missing[@]}"
    printf '\n[workspace]\n'
  } > "$work/fetch/Cargo.toml"
  : > "$work/fetch/src/lib.rs"
  (cd "$work/fetch" && cargo fetch --quiet)
fi

sha256() {
  if command -v sha256sum > /dev/null; then
    sha256sum "$1" | cut -d' ' -f1
  else
    shasum -a 256 "$1" | cut -d' ' -f1
  fi
}

# Writes the pristine crate plus its patches to $work/$name/a.
generate() { # name
  local name=$1 crate sum p
  crate_config "$name"
  crate=$(cache_crate "$name" "$VERSION")
  [ -n "$crate" ] || { echo "vendor: cargo fetch left no $name-$VERSION.crate" >&2; exit 1; }
  sum=$(sha256 "$crate")
  if [ "$sum" != "$SHA256" ]; then
    echo "vendor: $crate has sha256 $sum, expected $SHA256" >&2
    exit 1
  fi
  mkdir -p "$work/$name"
  # The pristine files, pruned as they come out. -m: extraction time as mtime, so Cargo's
  # rerun-if-changed sees a rewritten file as new (the crates' own mtimes are from 2006).
  tar -xzmf "$crate" -C "$work/$name" "${KEEP[@]/#/$name-$VERSION/}"
  mv "$work/$name/$name-$VERSION" "$work/$name/a"
  for p in "$root/vendor/patches/$name"/*.patch; do
    [ -e "$p" ] || continue
    # The ceiling keeps git from taking a repository above the temp dir for this tree.
    if ! (cd "$work/$name/a" && GIT_CEILING_DIRECTORIES="$work" git apply --whitespace=nowarn "$p"); then
      echo "vendor: ${p#"$root"/} does not apply to $name $VERSION (see vendor/README.md, Upgrading)" >&2
      exit 1
    fi
  done
  if [ -f "$root/vendor/$name/VENDORED.md" ]; then
    cp "$root/vendor/$name/VENDORED.md" "$work/$name/a/VENDORED.md"
  fi
}

status=0
for name in "${names[@]}"; do
  generate "$name"
  new=$work/$name/a
  dest=$root/vendor/$name

  if [ "$mode" = write ]; then
    mkdir -p "$dest"
    # Only changed files are written, so a no-op run does not make Cargo rebuild the crate.
    (cd "$new" && find . -type f) | while IFS= read -r f; do
      if ! cmp -s "$new/$f" "$dest/$f"; then
        mkdir -p "$(dirname "$dest/$f")"
        cp "$new/$f" "$dest/$f"
        echo "wrote vendor/$name/${f#./}"
      fi
    done
    (cd "$dest" && find . -type f) | while IFS= read -r f; do
      if [ ! -e "$new/$f" ]; then
        rm "$dest/$f"
        echo "removed vendor/$name/${f#./}"
      fi
    done
    find "$dest" -mindepth 1 -type d -empty -delete
    continue
  fi

  # a: what the patches make, b: the tree. Timestamps are dropped so --diff output is a clean patch.
  ln -s "$dest" "$work/$name/b"
  diff_status=0
  (cd "$work/$name" && diff -ruN a b) | sed -E 's/^((---|\+\+\+) [^\t]*)\t.*$/\1/' > "$work/$name.diff" || diff_status=$?
  if [ "$diff_status" -gt 1 ]; then
    echo "vendor: diff failed for $name" >&2
    exit 2
  fi
  # diff -N shows an empty file that only one side has as no change; name such files.
  (cd "$work/$name" && comm -3 <(cd a && find . -type f | sort) <(cd b && find . -type f | sort)) |
    sed -E 's/^\t/only in vendor\/'"$name"': /; s/^([^o])/only in what the patches make: \1/' > "$work/$name.only"
  if [ "$mode" = diff ]; then
    cat "$work/$name.diff"
    cat "$work/$name.only" >&2
    [ -s "$work/$name.diff" ] || [ -s "$work/$name.only" ] && exit 1
    exit 0
  fi
  cat "$work/$name.only" >> "$work/$name.diff"
  count=$(compgen -G "$root/vendor/patches/$name/*.patch" | wc -l | tr -d ' ') || count=0
  if [ -s "$work/$name.diff" ]; then
    {
      echo "vendor: vendor/$name disagrees with $name $VERSION + vendor/patches/$name/*.patch"
      echo "(a: what the patches make, b: the tree). Either record the edit as a patch"
      echo "(tools/vendor.sh $name --diff > vendor/patches/$name/NNNN-name.patch, then add a header)"
      echo "or run tools/vendor.sh $name to rewrite the tree from the patches."
      echo
      head -n 200 "$work/$name.diff"
      lines=$(wc -l < "$work/$name.diff")
      if [ "$lines" -gt 200 ]; then
        echo "... ($lines lines in all; tools/vendor.sh $name --diff prints them)"
      fi
    } >&2
    status=1
  else
    echo "vendor: vendor/$name matches $name $VERSION + $count patch$([ "$count" = 1 ] || echo es)"
  fi
done
exit "$status"
