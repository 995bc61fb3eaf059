#!/usr/bin/env bash
# `--memory X` bounds the whole build: chess KQRvKR (its sub-tables built first, untimed) and a random graph are
# built inside a memory cgroup whose limit is X, for several X, and must never be killed and must give the bytes of
# an unlimited build. (The graph itself, read from its file, is the game's own data and held besides: the random
# graph is kept small.) Needs root and a cgroup memory controller (see scripts/outofcore-cgroup.sh).
#   scripts/budget-cgroup.sh [BUDGETS...]        default: 64M 128M 183M 256M
set -euo pipefail
budgets=("$@")
[ ${#budgets[@]} -gt 0 ] || budgets=(64M 128M 183M 256M)
here=$(cd "$(dirname "$0")/.." && pwd)
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$here/target}
cargo build --release -q -p retro --manifest-path "$here/Cargo.toml"
retro=$CARGO_TARGET_DIR/release/retro
work=${BUDGET_CGROUP_DIR:-/tmp/retro-budget-cgroup}
rm -rf "$work" && mkdir -p "$work/base"
fail() { echo "budget-cgroup: $*" >&2; exit 1; }
"$retro" generate chess KQRvKR --out "$work/base" --threads 2 --quiet > /dev/null
python3 - "$work/random.txt" <<'PY'
import random, sys
random.seed(17)
n = 500_000
with open(sys.argv[1], "w") as f:
    for u in range(n):
        for _ in range(random.randint(0, 4)):
            f.write(f"{u} {random.randrange(n)}\n")
PY
"$retro" generate graph "$work/random.txt" --edges --out "$work/base" --threads 2 --quiet > /dev/null
printf '%-8s %-10s %12s %10s %5s %9s\n' budget table peak_MB seconds oom bytes
for budget in "${budgets[@]}"; do
    for what in chess graph; do
        out=$work/$budget-$what
        mkdir -p "$out"
        if [ "$what" = chess ]; then
            cp -r "$work/base/chess" "$out/" && rm "$out/chess/KQRvKR".*
            command=("$retro" generate chess KQRvKR --table KQRvKR --out "$out" --memory "$budget" --threads 2 --quiet)
            files=(chess/KQRvKR.rwdl chess/KQRvKR.rdst)
        else
            command=("$retro" generate graph "$work/random.txt" --edges --out "$out" --memory "$budget" --threads 2 --quiet)
            files=(graph/random.rwdl graph/random.rdst)
        fi
        line=$({ "$here/scripts/outofcore-cgroup.sh" "$budget" "${command[@]}" 2>"$out/stderr" || true; } | tail -1)
        read -r _ peak _ seconds _ status _ kills <<< "$line"
        same=-
        if [ "$status" = 0 ]; then
            same=identical
            for f in "${files[@]}"; do cmp -s "$work/base/$f" "$out/$f" || same=DIFFERENT; done
        fi
        printf '%-8s %-10s %12.1f %10.1f %5s %9s\n' "$budget" "$what" "$(echo "$peak / 1000000" | bc -l)" "$seconds" \
            "$kills" "$same"
        if [ "$status" != 0 ]; then
            # A refusal naming the least budget is allowed; a kill is not.
            grep -q 'give --memory' "$out/stderr" || fail "$budget $what: exit $status: $(tail -1 "$out/stderr")"
            echo "         refused: $(tail -1 "$out/stderr")"
            continue
        fi
        [ "$kills" = 0 ] || fail "$budget $what: OOM-killed"
        [ "$same" = identical ] || fail "$budget $what: other bytes than the unlimited build"
    done
done
echo "budget-cgroup: ok"
