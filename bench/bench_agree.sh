#!/usr/bin/env bash
# Simulation against reality: `faultline agree` on 8 real ranks with K failures (default 4). It calibrates the
# simulator on this machine (three real runs), draws K failure instants, then for each strategy runs the simulator
# on a trace of those failures and the real ranks killed (kill -9) at the same instants, and prints the
# real/simulated makespan ratio (the baseline is the simulator's prediction, taken in the same run).
# Target (issue "One strategy layer for both engines"): 0.85-1.15 for checkpoint, buddy, two-level, replication.
# Usage: bench/bench_agree.sh [K (4)] [GRID (384x384)] [STRATEGIES (checkpoint,buddy,two-level,replication)]
set -euo pipefail
cd "$(dirname "$0")/.."
F=${FAULTLINE:-build/faultline}
K=${1:-4}
GRID=${2:-384x384}
STRATEGIES=${3:-checkpoint,buddy,two-level,replication}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$F" agree scenarios/cg-buddy.ini --np 8 --failures "$K" --strategies "$STRATEGIES" --db "$T/agree.sqlite" \
  --set app.grid="$GRID" --set app.tolerance=1e-12 --set app.iterations=100000 --quiet || status=$?
exit "${status:-0}"
