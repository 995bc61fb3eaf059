#!/usr/bin/env bash
# `retro plan`'s estimates against measured builds: for each table, its sub-tables are built first (untimed), then
# the table alone (`generate --table`) under /usr/bin/time; prints the plan's time and memory beside the measured
# wall time and peak resident memory, and their ratios.
#   scripts/plan-check.sh [THREADS] [GAME:VARIANT:TABLE ...]
# Default: chess KRRvKR, KQPvK and KBBvKN (none of them the tables the rates were measured on), Connect Four 5x5 with 12 stones.
set -euo pipefail
threads=${1:-2}
shift || true
cases=("$@")
if [ ${#cases[@]} -eq 0 ]; then
    cases=(chess:KRRvKR:KRRvKR chess:KQPvK:KQPvK chess:KBBvKN:KBBvKN connect4:5x5:5x5-12)
fi
here=$(cd "$(dirname "$0")/.." && pwd)
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$here/target}
cargo build --release -q -p retro --manifest-path "$here/Cargo.toml"
retro=$CARGO_TARGET_DIR/release/retro
work=${PLAN_CHECK_DIR:-/tmp/retro-plan-check}
rm -rf "$work" && mkdir -p "$work"
json_field() { # FILE TABLE FIELD: a number of the table's entry in `plan --json`
    python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); t=[t for t in p["tables"] if t["name"]==sys.argv[2]][0]; print(t[sys.argv[3]])' "$@"
}
printf '%-22s %10s %10s %6s %12s %12s %6s\n' table "plan s" "built s" ratio "plan MB" "peak MB" ratio
for case in "${cases[@]}"; do
    IFS=: read -r game variant table <<< "$case"
    out=$work/$game-$variant
    mkdir -p "$out"
    "$retro" plan "$game" "$variant" --threads "$threads" --json > "$out/plan.json"
    # The sub-tables, untimed: the whole variant, then the table itself removed.
    "$retro" generate "$game" "$variant" --out "$out" --threads "$threads" --quiet > /dev/null
    rm -f "$out/$game/$table".*
    /usr/bin/time -f '%e %M' -o "$out/time.txt" \
        "$retro" generate "$game" "$variant" --table "$table" --out "$out" --threads "$threads" --quiet > /dev/null
    read -r seconds kib < "$out/time.txt"
    plan_seconds=$(json_field "$out/plan.json" "$table" seconds)
    plan_bytes=$(json_field "$out/plan.json" "$table" memory_request_bytes)
    python3 - "$game $table" "$plan_seconds" "$seconds" "$plan_bytes" "$kib" <<'PY'
import sys
name, ps, s, pb, kib = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
peak = kib * 1024
print(f"{name:<22} {ps:10.2f} {s:10.2f} {s / max(ps, 1e-9):6.2f} {pb / 1e6:12.1f} {peak / 1e6:12.1f} {peak / pb:6.2f}")
PY
done
