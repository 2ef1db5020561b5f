#!/usr/bin/env bash
# Everything of issue 18 that needs a GPU, in one go (a lent GPU machine is short-lived): the TMR checks on the
# device, the built-in kernels' test, the measurements (twice, 25 samples each), the schedule probe, and the checks
# again under compute-sanitizer's memcheck. Carry the binaries (build/tests/tmr_check/faultline-tmr-check,
# build/tests/test_tmr_cuda, build/bench/tmr_schedule_probe) and, for test_tmr_cuda, its libraries in
# build/devlibs (libcunit, libgsl, libgslcblas, libxxhash). Logs go to $OUT (or ./gpu-logs).
# Usage: bench/gpu_tmr_session.sh [BUILD_DIR]
set -uo pipefail
B=${1:-build}
O=${OUT:-gpu-logs}
mkdir -p "$O"
export PATH=$PATH:/usr/local/cuda/bin
{
  date -u +"%Y-%m-%d %H:%M UTC"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
} | tee "$O/gpu.txt"
timeout 200 "$B/tests/tmr_check/faultline-tmr-check" --backend cuda 2>&1 | tee "$O/check.txt"
echo "checks rc=${PIPESTATUS[0]}"
LD_LIBRARY_PATH=$B/devlibs timeout 120 "$B/tests/test_tmr_cuda" > "$O/test_tmr_cuda.txt" 2>&1
echo "test_tmr_cuda rc=$?"; grep -E "tests|asserts" "$O/test_tmr_cuda.txt"
for i in 1 2; do
  timeout 120 "$B/tests/tmr_check/faultline-tmr-check" --backend cuda --bench-only --samples 25 2>&1 | tee "$O/bench$i.txt"
done
timeout 120 "$B/bench/tmr_schedule_probe" > "$O/probe.txt" 2>&1
echo "probe rc=$?"
timeout 150 compute-sanitizer --tool memcheck --leak-check full --report-api-errors no --error-exitcode 9 \
  "$B/tests/tmr_check/faultline-tmr-check" --backend cuda --trials 20 --quick --bench > "$O/memcheck.txt" 2>&1
echo "memcheck rc=$?"; tail -n 2 "$O/memcheck.txt"
