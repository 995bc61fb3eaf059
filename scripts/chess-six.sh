#!/usr/bin/env bash
# A six-man chess table (issue 7): by default KRNvKNN (6.7 · 10^9 indices) with --memory 16G. Its five-man
# sub-tables are built first, in the same directory. A table whose arrays fit the budget (KRNvKNN: two bytes a cell
# and three bitmaps, 15.95 GB) is built in memory; a larger one out of core in OUT/.retro-work, with checkpoints:
# running the same command again after a kill resumes from the last completed generation.
# Prints the build's own report, then wall time, peak RSS and the disk traffic of the whole process
# (/usr/bin/time's file system inputs and outputs are 512-byte blocks), then verifies the table.
#
#   scripts/chess-six.sh [MATERIAL] [OUT_DIR] [MEMORY] [THREADS]
set -euo pipefail
material=${1:-KRNvKNN}
out=${2:-/work/tb6}
memory=${3:-16G}
threads=${4:-2}
here=$(cd "$(dirname "$0")/.." && pwd)
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$here/target}
cargo build --release -q --bin retro --manifest-path "$here/Cargo.toml"
bin=$CARGO_TARGET_DIR/release/retro
mkdir -p "$out"
echo "== generate chess $material --memory $memory --threads $threads ($(date -u +%FT%TZ))"
/usr/bin/time -f "wall %e s, user %U s, peak RSS %M KiB, fs inputs %I, fs outputs %O (512-byte blocks)" \
    "$bin" generate chess "$material" --out "$out" --memory "$memory" --threads "$threads"
ls -l "$out/chess/"
echo "== verify ($(date -u +%FT%TZ))"
/usr/bin/time -f "wall %e s, user %U s, peak RSS %M KiB" \
    "$bin" verify --tables "$out" chess "$material" --memory "$memory" --threads "$threads"
