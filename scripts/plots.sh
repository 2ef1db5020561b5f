#!/usr/bin/env bash
# Regenerate the figures the README shows, from shipped scenarios (after scripts/setup.sh).
# Usage: scripts/plots.sh
set -euo pipefail
cd "$(dirname "$0")/.."
F=${FAULTLINE:-build/faultline}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$F" simulate scenarios/waste-vs-mtbf.ini --db "$T/waste.sqlite" --quiet >/dev/null
"$F" report "$T/waste.sqlite" --plot docs/img/waste-vs-mtbf.svg --x failures.node_mtbf
"$F" report "$T/waste.sqlite" --plot docs/img/waste-vs-mtbf.png --x failures.node_mtbf
