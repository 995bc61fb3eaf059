#!/usr/bin/env bash
# Side by side with the Syzygy generator (issue 18): for each material and thread count, the wall time and peak RSS of
# `rtbgen -t N MATERIAL` (rtbgenp with pawns; writes WDL .rtbw + DTZ .rtbz) and of
# `retro generate chess MATERIAL --table MATERIAL --threads N --quiet` (writes WDL .rwdl + DTM .rdst), one after the
# other, and the sizes of the files each wrote. Run it on an otherwise idle machine: the load before each run is
# printed with the results (load1: `uptime`'s 1-minute load; busy: cores busy over the second before the run).
#
# Usage: scripts/syzygy-bench.sh --syzygy DIR [--materials "KQvKR KQRvKR KRNvKN KRPvKR"] [--threads "1 2"]
#                                [--out DIR] [--wait-idle SECONDS] [--retro-args "ARGS"]
#   --syzygy DIR   top level of a checkout of the Syzygy generator (the directory with src/), or SYZYGY_SRC=DIR.
#                  It is not downloaded here: git clone https://github.com/syzygy1/tb
#   --materials    chess materials to time (default: KQvKR KQRvKR KRNvKN KRPvKR)
#   --threads      thread counts (default: 1 2)
#   --out DIR      sub-tables, timed runs, logs and results.tsv (default: /tmp/retro-syzygy-bench)
#   --wait-idle S  before each timed run, wait up to S seconds for the machine to be idle (under 0.3 cores busy over
#                  3 seconds; default 0: no wait)
#   --retro-args   more arguments for the timed retro runs, e.g. "--memory 22G" for a six-man table in memory, or
#                  "--memory 16G --work DIR" out of core
# Environment: SYZYGY_BUILD (where rtbgen/rtbgenp are built, default /tmp/retro-syzygy-build; the sources are copied
# there and built with the Makefile's defaults, -DBMI2 -march=native, or -DHYPER/-DMAGIC on a CPU without BMI2, and
# -DMAGIC on AMD CPUs before Zen 3, whose PEXT is slow; SYZYGY_SLIDING=-DBMI2|-DHYPER|-DMAGIC overrides the choice);
# RETRO (the retro binary; default: `cargo build --release -q -p retro` and target/release/retro).
# Needs gcc, make, libzstd-dev and /usr/bin/time.
#
# The sub-tables are built first, untimed, and kept under --out for the next run: for Syzygy, every material one
# capture or promotion away, recursively, dependencies first (what src/run.py does for a whole set), with rtbgen in
# $OUT/syzygy/base; for retro, `retro generate chess SUB --out $OUT/retro/base` for each direct sub-table (which
# builds its own tree). The timed rtbgen runs in an empty $OUT/syzygy/run with RTBPATH=$OUT/syzygy/base; the timed
# retro runs in $OUT/retro/run, which links to every table of the base but the material's own.
# Output: the table on stdout and as TSV in $OUT/results.tsv (sizes in bytes, peaks in MB); logs in $OUT/logs.
set -euo pipefail

die() { echo "syzygy-bench: $*" >&2; exit 1; }

REPO=$(cd "$(dirname "$0")/.." && pwd)
SRC=${SYZYGY_SRC:-}
BUILD=${SYZYGY_BUILD:-/tmp/retro-syzygy-build}
OUT=/tmp/retro-syzygy-bench
MATERIALS="KQvKR KQRvKR KRNvKN KRPvKR"
THREADS="1 2"
WAIT_IDLE=0
RETRO_ARGS=""

