#!/usr/bin/env bash
# Runs a command inside a memory cgroup and reports its peak memory and wall time.
#
#   scripts/outofcore-cgroup.sh LIMIT COMMAND [ARGS...]      LIMIT in bytes, or with a K/M/G suffix; "none" = no limit
#
# Needs root and a memory controller: cgroup v1 (/sys/fs/cgroup/memory, limit in memory.limit_in_bytes, peak in
# memory.max_usage_in_bytes) or v2 (/sys/fs/cgroup with "memory" in cgroup.controllers, memory.max, memory.peak).
# Swap is forbidden where the controller allows it, so that the limit is a real limit. The cgroup counts page cache
# too; the kernel reclaims clean cache before it kills anyone. Prints "peak_bytes N wall_seconds S exit E oom_kills K".
set -euo pipefail

if [ $# -lt 2 ]; then
    echo "usage: $0 LIMIT COMMAND [ARGS...]" >&2
    exit 2
fi
limit=$1
shift
case "$limit" in
    none) bytes=none ;;
    *[kK]) bytes=$(( ${limit%?} * 1024 )) ;;
    *[mM]) bytes=$(( ${limit%?} * 1024 * 1024 )) ;;
    *[gG]) bytes=$(( ${limit%?} * 1024 * 1024 * 1024 )) ;;
    *) bytes=$limit ;;
esac

if [ -d /sys/fs/cgroup/memory ] && [ -f /sys/fs/cgroup/memory/memory.limit_in_bytes ]; then
    version=1
    group=/sys/fs/cgroup/memory/retro-$$
elif [ -f /sys/fs/cgroup/cgroup.controllers ] && grep -qw memory /sys/fs/cgroup/cgroup.controllers; then
    version=2
    group=/sys/fs/cgroup/retro-$$
else
    echo "$0: no cgroup memory controller mounted" >&2
    exit 1
fi

mkdir "$group"
cleanup() { rmdir "$group" 2>/dev/null || true; }
trap cleanup EXIT

if [ "$version" = 1 ]; then
    if [ "$bytes" != none ]; then
        echo "$bytes" > "$group/memory.limit_in_bytes"
        # Without swap accounting this file is absent; there is no swap on these machines anyway.
        if [ -f "$group/memory.memsw.limit_in_bytes" ]; then
            echo "$bytes" > "$group/memory.memsw.limit_in_bytes"
        fi
    fi
else
    if [ "$bytes" != none ]; then
        echo "$bytes" > "$group/memory.max"
        [ -f "$group/memory.swap.max" ] && echo 0 > "$group/memory.swap.max"
    fi
fi

start=$(date +%s.%N)
set +e
# The child joins the cgroup before it execs the command, so everything the command allocates is counted.
bash -c 'echo $$ > "$1/cgroup.procs"; shift; exec "$@"' retro-cgroup "$group" "$@"
status=$?
set -e
end=$(date +%s.%N)

if [ "$version" = 1 ]; then
    peak=$(cat "$group/memory.max_usage_in_bytes")
    ooms=$(awk '/^oom_kill /{print $2}' "$group/memory.oom_control" 2>/dev/null || echo unknown)
else
    peak=$(cat "$group/memory.peak" 2>/dev/null || echo unknown)
    ooms=$(awk '/^oom_kill /{print $2}' "$group/memory.events" 2>/dev/null || echo unknown)
fi
echo "peak_bytes $peak wall_seconds $(echo "$end - $start" | bc) exit $status oom_kills ${ooms:-0}"
exit $status
