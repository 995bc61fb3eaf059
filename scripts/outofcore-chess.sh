#!/usr/bin/env bash
# A chess table built in memory without a limit, then out of core inside a memory cgroup (issue 7): by default
# KQRvKR, whose in-memory build peaks near 750 MB, inside a 188 MB cgroup (4x smaller) with --memory 128M (the
# cgroup also holds the page cache of the files the build writes, the sub-tables and what the engine does not count).
# Its sub-tables are built first, once, untimed. Prints both runs' wall time and peak (from the cgroup), their ratio,
# the disk traffic the engine reports, and whether the two tables are byte for byte the same.
#   scripts/outofcore-chess.sh [MATERIAL] [CGROUP_LIMIT] [MEMORY] [THREADS]
set -euo pipefail
material=${1:-KQRvKR}
limit=${2:-188M}
memory=${3:-128M}
threads=${4:-2}
here=$(cd "$(dirname "$0")/.." && pwd)
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$here/target}
cargo build --release -q --bin retro --manifest-path "$here/Cargo.toml"
bin=$CARGO_TARGET_DIR/release/retro
dir=${OUTOFCORE_CHESS_DIR:-/tmp/retro-outofcore-chess}
rm -rf "$dir" && mkdir -p "$dir/base"
"$bin" generate chess "$material" --out "$dir/base" --threads "$threads" --quiet > "$dir/base.txt"
name=$(tail -3 "$dir/base.txt" | sed -n 's/^chess \([^:]*\):.*/\1/p' | head -1)
rm "$dir/base/chess/$name".*
for run in memory sliced; do
    mkdir -p "$dir/$run/chess"
    cp "$dir/base/chess/"* "$dir/$run/chess/"
done
echo "== $name in memory, no limit"
"$here/scripts/outofcore-cgroup.sh" none "$bin" generate chess "$name" --out "$dir/memory" --threads "$threads" \
    --quiet | tee "$dir/memory.txt"
echo "== $name out of core: --memory $memory, cgroup limit $limit"
"$here/scripts/outofcore-cgroup.sh" "$limit" "$bin" generate chess "$name" --out "$dir/sliced" --threads "$threads" \
    --memory "$memory" --work "$dir/work" | tee "$dir/sliced.txt"
wall() { sed -n 's/.*wall_seconds \([0-9.]*\).*/\1/p' "$1"; }
echo "out of core / in memory wall time: $(echo "scale=2; $(wall "$dir/sliced.txt") / $(wall "$dir/memory.txt")" | bc)"
for ext in rwdl rdst; do
    if cmp -s "$dir/memory/chess/$name.$ext" "$dir/sliced/chess/$name.$ext"; then
        echo "$name.$ext: identical ($(stat -c %s "$dir/memory/chess/$name.$ext") bytes)"
    else
        echo "$name.$ext: DIFFERENT"
        exit 1
    fi
done