while [ $# -gt 0 ]; do
  case "$1" in
    --materials) [ $# -ge 2 ] || die "--materials needs a value"; MATERIALS=$2; shift 2 ;;
    --threads) [ $# -ge 2 ] || die "--threads needs a value"; THREADS=$2; shift 2 ;;
    --syzygy) [ $# -ge 2 ] || die "--syzygy needs a value"; SRC=$2; shift 2 ;;
    --out) [ $# -ge 2 ] || die "--out needs a value"; OUT=$2; shift 2 ;;
    --materials=*) MATERIALS=${1#*=}; shift ;;
    --threads=*) THREADS=${1#*=}; shift ;;
    --syzygy=*) SRC=${1#*=}; shift ;;
    --out=*) OUT=${1#*=}; shift ;;
    --wait-idle) [ $# -ge 2 ] || die "--wait-idle needs a value"; WAIT_IDLE=$2; shift 2 ;;
    --wait-idle=*) WAIT_IDLE=${1#*=}; shift ;;
    --retro-args) [ $# -ge 2 ] || die "--retro-args needs a value"; RETRO_ARGS=$2; shift 2 ;;
    --retro-args=*) RETRO_ARGS=${1#*=}; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done

[ -n "$SRC" ] || die "no Syzygy source: git clone https://github.com/syzygy1/tb /some/dir, then --syzygy /some/dir (or SYZYGY_SRC=/some/dir)"
[ -f "$SRC/src/Makefile" ] || die "$SRC/src/Makefile not found: --syzygy takes the top level of a syzygy1/tb checkout"
SRC=$(cd "$SRC" && pwd)
for t in $THREADS; do [[ $t =~ ^[1-9][0-9]*$ ]] || die "bad thread count '$t'"; done
[ -n "${THREADS// /}" ] || die "no thread counts"
[[ $WAIT_IDLE =~ ^[0-9]+$ ]] || die "bad --wait-idle '$WAIT_IDLE' (seconds)"
[ -n "${MATERIALS// /}" ] || die "no materials"
[ -x /usr/bin/time ] || die "/usr/bin/time not found: apt-get install time"
command -v make >/dev/null || die "make not found: apt-get install build-essential"
command -v gcc >/dev/null || die "gcc not found: apt-get install build-essential"
case "$OUT" in /*) ;; *) OUT=$PWD/$OUT ;; esac
case "$BUILD" in /*) ;; *) BUILD=$PWD/$BUILD ;; esac

# --- materials: Syzygy's canonical names (retro names its tables the same way) and their sub-tables ---------------

# The pieces of one side (no king) in the order Q R B N P.
sort_side() {
  local s=$1 out="" p
  for p in Q R B N P; do out+=$(printf '%s' "$s" | tr -cd "$p"); done
  printf '%s' "$out"
}

# canon WHITE BLACK (pieces without kings): the side with more pieces first; with as many, the stronger one first.
canon() {
  local w b rw rb
  w=$(sort_side "$1"); b=$(sort_side "$2")
  rw=$(printf '%s' "$w" | tr QRBNP 12345); rb=$(printf '%s' "$b" | tr QRBNP 12345)
  if [ ${#w} -lt ${#b} ] || { [ ${#w} -eq ${#b} ] && [[ $rw > $rb ]]; }; then
    printf 'K%svK%s' "$b" "$w"
  else
    printf 'K%svK%s' "$w" "$b"
  fi
}

canon_material() {
  local m=$1
  [[ $m =~ ^K[QRBNP]*vK[QRBNP]*$ ]] || die "bad material '$m' (like KRPvKR)"
  local w=${m%%v*} b=${m#*v}
  w=${w#K}; b=${b#K}
  [ $(( ${#w} + ${#b} )) -ge 1 ] || die "bad material '$m': KvK has no table"
  [ $(( ${#w} + ${#b} )) -le 5 ] || die "bad material '$m': more than 7 men"
  canon "$w" "$b"
}

# The materials one capture or promotion away (either side's move), without KvK.
direct_deps() {
  local m=$1 w b i p rest q
  w=${m%%v*}; w=${w#K}; b=${m#*v}; b=${b#K}
  {
    for ((i = 0; i < ${#w}; i++)); do
      p=${w:i:1}; rest=${w:0:i}${w:i+1}
      [ -n "$rest$b" ] && { canon "$rest" "$b"; echo; }
      if [ "$p" = P ]; then for q in Q R B N; do canon "$rest$q" "$b"; echo; done; fi
    done
    for ((i = 0; i < ${#b}; i++)); do
      p=${b:i:1}; rest=${b:0:i}${b:i+1}
      [ -n "$w$rest" ] && { canon "$w" "$rest"; echo; }
      if [ "$p" = P ]; then for q in Q R B N; do canon "$w" "$rest$q"; echo; done; fi
    done
  } | sort -u
}

# All sub-tables of a material, dependencies before the tables that need them (depth first, post-order).
declare -A SEEN
ORDER=()
visit() {
  local d
  [ -n "${SEEN[$1]:-}" ] && return 0
  SEEN[$1]=1
  for d in $(direct_deps "$1"); do visit "$d"; done
  ORDER+=("$1")
}

MATS=()
for m in $MATERIALS; do MATS+=("$(canon_material "$m")"); done

# --- build rtbgen and rtbgenp ----------------------------------------------------------------------------------------

echo '#include <zstd.h>' | gcc -E -x c - >/dev/null 2>&1 \
  || die "zstd.h not found (the Syzygy generator needs libzstd): apt-get install libzstd-dev"
mkdir -p "$BUILD/src"
cp -a "$SRC/src/." "$BUILD/src/"
# AMD before Zen 3 (family 23 and below) runs PEXT in microcode: there magic bitboards are rtbgen's fastest choice
# (KQRvKR with 2 threads on a Zen 2: 64.8 s with -DMAGIC, 72.3 s with -DBMI2, one after the other).
cpu_family=$(awk -F': ' '/^cpu family/ { print $2; exit }' /proc/cpuinfo)
if [ -n "${SYZYGY_SLIDING:-}" ]; then
  SLIDING=$SYZYGY_SLIDING
elif grep -q AuthenticAMD /proc/cpuinfo && [ "${cpu_family:-0}" -le 23 ]; then
  SLIDING=-DMAGIC
elif grep -qw bmi2 /proc/cpuinfo; then
  SLIDING=-DBMI2
elif grep -qw pni /proc/cpuinfo; then
  SLIDING=-DHYPER
else
  SLIDING=-DMAGIC
fi
sed -i "s/^FLAGS = -D[A-Z0-9]*/FLAGS = $SLIDING/" "$BUILD/src/Makefile"
grep -q "^FLAGS = $SLIDING\$" "$BUILD/src/Makefile" || die "unexpected $SRC/src/Makefile: no 'FLAGS = -DBMI2' line"
echo "building rtbgen and rtbgenp in $BUILD/src ..." >&2
# From clean: objects of an earlier build may have other flags, and the copied sources keep their old times.
make -C "$BUILD/src" clean >/dev/null 2>&1 || true
make -C "$BUILD/src" rtbgen rtbgenp >"$BUILD/make.log" 2>&1 || die "make failed, see $BUILD/make.log"
RTBGEN=$BUILD/src/rtbgen
RTBGENP=$BUILD/src/rtbgenp
# The compiler flags as make sees them (the longest FLAGS: the sub-make's, with -DREGULAR).
BUILD_FLAGS="$(make -C "$BUILD/src" -pn rtbgen 2>/dev/null | awk '/^CFLAGS [:?]?= / && !c { c = $0 }
  /^FLAGS [:?]?= / && length($0) > length(f) { f = $0 } END { print c "; " f }')"

# --- retro -------------------------------------------------------------------------------------------------------------

if [ -z "${RETRO:-}" ]; then
  (cd "$REPO" && cargo build --release -q -p retro) || die "cargo build --release -p retro failed"
  RETRO="${CARGO_TARGET_DIR:-$REPO/target}/release/retro"
fi
[ -x "$RETRO" ] || die "retro binary $RETRO not found"

mkdir -p "$OUT/syzygy/base" "$OUT/syzygy/run" "$OUT/retro/base/chess" "$OUT/logs"
SBASE=$OUT/syzygy/base
RBASE=$OUT/retro/base
NPROC=$(nproc)
{
  echo "rtbgen: $SRC at $(git -C "$SRC" rev-parse --short HEAD 2>/dev/null || echo '?'), $SLIDING, $BUILD_FLAGS"
  echo "retro: $RETRO ($(date -u -r "$RETRO" '+%F %T UTC')) from $REPO at $(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo '?')"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $NPROC cores"
} | tee "$OUT/build-flags.txt" >&2

# written WHAT LOG FILE...: every FILE is there and not empty, else a one-line error.
written() {
  local what=$1 log=$2 f
  shift 2
  for f in "$@"; do [ -s "$f" ] || die "$what wrote no $f, see $log"; done
}

gen_tool() { case "$1" in *P*) echo "$RTBGENP" ;; *) echo "$RTBGEN" ;; esac; }

