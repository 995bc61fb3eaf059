#!/usr/bin/env bash
# Compares retro with GamesmanOne (GamesCrafters' C/OpenMP solver) on 4x4 Quixo.
#
# 1. Fetches and builds GamesmanOne in $PEERS/gamesmanone (outside this repository) unless
#    $PEERS/gamesmanone/bin/gamesman already exists: `git clone $GAMESMAN_REPO`, then a CMake
#    Release build with OpenMP against the system json-c, liblzma, lz4 and zlib (Debian:
#    apt-get install cmake libjson-c-dev liblzma-dev liblz4-dev zlib1g-dev). Its own installer
#    builds those from git submodules instead; Debian ships no CMake config files for liblzma and
#    lz4, so small shims that wrap the system libraries are written to $PEERS/cmake-shims (the
#    system lz4 1.9.4 is accepted although GamesmanOne asks for 1.10.0: it only uses LZ4F_*).
# 2. Times `gamesman --data-path=D solve quixo 1` (variant 1 = "4x4 4-in-a-row"; 0 is 5x5, 2 is
#    3x3) from scratch with OMP_NUM_THREADS=1 and 2, and prints the start position's value.
# 3. Builds retro (cargo build --release -p retro) and times
#    `retro generate quixo 4x4 --out DIR --threads N` for N = 1 and 2. A failing retro run (say,
#    quixo not supported yet) is reported and the script goes on.
# 4. Prints wall time and peak RSS of each run (/usr/bin/time -f), the retro/GamesmanOne ratios
#    of wall time and each tool's 1->2 thread speedup.
#
# Usage: scripts/quixo-vs-gamesman.sh            (run by hand; needs network for the clone)
# Environment:
#   PEERS          where GamesmanOne is built (default /tmp/peers)
#   GAMESMAN_REPO  what to clone (default https://github.com/GamesCrafters/GamesmanOne; where there is no
#                  network, the path of a local clone or mirror)
#   OUT            scratch folder for the solvers' data (default $PEERS/quixo-vs-gamesman)
#   THREADS        thread counts to time (default "1 2")
#   RETRO          an already built retro binary: skips the cargo build
#   SKIP_RETRO=1   time GamesmanOne only
# Measured on a 2-core, 24 GiB machine, idle (games/quixo/README.md): GamesmanOne 60.79 s with 1 thread and
# 35.60 s with 2 (264 MB), retro 6.83 s and 3.85 s (47-55 MB); both: start position a win in 21.
set -euo pipefail
cd "$(dirname "$0")/.."
repo_root=$(pwd)

PEERS="${PEERS:-/tmp/peers}"
mkdir -p "$PEERS"
PEERS=$(cd "$PEERS" && pwd)
GAMESMAN_REPO="${GAMESMAN_REPO:-https://github.com/GamesCrafters/GamesmanOne}"
OUT="${OUT:-$PEERS/quixo-vs-gamesman}"
read -r -a threads <<< "${THREADS:-1 2}"
gm_dir="$PEERS/gamesmanone"
gm="$gm_dir/bin/gamesman"
variant=1 # GamesmanOne's Quixo variants: 0 = 5x5, 1 = 4x4, 2 = 3x3 (all k-in-a-row).

