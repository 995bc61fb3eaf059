#!/usr/bin/env bash
# Side by side with clausecker/dobutsu's generator (issue 18): `gentb -j 2` (the whole Dobutsu shogi table, one
# signed distance byte per position, written uncompressed) and `retro generate dobutsu --threads 2` (WDL + distance
# files, compressed), alternating gentb, retro, gentb, retro, ... Prints wall seconds, user/system time and peak RSS
# of each run, retro's own solve/write split, and the retro/gentb ratios per round. Run it on an idle machine.
#
# Usage: GENTB=/path/to/gentb scripts/dobutsu-bench.sh [ROUNDS]     (default 2 rounds)
#   GENTB  the gentb binary of a checkout of https://github.com/clausecker/dobutsu built with `make gentb` in a
#          folder outside this repository (it is not downloaded or vendored here)
#   RETRO  the retro binary (default: `cargo build --release -p retro` and target/release/retro)
#   KEEP=1 keeps the temporary folder with the outputs and logs; TMPBASE (default /tmp) is where it is made.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
GENTB=${GENTB:?set GENTB to a gentb binary built from https://github.com/clausecker/dobutsu (make gentb)}
if [[ -z ${RETRO:-} ]]; then
	(cd "$REPO" && cargo build --release -q -p retro) || { echo "cargo build --release -p retro failed" >&2; exit 1; }
	RETRO="${CARGO_TARGET_DIR:-$REPO/target}/release/retro"
fi
THREADS=2
ROUNDS=${1:-2}
TIME=/usr/bin/time

for b in "$GENTB" "$RETRO" "$TIME"; do
	[[ -x $b ]] || { echo "missing executable: $b" >&2; exit 1; }
done

WORK=$(mktemp -d "${TMPBASE:-/tmp}/dobutsu-bench.XXXXXX")
if [[ ${KEEP:-0} != 1 ]]; then trap 'rm -rf "$WORK"' EXIT; fi
echo "work dir: $WORK"

declare -A WALL RSS

# run NAME ROUND CMD... : time CMD with /usr/bin/time -v, record wall seconds and max RSS (KiB)
run() {
	local name=$1 round=$2; shift 2
	local tag="${name}.${round}" tv="$WORK/${name}.${round}.time" log="$WORK/${name}.${round}.log"
	local t0 t1 rc=0
	sync
	t0=$(date +%s.%N)
	"$TIME" -v -o "$tv" "$@" >"$log" 2>&1 || rc=$?
	t1=$(date +%s.%N)
	if (( rc != 0 )); then
		echo "$tag FAILED (exit $rc); log tail:" >&2; tail -n 20 "$log" >&2; exit 1
	fi
	WALL[$tag]=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
	RSS[$tag]=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$tv")
	local el; el=$(awk -F': ' '/Elapsed \(wall clock\)/ { print $2 }' "$tv")
	local ut st; ut=$(awk -F': ' '/User time/ { print $2 }' "$tv"); st=$(awk -F': ' '/System time/ { print $2 }' "$tv")
	printf '%-6s round %d: wall %8.2f s (time -v: %s)  user %s s  sys %s s  maxRSS %s KiB (%.1f MiB)\n' \
		"$name" "$round" "${WALL[$tag]}" "$el" "$ut" "$st" "${RSS[$tag]}" "$(awk -v k="${RSS[$tag]}" 'BEGIN { print k / 1024 }')"
}

for ((r = 1; r <= ROUNDS; r++)); do
	# gentb: writes one file of 167,527,962 bytes (one signed DTM byte per position)
	rm -f "$WORK/dobutsu.tb"
	run gentb "$r" "$GENTB" -j "$THREADS" "$WORK/dobutsu.tb"
	ls -l "$WORK/dobutsu.tb" | awk '{ print "  gentb output bytes: " $5 }'
	[[ ${KEEP:-0} == 1 ]] || rm -f "$WORK/dobutsu.tb"

	# retro: writes $WORK/retro.$r/dobutsu/dobutsu.rwdl and .rdst
	rm -rf "$WORK/retro.$r"; mkdir -p "$WORK/retro.$r"
	run retro "$r" "$RETRO" generate dobutsu --out "$WORK/retro.$r" --threads "$THREADS" --quiet
	grep -o 'solved in .*' "$WORK/retro.$r.log" | sed 's/^/  retro: /' || true
	du -b -a "$WORK/retro.$r" | awk '$2 ~ /\.r(wdl|dst)$/ { print "  retro output bytes: " $1 "  " $2 }'
	[[ ${KEEP:-0} == 1 ]] || rm -rf "$WORK/retro.$r"
done

echo
echo "round  gentb_s  retro_s  wall retro/gentb   gentb_MiB  retro_MiB  rss retro/gentb"
for ((r = 1; r <= ROUNDS; r++)); do
	awk -v gw="${WALL[gentb.$r]}" -v rw="${WALL[retro.$r]}" -v gm="${RSS[gentb.$r]}" -v rm="${RSS[retro.$r]}" -v r="$r" \
		'BEGIN { printf "%5d  %7.2f  %7.2f  %16.3f   %9.1f  %9.1f  %15.3f\n", r, gw, rw, rw / gw, gm / 1024, rm / 1024, rm / gm }'
done
