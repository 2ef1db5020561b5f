# slurm-common.sh — what scripts/slurm-local.sh and scripts/cluster-local.sh share (sourced, not run): munge and
# the common part of a Slurm configuration, everything in one directory.

# fl_start_munge DIR: a munge key of its own and munged on DIR/munge/munge.socket
fl_start_munge() {
  dd if=/dev/urandom of="$1/munge/munge.key" bs=1024 count=1 status=none
  chmod 400 "$1/munge/munge.key"
  /usr/sbin/munged --key-file="$1/munge/munge.key" --socket="$1/munge/munge.socket" \
    --pid-file="$1/munge/munged.pid" --log-file="$1/munge/munged.log" --seed-file="$1/munge/seed" -f
}

# fl_slurm_conf DIR CLUSTER CONTROLLER PORT SLURMD_PID SLURMD_LOG: DIR/slurm.conf's common lines (root daemons,
# munge, state, logs, ports, no cgroups, no accounting); the caller appends its nodes and partition
fl_slurm_conf() {
  cat >"$1/slurm.conf" <<CONF
ClusterName=$2
SlurmctldHost=$3
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$1/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$1/state
SlurmdSpoolDir=$1/spool/%n
SlurmctldPidFile=$1/slurmctld.pid
SlurmdPidFile=$5
SlurmctldLogFile=$1/log/slurmctld.log
SlurmdLogFile=$6
SlurmctldPort=$4
SlurmdPort=$(($4 + 1))
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
CONF
}
