#!/usr/bin/env bash
# Builds Connect Four boards with the release binary and reports, for each, the wall time and peak memory
# (/usr/bin/time) and the start position's value and table totals (`retro info --json`).
# Usage: scripts/connect4-boards.sh OUT_DIR BOARD... [-- generate options]   e.g. scripts/connect4-boards.sh /tmp/c4 7x4 6x5
# Measured on 2 cores: 6x5 in 48 min, 4.1 GB peak, 1.47 GB of tables; with CENSUS=1 its census adds 20 min and
# needs 19.5 GB (games/connect4/README.md).
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:?usage: $0 OUT_DIR BOARD...}"
shift
cargo build --release -q -p retro
retro="${CARGO_TARGET_DIR:-target}/release/retro"
mkdir -p "$out"
for board in "$@"; do
    echo "== retro generate connect4 $board ($(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg))"
    /usr/bin/time -f "$board: %e s wall, %U s user, %M KB peak" \
        "$retro" generate connect4 "$board" --out "$out" --quiet ${CENSUS:+--census} > "$out/$board.log" 2> "$out/$board.time" \
        || { cat "$out/$board.time"; exit 1; }
    tail -n 1 "$out/$board.time"
    grep -v '^  ' "$out/$board.log" | tail -n 3
    "$retro" info --tables "$out" connect4 "$board" --json | sed 's/,"tables":.*//'
done
