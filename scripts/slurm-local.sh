#!/usr/bin/env bash
# The scale-out path proven on a real Slurm cluster, on this one machine (issue 17):
#
#   scripts/slurm-local.sh [MATERIAL]     # default KQRvKR: the 5-man table of the kill-and-requeue test
#   scripts/slurm-local.sh --stop         # stop the daemons this script started
#
# 1. Installs Slurm and munge from Debian's packages if they are missing (needs root), writes /etc/slurm/slurm.conf
#    for a cluster of three node names (n1, n2, n3: three slurmd daemons on this host, 2 CPUs and 6000 MB each, so
#    that independent tables of the DAG run at once), starts munged, slurmctld and the three slurmd.
# 2. Builds retro, and the chess --all 4 set locally (the reference, timed).
# 3. Submits the same DAG with `retro slurm submit chess --all 4` (one job per table, afterok on its sub-tables'
#    jobs), waits for the queue to empty (timed), prints `retro slurm status`, and checks every file is byte for byte
#    the reference's.
# 4. Submits MATERIAL, waits until its job runs and its work directory holds a checkpoint past generation 10
#    ($KILL_AT_GENERATION), kills the job's retro
#    with SIGKILL; the batch script requeues the job, which resumes from the checkpoint ("resumed at generation N" in
#    its log); the table must equal a local build byte for byte.
# Slurm holds a requeued job for about two minutes (reason BeginTime); the script releases it at once with
# `scontrol update StartTime=now`, as an operator would. Work goes to $SLURM_LOCAL_DIR (default /tmp/retro-slurm).
# Exits non-zero with one line on any failure. The cluster is left running (see --stop).
set -euo pipefail

nodes=(n1 n2 n3)

stop() {
    pkill -x slurmd 2>/dev/null || true
    pkill -x slurmctld 2>/dev/null || true
    pkill -x munged 2>/dev/null || true
}

if [ "${1:-}" = --stop ]; then
    stop
    echo "slurm-local: stopped"
    exit 0
fi
material=${1:-KQRvKR}
fail() { echo "slurm-local: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || fail "needs root (it installs packages and starts daemons)"

here=$(cd "$(dirname "$0")/.." && pwd)
work=${SLURM_LOCAL_DIR:-/tmp/retro-slurm}

# --- 1. the cluster ---
if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
    apt-get update -q >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q slurm-wlm munge >/dev/null
fi
stop
sleep 1
mkdir -p /etc/munge /run/munge /var/lib/munge /var/log/munge /etc/slurm /var/spool/slurmctld /var/spool/slurmd \
    /var/log/slurm
if [ ! -s /etc/munge/munge.key ]; then
    dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 2>/dev/null
fi
chown -R munge:munge /etc/munge /run/munge /var/lib/munge /var/log/munge
chmod 700 /etc/munge && chmod 400 /etc/munge/munge.key
su -s /bin/sh munge -c /usr/sbin/munged
host=$(hostname -s)
cat > /etc/slurm/slurm.conf <<EOF
# Written by retro's scripts/slurm-local.sh: a cluster of three node names on one host.
ClusterName=retro
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd/%n
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd-%n.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU_Memory
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=1,sched_min_interval=100000
JobRequeue=1
ReturnToService=2
SlurmdParameters=config_overrides
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=/var/log/slurm/jobcomp.txt
JobAcctGatherType=jobacct_gather/none
MpiDefault=none
MinJobAge=300
NodeName=n[1-3] NodeHostname=$host CPUs=2 RealMemory=6000 Port=[17001-17003] State=UNKNOWN
PartitionName=main Nodes=n[1-3] Default=YES MaxTime=INFINITE State=UP
EOF
# A fresh controller state: no jobs of an earlier run.
slurmctld -c
for n in "${nodes[@]}"; do slurmd -N "$n"; done
for _ in $(seq 1 30); do
    [ "$(sinfo -h -o '%T' | sort -u)" = idle ] && break
    sleep 1
done
[ "$(sinfo -h -o '%T' | sort -u)" = idle ] || fail "the nodes did not become idle: $(sinfo -h)"
echo "== cluster: $(sinfo -h -o '%D nodes %c CPUs %m MB each, %T')"

# --- 2. retro and the reference ---
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$here/target}
cargo build --release -q -p retro --manifest-path "$here/Cargo.toml"
retro=$CARGO_TARGET_DIR/release/retro
rm -rf "$work" && mkdir -p "$work"
ref=$work/local
dir=$work/cluster
now() { date +%s.%N; }
start=$(now)
"$retro" generate chess --all 4 --out "$ref" --threads 2 --quiet > "$work/local.txt"
local_seconds=$(echo "$(now) - $start" | bc)
echo "== local: chess --all 4 in $local_seconds s"

