#!/usr/bin/env bash
# bench_workload — the machine's view at scale: a 10,000-node machine running a generated job mix (jobs of 1 to 1,024
# nodes, 4 h on average, one every 5 minutes: about 90 % of the machine asked for) with node failures (node MTBF
# 5 years, repairs in 4 hours) and every job checkpointing 4 GB a node to 40 PFS servers at its Daly interval, one
# transfer and one disk write per node of a job (per-node flows). The baseline, in the same run: the same jobs
# without failures or checkpoints (the scheduler alone). Prints each's wall time and peak memory, the ratio, and
# the simulated span, so that a year's trace can be extrapolated.
# Target (issue "The machine's view"): a year of such a machine's trace in minutes on one core.
# Usage: bench/bench_workload.sh [JOBS (10000)]   (after scripts/setup.sh; FAULTLINE defaults to build/faultline)
set -euo pipefail
cd "$(dirname "$0")/.."
F=${FAULTLINE:-$PWD/build/faultline}
JOBS=${1:-10000}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cat >"$T/w.ini" <<INI
[run]
name = workload-scale
replicas = 1
events = none
[platform]
nodes = 10000
cabinet = 100
link_bandwidth = 25GBps
cabinet_bandwidth = 400GBps
pfs_servers = 40
pfs_bandwidth = 5GBps
pfs_link_bandwidth = 50GBps
io_flows = per-rank
[failures]
model = exponential
node_mtbf = 5y
repair = 4h
[app]
kind = workload
jobs = $JOBS
job_nodes = 1-1024
job_time = 4h
arrival = 5min
checkpoint_size = 4GB
[strategy]
kind = checkpoint
interval = daly
INI
run() { # name, extra --set...
  local name=$1
  shift
  /usr/bin/time -f "%e %M" -o "$T/$name.time" "$F" simulate "$T/w.ini" --db "$T/$name.sqlite" --quiet "$@" >/dev/null
  read -r wall rss <"$T/$name.time"
  local q
  q=$(sqlite3 "$T/$name.sqlite" "SELECT jobs_completed || ' jobs, ' || printf('%.1f', makespan_s / 86400) || ' days, ' ||
      checkpoints || ' checkpoints, ' || failures || ' failures hit jobs' FROM runs")
  printf '%-10s %8.2f s %8d KB   %s\n' "$name" "$wall" "$rss" "$q"
  eval "${name}_wall=$wall"
}
echo "faultline $("$F" version 2>/dev/null | head -1), $(nproc) cores, $(date -u +%Y-%m-%d)"
run baseline --set failures.model=none --set strategy.kind=none
run workload
python3 -c "import sys; b, w = float(sys.argv[1]), float(sys.argv[2]); print(f'ratio workload / baseline: {w / b:.1f}')" \
  "$baseline_wall" "$workload_wall"