# --- sub-tables, untimed -------------------------------------------------------------------------------------------------

for m in "${MATS[@]}"; do
  SEEN=(); ORDER=()
  visit "$m"
  for d in "${ORDER[@]}"; do
    [ "$d" = "$m" ] && continue
    if [ ! -s "$SBASE/$d.rtbw" ] || [ ! -s "$SBASE/$d.rtbz" ]; then
      echo "sub-table $d (syzygy) ..." >&2
      (cd "$SBASE" && RTBPATH=$SBASE "$(gen_tool "$d")" -t "$NPROC" "$d") >"$OUT/logs/sub-syzygy-$d.log" 2>&1 \
        || die "rtbgen $d failed, see $OUT/logs/sub-syzygy-$d.log"
      written "rtbgen $d" "$OUT/logs/sub-syzygy-$d.log" "$SBASE/$d.rtbw" "$SBASE/$d.rtbz"
    fi
  done
  for d in $(direct_deps "$m"); do
    if [ ! -s "$RBASE/chess/$d.rwdl" ] || [ ! -s "$RBASE/chess/$d.rdst" ]; then
      echo "sub-table $d and its own (retro) ..." >&2
      "$RETRO" generate chess "$d" --out "$RBASE" --quiet >"$OUT/logs/sub-retro-$d.log" 2>&1 \
        || die "retro generate chess $d failed, see $OUT/logs/sub-retro-$d.log"
      [ -s "$RBASE/chess/$d.rwdl" ] || die "retro wrote no $RBASE/chess/$d.rwdl (another name?), see $OUT/logs/sub-retro-$d.log"
    fi
  done
