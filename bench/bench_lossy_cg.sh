#!/usr/bin/env bash
# bench_lossy_cg — failure-free overhead of compressed in-memory buddy checkpoints on the real CG solve (issue 7),
# each codec of scenarios/lossy-cg.ini against the same solve without checkpoints, and the checkpoint bytes
# against uncompressed ones, all in one mpirun: the study's failure-free phase (recovery.repeat solves per codec
# and as many without checkpoints, the fastest kept), with the loss sweep cut to one role at one iteration.
# Usage: bench/bench_lossy_cg.sh [GRID] [REPEAT] [INTERVAL]
set -euo pipefail
cd "$(dirname "$0")/.."
B=${BUILD_DIR:-build}
GRID=${1:-192}
REPEAT=${2:-3}
INTERVAL=${3:-1}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$B/faultline" run scenarios/lossy-cg.ini --np 4 --quiet --db "$tmp/b.sqlite" --set app.grid="${GRID}x${GRID}" \
  --set app.iterations=100000 --set recovery.mode=global --set recovery.interval="$INTERVAL" \
  --set recovery.repeat="$REPEAT" --set recovery.sweep_roles=0 --set recovery.sweep_at=0.5 \
  --set "recovery.codec=none zero multigrid zfp:1e-7 zfp:1e-3 zfp-adaptive:1e-2 zfp-adaptive:1e-1 zfp-adaptive:1e0 zfp-adaptive:1e1" \
  >/dev/null
echo "CG ${GRID}x${GRID} on 4 ranks (oversubscribed on $(nproc) cores), checkpoint every $INTERVAL iteration(s);" \
     "fastest of $REPEAT failure-free solves per codec"
sqlite3 -separator ' ' "$tmp/b.sqlite" "SELECT MIN(makespan_s) FROM runs WHERE codec = 'off'" | \
  awk '{ printf "%-20s %9.4f s   (baseline)\n", "no checkpoint", $1 }'
base=$(sqlite3 "$tmp/b.sqlite" "SELECT MIN(makespan_s) FROM runs WHERE codec = 'off'")
printf "%-20s %11s %9s %10s %12s %12s %8s\n" codec time overhead iterations "ckpt bytes" "raw bytes" ratio
sqlite3 -separator ' ' "$tmp/b.sqlite" \
  "SELECT codec, MIN(makespan_s), MAX(iterations), MAX(checkpoint_bytes), MAX(raw_checkpoint_bytes),
          MAX(compression_ratio)
     FROM runs WHERE recovery_mode IS NULL AND codec <> 'off' GROUP BY codec ORDER BY MIN(id)" |
  awk -v b="$base" '{ printf "%-20s %9.4f s %8.1f%% %10d %12.4g %12.4g %8.2f\n", $1, $2, 100 * ($2 / b - 1), $3, $4, $5, ($6 == "" ? 0 : $6) }'
