#!/usr/bin/env bash
# Table sizes and speeds on random graph games (the issue's shape: Poisson(3) moves, 99% to a lower position).
#
#   scripts/table-measure.sh                 # N = 10^5 10^6 10^7
#   SIZES="100000" scripts/table-measure.sh  # a quick run
#
# For each size: generate the table with 1 and 2 threads (the files must be byte-identical), then print raw sizes,
# file sizes, bits per position, wall time and peak RSS, and run `retro verify`. Ends with the probe benchmark.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
SIZES=${SIZES:-"100000 1000000 10000000"}
work=${WORK:-$(mktemp -d)}
mkdir -p "$work"
target=${CARGO_TARGET_DIR:-$here/target}
cargo build --release -q -p retro
cargo build --release -q -p retro-graph --example graph_bench
retro=$target/release/retro
gen=$target/release/examples/graph_bench
timed() { /usr/bin/time -f "%e s wall, %M KB peak RSS" "$@"; }

for n in $SIZES; do
  graph=$work/random$n.edges
  [[ -f $graph ]] || "$gen" gen "$n" 3 0.99 7 "$graph" >/dev/null
  for threads in 1 2; do
    echo "== random$n, $threads thread(s)"
    timed "$retro" generate graph "$graph" --edges --out "$work/t$threads" --threads "$threads" --quiet
  done
  for ext in rwdl rdst; do
    cmp "$work/t1/graph/random$n.$ext" "$work/t2/graph/random$n.$ext"
  done
  echo "1 and 2 threads wrote identical files"
  "$retro" info --tables "$work/t2" graph "random$n" --json | python3 -c '
import json, sys
i = json.load(sys.stdin)
p = i["positions"]
w, d, c, raw = i["files"]["wdl"], i["files"]["distance"], i["counts"]["all"], i["raw_bytes"]
print("positions %d: win %d draw %d loss %d, longest win %s" % (p, c["win"], c["draw"], c["loss"], i["longest"]["all"]["win"]))
print("raw: wdl %d bytes (2 bits/position), distance %d bytes (%s)" % (raw["wdl"], raw["distance"], d["encoding"]))
print("wdl file %d bytes = %.3f bits/position; distance file %d bytes = %.3f bits/position (with the graph payload of %d bytes raw)"
      % (w["bytes"], w["bits_per_position"], d["bytes"], d["bits_per_position"], i["payload_bytes"]))
'
  timed "$retro" verify --tables "$work/t2" graph "random$n"
done

echo "== probe benchmark (criterion)"
cargo bench -q -p retro-probe --bench probe -- --warm-up-time 1 --measurement-time 3 2>&1 | grep -E "synthetic|time:|thrpt:|^probe"
