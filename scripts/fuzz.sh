#!/usr/bin/env bash
# Build the libFuzzer harnesses (clang, ASan + UBSan, build-fuzz/) and run each for SECONDS (default 60).
# Usage: scripts/fuzz.sh [SECONDS] [HARNESS...]      e.g. scripts/fuzz.sh 10; scripts/fuzz.sh 3600 fuzz_trace
# Corpora grow in build-fuzz/corpus/NAME (seeded from the shipped scenarios, traces, platforms, a results
# database and checkpoint files); a crash, leak or UB report leaves its input in build-fuzz/artifacts/ and makes
# the script exit 1. Prints one line per harness: executions, seconds, corpus size, outcome.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH=${1:-60}
shift || true
HARNESSES=("$@")
[ ${#HARNESSES[@]} -gt 0 ] || HARNESSES=(fuzz_scenario fuzz_trace fuzz_manifest fuzz_serial fuzz_results_db fuzz_merge fuzz_platform fuzz_logs fuzz_profiles)

PACKAGES=(clang libclang-rt-14-dev)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
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
mkdir -p "$C"/{fuzz_scenario,fuzz_trace,fuzz_manifest,fuzz_serial,fuzz_results_db,fuzz_merge,fuzz_platform,fuzz_logs,fuzz_profiles} "$B/artifacts"
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
  log=$B/$h.log
  extra=()
  # a harness with a dictionary of its format's words (tests/fuzz/NAME.dict) gets it
  [ -f "tests/fuzz/${h#fuzz_}.dict" ] && extra+=(-dict="tests/fuzz/${h#fuzz_}.dict")
  set +e
  # -rss_limit_mb and -timeout: a harness input that eats memory or hangs is a finding too
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    "$B/tests/fuzz/$h" "$C/$h" -max_total_time="$SECONDS_EACH" -rss_limit_mb=2048 -timeout=20 \
    -artifact_prefix="$B/artifacts/$h-" -print_final_stats=1 "${extra[@]}" >"$log" 2>&1
  rc=$?
  set -e
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  outcome=ok
  if [ $rc -ne 0 ]; then outcome="FAILED (exit $rc; see $log)"; status=1; fi
  printf '%-17s %12s %8s %8s  %s\n' "$h" "${execs:-?}" "$SECONDS_EACH" "$(ls "$C/$h" | wc -l)" "$outcome"
done
rm -f /tmp/fuzz-trace-*.csv /tmp/fuzz-db-*.sqlite /tmp/fuzz-shard-* /tmp/fuzz-platform-*.xml /dev/shm/fuzz-*
exit $status