done

# --- timed runs ----------------------------------------------------------------------------------------------------------

# Cores busy (all processes) over SECONDS (default 1), from /proc/stat.
busy_cores() {
  local a b
  a=$(awk '/^cpu /{print $2+$3+$4+$7+$8+$9, $2+$3+$4+$5+$6+$7+$8+$9}' /proc/stat)
  sleep "${1:-1}"
  b=$(awk '/^cpu /{print $2+$3+$4+$7+$8+$9, $2+$3+$4+$5+$6+$7+$8+$9}' /proc/stat)
  awk -v a="$a" -v b="$b" -v n="$NPROC" 'BEGIN { split(a, x, " "); split(b, y, " ");
    t = y[2] - x[2]; printf "%.2f", (t > 0 ? (y[1] - x[1]) / t * n : 0) }'
}
load1() { cut -d' ' -f1 /proc/loadavg; }
# Wait up to --wait-idle seconds for fewer than 0.3 cores busy over 3 seconds.
wait_idle() {
  local start=$SECONDS
  [ "$WAIT_IDLE" -gt 0 ] || return 0
  until awk -v b="$(busy_cores 3)" 'BEGIN { exit !(b < 0.3) }'; do
    if [ $((SECONDS - start)) -ge "$WAIT_IDLE" ]; then
      echo "not idle after ${WAIT_IDLE} s, running anyway" >&2
      return 0
    fi
  done
}
size() { stat -c %s "$1"; }

