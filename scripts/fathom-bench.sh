#!/usr/bin/env bash
# Warm win/draw/loss probes per second through retro's C API beside Fathom, the Syzygy probing library chess engines
# use, on the same random positions of the same 3- and 4-man materials (those of examples/c/bench.c), after checking
# that the two libraries give the same answers: builds the release library, compiles scripts/fathom-bench.c with
# Fathom's tbprobe.c and runs it (see scripts/fathom-bench.c for what it prints).
#
#   FATHOM=DIR SYZYGY=DIR scripts/fathom-bench.sh [SECONDS] [REPS] [MEN,...]
#     SECONDS  each timed run (default 2); REPS  rounds of retro then Fathom (default 3)
#     MEN,...  the materials, each by its men besides the kings, White's in capitals ("Q,Rr": KQvK and KRvKR)
#   FATHOM   top level of a copy of Fathom (the directory with src/tbprobe.c); it is not part of retro and is not
#            downloaded here: git clone https://github.com/jdart1/Fathom (MIT license)
#   SYZYGY   a directory with the Syzygy WDL tables (.rtbw) of every 3- and 4-man material (Fathom probes the
#            sub-tables a capture reaches). Make them with the Syzygy generator (git clone https://github.com/syzygy1/tb;
#            `make rtbgen rtbgenp` in its src/), in that directory, sub-tables first (what src/run.py --max 4 does):
#              cd $SYZYGY && RTBPATH=. rtbgen -t 1 KQvK; ...; RTBPATH=. rtbgenp -t 1 KPvKP
#            (rtbgenp for the materials with a pawn; each also writes its DTZ table .rtbz, unused here)
# TABLES=DIR probes retro's tables of DIR instead of the shipped ones (tablebases/chess). CC picks the compiler.
#
# Fathom is compiled with -march=x86-64-v2, the level retro is built at (.cargo/config.toml), so both count men with
# the POPCNT instruction (Fathom uses _mm_popcnt_u64 when SSE4.2 is on); with -DTB_NO_HELPER_API, which leaves out
# the helper functions its README tells engines to leave out; and with -DNDEBUG, which turns off its assert()s (some
# on the probe's path), as a release build of retro has no debug assertions.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ -z "${FATHOM:-}" ]]; then
    echo "fathom-bench: FATHOM is unset: set it to a copy of Fathom (git clone https://github.com/jdart1/Fathom)" >&2
    exit 2
elif [[ ! -f "$FATHOM/src/tbprobe.c" ]]; then
    echo "fathom-bench: FATHOM=$FATHOM has no src/tbprobe.c: set it to a copy of Fathom's repository" >&2
    exit 2
elif [[ -z "${SYZYGY:-}" ]]; then
    echo "fathom-bench: SYZYGY is unset: set it to a directory of Syzygy 3- and 4-man tables (see this script)" >&2
    exit 2
elif ! compgen -G "$SYZYGY/*.rtbw" > /dev/null; then
    echo "fathom-bench: SYZYGY=$SYZYGY has no Syzygy WDL table (*.rtbw): see this script for making them" >&2
    exit 2
fi
cargo build --release -p retro-c
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
"${CC:-cc}" -std=gnu99 -O2 -march=x86-64-v2 -DTB_NO_HELPER_API -DNDEBUG -I"$FATHOM/src" -Icrates/c/include \
    scripts/fathom-bench.c "$FATHOM/src/tbprobe.c" -Ltarget/release -lretro_c -lpthread -o "$out/fathom-bench"
LD_LIBRARY_PATH=target/release "$out/fathom-bench" "${TABLES:-tablebases/chess}" "$SYZYGY" "${1:-2}" "${2:-3}" ${3:-}
