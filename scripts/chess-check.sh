#!/usr/bin/env bash
# Long chess checks that do not fit in CI:
#  - move generation against shakmaty on 10^6 random legal positions (plus their en-passant successors),
#    un-moves against moves;
#  - the index round trip on every index of KBNvK, KPvKP and KNNvK (CI samples them);
#  - the reference tests (Syzygy WDL position by position, counts, histograms, longest mates, certificate).
# Usage: scripts/chess-check.sh   (from the repository root; uses $CARGO_TARGET_DIR if set)
set -euo pipefail
cd "$(dirname "$0")/.."
export RETRO_CHESS_POSITIONS=$((1000000 / 14 + 1))
export RETRO_CHESS_FULL_ROUND_TRIP=1
cargo test --release -p retro-chess -- --nocapture 2>&1 | grep -E "compared|test result|panicked|FAILED|indices" 
