#!/usr/bin/env bash
# bench_sim_1m — the 1M-node scenario against SimGrid alone loading the same platform, in one run.
# Target (issue "Simulator core"): faultline's wall time <= 1.3x the baseline; peak RSS <= 1.2 GB. Since the direct
# engine runs a platform without a network without SimGrid (issue "Every core"), faultline's own figure is far below
# the load; the same scenario on SimGrid's engine (FAULTLINE_SIM_ENGINE=simgrid) is the like-for-like one.
# Usage: bench/bench_sim_1m.sh [ROUNDS]   (after scripts/setup.sh; BUILD_DIR defaults to build)
set -euo pipefail
cd "$(dirname "$0")/.."
B=${BUILD_DIR:-build}
ROUNDS=${1:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# the very platform faultline generates for scenarios/exascale-1M.ini (same generator, same bytes)
nodes=$(sed -n 's/^nodes *= *\([0-9]*\)$/\1/p' scenarios/exascale-1M.ini | head -1)
speed=$(sed -n 's/^node_speed *= *\(.*\)$/\1/p' scenarios/exascale-1M.ini | head -1)
"$B/faultline" platform --nodes "$nodes" --speed "$speed" -o "$tmp/platform.xml"
echo "platform: $nodes hosts + controller, $(du -h "$tmp/platform.xml" | cut -f1) of XML"
"$B/bench/bench_run" -n "$ROUNDS" \
  -- "simgrid load+seal" "$B/bench/sg_load" "$tmp/platform.xml" seal \
  -- "simgrid load (parse only)" "$B/bench/sg_load" "$tmp/platform.xml" \
  -- "faultline exascale-1M" rm -f "$tmp/r.sqlite" "$tmp/r.sqlite-wal" "$tmp/r.sqlite-shm" "&&" \
       "$B/faultline" simulate scenarios/exascale-1M.ini --db "$tmp/r.sqlite" --quiet ">/dev/null" \
  -- "the same on SimGrid's engine" rm -f "$tmp/s.sqlite" "$tmp/s.sqlite-wal" "$tmp/s.sqlite-shm" "&&" \
       FAULTLINE_SIM_ENGINE=simgrid "$B/faultline" simulate scenarios/exascale-1M.ini --db "$tmp/s.sqlite" --quiet \
       ">/dev/null"
# each run writes its database afresh (a run on a database that holds the rows skips them)
echo "replicas: $(sqlite3 "$tmp/r.sqlite" 'SELECT COUNT(*) FROM runs') rows a run; the two engines' rows the same: \
$([ "$(sqlite3 "$tmp/r.sqlite" 'SELECT makespan_s, failures, energy_j FROM runs ORDER BY replica' | md5sum)" = \
    "$(sqlite3 "$tmp/s.sqlite" 'SELECT makespan_s, failures, energy_j FROM runs ORDER BY replica' | md5sum)" ] &&
  echo yes || echo NO)"