# Waits until none of the jobs in DIR/slurm/jobs.tsv is in the queue; releases requeued jobs held for BeginTime.
wait_queue() {
    local deadline=$(( $(date +%s) + $1 )) ids
    ids=$(cut -f2 "$dir/slurm/jobs.tsv" | paste -sd,)
    while [ -n "$(squeue -h -j "$ids" -t PD,R,CG,CF,RQ,S 2>/dev/null)" ]; do
        [ "$(date +%s)" -lt "$deadline" ] || fail "jobs still queued after $1 s: $(squeue -h -j "$ids")"
        sleep 1
    done
}

# --- 3. the --all 4 DAG through Slurm ---
start=$(now)
"$retro" slurm submit chess --all 4 --tables "$dir" --memory 1G --cpus 1 > "$work/submit.txt"
wait_queue 900
cluster_seconds=$(echo "$(now) - $start" | bc)
"$retro" slurm status --tables "$dir" | head -1
jobs=$(wc -l < "$work/submit.txt")
echo "== slurm: chess --all 4, $jobs jobs on ${#nodes[@]} nodes, in $cluster_seconds s" \
    "($(echo "scale=2; $cluster_seconds / $local_seconds" | bc)x the local build)"
count=0
for file in "$ref"/chess/*.rwdl "$ref"/chess/*.rdst; do
    cmp -s "$file" "$dir/chess/$(basename "$file")" || fail "$(basename "$file") differs from the local build"
    count=$((count + 1))
done
echo "== slurm: all $count files byte-identical to the local build"

# --- 4. kill and requeue ---
"$retro" slurm submit chess "$material" --tables "$dir" --memory 2G --cpus 2 > "$work/submit5.txt"
job=$(awk -v m="$material" '$1 == m {print $2}' "$work/submit5.txt")
[ -n "$job" ] || fail "no job for $material in: $(cat "$work/submit5.txt")"
# Killed once a checkpoint past generation $kill_at is committed (the engine commits one at the end of a generation,
# at most every 20 seconds), so that the requeued run has generations to skip.
manifest=$dir/.retro-work/$material/retro-engine-manifest
kill_at=${KILL_AT_GENERATION:-10}
deadline=$(( $(date +%s) + 900 ))
until [ "$(sed -n 's/^generation \([0-9]*\)$/\1/p' "$manifest" 2>/dev/null || true)" -ge "$kill_at" ] 2>/dev/null; do
    [ "$(date +%s)" -lt "$deadline" ] || fail "no checkpoint past generation $kill_at in $manifest after 900 s"
    sleep 1
done
pid=$(pgrep -f "retro generate chess $material .*--table $material" | head -1)
[ -n "$pid" ] || fail "no running retro for $material"
kill -9 "$pid"
echo "== killed retro (pid $pid) of job $job with SIGKILL at $(date +%T)"
# The batch script requeues its job; Slurm holds it a while (BeginTime): release it.
deadline=$(( $(date +%s) + 120 ))
until squeue -h -j "$job" -o '%r' 2>/dev/null | grep -q BeginTime; do
    [ "$(date +%s)" -lt "$deadline" ] || fail "job $job was not requeued: $(squeue -h -j "$job")"
    sleep 1
done
scontrol update JobId="$job" StartTime=now
wait_queue 900
log=$(ls "$dir/slurm/logs/$material-$job.out")
grep -q 'requeueing job' "$log" || fail "the log of job $job does not say it was requeued"
resumed=$(grep -o 'resumed at generation [0-9]*' "$log" | tail -1)
[ -n "$resumed" ] || fail "job $job did not resume from a checkpoint (see $log)"
echo "== job $job: requeued after the kill, $resumed"
"$retro" generate chess "$material" --out "$ref" --threads 2 --quiet > /dev/null
for ext in rwdl rdst; do
    cmp -s "$ref/chess/$material.$ext" "$dir/chess/$material.$ext" ||
        fail "$material.$ext after the requeue differs from the local build"
done
echo "== $material after kill and requeue: byte-identical to the local build"
"$retro" slurm status --tables "$dir" | head -1
echo "slurm-local: ok"
