#!/usr/bin/env bash
# Simulation against reality: `faultline agree` on NP real ranks with K failures, R rounds (issue "Real runs you can
# trust"). Each round calibrates the simulator on this machine (real failure-free runs with buddy and file
# checkpoints, one with a kill; for replication one more, failure-free, since its copies share the machine), draws K
# failures placed by progress (rank r dies as it starts iteration i: `faultline run --kill r@i`; the simulator fails
# its node when the job's work reaches i calibrated iterations: failures.trace_clock = work), and for each strategy
# runs both engines and prints the real/simulated makespan ratio (the baseline, the simulator's prediction, taken in
# the same round) with the failure counts of both and the machine's load average. The last table is the spread.
# Target: 0.85-1.15 for checkpoint, buddy, two-level and replication, every line with the same failure count.
# Usage: bench/bench_agree.sh [NP (8)] [K (4)] [ROUNDS (3)] [GRID (512x512)] [STRATEGIES]
set -euo pipefail
cd "$(dirname "$0")/.."
F=${FAULTLINE:-build/faultline}
NP=${1:-8}
K=${2:-4}
R=${3:-3}
GRID=${4:-512x512}
STRATEGIES=${5:-checkpoint,buddy,two-level,replication}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
echo "bench_agree: $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, np $NP, $K failures, $R rounds, grid $GRID"
"$F" agree scenarios/cg-buddy.ini --np "$NP" --failures "$K" --repeat "$R" --strategies "$STRATEGIES" \
  --db "$T/agree.sqlite" --set app.grid="$GRID" --set app.tolerance=1e-12 --set app.iterations=100000 --quiet ||
  status=$?
exit "${status:-0}"
