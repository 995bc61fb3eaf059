#!/usr/bin/env bash
# Fuzzes the table reader with libFuzzer (cargo-fuzz, nightly toolchain) for FUZZ_SECONDS (default 300), starting
# from a corpus of real tables written by `retro generate graph` and a few small shipped chess files. Prints
# libFuzzer's count of inputs tried.
#
#   cargo install cargo-fuzz && rustup toolchain install nightly   # once
#   FUZZ_SECONDS=60 scripts/table-fuzz.sh
#
# Without nightly, the same entry point (retro_probe::fuzz::exercise) runs as a mutation loop in `cargo test`
# (crates/table/tests/mutations.rs).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
seconds=${FUZZ_SECONDS:-300}
fuzz=$here/crates/probe/fuzz
corpus=$fuzz/corpus/reader
mkdir -p "$corpus"
target=${CARGO_TARGET_DIR:-$here/target}
cargo build --release -q -p retro -p retro-graph --example graph_bench
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf 'a : b c\nb : c d\nc : a\nd :\ne : e\n' > "$work/small.txt"
"$target/release/examples/graph_bench" gen 3000 2 0.9 1 "$work/random.edges" >/dev/null
"$target/release/retro" generate graph "$work/small.txt" --out "$work/t" --quiet >/dev/null
"$target/release/retro" generate graph "$work/random.edges" --edges --out "$work/t" --quiet >/dev/null
"$target/release/retro" generate graph "$work/random.edges" --edges --misere --out "$work/m" --quiet >/dev/null
for f in "$work"/t/graph/* "$work"/m/graph/*; do
  cp "$f" "$corpus/seed-$(basename "$(dirname "$(dirname "$f")")")-$(basename "$f")"
done
# Small shipped chess files: WDL files of floors (version 6) with permuted blocks (layout 4), and a distance file.
for name in KBvKB.rwdl KNNvK.rwdl KQvK.rdst; do
  cp "tablebases/chess/chess/$name" "$corpus/seed-chess-$name"
done
cd "$fuzz"
cargo +nightly fuzz run reader -- -max_total_time="$seconds" -rss_limit_mb=2048 -print_final_stats=1 2>&1 |
  grep -E "^(#[0-9]+ +(INITED|DONE)|Done|stat::number_of_executed_units|stat::peak_rss|==[0-9]+== ERROR|SUMMARY)" || true
if compgen -G "$fuzz/artifacts/reader/*" >/dev/null; then
  echo "CRASHES (inputs in $fuzz/artifacts/reader):"
  ls "$fuzz/artifacts/reader"
  exit 1
fi
echo "no crash"
