#!/usr/bin/env bash
# Sizes of the chess tables up to 4 men: WDL and distance file per table, the total (which must stay under 20 MB for
# tablebases/chess/), and the WDL files against Syzygy's .rtbw files in ../shared/reference/chess/ (the issue's
# target: within 3x).
#
#   scripts/table-sizes.sh              # generate --all 4 --compact into a fresh directory (a few minutes), then report
#   TABLES=/tmp/t4 scripts/table-sizes.sh   # report on tables already generated (DIR/chess/*.rwdl)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
target=${CARGO_TARGET_DIR:-$here/target}
cargo build --release -q -p retro
retro=$target/release/retro
if [[ -z ${TABLES:-} ]]; then
  TABLES=$(mktemp -d)
  /usr/bin/time -f "generate --all 4: %e s wall, %M KB peak RSS" \
    "$retro" generate chess --all 4 --out "$TABLES" --threads 2 --quiet --compact
fi
reference=$here/../shared/reference/chess
total=0
printf "%-8s %10s %11s %8s\n" table wdl distance syzygy
for wdl in "$TABLES"/chess/*.rwdl; do
  name=$(basename "$wdl" .rwdl)
  w=$(stat -c %s "$wdl")
  d=$(stat -c %s "$TABLES/chess/$name.rdst")
  total=$((total + w + d))
  syzygy=-
  if [[ -f $reference/$name.rtbw ]]; then
    s=$(stat -c %s "$reference/$name.rtbw")
    syzygy=$(python3 -c "print('%d (%.2fx)' % ($s, $w / $s))")
  fi
  printf "%-8s %10d %11d %s\n" "$name" "$w" "$d" "$syzygy"
done
echo "total: $total bytes ($(python3 -c "print('%.2f' % ($total / 1e6))") MB)"
"$retro" verify --tables "$TABLES" chess KRvKR
