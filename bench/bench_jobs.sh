#!/usr/bin/env bash
# simulate --jobs J (worker processes for a point's replicas) against --jobs 1, in one run: wall time, the ratio,
# peak RSS (GNU time's, of the command and its largest descendant), and that both databases hold the same rows.
#   1. quickstart, 2,000 replicas of 30 days of work at a 60-day node MTBF, no events: the replicas' simulation is
#      the work;
#   2. the same, 400 replicas, every event logged (about 1.9M events, which one writer stores);
#   3. exascale-1M, 100 replicas, no events (a 1M-node platform loaded once, shared copy-on-write).
# Usage: bench/bench_jobs.sh [J (every core)]
set -euo pipefail
cd "$(dirname "$0")/.."
F=${FAULTLINE:-build/faultline}
J=${1:-$(nproc)}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cols="SELECT group_concat(name, ',') FROM pragma_table_info('runs') WHERE name NOT IN ('wall_s', 'created_at', 'policy_time_s', 'overrides')"
run() { # name jobs args...
  local name=$1 j=$2
  shift 2
  /usr/bin/time -f "%e %M" -o "$T/$name-$j.time" "$F" simulate "$@" --db "$T/$name-$j.sqlite" --quiet --jobs "$j" >/dev/null 2>&1
}
for c in quickstart-sim quickstart exascale; do
  if [ "$c" = quickstart-sim ]; then
    args=(scenarios/quickstart.ini --replicas 2000 --set failures.node_mtbf=60d --set app.work=30d --events none)
  elif [ "$c" = quickstart ]; then
    args=(scenarios/quickstart.ini --replicas 400 --set failures.node_mtbf=60d --set app.work=30d --events all)
  else
    args=(scenarios/exascale-1M.ini --replicas 100 --set run.events=none)
  fi
  run "$c" 1 "${args[@]}"
  run "$c" "$J" "${args[@]}"
  k=$(sqlite3 "$T/$c-1.sqlite" "$cols")
  same=$([ "$(sqlite3 "$T/$c-1.sqlite" "SELECT $k FROM runs ORDER BY id" | md5sum)" = \
          "$(sqlite3 "$T/$c-$J.sqlite" "SELECT $k FROM runs ORDER BY id" | md5sum)" ] &&
         [ "$(sqlite3 "$T/$c-1.sqlite" "SELECT * FROM events ORDER BY id" | md5sum)" = \
           "$(sqlite3 "$T/$c-$J.sqlite" "SELECT * FROM events ORDER BY id" | md5sum)" ] && echo same || echo DIFFERENT)
  read -r w1 m1 < "$T/$c-1.time"
  read -r wj mj < "$T/$c-$J.time"
  awk -v c="$c" -v j="$J" -v w1="$w1" -v wj="$wj" -v m1="$m1" -v mj="$mj" -v same="$same" 'BEGIN {
    printf "%s: --jobs 1 %.2f s, --jobs %d %.2f s: ratio %.2f; peak RSS %.0f MB and %.0f MB (%.2fx); rows and events %s\n",
           c, w1, j, wj, wj / w1, m1 / 1024, mj / 1024, mj / m1, same }'
done
