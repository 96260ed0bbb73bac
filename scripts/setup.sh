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
sudo_cmd=()
[[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
updated=0
update_lists() { ((updated)) || "${sudo_cmd[@]}" apt-get update -qq; updated=1; }
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  update_lists
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Headless Chromium renders the `kseek report` page in the report tests (which skip without it). Optional: it is
# installed where the distribution has a `chromium` package; where it has none (Ubuntu ships a snap), setup says so
# without refreshing the package lists on every run.
if ! command -v chromium >/dev/null 2>&1; then
  compgen -G '/var/lib/apt/lists/*_Packages' >/dev/null || update_lists  # a fresh machine's lists are empty
  if apt-cache policy chromium 2>/dev/null | grep -q 'Candidate: [0-9]'; then
    update_lists
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends chromium ||
      echo "setup: chromium could not be installed; the report's browser tests will skip" >&2
  else
    echo "setup: no chromium package here; the report's browser tests will skip" >&2
  fi
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
