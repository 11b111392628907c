#!/usr/bin/env bash
# Starts a single-node Slurm on this machine for tests and trials: munged,
# then slurmctld and slurmd of a cluster of one node (localhost, this
# machine's CPUs), configured in a state folder of its own (default
# /tmp/hwgen-slurm) on ports of their own, so that nothing outside the
# machine is contacted and a real Slurm installation is left alone.
# Needs root and Debian's slurm-wlm and munge (scripts/setup.sh).
#   scripts/slurm-local.sh start     prints the SLURM_CONF to export
#   scripts/slurm-local.sh stop
set -euo pipefail
state=${HWGEN_SLURM_DIR:-/tmp/hwgen-slurm}
conf=$state/slurm.conf

# gone reports whether process $1 has exited (a zombie counts: nothing
# reaps the daemons in some sandboxes).
gone() {
  [ ! -r "/proc/$1/stat" ] || [ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" = Z ]
}

stop() {
  for d in slurmd slurmctld; do
    if [ -f "$state/$d.pid" ]; then
      pid=$(cat "$state/$d.pid")
      kill "$pid" 2>/dev/null || true
      # slurmctld saves its state as it exits: wait, so that nothing
      # writes into the state folder after stop returns.
      for _ in $(seq 100); do
        gone "$pid" && break
        sleep 0.1
      done
      rm -f "$state/$d.pid"
    fi
  done
  # munged too, when this script started it (a munged of the machine's
  # own Slurm is left alone).
  if [ -f "$state/munged.started" ] && [ -f /run/munge/munged.pid ]; then
    kill "$(cat /run/munge/munged.pid)" 2>/dev/null || true
    rm -f "$state/munged.started"
  fi
}

start() {
  mkdir -p "$state/spool" "$state/ctld"
  # munge authenticates every Slurm message; its Debian package made the key.
  if ! pgrep -x munged >/dev/null; then
    mkdir -p /run/munge && chown munge:munge /run/munge
    runuser -u munge -- /usr/sbin/munged
    touch "$state/munged.started"
  fi
  cpus=$(nproc)
  mem=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 / 2 ))
  cat >"$conf" <<CONF
ClusterName=hwgen
SlurmctldHost=localhost
SlurmctldPort=16817
SlurmdPort=16818
SlurmUser=root
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
StateSaveLocation=$state/ctld
SlurmdSpoolDir=$state/spool
SlurmctldPidFile=$state/slurmctld.pid
SlurmdPidFile=$state/slurmd.pid
SlurmctldLogFile=$state/slurmctld.log
SlurmdLogFile=$state/slurmd.log
ReturnToService=2
NodeName=hwgen-node NodeHostname=localhost NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=local Nodes=hwgen-node Default=YES MaxTime=INFINITE State=UP
CONF
  for d in slurmd slurmctld; do # daemons of an earlier start, not munged
    [ -f "$state/$d.pid" ] && kill "$(cat "$state/$d.pid")" 2>/dev/null || true
  done
  export SLURM_CONF=$conf
  slurmctld -f "$conf"
  slurmd -f "$conf" -N hwgen-node
  for _ in $(seq 100); do
    if sinfo -h -o %t 2>/dev/null | grep -qx idle; then
      echo "SLURM_CONF=$conf"
      return 0
    fi
    sleep 0.2
  done
  echo "slurm-local: the node did not come up; logs in $state" >&2
  tail -n 5 "$state"/*.log >&2 || true
  return 1
}

case ${1:-start} in
  start) start ;;
  stop) stop ;;
  *) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