TSV=$OUT/results.tsv
HEADER="material threads rtbgen_s retro_s ratio rtbgen_MB retro_MB rtbw_bytes rtbz_bytes rwdl_bytes rdst_bytes load1 busy"
printf '%s\n' "$HEADER" | tr ' ' '\t' >"$TSV"
columns() { printf '%-8s %7s %9s %9s %6s %10s %9s %11s %11s %11s %11s %10s %10s\n' "$@"; }
ROWS=()
for m in "${MATS[@]}"; do
  for t in $THREADS; do
    # rtbgen / rtbgenp
    srun=$OUT/syzygy/run
    rm -rf "$srun" && mkdir -p "$srun"
    wait_idle
    l1=$(load1); busy=$(busy_cores)
    echo "timing $(basename "$(gen_tool "$m")") -t $t $m (load $l1, busy $busy) ..." >&2
    log=$OUT/logs/rtbgen-$m-t$t.log
    if ! (cd "$srun" && RTBPATH=$SBASE /usr/bin/time -f '%e %M' -o "$OUT/time.txt" "$(gen_tool "$m")" -t "$t" "$m") >"$log" 2>&1; then
      die "rtbgen -t $t $m failed, see $log"
    fi
    written "rtbgen -t $t $m" "$log" "$srun/$m.rtbw" "$srun/$m.rtbz"
    read -r s_wall s_rss <"$OUT/time.txt"
    rtbw=$(size "$srun/$m.rtbw"); rtbz=$(size "$srun/$m.rtbz")

    # retro
    rrun=$OUT/retro/run
    rm -rf "$rrun" && mkdir -p "$rrun/chess"
    for f in "$RBASE/chess/"*; do
      case "$(basename "$f")" in "$m".*) ;; *) ln -s "$f" "$rrun/chess/" ;; esac
    done
    wait_idle
    l1r=$(load1); busyr=$(busy_cores)
    echo "timing retro --threads $t $m (load $l1r, busy $busyr) ..." >&2
    log=$OUT/logs/retro-$m-t$t.log
    if ! /usr/bin/time -f '%e %M' -o "$OUT/time.txt" \
        "$RETRO" generate chess "$m" --table "$m" --out "$rrun" --threads "$t" --quiet $RETRO_ARGS >"$log" 2>&1; then
      die "retro generate chess $m --threads $t failed, see $log"
    fi
    written "retro --threads $t $m" "$log" "$rrun/chess/$m.rwdl" "$rrun/chess/$m.rdst"
    read -r r_wall r_rss <"$OUT/time.txt"
    rwdl=$(size "$rrun/chess/$m.rwdl"); rdst=$(size "$rrun/chess/$m.rdst")

    row=$(awk -v m="$m" -v t="$t" -v sw="$s_wall" -v rw="$r_wall" -v ss="$s_rss" -v rs="$r_rss" \
      -v a="$rtbw" -v b="$rtbz" -v c="$rwdl" -v d="$rdst" -v l="$l1/$l1r" -v u="$busy/$busyr" 'BEGIN {
        printf "%s %s %.2f %.2f %s %.1f %.1f %.0f %.0f %.0f %.0f %s %s", m, t, sw, rw, (sw > 0 ? sprintf("%.2f", rw / sw) : "-"),
          ss / 1024, rs / 1024, a, b, c, d, l, u }')
    printf '%s\n' "$row" | tr ' ' '\t' >>"$TSV"
    ROWS+=("$row")
  done
done
rm -f "$OUT/time.txt"

echo
echo "rtbgen/rtbgenp: WDL+DTZ (.rtbw+.rtbz); retro: WDL+DTM (.rwdl+.rdst); ratio = retro s / rtbgen s; peaks = max RSS"
echo "load1, busy: before the rtbgen run / before the retro run"
# shellcheck disable=SC2086 # the header and the rows split into columns on purpose
columns $HEADER
for row in "${ROWS[@]}"; do
  # shellcheck disable=SC2086
  columns $row
done
echo "(TSV: $TSV)"
