#!/usr/bin/env bash
# A long check of distance files of one side to move (`--one-side`, format version 5) on tables too large for the
# test suite: for each material, a copy of its files in a scratch directory (beside links to every other table of
# DIR) is rewritten with `retro repack --one-side`, then `retro verify` certifies every position of the copy (the
# side left out found by searching its moves), and `retro info --json` must give the same counts and histogram as
# the original. Prints the sizes of both distance files.
#
#   scripts/one-side-check.sh DIR MATERIAL...     e.g. scripts/one-side-check.sh /work/tb5 KBBvKR KQvKR
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
if [[ $# -lt 2 ]]; then
  echo "usage: $0 DIR MATERIAL..." >&2
  exit 2
fi
dir=$(cd "$1" && pwd)
shift
target=${CARGO_TARGET_DIR:-$here/target}
(cd "$here" && cargo build --release -q -p retro)
retro=$target/release/retro
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/chess"
for file in "$dir"/chess/*.rwdl "$dir"/chess/*.rdst; do
  ln -s "$file" "$scratch/chess/"
done
# The histogram and counts of `info --json`, without the fields that name files or versions.
facts() {
  "$retro" info --json --tables "$1" chess "$2" | python3 -c '
import json, sys
info = json.load(sys.stdin)
print(json.dumps({k: info[k] for k in ("counts", "longest", "histogram")}, sort_keys=True))'
}
for material in "$@"; do
  for ext in rwdl rdst; do
    rm "$scratch/chess/$material.$ext"
    cp "$dir/chess/$material.$ext" "$scratch/chess/"
  done
  /usr/bin/time -f "repack: %e s, %M KB peak" "$retro" repack --one-side --tables "$scratch" chess "$material"
  /usr/bin/time -f "verify: %e s, %M KB peak" "$retro" verify --tables "$scratch" chess "$material"
  if [[ "$(facts "$dir" "$material")" != "$(facts "$scratch" "$material")" ]]; then
    echo "$material: info differs between both sides and one side" >&2
    exit 1
  fi
  echo "$material: both sides $(stat -c %s "$dir/chess/$material.rdst") bytes, one side" \
    "$(stat -c %s "$scratch/chess/$material.rdst") bytes: verified, same counts and histogram"
done
