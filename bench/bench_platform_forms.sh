#!/usr/bin/env bash
# bench_platform_forms — faultline's own cost over SimGrid's load of the same 1M-host platform file, for each form
# a user may give: flat (plain hosts, routing="None", what `faultline platform` writes), a <cluster>, and SimGrid's
# FAT_TREE, TORUS and DRAGONFLY clusters. Baseline: sg_load parsing and sealing the file with SimGrid's default CPU
# model (as faultline does for files); faultline: one failure-free replica of a 1-minute job on every host.
# Target (issue "The simulator sees the machine"): faultline <= 1.1x SimGrid's load, wall and RSS, every form.
# Usage: [ROUNDS=3] bench/bench_platform_forms.sh [NODES (1000000)] [FORMS...]   (after scripts/setup.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
B=${BUILD_DIR:-build}
N=${1:-1000000}
shift || true
FORMS=${*:-flat cluster fat-tree torus dragonfly}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cluster() { # $1: extra attributes
  printf '<?xml version="1.0"?>\n<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">\n<platform version="4.1">\n'
  printf '<zone id="root" routing="Full">\n'
  printf '<cluster id="c" prefix="node-" suffix="" radical="0-%d" speed="1Gf" bw="125MBps" lat="50us" %s/>\n' $((N - 1)) "$1"
  printf '<zone id="ctl" routing="None">\n<host id="controller" speed="1Gf"/>\n</zone>\n</zone>\n</platform>\n'
}
cube=$(awk -v n="$N" 'BEGIN { printf "%d", n ^ (1 / 3) + 0.5 }')
for form in $FORMS; do
  x="$tmp/$form.xml"
  case $form in
  flat) "$B/faultline" platform --nodes "$N" -o "$x" ;;
  cluster) cluster 'bb_bw="2.25GBps" bb_lat="500us"' >"$x" ;;
  fat-tree) cluster "topology=\"FAT_TREE\" topo_parameters=\"2;1000,$((N / 1000));1,1;1,1\"" >"$x" ;;
  torus) cluster "topology=\"TORUS\" topo_parameters=\"$cube,$cube,$((N / cube / cube))\"" >"$x" ;;
  dragonfly) cluster "topology=\"DRAGONFLY\" topo_parameters=\"$((N / 20000)),1;20,1;25,1;40\"" >"$x" ;;
  *) echo "unknown form $form" >&2; exit 2 ;;
  esac
  printf '[run]\nreplicas = 1\nevents = none\n[platform]\nfile = %s\n[failures]\nmodel = none\n[app]\nwork = 1min\n[strategy]\nkind = none\n' \
    "$x" >"$tmp/$form.ini"
  echo "== $form: $(du -h "$x" | cut -f1) of XML"
  "$B/bench/bench_run" -n "${ROUNDS:-1}" \
    -- "simgrid load+seal ($form)" "$B/bench/sg_load" "$x" seal --default-cpu \
    -- "faultline ($form)" "$B/faultline" simulate "$tmp/$form.ini" --db "$tmp/$form.sqlite" --quiet ">/dev/null"
done
