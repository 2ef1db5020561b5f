#!/usr/bin/env bash
# Set up (scripts/setup.sh) and run the test suite: every ctest test not labelled `slow`.
# FL_TEST_ALL=1 runs the slow ones too.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cd "${BUILD_DIR:-build}"
if [ "${FL_TEST_ALL:-0}" = 1 ]; then
  ctest --output-on-failure -j2
else
  ctest --output-on-failure -j2 -LE slow
fi
