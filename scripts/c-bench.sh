#!/usr/bin/env bash
# Warm win/draw/loss (and distance) probes per second and per thread through retro's C API, on the shipped 3- and
# 4-man chess tables: builds the release library, compiles examples/c/bench.c against it and runs it.
#
#   scripts/c-bench.sh [SECONDS] [THREADS] [wdl|dtm|both] [MEN,...]   (see examples/c/bench.c)
#   scripts/c-bench.sh 1 1 cold [MEN,...]   cold DTM probes: each on a new handle (the table opened by the probe),
#                                           then on open tables with no block cached (one block decompressed)
# TABLES=DIR probes the tables of DIR instead of the shipped ones (e.g. five-man tables: MEN "QRr,RNn").
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -p retro-c
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
"${CC:-cc}" -O2 examples/c/bench.c -Icrates/c/include -Ltarget/release -lretro_c -lpthread -o "$out/bench"
LD_LIBRARY_PATH=target/release "$out/bench" "${TABLES:-tablebases/chess}" "${1:-2}" "${2:-1}" ${3:-both} ${4:-}
