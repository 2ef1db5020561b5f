#!/usr/bin/env bash
# Local sweep speed-up: the same sweep (quickstart.ini at 100,000 nodes / 99,000 ranks, so that a replica is
# simulation work, not a row write: 2 shapes x 2 strategies x REPLICAS replicas) run by `faultline sweep` with
# --jobs 1 and with --jobs 2 (8 shards each), wall time of each and the ratio, in one run.
# Also merge speed: SHARDS shards of ROWS rows each (copies of one simulated shard, their row keys made distinct),
# merged by `faultline merge`, against SQLite doing the same copy alone (ATTACH + INSERT ... SELECT, one commit per
# shard, default pages, no key check: what merge did before it batched shards) as baseline.
# Usage: bench/bench_sweep.sh [REPLICAS (200)] [SHARDS (100)] [ROWS (10000)]     (ROWS = 0: the sweep only)
set -euo pipefail
cd "$(dirname "$0")/.."
F=${FAULTLINE:-build/faultline}
REPLICAS=${1:-200}
SHARDS=${2:-100}
ROWS=${3:-10000}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
now() { date +%s.%N; }

terms=(--sweep failures.shape=0.5,0.9 --sweep strategy.kind=checkpoint,buddy --replicas "$REPLICAS" --events none
       --set platform.nodes=100000 --set app.nodes=99000)
t0=$(now); "$F" sweep scenarios/quickstart.ini --jobs 1 --shards 8 --dir "$T/j1" --db "$T/j1.sqlite" -q "${terms[@]}"
t1=$(now); "$F" sweep scenarios/quickstart.ini --jobs 2 --shards 8 --dir "$T/j2" --db "$T/j2.sqlite" -q "${terms[@]}"
t2=$(now)
n1=$(sqlite3 "$T/j1.sqlite" "SELECT COUNT(*) FROM runs")
n2=$(sqlite3 "$T/j2.sqlite" "SELECT COUNT(*) FROM runs")
awk -v a="$t0" -v b="$t1" -v c="$t2" -v n1="$n1" -v n2="$n2" 'BEGIN {
  printf "sweep: %d rows with --jobs 1 in %.2f s, %d rows with --jobs 2 in %.2f s: speed-up %.2fx\n",
         n1, b - a, n2, c - b, (b - a) / (c - b) }'

[ "$ROWS" -gt 0 ] || exit 0
# merge: one shard of ROWS rows, copied SHARDS times with distinct row keys
"$F" simulate scenarios/quickstart.ini --replicas "$ROWS" --events none --db "$T/base.sqlite" -q >/dev/null
sqlite3 "$T/base.sqlite" "PRAGMA journal_mode=DELETE" >/dev/null
mkdir -p "$T/shards"
for i in $(seq 1 "$SHARDS"); do
  cp "$T/base.sqlite" "$T/shards/s$i.sqlite"
  sqlite3 "$T/shards/s$i.sqlite" "UPDATE runs SET row_key = row_key || ':copy$i'"
done
# the copies are on disk before the clock starts (their write-back would otherwise compete with the merge's
# writes); three merges into a new file, the median counted
runs=()
for k in 1 2 3; do
  rm -f "$T"/merged.sqlite*
  sync
  a=$(now); "$F" merge "$T"/shards/s*.sqlite --db "$T/merged.sqlite" 2>/dev/null; b=$(now)
  runs+=("$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", b - a }')")
done
sync
echo "merge into a new file, 3 times: ${runs[*]} s"
t0=0; t1=$(printf '%s\n' "${runs[@]}" | sort -n | sed -n 2p)
t2=$(now); "$F" merge "$T"/shards/s*.sqlite --db "$T/merged.sqlite" 2>/dev/null; t3=$(now)
# baseline: SQLite copying the same rows with no checks (one INSERT ... SELECT per shard, each its own commit, as
# merge commits once), into a file of the same schema
sqlite3 "$T/base.sqlite" ".schema runs" | sed 's/CREATE TABLE runs/CREATE TABLE IF NOT EXISTS runs/' > "$T/schema.sql"
{
  cat "$T/schema.sql"
  echo "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
  for i in $(seq 1 "$SHARDS"); do
    echo "ATTACH '$T/shards/s$i.sqlite' AS s;"
    echo "INSERT INTO runs (row_key, scenario, scenario_text, scenario_xxh64, overrides, mode, app, strategy, failure_model, seed,"
    echo " replica, nodes, platform_nodes, work_s, makespan_s, status, faultline_version)"
    echo " SELECT row_key, scenario, scenario_text, scenario_xxh64, overrides, mode, app, strategy, failure_model, seed, replica, nodes,"
    echo " platform_nodes, work_s, makespan_s, status, faultline_version FROM s.runs; DETACH s;"
  done
} > "$T/baseline.sql"
sync
t4=$(now); sqlite3 "$T/baseline.sqlite" < "$T/baseline.sql" >/dev/null; t5=$(now)
m=$(sqlite3 "$T/merged.sqlite" "SELECT COUNT(*) FROM runs")
awk -v a="$t0" -v b="$t1" -v c="$t2" -v d="$t3" -v e="$t4" -v f="$t5" -v m="$m" -v s="$SHARDS" -v r="$ROWS" 'BEGIN {
  printf "merge: %d shards x %d rows -> %d rows in %.2f s (median of 3; again, all present: %.2f s); SQLite alone (17 columns, no checks): %.2f s; ratio %.2fx\n",
         s, r, m, b - a, d - c, f - e, (b - a) / (f - e) }'
