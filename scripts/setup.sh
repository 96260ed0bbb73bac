#!/usr/bin/env bash
# Installs what kernelseek needs from the distribution's packages (Debian 12 / Ubuntu 24.04), then configures
# and builds it into build/. It must never download anything but distribution packages.
# Usage: scripts/setup.sh [extra cmake arguments...]
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake ninja-build g++ pkg-config libboost-dev libcli11-dev nlohmann-json3-dev libfmt-dev libssl-dev
          libgtest-dev googletest)
packages+=(munge slurmctld slurmd slurm-client)  # for the `slurm` test, which starts its own daemons
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Headless Chromium renders the `kseek report` page in the report tests (which skip without it). Optional: where the
# distribution has no `chromium` package (Ubuntu ships a snap), setup goes on and says so.
if ! command -v chromium >/dev/null 2>&1; then
  sudo_cmd=()
  [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
  { "${sudo_cmd[@]}" apt-get update -qq &&
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends chromium; } ||
    echo "setup: chromium could not be installed; the report's browser tests will skip" >&2
fi

# The CUDA toolkit (NVRTC and its headers) is not a distribution package of the right version: it must be there.
if ! command -v nvcc >/dev/null 2>&1; then
  for candidate in /usr/local/cuda/bin /usr/local/cuda-13.0/bin /usr/local/cuda-12.9/bin /usr/local/cuda-12.8/bin; do
    if [[ -x $candidate/nvcc ]]; then export PATH="$candidate:$PATH"; break; fi
  done
fi
if ! command -v nvcc >/dev/null 2>&1; then
  echo "setup: the CUDA toolkit (12.8 or newer, with NVRTC) was not found; install it and put nvcc on PATH" >&2
  exit 1
fi

build_type=${KSEEK_BUILD_TYPE:-RelWithDebInfo}
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE="$build_type" "$@"
cmake --build build --parallel
