#!/usr/bin/env bash
# The out-of-core measurement: a 10^8-position implicit game (crates/engine/examples/implicit.rs) solved in memory
# without a limit, then out of core with a memory budget 4x smaller than the in-memory footprint inside a memory
# cgroup. Prints both runs' totals, disk traffic, wall time and values checksum.
#   scripts/outofcore-measure.sh [N] [BUDGET_BYTES] [CGROUP_LIMIT] [WORK_DIR]
set -euo pipefail
n=${1:-100000000}
budget=${2:-32000000}
limit=${3:-64M}
work=${4:-/tmp/retro-outofcore-work}
here=$(cd "$(dirname "$0")/.." && pwd)
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-/work/target-outofcore}
cargo build --release -q -p retro-engine --example implicit --manifest-path "$here/Cargo.toml"
bin=$CARGO_TARGET_DIR/release/examples/implicit
mkdir -p "$work"
echo "== in memory, no limit"
"$here/scripts/outofcore-cgroup.sh" none "$bin" "$n"
echo "== out of core, --memory $budget, cgroup limit $limit, work dir $work"
"$here/scripts/outofcore-cgroup.sh" "$limit" "$bin" "$n" --memory "$budget" --work "$work"
