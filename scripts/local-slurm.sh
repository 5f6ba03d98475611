#!/usr/bin/env bash
# A single-node Slurm on this machine (controller and one compute node, Debian's slurm-wlm), for
# cavsim's tests and for trying `cavsim sweep --executor slurm` without a cluster. No systemd, no
# munge: auth/none, everything under one state folder. Needs root.
#
#   sudo bash scripts/local-slurm.sh start    # installs the packages if missing, starts, waits until the node is idle
#   export SLURM_CONF=/var/lib/cavsim-slurm/slurm.conf   # printed by start; sbatch/squeue/cavsim read it
#   sudo bash scripts/local-slurm.sh status
#   sudo bash scripts/local-slurm.sh stop     # shuts the daemons down (the state folder stays for the logs)
#
# CAVSIM_SLURM_DIR picks another state folder; CAVSIM_SLURM_CPUS the node's CPUs (default: all).
set -euo pipefail

DIR="${CAVSIM_SLURM_DIR:-/var/lib/cavsim-slurm}"
CONF="$DIR/slurm.conf"
export SLURM_CONF="$CONF"
HOST="$(hostname -s)"
CPUS="${CAVSIM_SLURM_CPUS:-$(nproc)}"
# The node offers this machine's memory (less 512 MB for the system) to --mem requests.
MEMORY_MB="$(( $(awk '/^MemTotal:/ {print $2}' /proc/meminfo) / 1024 - 512 ))"

say() { echo "[local-slurm] $*" >&2; }

install_packages() {
  if command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v sbatch >/dev/null; then return; fi
  say "installing slurmctld, slurmd and slurm-client from Debian"
  export DEBIAN_FRONTEND=noninteractive NEEDRESTART_SUSPEND=1
  apt-get install -y -q --no-install-recommends slurmctld slurmd slurm-client >/dev/null 2>&1 \
    || { apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends slurmctld slurmd slurm-client >/dev/null; }
}

write_conf() {
  mkdir -p "$DIR/state" "$DIR/spool" "$DIR/log"
  cat >"$CONF" <<CONF
# Written by scripts/local-slurm.sh: one node, this machine, for tests.
ClusterName=cavsim-local
SlurmctldHost=${HOST}(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/none
CredType=cred/none
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool
SlurmctldPidFile=$DIR/slurmctld.pid
SlurmdPidFile=$DIR/slurmd.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$DIR/log/jobcomp.txt
SchedulerParameters=sched_interval=1,bf_interval=1,sched_min_interval=0
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MinJobAge=600
NodeName=${HOST} NodeAddr=127.0.0.1 CPUs=${CPUS} RealMemory=${MEMORY_MB} State=UNKNOWN
PartitionName=debug Nodes=${HOST} Default=YES MaxTime=INFINITE State=UP
CONF
}

running() { [ -f "$DIR/slurmctld.pid" ] && kill -0 "$(cat "$DIR/slurmctld.pid")" 2>/dev/null; }

start() {
  install_packages
  if running; then say "already running ($CONF)"; echo "export SLURM_CONF=$CONF"; return; fi
  write_conf
  slurmctld -i
  slurmd
  for _ in $(seq 1 60); do
    if sinfo -h -o '%T' 2>/dev/null | grep -qE '^(idle|mixed|allocated)'; then
      say "up: node ${HOST}, ${CPUS} CPUs, partition debug"
      echo "export SLURM_CONF=$CONF"
      return
    fi
    sleep 0.5
  done
  say "the node did not come up; logs in $DIR/log"
  tail -n 20 "$DIR/log/slurmctld.log" "$DIR/log/slurmd.log" >&2 || true
  exit 1
}

stop() {
  if ! running; then say "not running"; return; fi
  scontrol shutdown >/dev/null 2>&1 || true
  for _ in $(seq 1 40); do running || { say "stopped"; return; }; sleep 0.25; done
  say "slurmctld still up after 10 s; killing it"
  kill "$(cat "$DIR/slurmctld.pid")" 2>/dev/null || true
  [ -f "$DIR/slurmd.pid" ] && kill "$(cat "$DIR/slurmd.pid")" 2>/dev/null || true
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) if running; then sinfo; squeue; else say "not running"; exit 3; fi ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
