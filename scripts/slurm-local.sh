#!/usr/bin/env bash
# A single-host Slurm from Debian's packages (munge, slurmctld, slurmd), configured and run in DIR, for the tests
# and for trying `faultline sweep --launcher slurm` on one machine. slurmd runs as root (as on a cluster).
#   scripts/slurm-local.sh start DIR    start it; prints SLURM_CONF=DIR/slurm.conf (export it for sbatch, sinfo)
#   scripts/slurm-local.sh stop DIR     stop it (DIR stays: its logs)
# Exit 77 when Slurm is not installed or this is not root (the tests report that as skipped).
set -euo pipefail
. "$(dirname "$0")/slurm-common.sh"
cmd=${1:-}
dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || { echo "usage: $0 start|stop DIR" >&2; exit 2; }
stop_pid() { [ -f "$1" ] && kill "$(cat "$1")" 2>/dev/null || true; }
if [ "$cmd" = stop ]; then
  stop_pid "$dir/slurmd.pid"
  stop_pid "$dir/slurmctld.pid"
  stop_pid "$dir/munge/munged.pid"
  sleep 1
  exit 0
fi
[ "$cmd" = start ] || { echo "$0: unknown command '$cmd' (start|stop)" >&2; exit 2; }
for b in munged slurmctld slurmd sbatch; do
  command -v "$b" >/dev/null 2>&1 || [ -x "/usr/sbin/$b" ] || { echo "$0: $b not installed (slurm-wlm, munge)" >&2; exit 77; }
done
[ "$(id -u)" -eq 0 ] || { echo "$0: slurmd needs root" >&2; exit 77; }
mkdir -p "$dir"/{state,spool,log,munge}
dir=$(cd "$dir" && pwd)
host=$(hostname -s)
port=$((20000 + $$ % 20000))
fl_start_munge "$dir"
fl_slurm_conf "$dir" faultline "$host" "$port" "$dir/slurmd.pid" "$dir/log/slurmd.log"
cat >>"$dir/slurm.conf" <<CONF
NodeName=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$dir/slurm.conf"
/usr/sbin/slurmctld
/usr/sbin/slurmd
for _ in $(seq 1 60); do
  if sinfo -h -o %t 2>/dev/null | grep -q idle; then
    echo "SLURM_CONF=$SLURM_CONF"
    exit 0
  fi
  sleep 0.5
done
echo "$0: Slurm did not come up (logs in $dir/log)" >&2
"$0" stop "$dir"
exit 1
