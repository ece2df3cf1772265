# A real one-machine SLURM cluster for the tests (../shared/INFRA.md's recipe), private to one
# directory: its own slurm.conf (SLURM_CONF), spool, state and log dirs and ports, so a system
# SLURM is left alone. Sourced: cluster_start DIR exports SLURM_CONF; cluster_stop ends it.
# Needs root, munge and slurm-wlm (scripts/setup.sh --slurm installs them).

cluster_start() {
  local dir=$1 host i
  host=$(hostname -s)
  mkdir -p "$dir/ctld" "$dir/d" "$dir/log"
  # munged: one per machine; start it when none answers.
  if ! munge -n </dev/null >/dev/null 2>&1; then
    install -d -o munge -g munge -m 0755 /run/munge
    install -d -o munge -g munge -m 0700 /var/log/munge /var/lib/munge
    runuser -u munge -- /usr/sbin/munged || return 1
  fi
  # Ports away from the defaults (6817/6818), picked from the directory so runs do not clash.
  local base=$((17000 + $(echo "$dir" | cksum | cut -d' ' -f1) % 20000))
  cat >"$dir/slurm.conf" <<CONF
ClusterName=foxtest
SlurmctldHost=$host
SlurmctldPort=$base
SlurmdPort=$((base + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CryptoType=crypto/munge
StateSaveLocation=$dir/ctld
SlurmdSpoolDir=$dir/d
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=pmix
SwitchType=switch/none
ReturnToService=2
MailProg=/bin/true
KillWait=5
MinJobAge=600
SlurmdParameters=config_overrides
NodeName=$host CPUs=8 Boards=1 SocketsPerBoard=1 CoresPerSocket=8 ThreadsPerCore=1 RealMemory=4000 State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
  export SLURM_CONF=$dir/slurm.conf
  slurmctld -D -f "$SLURM_CONF" >"$dir/log/slurmctld.out" 2>&1 &
  CLUSTER_CTLD=$!
  slurmd -D -f "$SLURM_CONF" >"$dir/log/slurmd.out" 2>&1 &
  CLUSTER_D=$!
  for i in $(seq 300); do # up to a minute: slurmctld and slurmd start slowly on a busy machine
    if sinfo -h -o %T 2>/dev/null | grep -q -E '^(idle|mixed|allocated)'; then
      return 0
    fi
    sleep 0.2
  done
  echo "cluster: the node did not come up; see $dir/log" >&2
  tail -n 5 "$dir/log/slurmctld.log" "$dir/log/slurmd.log" "$dir/log/slurmctld.out" \
    "$dir/log/slurmd.out" >&2
  return 1
}

cluster_stop() {
  [ -n "${CLUSTER_D:-}" ] && kill "$CLUSTER_D" 2>/dev/null
  [ -n "${CLUSTER_CTLD:-}" ] && kill "$CLUSTER_CTLD" 2>/dev/null
  wait "${CLUSTER_D:-}" "${CLUSTER_CTLD:-}" 2>/dev/null
  CLUSTER_D= CLUSTER_CTLD=
}

# job_wait ID [SECONDS]: until the job (all array tasks) has left the queue; 1 on timeout.
job_wait() {
  local id=$1 limit=${2:-300} i
  for i in $(seq $((limit * 5))); do
    [ -z "$(squeue -h -j "$id" 2>/dev/null)" ] && return 0
    sleep 0.2
  done
  return 1
}
