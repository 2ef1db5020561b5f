#!/usr/bin/env bash
# Set up faultline on Debian 12: install the Debian packages it needs (idempotent), configure and build.
# Usage: scripts/setup.sh [extra cmake -D options]. Build type and directory: BUILD_TYPE, BUILD_DIR.
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(
  build-essential cmake pkg-config
  libsimgrid-dev libsqlite3-dev sqlite3 libgsl-dev libinih-dev libcunit1-dev libxxhash-dev libxml2-dev libcsv-dev libjansson-dev libyaml-dev libgraphviz-dev zlib1g-dev
  libglpk-dev glpk-utils libhdf5-dev hdf5-tools libzfp-dev hdf5-filter-plugin-zfp-serial
  libopenmpi-dev openmpi-bin
  gnuplot-nox pajeng
  python3
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  echo "setup: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq "${PACKAGES[@]}" >/dev/null
fi

BUILD_DIR=${BUILD_DIR:-build}
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-RelWithDebInfo}" -DFL_WERROR=ON "$@" >/dev/null
cmake --build "$BUILD_DIR" -j"$(nproc)"