# ---- 1. GamesmanOne -------------------------------------------------------------------------
build_gamesman() {
    local missing=()
    command -v git >/dev/null || missing+=(git)
    command -v cmake >/dev/null || missing+=(cmake)
    command -v cc >/dev/null || missing+=(gcc)
    [ -f /usr/include/json-c/json_object.h ] || missing+=(libjson-c-dev)
    [ -f /usr/include/lzma.h ] || missing+=(liblzma-dev)
    [ -f /usr/include/lz4frame.h ] || missing+=(liblz4-dev)
    [ -f /usr/include/zlib.h ] || missing+=(zlib1g-dev)
    if [ ${#missing[@]} -gt 0 ]; then
        echo "missing build dependencies; install them with: apt-get install ${missing[*]}" >&2
        exit 1
    fi
    mkdir -p "$PEERS"
    [ -d "$gm_dir/.git" ] || git clone "$GAMESMAN_REPO" "$gm_dir"
    local shims="$PEERS/cmake-shims"
    mkdir -p "$shims/liblzma" "$shims/lz4"
    # name lib header target
    write_shim() {
        cat > "$shims/$1/$1Config.cmake" <<EOF
# Shim written by quixo-vs-gamesman.sh: wraps the system library, which ships no CMake config.
if(NOT TARGET $4)
  find_library(_SHIM_$1_LIB NAMES $2 REQUIRED)
  find_path(_SHIM_$1_INC NAMES $3 REQUIRED)
  add_library($4 UNKNOWN IMPORTED)
  set_target_properties($4 PROPERTIES
    IMPORTED_LOCATION "\${_SHIM_$1_LIB}"
    INTERFACE_INCLUDE_DIRECTORIES "\${_SHIM_$1_INC}")
endif()
EOF
        printf 'set(PACKAGE_VERSION "system")\nset(PACKAGE_VERSION_COMPATIBLE TRUE)\n' \
            > "$shims/$1/$1ConfigVersion.cmake"
    }
    write_shim liblzma lzma lzma.h liblzma::liblzma
    write_shim lz4 lz4 lz4frame.h lz4::lz4
    cmake -S "$gm_dir" -B "$gm_dir/build" -DCMAKE_BUILD_TYPE=Release \
        -Dliblzma_DIR="$shims/liblzma" -Dlz4_DIR="$shims/lz4"
    cmake --build "$gm_dir/build" -- -j"$(nproc)"
}

if [ ! -x "$gm" ]; then
    echo "== building GamesmanOne in $gm_dir"
    build_gamesman
fi
echo "== GamesmanOne $(cd "$gm_dir" && git rev-parse --short HEAD 2>/dev/null || echo '?'), $("$gm" --version 2>/dev/null || true)"

mkdir -p "$OUT"
declare -A wall rss
# run KEY LOGFILE CMD...: times CMD with /usr/bin/time -f, sets wall[KEY] and rss[KEY]; 1 on failure.
run() {
    local key=$1 log=$2
    shift 2
    echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
    if /usr/bin/time -f "%e %M" -o "$OUT/$key.time" "$@" > "$log" 2>&1; then
        read -r wall["$key"] rss["$key"] < <(tail -n 1 "$OUT/$key.time")
        echo "wall ${wall[$key]} s, max RSS ${rss[$key]} KB (log: $log)"
    else
        echo "FAILED (exit $?); last lines of $log:"
        tail -n 5 "$log"
        return 1
    fi
}

# GamesmanOne's --data-path must be relative: its MkdirRecursive fails on a leading '/'
# ("SetupDbPath: failed to create path in the file system", then a segfault). So run in $OUT.
OUT=$(cd "$OUT" && pwd)
cd "$OUT"
for n in "${threads[@]}"; do
    data="gamesman-t$n"
    rm -rf "$data" # solve from scratch
    echo "== OMP_NUM_THREADS=$n gamesman solve quixo $variant"
    OMP_NUM_THREADS=$n run "gm$n" "$OUT/gamesman-t$n.log" "$gm" --data-path="$data" solve quixo "$variant"
    grep -E "^Begin solving" "$OUT/gamesman-t$n.log" || true
done
start=$("$gm" --data-path="gamesman-t${threads[0]}" getstart quixo "$variant" |
    sed -n 's/.*"position": *"\([^"]*\)".*/\1/p')
echo "== GamesmanOne's value of the start position $start:"
"$gm" --data-path="gamesman-t${threads[0]}" query quixo "$variant" "$start" |
    sed -n 's/^{ *"position": *"\([^"]*\)".*"positionValue": *"\([^"]*\)", *"remoteness": *\([0-9-]*\), "moves".*/\1 \2 remoteness \3/p'
cd "$repo_root"

# ---- 2. retro -------------------------------------------------------------------------------
if [ "${SKIP_RETRO:-0}" != 1 ]; then
    if [ -z "${RETRO:-}" ]; then
        echo "== cargo build --release -p retro"
        cargo build --release -p retro
        RETRO="${CARGO_TARGET_DIR:-$repo_root/target}/release/retro"
    fi
    for n in "${threads[@]}"; do
        dir="$OUT/retro-t$n"
        rm -rf "$dir"
        echo "== retro generate quixo 4x4 --threads $n"
        run "retro$n" "$OUT/retro-t$n.log" "$RETRO" generate quixo 4x4 --out "$dir" --threads "$n" || true
    done
fi

# ---- 3. summary -----------------------------------------------------------------------------
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
echo "== summary (wall s / max RSS KB)"
for n in "${threads[@]}"; do
    line="threads $n: GamesmanOne ${wall[gm$n]:-n/a} s / ${rss[gm$n]:-n/a} KB"
    if [ -n "${wall[retro$n]:-}" ]; then
        line+=", retro ${wall[retro$n]} s / ${rss[retro$n]} KB, retro/GamesmanOne wall $(ratio "${wall[retro$n]}" "${wall[gm$n]:-0}")"
    else
        line+=", retro n/a"
    fi
    echo "$line"
done
if [ ${#threads[@]} -ge 2 ]; then
    a=${threads[0]} b=${threads[1]}
    echo "speedup $a->$b threads: GamesmanOne $(ratio "${wall[gm$a]:-0}" "${wall[gm$b]:-0}"), retro $(ratio "${wall[retro$a]:-0}" "${wall[retro$b]:-0}")"
fi
