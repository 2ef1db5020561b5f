#!/usr/bin/env bash
# stress_mpi_kills — randomized real failures: TRIALS runs of scenarios/cg-buddy.ini on 4 ranks + 1 spare, each with
# one rank kill -9'd at a random iteration; a trial recovered correctly when every role ends with the failure-free
# iteration count and a bitwise-identical part of the solution. Prints the count and the mean detection and
# recovery times (from the runs' rows). Goal: TRIALS/TRIALS.
# Usage: bench/stress_mpi_kills.sh [TRIALS] [GRID]   (after scripts/setup.sh; BUILD_DIR defaults to build)
set -euo pipefail
cd "$(dirname "$0")/.."
B=${BUILD_DIR:-build}
TRIALS=${1:-20}
GRID=${2:-96}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run() { # $1: label, rest: extra args
  local label=$1; shift
  "$B/faultline" run scenarios/cg-buddy.ini --np 4 --quiet --set app.grid="${GRID}x${GRID}" --set mpi.checkpoint_every=5 \
    --out "$tmp/$label" --db "$tmp/stress.sqlite" "$@" >/dev/null 2>"$tmp/$label.err" || true
}
summary() { # role -> "iterations checksum", from a run's rank files
  for f in "$1"/rank-*.txt; do
    awk '$4 >= 0 && $6 == "completed" { print $4, $8, $10 }' "$f"
  done | sort -n
}
run free
summary "$tmp/free" > "$tmp/free.sum"
iters=$(awk 'NR == 1 { print $2 }' "$tmp/free.sum")
[ "$(wc -l < "$tmp/free.sum")" -eq 4 ] || { echo "failure-free run did not complete"; exit 1; }
ok=0
for t in $(seq 1 "$TRIALS"); do
  rank=$((RANDOM % 4))
  iter=$((1 + RANDOM % (iters - 1)))
  run "t$t" --kill "$rank@$iter"
  if [ "$(summary "$tmp/t$t")" = "$(cat "$tmp/free.sum")" ]; then
    ok=$((ok + 1)); verdict=ok
  else
    verdict=WRONG
  fi
  printf 'trial %2d: kill rank %d at iteration %4d: %s\n' "$t" "$rank" "$iter" "$verdict"
done
echo "recovered correctly: $ok/$TRIALS (grid ${GRID}x${GRID}, $iters iterations failure-free)"
sqlite3 "$tmp/stress.sqlite" "SELECT printf('mean detection %.3f s, mean recovery %.3f s over %d recoveries',
  AVG(detect_time_s), AVG(recovery_time_s), SUM(interruptions)) FROM runs WHERE interruptions > 0"
