#!/usr/bin/env bash
# bench_gridworld_1m — the grid world at a million tasks, 100 sweeps with failures, against SimGrid alone loading
# (and sealing) the same 2,000,000-host platform, in one run.
# Target (issue "Replication and substitution"): <= 60 s and <= 4 GB.
# Usage: bench/bench_gridworld_1m.sh [ROUNDS] [STRATEGY...]   (after scripts/setup.sh; BUILD_DIR defaults to build)
set -euo pipefail
cd "$(dirname "$0")/.."
B=${BUILD_DIR:-build}
ROUNDS=${1:-1}
shift || true
STRATEGIES=${*:-hybrid replication substitution}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$B/faultline" platform --nodes 2000000 --speed 1Gf -o "$tmp/platform.xml"
args=(-- "simgrid load+seal 2M" "$B/bench/sg_load" "$tmp/platform.xml" seal)
for s in $STRATEGIES; do
  args+=(-- "gridworld-1M $s" "$B/faultline" simulate scenarios/gridworld-1M.ini --set strategy.kind="$s"
         --db "$tmp/r.sqlite" --quiet ">/dev/null")
done
"$B/bench/bench_run" -n "$ROUNDS" "${args[@]}"
sqlite3 -header -column "$tmp/r.sqlite" \
  "SELECT strategy, iterations, complete_iterations AS complete, ROUND(error_linf, 3) AS err_linf,
          tasks_replicated AS replicated, tasks_substituted AS substituted, policy_solver,
          ROUND(policy_time_s, 2) AS policy_s, ROUND(wall_s, 1) AS sim_s FROM runs"
