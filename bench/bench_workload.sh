#!/usr/bin/env bash
# bench_workload — the machine's view at scale: a 10,000-node machine running a generated job mix (jobs of 1 to 1,024
# nodes, 4 h on average, one every 5 minutes: about 90 % of the machine asked for) with node failures (node MTBF
# 5 years, repairs in 4 hours) and every job checkpointing 4 GB a node to 40 PFS servers at its Daly interval.
# Each FORM given is run: `per-rank` (one transfer and one disk access per node of a job) and `aggregated` (per
# cabinet and server: platform.io_flows = aggregated). The baseline, in the same run: the same jobs without failures
# or checkpoints (the scheduler alone). Prints each's wall time and peak memory, its ratio to the baseline, the
# simulated span, and how far the aggregated run's machine figures are from the per-rank run's.
# Target (issue "The machine's view"): a year of such a machine's trace in minutes on one core:
#   bench/bench_workload.sh 105000 aggregated
# Usage: [SET='--set KEY=VALUE ...'] bench/bench_workload.sh [JOBS (10000)] [FORM... (per-rank aggregated)]
#   e.g. SET='--set platform.pfs_link_bandwidth=2GBps' for a machine whose servers' links, not disks, bound its I/O
#   (after scripts/setup.sh; FAULTLINE defaults to build/faultline)
set -euo pipefail
cd "$(dirname "$0")/.."
F=${FAULTLINE:-$PWD/build/faultline}
JOBS=${1:-10000}
shift || true
FORMS=("$@")
[ ${#FORMS[@]} -gt 0 ] || FORMS=(per-rank aggregated)
read -ra EXTRA <<<"${SET:-}"
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
  /usr/bin/time -f "%e %M" -o "$T/$name.time" "$F" simulate "$T/w.ini" --db "$T/$name.sqlite" --quiet "${EXTRA[@]}" "$@" \
    >/dev/null
  read -r wall rss <"$T/$name.time"
  local q
  q=$(sqlite3 "$T/$name.sqlite" "SELECT jobs_completed || ' jobs, ' || printf('%.1f', makespan_s / 86400) || ' days, ' ||
      checkpoints || ' checkpoints, ' || failures || ' failures hit jobs' FROM runs")
  printf '%-10s %8.2f s %8d KB   %s\n' "$name" "$wall" "$rss" "$q"
  eval "wall_${name//-/_}=$wall"
}
echo "faultline $("$F" version 2>/dev/null | head -1), $(nproc) cores, $(date -u +%Y-%m-%d), $JOBS jobs"
run baseline --set failures.model=none --set strategy.kind=none
for form in "${FORMS[@]}"; do
  run "$form" --set platform.io_flows="$form"
  v="wall_${form//-/_}"
  python3 -c "import sys; b, w = float(sys.argv[1]), float(sys.argv[2]); print(f'  ratio {sys.argv[3]} / baseline: {w / b:.1f}')" \
    "$wall_baseline" "${!v}" "$form"
done
if [ -f "$T/per-rank.sqlite" ] && [ -f "$T/aggregated.sqlite" ]; then
  echo "aggregated against per-rank (relative differences of the machine's figures):"
  sqlite3 "$T/per-rank.sqlite" "ATTACH '$T/aggregated.sqlite' AS a;
    SELECT printf('  %-22s %12.6g %12.6g %+.2e', c, p, q, (q - p) / p) FROM (
      SELECT 'useful node-h' AS c, r.useful_node_hours AS p, s.useful_node_hours AS q FROM runs r, a.runs s UNION ALL
      SELECT 'checkpoint node-h', r.checkpoint_node_hours, s.checkpoint_node_hours FROM runs r, a.runs s UNION ALL
      SELECT 'restart node-h', r.restart_node_hours, s.restart_node_hours FROM runs r, a.runs s UNION ALL
      SELECT 'lost node-h', r.lost_node_hours, s.lost_node_hours FROM runs r, a.runs s UNION ALL
      SELECT 'makespan s', r.makespan_s, s.makespan_s FROM runs r, a.runs s)"
fi
