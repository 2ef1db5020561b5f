#!/usr/bin/env bash
# The hazard-aware interval against Daly's at Weibull shape 0.5, 0.7, 1.0 (scenarios/hazard-study.ini), for a
# machine whose nodes are all new when the job starts (failures.start = fresh: after a maintenance, a system-wide
# outage) and for one that has run for long (stationary). Writes the tables to stdout (markdown) and the plots to
# docs/img/hazard-{fresh,stationary}.svg. Usage: scripts/study-hazard.sh [REPLICAS] (after scripts/setup.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
F=${FAULTLINE:-build/faultline}
R=${1:-300}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
for start in fresh stationary; do
  "$F" simulate scenarios/hazard-study.ini --replicas "$R" --set failures.start=$start --db "$T/$start.sqlite" \
    --quiet >/dev/null
  echo "### failures.start = $start"
  echo
  "$F" report "$T/$start.sqlite" --format markdown
  echo
  "$F" report "$T/$start.sqlite" --plot docs/img/hazard-$start.svg --x failures.shape >/dev/null
done
