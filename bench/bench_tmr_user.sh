#!/usr/bin/env bash
# TMR of user kernels (issue 18): overhead over one unprotected run for a memory-bound and a latency-bound small
# kernel, and the vote's bandwidth against a copy within the same memory, all measured in the same run by the
# self-contained faultline-tmr-check (tests/tmr_check/). On a GPU machine, carry that one binary and run it there.
# Usage: bench/bench_tmr_user.sh [BUILD_DIR] [cpu|cuda|auto]      (defaults: build, auto)
set -euo pipefail
B=${1:-build}
BACKEND=${2:-auto}
BIN=$B/tests/tmr_check/faultline-tmr-check
[ -x "$BIN" ] || { echo "bench_tmr_user: $BIN not built (cmake --build $B --target faultline-tmr-check)" >&2; exit 2; }
date -u +"%Y-%m-%d %H:%M UTC"
if command -v nvidia-smi >/dev/null 2>&1; then
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
fi
echo "cores: $(nproc)"
"$BIN" --backend "$BACKEND" --bench-only
