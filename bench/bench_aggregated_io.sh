#!/usr/bin/env bash
# bench_aggregated_io — aggregated checkpoint I/O (one transfer per cabinet and server) against per-rank flows, the
# baseline, computed in the same run: the file level's checkpoint (write) and restart (read) costs of one
# failure-free replica with platform.io_flows = per-rank and = aggregated, and their ratio, in every regime (cabinet
# uplinks, server links, server disks, both near saturation, partly filled cabinets, few and many servers, more
# cabinets than the by-server split takes), then RANDOM further platforms drawn at random (seeded).
# Target (issue "A million events a second"): aggregated within 1 % of per-rank everywhere.
# Usage: bench/bench_aggregated_io.sh [RANDOM_CASES (0)]   (after scripts/setup.sh; FAULTLINE defaults to
# build/faultline)
set -euo pipefail
cd "$(dirname "$0")/.."
F=${FAULTLINE:-$PWD/build/faultline}
NRANDOM=${1:-0}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cat >"$T/a.ini" <<'INI'
[run]
name = aggregated-io
events = none
replicas = 1
[platform]
nodes = 8192
cabinet = 128
pfs_servers = 40
cabinet_bandwidth = 32GBps
pfs_link_bandwidth = 50GBps
pfs_bandwidth = 100GBps
[failures]
model = none
[app]
kind = bsp
nodes = 8192
work = 1h
checkpoint_size = 1GB
[strategy]
kind = checkpoint
interval = 30min
cost = platform
INI
worst=0
printf '%-44s %10s %10s %10s %10s %9s %9s\n' case per-rank-w aggr-w per-rank-r aggr-r ratio-w ratio-r
run() {
  local name=$1 p a
  shift
  for f in per-rank aggregated; do
    "$F" simulate "$T/a.ini" "$@" --set platform.io_flows=$f --db "$T/$f.sqlite" --quiet >/dev/null
  done
  p=$(sqlite3 "$T/per-rank.sqlite" "SELECT checkpoint_cost_s || ' ' || restart_cost_s FROM runs")
  a=$(sqlite3 "$T/aggregated.sqlite" "SELECT checkpoint_cost_s || ' ' || restart_cost_s FROM runs")
  rm -f "$T"/*.sqlite*
  worst=$(echo "$p $a $worst" | awk -v name="$name" '{
    rw = $3 / $1; rr = $4 / $2
    printf "%-44s %10.4f %10.4f %10.4f %10.4f %9.5f %9.5f\n", name, $1, $3, $2, $4, rw, rr > "/dev/stderr"
    d = rw > 1 ? rw - 1 : 1 - rw; e = rr > 1 ? rr - 1 : 1 - rr; if (e > d) d = e; if ($5 > d) d = $5; print d }')
}
small=(--set platform.nodes=1000 --set app.nodes=1000 --set platform.cabinet=125)
run "8192 ranks, cabinets of 128, 40 servers"
run "1000 ranks, cabinets of 125, 3 servers" "${small[@]}" --set platform.pfs_servers=3 \
  --set platform.cabinet_bandwidth=32GBps --set platform.pfs_link_bandwidth=85GBps --set platform.pfs_bandwidth=1000GBps
run "the same, 64 GB/s uplinks, 150 GB/s links" "${small[@]}" --set platform.pfs_servers=3 \
  --set platform.cabinet_bandwidth=64GBps --set platform.pfs_link_bandwidth=150GBps --set platform.pfs_bandwidth=1000GBps
run "disk-bound, 4 servers of 1 GB/s" "${small[@]}" --set platform.pfs_servers=4 --set platform.pfs_bandwidth=1GBps
run "uplink-bound, 4 GB/s" --set platform.cabinet_bandwidth=4GBps
run "server-link-bound, 5 GB/s" --set platform.pfs_link_bandwidth=5GBps
run "disks and links near saturation" --set platform.pfs_bandwidth=55GBps
run "8000 ranks (last cabinet half), 40 servers" --set app.nodes=8000
run "8000 ranks (last cabinet half), 7 servers" --set app.nodes=8000 --set platform.pfs_servers=7
run "1000 ranks in 1024 nodes, 7 servers" --set platform.nodes=1024 --set app.nodes=1000 --set platform.pfs_servers=7
run "8 cabinets on 77 servers" "${small[@]}" --set platform.pfs_servers=77
run "9216 ranks, 450 servers" --set platform.nodes=9408 --set app.nodes=9216 --set platform.pfs_servers=450
run "300 cabinets of 32, 37 servers" --set platform.nodes=9600 --set app.nodes=9600 --set platform.cabinet=32 \
  --set platform.pfs_servers=37 --set platform.cabinet_bandwidth=8GBps
run "300 cabinets of 32 (last partly), 37 servers" --set platform.nodes=9600 --set app.nodes=9590 \
  --set platform.cabinet=32 --set platform.pfs_servers=37 --set platform.cabinet_bandwidth=16GBps
RANDOM=7
for t in $(seq 1 "$NRANDOM"); do
  cab=$((50 + RANDOM % 200)) ncab=$((2 + RANDOM % 60))
  nodes=$((cab * ncab)) app=$((cab * ncab - RANDOM % cab)) P=$((1 + RANDOM % 100))
  U=$((4 + RANDOM % 60)) S=$((4 + RANDOM % 80)) D=$((1 + RANDOM % 200))
  run "random $t: c$cab C$ncab R$app P$P U$U S$S D$D" --set platform.nodes=$nodes --set app.nodes=$app \
    --set platform.cabinet=$cab --set platform.pfs_servers=$P --set platform.cabinet_bandwidth=${U}GBps \
    --set platform.pfs_link_bandwidth=${S}GBps --set platform.pfs_bandwidth=${D}GBps
done
awk -v w="$worst" 'BEGIN { printf "largest |ratio - 1|: %.3f %%\n", 100 * w }'
