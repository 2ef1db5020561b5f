#!/usr/bin/env bash
# bench_workflow.sh — issue 15's scale figure: a 100,000-task workflow (100 layers of 1,000 tasks, each reading
# 1 MB from two tasks of the layer before; 1-10 Gflop each) HEFT-scheduled on a 10,000-host generated platform,
# simulated with host failures (node MTBF 1 day, 10 min repair) and the hybrid policy deciding at each failure.
# A harsher run: node MTBF 4 hours (a failure every 1.4 s), the full MIP deciding. Target: <= 60 s and <= 4 GB. Baseline in the same run: the same workflow without failures (schedule + replay).
# Usage: bench/bench_workflow.sh [BUILD_DIR]   (prints wall s, peak RSS and the ratio failures / no failures)
set -euo pipefail
BUILD=${1:-build}
FL=$(cd "$BUILD" && pwd)/faultline
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
awk 'BEGIN {
  L = 100; W = 1000; print "digraph layered {";
  for (l = 0; l < L; l++) for (i = 0; i < W; i++)
    printf "  t%d_%d [size=\"%d\", category=\"L%d\"];\n", l, i, (1 + (i * 7 + l * 3) % 10) * 1000000000, l;
  for (l = 1; l < L; l++) for (i = 0; i < W; i++) {
    a = (i * 7 + l) % W; b = (i * 13 + 5 * l + 1) % W; if (b == a) b = (a + 1) % W;
    printf "  t%d_%d -> t%d_%d [size=\"1e6\"];\n  t%d_%d -> t%d_%d [size=\"1e6\"];\n", l-1, a, l, i, l-1, b, l, i;
  }
  print "}" }' > "$DIR/layered.dot"
cat > "$DIR/wf.ini" <<INI
[platform]
nodes = 10000
[app]
kind = workflow
graph = layered.dot
[failures]
model = exponential
node_mtbf = 1d
repair = 10min
[strategy]
kind = hybrid
[policy]
kind = greedy
error_budget = 50
[run]
replicas = 1
events = none
INI
run() { # $1 label, rest: extra options
  local label=$1; shift
  /usr/bin/time -f "%e %M" -o "$DIR/time" "$FL" simulate "$DIR/wf.ini" --db "$DIR/$label.db" "$@" >/dev/null 2>"$DIR/err" ||
    { cat "$DIR/err"; exit 1; }
  read -r wall rss < "$DIR/time"
  echo "$label: wall ${wall} s, peak RSS $((rss / 1024)) MiB; $(sqlite3 -separator ' ' "$DIR/$label.db" \
    "SELECT 'status', status, 'makespan', round(makespan_s, 1), 's, failures', failures, ', lost', tasks_lost,
            ', replicated', tasks_replicated, ', substituted', tasks_substituted FROM runs")"
  eval "${label}_wall=$wall"
}
echo "100,000 tasks, $(grep -c -- '->' "$DIR/layered.dot") edges, 10,000 hosts ($(nproc) cores, $(date -u +%F))"
run baseline --set failures.model=none
run failures
run harsh --set failures.node_mtbf=4h --set policy.kind=full-mip
awk -v a="$failures_wall" -v h="$harsh_wall" -v b="$baseline_wall" 'BEGIN {
  printf "ratio failures / no failures: %.2f (harsh: %.2f); target 60 s: %s\n", a / b, h / b, (a <= 60 && h <= 60 ? "met" : "NOT met") }'
