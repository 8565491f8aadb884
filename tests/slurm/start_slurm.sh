#!/usr/bin/env bash
# Start a single-node SLURM (Debian's slurm-wlm + munge) on localhost, as root, without
# systemd or cgroups, for the cluster end-to-end test (opt-in: UFSBENCH_SLURM_TESTS=1).
# Installs the packages if missing. A SLURM that already answers is used as it is.
# Every daemon this script starts is appended to $SLURM_DIR/started ("name pid"), and
# every file it creates to $SLURM_DIR/created, so that stop_slurm.sh stops and removes
# exactly those and leaves daemons and files that were there before alone.
# Usage: SLURM_DIR=/tmp/ufsbench-slurm bash start_slurm.sh   (stop: stop_slurm.sh)
set -euo pipefail
SLURM_DIR=${SLURM_DIR:-/tmp/ufsbench-slurm}
MARK="# written by ufsbench tests/slurm/start_slurm.sh"
export DEBIAN_FRONTEND=noninteractive
mkdir -p "$SLURM_DIR"/{state,spool,log}
: > "$SLURM_DIR/started"
: > "$SLURM_DIR/created"
if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
  apt-get update -qq
  apt-get install -y -qq slurmctld slurmd slurm-client munge >/dev/null
fi
if sinfo -h -o '%T' 2>/dev/null | grep -qx idle; then
  echo "slurm already running: using it, and leaving it running"; exit 0
fi
if [ -e /etc/slurm/slurm.conf ] && ! grep -qxF "$MARK" /etc/slurm/slurm.conf; then
  echo "/etc/slurm/slurm.conf exists and was not written by this script: not overwriting it"
  exit 3
fi
mkdir -p /run/munge /etc/slurm
if [ ! -s /etc/munge/munge.key ]; then
  mungekey --create --keyfile=/etc/munge/munge.key
  echo /etc/munge/munge.key >> "$SLURM_DIR/created"
fi
chown munge:munge /etc/munge/munge.key /run/munge
chmod 0400 /etc/munge/munge.key
chmod 0755 /run/munge
MEM_MB=$(( $(awk '/MemTotal/{print $2}' /proc/meminfo) / 1024 - 2048 ))
NCPU=$(nproc)
[ -e /etc/slurm/slurm.conf ] || echo /etc/slurm/slurm.conf >> "$SLURM_DIR/created"
# The job-step plugin strips SLURM_CONF from nested sruns: the config must be at the default path.
cat > /etc/slurm/slurm.conf <<CONF
$MARK
ClusterName=ufsbench
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
SchedulerType=sched/backfill
ReturnToService=2
StateSaveLocation=$SLURM_DIR/state
SlurmdSpoolDir=$SLURM_DIR/spool
SlurmctldPidFile=$SLURM_DIR/slurmctld.pid
SlurmdPidFile=$SLURM_DIR/slurmd.pid
SlurmctldLogFile=$SLURM_DIR/log/slurmctld.log
SlurmdLogFile=$SLURM_DIR/log/slurmd.log
JobAcctGatherType=jobacct_gather/linux
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$SLURM_DIR/log/jobcomp.txt
MinJobAge=600
DefMemPerCPU=1000
InactiveLimit=0
KillWait=5
Waittime=0
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$NCPU RealMemory=$MEM_MB State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF

# start NAME PIDFILE COMMAND...: run the daemon unless one of that name runs; record its
# pid. The daemons fork into the background, so the pid is read from the pid file the
# daemon writes (the process we launch exits), and kept only if it is that daemon.
start() {
  local name=$1 pidfile=$2 pid=""
  shift 2
  pgrep -x "$name" >/dev/null && return 0
  rm -f "$pidfile"
  "$@"
  for _ in $(seq 1 100); do
    pid=$(cat "$pidfile" 2>/dev/null || true)
    [ -n "$pid" ] && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$name" ] && break
    pid=""
    sleep 0.1
  done
  [ -n "$pid" ] || { echo "$name did not start (no live pid in $pidfile)"; return 1; }
  echo "$name $pid" >> "$SLURM_DIR/started"
}
start munged /run/munge/munged.pid runuser -u munge -- /usr/sbin/munged
munge -n | unmunge >/dev/null
start slurmctld "$SLURM_DIR/slurmctld.pid" /usr/sbin/slurmctld
start slurmd "$SLURM_DIR/slurmd.pid" /usr/sbin/slurmd -N localhost
for _ in $(seq 1 30); do
  sinfo -h -o '%T' 2>/dev/null | grep -qx idle && break
  sleep 1
done
sinfo
srun -N1 -n1 hostname
