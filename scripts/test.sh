#!/usr/bin/env bash
# Set up (scripts/setup.sh) and run the test suite: every ctest test not labelled `slow`.
#   scripts/test.sh              the default build (build/), -Werror
#   scripts/test.sh --sanitize   the same suites built with ASan + UBSan (build-asan/, leak detection on), but the
#                                docs' commands (test_docs)
# FL_TEST_ALL=1 runs the slow ones too, and first installs what only they need: Chromium (the HTML report's browser
# test, about 300 MB), Slurm with munge and iproute2 (the single-host Slurm of the sweep test, the 3-node test
# cluster of network namespaces of the real-mode cluster test): not part of every set-up.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = "--sanitize" ]; then
  export BUILD_DIR=${BUILD_DIR:-build-asan} BUILD_TYPE=${BUILD_TYPE:-Debug}
  scripts/setup.sh -DFL_SANITIZE=address,undefined -DFL_WITH_CUDA=OFF
  export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0} UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
else
  scripts/setup.sh
fi
if [ "${FL_TEST_ALL:-0}" = 1 ]; then
  slow_missing=()
  for p in chromium slurm-wlm munge iproute2; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || slow_missing+=("$p")
  done
  if [ ${#slow_missing[@]} -gt 0 ]; then
    SUDO=""
    if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${slow_missing[@]}" >/dev/null
  fi
fi
cd "${BUILD_DIR:-build}"
# the docs' commands (label docs) run in the default build only: they test what the docs say, not memory
exclude=slow
if [ "${1:-}" = "--sanitize" ]; then exclude='slow|docs'; fi
if [ "${FL_TEST_ALL:-0}" = 1 ]; then
  if [ "${1:-}" = "--sanitize" ]; then ctest --output-on-failure -j2 -LE docs; else ctest --output-on-failure -j2; fi
else
  ctest --output-on-failure -j2 -LE "$exclude"
fi
