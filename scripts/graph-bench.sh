#!/usr/bin/env bash
# Long check of the graph side (not part of CI): writes the benchmark graph (10^7 positions, Poisson(3) moves, 99% to
# a lower-numbered position, 1% anywhere), then for 1 and 2 threads reads it, computes its generalized Sprague-Grundy
# values, and solves it with the engine to check that every position's outcome from γ is the engine's.
#
#   scripts/graph-bench.sh [N] [WORK_DIR]        (default N = 10000000, WORK_DIR = a temporary directory)
set -euo pipefail
n=${1:-10000000}
work=${2:-$(mktemp -d)}
cd "$(dirname "$0")/.."
cargo build --release -p retro-graph --example graph_bench
bench="${CARGO_TARGET_DIR:-target}/release/examples/graph_bench"
file="$work/random-$n.edges"
[ -f "$file" ] || "$bench" gen "$n" 3 0.99 7 "$file"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for threads in 1 2; do
    /usr/bin/time -f "whole process: wall %e s, user %U s, sys %S s, peak RSS %M KB" "$bench" bench "$file" "$threads" --check
done
