#!/usr/bin/env bash
# bench_workflow_load — loading a 100,000-task WfCommons instance in schema 1.5 (tasks, files and runtimes in three
# lists, joined by id) against the same workflow in schema 1.4 (one list), the baseline, in one run: `simulate
# --print` reads and checks the graph and prints the scenario, nothing simulated. Target (issue "Workflows as
# researchers have them"): 1.5 within 1.5x of 1.4. Then one failure-free replica of each on 16 hosts: the same
# schedule length and makespan (the two files are one workflow).
# Usage: bench/bench_workflow_load.sh [TASKS (100000)] [ROUNDS (3)]   (after scripts/setup.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
B=${BUILD_DIR:-build}
N=${1:-100000}
ROUNDS=${2:-3}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
for v in 1.4 1.5; do awk -v N="$N" -v W=1000 -v V=$v -f bench/wfcommons_layered.awk >"$T/w$v.json"; done
printf '[run]\nreplicas = 1\nevents = none\n[platform]\nnodes = 16\n[app]\nkind = workflow\ngraph = w1.4.json\n'\
'[failures]\nmodel = none\n[strategy]\nkind = replication\n' >"$T/w.ini"
echo "$N tasks: schema 1.4 $(du -h "$T/w1.4.json" | cut -f1), schema 1.5 $(du -h "$T/w1.5.json" | cut -f1)"
"$B/bench/bench_run" -n "$ROUNDS" \
  -- "load schema 1.4" "$B/faultline" simulate "$T/w.ini" --set app.graph=w1.4.json --print ">/dev/null" \
  -- "load schema 1.5" "$B/faultline" simulate "$T/w.ini" --set app.graph=w1.5.json --print ">/dev/null"
for v in 1.4 1.5; do
  "$B/faultline" simulate "$T/w.ini" --set app.graph=w$v.json --db "$T/r$v.sqlite" --quiet >/dev/null
  echo "schema $v: $(sqlite3 "$T/r$v.sqlite" "SELECT 'schedule ' || work_s || ' s, makespan ' || makespan_s || ' s' FROM runs")"
done
