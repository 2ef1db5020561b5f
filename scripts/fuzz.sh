#!/usr/bin/env bash
# Build the libFuzzer harnesses (clang, ASan + UBSan, build-fuzz/) and run each for SECONDS (default 60).
# Usage: scripts/fuzz.sh [--if-available] [--jobs N] [SECONDS] [HARNESS...]
# --if-available (the test suite's fuzz_short): where clang and its runtime are not installed, say so and exit 77
# (ctest reports the test skipped) instead of installing them.
#   e.g. scripts/fuzz.sh 10; scripts/fuzz.sh 3600 fuzz_trace; scripts/fuzz.sh --jobs 16 36000 fuzz_platform
# --jobs N runs N fuzzing processes of each harness at once (default 1), on one corpus: each writes the inputs it
# finds new there and reads the others' (libFuzzer's -reload), as libFuzzer's own -jobs does; executions are summed.
# Corpora grow in build-fuzz/corpus/NAME (seeded from the shipped scenarios, traces, platforms, a results
# database and checkpoint files); a crash, leak or UB report leaves its input in build-fuzz/artifacts/ and makes
# the script exit 1. Prints one line per harness: executions, seconds, corpus size, outcome.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=1
IF_AVAILABLE=0
if [ "${1:-}" = "--if-available" ]; then
  IF_AVAILABLE=1
  shift
fi
if [ "${1:-}" = "--jobs" ] || [ "${1:-}" = "-j" ]; then
  JOBS=${2:-}
  shift 2 || true
fi
case "$JOBS" in
  '' | *[!0-9]* | 0*) echo "scripts/fuzz.sh: --jobs '$JOBS': a whole number of processes, 1 or more" >&2; exit 2 ;;
esac
SECONDS_EACH=${1:-60}
case "$SECONDS_EACH" in
  '' | *[!0-9]* | 0*) echo "scripts/fuzz.sh: SECONDS '$SECONDS_EACH': a whole number of seconds, 1 or more" >&2; exit 2 ;;
