#!/usr/bin/env bash
# bench_events — what logging every event costs, and how fast the kernel simulates them (issue "A million events a
# second"): the 400-replica quickstart run (1,024 nodes of 60 days, 30 days of work: ~1.9 million events) with
# run.events = none (the baseline) and = all, and with events = none on SimGrid's engine (FAULTLINE_SIM_ENGINE =
# simgrid: the actors on SimGrid, as before the direct engine), run alternately ROUNDS times by bench_run (median
# wall time, peak RSS, ratio to the baseline); then the events counted from the table, the CPU time of one run of
# each (the writer thread's work shows there, not in the wall time), and the simulated events per second of the
# events = none runs on each engine (one core).
# Targets: events = all at most 1.15x events = none (wall); >= 1M simulated events a second on one core.
# Usage: bench/bench_events.sh [ROUNDS (5)]   (after scripts/setup.sh; BUILD_DIR defaults to build)
set -euo pipefail
cd "$(dirname "$0")/.."
B=${BUILD_DIR:-build}
ROUNDS=${1:-5}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
run=(simulate scenarios/quickstart.ini --replicas 400 --set failures.node_mtbf=60d --set app.work=30d --quiet)
"$B/bench/bench_run" -n "$ROUNDS" \
  -- "events = none" "rm -f $T/n.sqlite*; $B/faultline ${run[*]} --events none --db $T/n.sqlite >/dev/null" \
  -- "events = all" "rm -f $T/a.sqlite*; $B/faultline ${run[*]} --events all --db $T/a.sqlite >/dev/null" \
  -- "events = none, SimGrid's engine" \
  "rm -f $T/s.sqlite*; FAULTLINE_SIM_ENGINE=simgrid $B/faultline ${run[*]} --events none --db $T/s.sqlite >/dev/null"
n=$(sqlite3 "$T/a.sqlite" "SELECT COUNT(*) FROM events")
rows=$(sqlite3 "$T/a.sqlite" "SELECT COUNT(*) FROM runs")
size=$(du -k "$T/a.sqlite" | cut -f1)
cpu() { /usr/bin/time -f "%e %U %S" "$B/faultline" "${run[@]}" --events "$1" --db "$T/c$1${2:-}.sqlite" 2>&1 >/dev/null | tail -1; }
read -r wn un sn <<<"$(cpu none)"
read -r wa ua sa <<<"$(cpu all)"
read -r wg ug sg <<<"$(FAULTLINE_SIM_ENGINE=simgrid cpu none sg)"
same=$(sqlite3 "$T/cnone.sqlite" "ATTACH '$T/cnonesg.sqlite' AS g; SELECT COUNT(*) FROM runs a JOIN g.runs b USING (replica)
  WHERE a.makespan_s = b.makespan_s AND a.energy_j = b.energy_j AND a.lost_work_s = b.lost_work_s")
awk -v n="$n" -v rows="$rows" -v kb="$size" -v wn="$wn" -v un="$un" -v sn="$sn" -v wa="$wa" -v ua="$ua" -v sa="$sa" \
    -v wg="$wg" -v ug="$ug" -v sg="$sg" -v same="$same" '
BEGIN {
  printf "events: %d in %d rows, %.1f MB (%.1f bytes an event)\n", n, rows, kb / 1024, kb * 1024 / n
  printf "one more run each: none %.2f s wall, %.2f s CPU; all %.2f s wall, %.2f s CPU (CPU ratio %.2fx)\n",
         wn, un + sn, wa, ua + sa, (ua + sa) / (un + sn)
  printf "simulated events per second (events = none run, one core): %.3g on the direct engine, %.3g on SimGrid'"'"'s" \
         " (%.1fx)\n", n / (un + sn), n / (ug + sg), (ug + sg) / (un + sn)
  printf "rows of the two engines equal (makespan, energy, lost work): %d of %d\n", same, rows
}'
