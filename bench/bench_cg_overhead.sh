#!/usr/bin/env bash
# bench_cg_overhead — failure-free overhead of in-memory buddy checkpoints on the real CG run, at the Young
# interval. Measures, in one go: the CG run without checkpoints (baseline), the commit time delta per checkpoint
# and the time of an iteration (from a run checkpointing every iteration), then runs at Young's interval
# tau = sqrt(2 delta M) for a job MTBF M (default 60 s) and prints the overhead against the baseline.
# Usage: bench/bench_cg_overhead.sh [GRID] [MTBF_S] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
B=${BUILD_DIR:-build}
GRID=${1:-512}
M=${2:-60}
ROUNDS=${3:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run() { # $1: checkpoint_every, $2: db
  "$B/faultline" run scenarios/cg-buddy.ini --np 4 --spares 0 --quiet --set app.grid="${GRID}x${GRID}" \
    --set app.iterations=100000 --set mpi.checkpoint_every="$1" --db "$2" >/dev/null
}
for r in $(seq 1 "$ROUNDS"); do run 0 "$tmp/none.sqlite"; run 1 "$tmp/every.sqlite"; done
read -r iters t_none <<<"$(sqlite3 -separator ' ' "$tmp/none.sqlite" "SELECT MAX(iterations), AVG(makespan_s) FROM runs")"
read -r delta t_every <<<"$(sqlite3 -separator ' ' "$tmp/every.sqlite" "SELECT AVG(commit_time_s), AVG(makespan_s) FROM runs")"
t_iter=$(awk -v t="$t_none" -v n="$iters" 'BEGIN { print t / n }')
every=$(awk -v d="$delta" -v m="$M" -v ti="$t_iter" 'BEGIN { k = int(sqrt(2 * d * m) / ti + 0.5); print (k < 1 ? 1 : k) }')
for r in $(seq 1 "$ROUNDS"); do run "$every" "$tmp/young.sqlite"; done
t_young=$(sqlite3 "$tmp/young.sqlite" "SELECT AVG(makespan_s) FROM runs")
awk -v g="$GRID" -v n="$iters" -v tn="$t_none" -v d="$delta" -v ti="$t_iter" -v m="$M" -v k="$every" -v ty="$t_young" \
    -v te="$t_every" 'BEGIN {
  printf "CG %dx%d on 4 ranks, %d iterations; means of the rounds\n", g, g, n
  printf "%-44s %9.4f s  %7.3fx\n", "no checkpoint (baseline)", tn, 1.0
  printf "%-44s %9.4f s  %7.3fx\n", "checkpoint every iteration", te, te / tn
  printf "commit time delta %.2e s, iteration %.2e s, job MTBF M = %g s: Young interval %d iterations\n", d, ti, m, k
  printf "%-44s %9.4f s  %7.3fx  (overhead %.2f%%)\n", "checkpoint at the Young interval", ty, ty / tn, 100 * (ty / tn - 1)
}'