esac
shift || true
HARNESSES=("$@")
[ ${#HARNESSES[@]} -gt 0 ] || HARNESSES=(fuzz_scenario fuzz_trace fuzz_swf fuzz_manifest fuzz_serial fuzz_results_db fuzz_merge fuzz_platform fuzz_logs fuzz_profiles)

PACKAGES=(clang libclang-rt-14-dev)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ] && [ "$IF_AVAILABLE" = 1 ]; then
  echo "scripts/fuzz.sh: skipped: ${missing[*]} not installed (scripts/fuzz.sh without --if-available installs them)" >&2
  exit 77
fi
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq && $SUDO apt-get install -y -qq "${PACKAGES[@]}" >/dev/null
fi
scripts/setup.sh >/dev/null   # the project's own packages, and build/faultline for the seed database

B=build-fuzz
CC=clang CXX=clang++ cmake -S . -B "$B" -DFL_FUZZ=ON -DFL_WITH_CUDA=OFF -DFL_WITH_MPI=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$B" -j"$(nproc)" --target "${HARNESSES[@]}" >/dev/null

# seed corpora from the files users have
C=$B/corpus
mkdir -p "$C"/{fuzz_scenario,fuzz_trace,fuzz_swf,fuzz_manifest,fuzz_serial,fuzz_results_db,fuzz_merge,fuzz_platform,fuzz_logs,fuzz_profiles} "$B/artifacts"
# SimGrid's own example profiles (examples/platforms/profiles/): jupiter_speed, link1_bandwidth, bourassa_state
printf '0 0.5\n2 1.0\n4 0.7\n6 0.1\n8 4\nLOOPAFTER 10' > "$C/fuzz_profiles/jupiter_speed.profile"
printf '2 2000000\n4 3000000\nLOOPAFTER 6\n' > "$C/fuzz_profiles/link1_bandwidth.profile"
printf '67 0\n70 1\n' > "$C/fuzz_profiles/bourassa_state.profile"
cp scenarios/*.ini "$C/fuzz_scenario/"
printf '[run]\nseed = 7\n[app]\nnodes = 4\n--\nfailures.node_mtbf=1h30min\nstrategy.interval=young\n--\nstrategy.kind+strategy.checkpoint_cost=checkpoint/1min,buddy/10s failures.shape=0.5,0.7\n' \
  > "$C/fuzz_scenario/overrides-and-sweep"
cp scenarios/traces/*.csv "$C/fuzz_trace/"
printf '0, 1\n3600, node-2, 10min\n7200.5, 3, never\n' > "$C/fuzz_trace/forms.csv"
head -200 data/failures/lanl-system20.csv > "$C/fuzz_logs/lanl-head.csv"
# the archive's own traces: KTH's header and first jobs (plain), NASA's (gzip), an out-of-order pair
# (sed reads to the end: head would leave zcat a broken pipe, which pipefail makes fatal)
zcat data/workloads/KTH-SP2-1996-2.1-cln.swf.gz | sed -n '1,120p' > "$C/fuzz_swf/kth-head.swf"
zcat data/workloads/NASA-iPSC-1993-3.1-cln.swf.gz | sed -n '1,80p' | gzip > "$C/fuzz_swf/nasa-head.swf.gz"
printf '; MaxNodes: 4\n; MaxProcs: 8\n2 10 0 5 3 -1 -1 3 9 -1 1 1 1 -1 1 -1 -1 -1\n1 0 -1 7 8 -1 64 8 -1 128 1 1 1 -1 1 -1 -1 -1\n' \
  > "$C/fuzz_swf/unsorted.swf"
printf '1\t0\t5\t1\tn5\t0\t1000000000\t1000003600\t0\n2\t0\t7\t1\tn7\t1\t1000050000.5\tNULL\t0\n' > "$C/fuzz_logs/fta.tab"
cp sim/platforms/*.xml tests/fuzz/seeds/platform/*.xml "$C/fuzz_platform/"   # SimGrid's own examples too
build/faultline platform --nodes 3 -o "$C/fuzz_platform/generated-3.xml"
cp tests/fuzz/seeds/manifest/* "$C/fuzz_manifest/"
cp tests/fuzz/seeds/serial/* "$C/fuzz_serial/"
if [ ! -s "$C/fuzz_results_db/seed.sqlite" ]; then
  t=$(mktemp -d)
  build/faultline simulate scenarios/trace-replay.ini --db "$t/seed.sqlite" --quiet >/dev/null
  sqlite3 "$t/seed.sqlite" "PRAGMA journal_mode=DELETE; VACUUM" >/dev/null
  cp "$t/seed.sqlite" "$C/fuzz_results_db/seed.sqlite"
  rm -rf "$t"
fi
if [ ! -s "$C/fuzz_merge/shard-1-of-2.sqlite" ]; then
  # a shard of a sweep as a cluster's array task writes it, and a whole database (not written by --shard)
  t=$(mktemp -d)
  build/faultline simulate scenarios/quickstart.ini --sweep strategy.interval=1h,2h --replicas 3 --shard 1/2 \
    --db "$t/shard.sqlite" --quiet >/dev/null
  sqlite3 "$t/shard.sqlite" "PRAGMA journal_mode=DELETE; VACUUM" >/dev/null
  cp "$t/shard.sqlite" "$C/fuzz_merge/shard-1-of-2.sqlite"
  cp "$C/fuzz_results_db/seed.sqlite" "$C/fuzz_merge/whole.sqlite"
  rm -rf "$t"
fi

status=0
printf '%-17s %12s %8s %8s  %s\n' harness executions seconds corpus outcome
for h in "${HARNESSES[@]}"; do
  [ -x "$B/tests/fuzz/$h" ] || { echo "scripts/fuzz.sh: no harness '$h'" >&2; exit 2; }
  extra=()
  # a harness with a dictionary of its format's words (tests/fuzz/NAME.dict) gets it
  [ -f "tests/fuzz/${h#fuzz_}.dict" ] && extra+=(-dict="tests/fuzz/${h#fuzz_}.dict")
  pids=()
  logs=()
  for ((j = 1; j <= JOBS; j++)); do
    log=$B/$h.log
    [ "$JOBS" -gt 1 ] && log=$B/$h.$j.log
    logs+=("$log")
    # -rss_limit_mb and -timeout: a harness input that eats memory or hangs is a finding too
    ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
      "$B/tests/fuzz/$h" "$C/$h" -max_total_time="$SECONDS_EACH" -rss_limit_mb=2048 -timeout=20 \
      -artifact_prefix="$B/artifacts/$h-" -print_final_stats=1 "${extra[@]}" >"$log" 2>&1 &
    pids+=($!)
  done
  execs=0
  failed=()
  for ((j = 0; j < JOBS; j++)); do
    rc=0
    wait "${pids[$j]}" || rc=$?
    # the file each process wrote its inputs to (fuzz_util.h: named by its process id)
    rm -f /tmp/fuzz-*-"${pids[$j]}".* /dev/shm/fuzz-*-"${pids[$j]}".*
    n=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "${logs[$j]}" | grep -o '[0-9]*$' | tail -1 || true)
    execs=$((execs + ${n:-0}))
    [ $rc -ne 0 ] && failed+=("exit $rc; see ${logs[$j]}")
  done
  outcome=ok
  if [ ${#failed[@]} -gt 0 ]; then outcome="FAILED (${failed[*]})"; status=1; fi
  printf '%-17s %12s %8s %8s  %s\n' "$h" "$execs" "$SECONDS_EACH" "$(ls "$C/$h" | wc -l)" "$outcome"
done
exit $status
