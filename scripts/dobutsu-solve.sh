#!/usr/bin/env bash
# Solves Dobutsu shogi end to end with the CLI and prints the figures the issue asks for: for each thread count,
# the load average before and after (other work on the machine makes timings noisy), wall time, CPU time and peak
# RSS (/usr/bin/time -v), and generate's own report: the wall time of each phase (reachable search, legal counts
# outside the table, solve, counting, writing), positions per second of the solve, the start position's value,
# legal and reachable counts with the longest win and loss, table sizes. Then that the tables of all thread counts
# are identical, `retro info --json`, `retro probe startpos` and `retro verify`.
# Usage: scripts/dobutsu-solve.sh [OUT_DIR] [THREADS...]   (defaults: /tmp/dobutsu-tables, 2 1)
# Needs about 1 GB of memory and a few hundred MB of disk; a table is about 90 MB.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-/tmp/dobutsu-tables}"
shift || true
threads=("$@")
[ ${#threads[@]} -eq 0 ] && threads=(2 1)
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-/work/target-dobutsu}"
cargo build --release -p retro >/dev/null
retro="$CARGO_TARGET_DIR/release/retro"
for n in "${threads[@]}"; do
    dir="$out/threads-$n"
    rm -rf "$dir"
    mkdir -p "$out"
    echo "== retro generate dobutsu --threads $n"
    echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
    /usr/bin/time -v "$retro" generate dobutsu --out "$dir" --threads "$n" --quiet --census 2> "$dir.time" || { cat "$dir.time"; exit 1; }
    echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
    grep -E "Elapsed|Maximum resident|User time|System time|Percent of CPU" "$dir.time"
    ls -l "$dir/dobutsu/"
done
dir="$out/threads-${threads[0]}"
if [ ${#threads[@]} -gt 1 ]; then
    echo "== the tables of ${threads[*]} threads are identical:"
    for n in "${threads[@]:1}"; do
        cmp "$dir/dobutsu/dobutsu.rdst" "$out/threads-$n/dobutsu/dobutsu.rdst"
        cmp "$dir/dobutsu/dobutsu.rwdl" "$out/threads-$n/dobutsu/dobutsu.rwdl"
    done
    echo yes
fi
echo "== retro info --json"
"$retro" info --tables "$dir" dobutsu dobutsu --json
echo "== retro probe startpos"
"$retro" probe --tables "$dir" dobutsu startpos
echo "== retro verify"
/usr/bin/time -v "$retro" verify --tables "$dir" dobutsu dobutsu 2> "$dir.verify.time" || { cat "$dir.verify.time"; exit 1; }
grep -E "Elapsed|Maximum resident" "$dir.verify.time"
