#!/usr/bin/env bash
# Sizes of the chess tables up to 4 men: WDL and distance file per table, the total (which must stay under 20 MB for
# tablebases/chess/), and each WDL file against Syzygy's (the target: at most theirs, the set at most 0.8x). Works
# for any directory of chess tables: TABLES=/work/all5/tables scripts/table-sizes.sh for the 5-man set.
#
#   scripts/table-sizes.sh              # generate --all 4 as shipped into a fresh directory (a few minutes), then report
#   TABLES=/tmp/t4 scripts/table-sizes.sh   # report on tables already generated (DIR/chess/*.rwdl)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
target=${CARGO_TARGET_DIR:-$here/target}
cargo build --release -q -p retro
retro=$target/release/retro
if [[ -z ${TABLES:-} ]]; then
  TABLES=$(mktemp -d)
  # The options of the shipped set (tablebases/chess).
  /usr/bin/time -f "generate --all 4: %e s wall, %M KB peak RSS" \
    "$retro" generate chess --all 4 --out "$TABLES" --threads 2 --quiet --compact --one-side --distance-block 16384
fi
# Sizes against Syzygy's published WDL files (games/chess/tests/data/syzygy-wdl-bytes.tsv); Syzygy names the stronger
# side first, as retro does, but a few materials the other way round.
python3 - "$TABLES/chess" "$here/games/chess/tests/data/syzygy-wdl-bytes.tsv" <<'PY'
import os, sys
tables, listed = sys.argv[1], sys.argv[2]
syzygy = dict((name, int(size)) for name, size in
              (line.split('\t') for line in open(listed) if not line.startswith('#')))
print('%-8s %11s %12s %11s %6s' % ('table', 'wdl', 'distance', 'syzygy', 'ratio'))
total = wdl_total = syzygy_total = over = 0
for name in sorted(f[:-5] for f in os.listdir(tables) if f.endswith('.rwdl')):
    w = os.path.getsize(os.path.join(tables, name + '.rwdl'))
    d = os.path.getsize(os.path.join(tables, name + '.rdst'))
    white, black = name[1:].split('vK')
    s = syzygy.get(name) or syzygy.get('K' + black + 'vK' + white)
    total += w + d
    wdl_total += w
    syzygy_total += s
    over += w > s
    print('%-8s %11d %12d %11d %6.2f' % (name, w, d, s, w / s))
print('total: %d bytes (%.2f MB); WDL %d bytes against Syzygy\'s %d (%.3fx), %d files over theirs'
      % (total, total / 1e6, wdl_total, syzygy_total, wdl_total / syzygy_total, over))
PY
"$retro" verify --tables "$TABLES" chess KRvKR
