#!/usr/bin/env bash
# Speed and size of chess tables: for each material, wall time and peak RSS with 1 and 2 threads (its sub-tables
# are built first, untimed, and copied in), index size, positions, positions per second, file sizes, bits per
# position. Usage: scripts/chess-bench.sh [MATERIAL ...]   (default: every 4-man table and KQRvKR KRBvKR KBBvKN KRPvKR)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -p retro >/dev/null
RETRO="${CARGO_TARGET_DIR:-target}/release/retro"
WORK="${CHESS_BENCH_DIR:-/tmp/chess-bench}"
mkdir -p "$WORK/base"
if [ $# -gt 0 ]; then
  MATERIALS=("$@")
else
  MATERIALS=(KBBvK KBNvK KBPvK KBvKB KBvKN KBvKP KNNvK KNPvK KNvKN KNvKP KPPvK KQBvK KQNvK KQPvK KQQvK KQRvK KQvKB
             KQvKN KQvKP KQvKQ KQvKR KRBvK KRNvK KRPvK KRRvK KRvKB KRvKN KRvKP KRvKR KQRvKR KRBvKR KBBvKN KRPvKR)
fi
printf "%-8s %7s %12s %10s %9s %9s %11s %10s %9s %10s %9s\n" material threads indices positions wall_s rss_MB \
  "Mpos/s" wdl_bytes wdl_bits dist_bytes dist_bits
for m in "${MATERIALS[@]}"; do
  # Sub-tables, once, untimed: generate builds the whole tree; the table itself is removed again below.
  "$RETRO" generate chess "$m" --out "$WORK/base" >/dev/null
  name=$(ls "$WORK/base/chess" | grep -i -x "$m.rwdl" | sed 's/.rwdl$//' || true)
  [ -n "$name" ] || name=$("$RETRO" info --tables "$WORK/base" chess "$m" --json | sed 's/.*"name":"\([^"]*\)".*/\1/')
  for threads in 1 2; do
    run="$WORK/run"
    rm -rf "$run" && mkdir -p "$run/chess"
    for f in "$WORK/base/chess/"*; do
      case "$(basename "$f")" in "$name".rwdl|"$name".rdst) ;; *) ln -s "$f" "$run/chess/" ;; esac
    done
    /usr/bin/time -v "$RETRO" generate chess "$m" --out "$run" --threads "$threads" > "$WORK/out.txt" 2> "$WORK/time.txt"
    wall=$(grep "Elapsed (wall clock)" "$WORK/time.txt" | awk '{print $NF}' | awk -F: '{ if (NF==3) print $1*3600+$2*60+$3; else print $1*60+$2 }')
    rss=$(grep "Maximum resident" "$WORK/time.txt" | awk '{print $NF}')
    line=$(grep "^chess $name:" "$WORK/out.txt")
    indices=$(echo "$line" | sed 's/.*: \([0-9]*\) indices.*/\1/')
    positions=$(echo "$line" | sed 's/.* \([0-9]*\) positions.*/\1/')
    wdl=$(stat -c %s "$run/chess/$name.rwdl"); dist=$(stat -c %s "$run/chess/$name.rdst")
    awk -v m="$name" -v t="$threads" -v i="$indices" -v p="$positions" -v w="$wall" -v r="$rss" -v wb="$wdl" -v db="$dist" \
      'BEGIN { printf "%-8s %7d %12d %10d %9.2f %9.1f %11.3f %10d %9.3f %10d %9.3f\n", m, t, i, p, w, r/1024, p/w/1e6, wb, wb*8/p, db, db*8/p }'
  done
done
