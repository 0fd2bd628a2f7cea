#!/usr/bin/env bash
# Build the Linux bundle, .tar.gz and .deb, and run the frozen app's self-test on them
# offline (what CI runs after the tests). Needs root for apt-get on a fresh machine.
set -euo pipefail
cd "$(dirname "$0")/.."
packages=(libxcb-cursor0 libxcb-icccm4 libxcb-image0 libxcb-keysyms1 libxcb-randr0
  libxcb-render-util0 libxcb-shape0 libxcb-xfixes0 libxcb-xkb1 libxkbcommon-x11-0 libegl1
  libgl1 libfontconfig1 libdbus-1-3 libwayland-client0 libwayland-cursor0
  desktop-file-utils xvfb xauth)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
bash scripts/setup.sh dev,package
.venv/bin/python packaging/build.py --target linux --fast
