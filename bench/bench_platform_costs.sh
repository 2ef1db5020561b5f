#!/usr/bin/env bash
# bench_platform_costs — a 1M-node multi-level scenario (local disk, buddy, PFS: local:1 buddy:4 file:16) with
# checkpoint costs simulated on the platform (aggregated flows), against SimGrid alone loading and sealing the same
# generated platform, in one run. KIND=two-level runs the buddy + PFS strategy instead.
# Target (issue "The simulator sees the machine"): <= 2x SimGrid's bare load per replica, peak RSS <= 1.5 GB.
# Usage: bench/bench_platform_costs.sh [ROUNDS]   (after scripts/setup.sh; BUILD_DIR defaults to build)
set -euo pipefail
cd "$(dirname "$0")/.."
B=${BUILD_DIR:-build}
ROUNDS=${1:-1}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
KIND=${KIND:-multilevel}
PLAT=(--set platform.pfs_servers=256 --set platform.pfs_bandwidth=20GBps --set platform.disk_bandwidth=4GBps)
SETS=(--set run.replicas=1 --set run.events=none --set strategy.kind="$KIND" --set app.checkpoint_size=4GB "${PLAT[@]}")
# the very platform faultline generates for it (same generator, same bytes)
"$B/faultline" platform --nodes 1000000 --speed 10Tf --io aggregated "${PLAT[@]}" -o "$tmp/platform.xml"
echo "platform: 1,000,000 nodes + 7,813 cabinet I/O hosts + 256 PFS servers, $(du -h "$tmp/platform.xml" | cut -f1) of XML"
"$B/bench/bench_run" -n "$ROUNDS" \
  -- "simgrid load+seal" "$B/bench/sg_load" "$tmp/platform.xml" seal \
  -- "faultline 1M $KIND, platform costs" "$B/faultline" simulate scenarios/exascale-1M.ini --db "$tmp/r.sqlite" \
     --quiet "${SETS[@]}" ">/dev/null"
sqlite3 "$tmp/r.sqlite" "SELECT 'replica: ' || status || ', ' || failures || ' failures, ' || interval_rule ||
  ', delta of the cheapest level ' || round(checkpoint_cost_s, 2) || ' s' FROM runs LIMIT 1"
