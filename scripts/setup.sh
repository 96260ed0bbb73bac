#!/usr/bin/env bash
# Installs what kernelseek and its tests need from the distribution's packages (Debian 12 / Ubuntu 24.04), then
# configures and builds it into build/. It must never download anything but distribution packages, never go on past a
# package step that failed, and never refresh the package lists on a machine that already has everything.
# Usage: scripts/setup.sh [extra cmake arguments...]
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake ninja-build g++ pkg-config libboost-dev libcli11-dev nlohmann-json3-dev libfmt-dev libssl-dev
          libgtest-dev googletest)
packages+=(munge slurmctld slurmd slurm-client)  # for the `slurm` test, which starts its own daemons
missing=()
for p in "${packages[@]}"; do
  [[ $(dpkg-query -W -f='${Status}' "$p" 2>/dev/null) == "install ok installed" ]] || missing+=("$p")
done
# Headless Chromium renders the `kseek report` page in the report tests; they look for these names on PATH.
has_browser() {
  local name
  for name in chromium chromium-browser google-chrome google-chrome-stable; do
    command -v "$name" >/dev/null 2>&1 && return 0
  done
  return 1
}
# Where the lists offered no usable Chromium package, the answer is kept for a week so that a ready machine
# (Ubuntu's snap-only Chromium) does not refresh the lists on every run; delete the note to ask again.
no_browser_note=build/.setup-no-chromium-package
wanted=("${missing[@]}")
if ! has_browser; then
  if [[ -f $no_browser_note && -z $(find "$no_browser_note" -mtime +6) ]]; then
    echo "setup: $(cat "$no_browser_note") (as of the last check; delete $no_browser_note to check again)" >&2
  else
    wanted+=(chromium)
  fi
fi

sudo_cmd=()
[[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
apt_install() {
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "$@" || {
    echo "setup: 'apt-get install $*' failed (exit $?); the build or the tests need it: fix that and run setup again" >&2
    exit 1
  }
}
if ((${#wanted[@]})); then
  # Stale or empty lists would answer "no such package" for what the distribution has: refresh them, or stop.
  echo "setup: refreshing the package lists (missing: ${wanted[*]})"
  "${sudo_cmd[@]}" apt-get update -qq || {
    echo "setup: 'apt-get update' failed (exit $?): without fresh package lists setup cannot install or even tell" \
         "what this distribution offers; fix the package sources or the network and run setup again" >&2
    exit 1
  }
fi
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  apt_install "${missing[@]}"
fi

# Chromium is installed wherever the distribution packages it. Ubuntu's `chromium`/`chromium-browser` are stubs
# that install a snap (no snapd in a container, nothing a headless test can rely on): there, and only where the
# lists offer no package at all, setup says so and the browser tests skip (they fail under CI=true).
# usable_deb NAME: prints the candidate version of NAME when it is a real package, else why not (exit 1); exit 2
# when apt-cache itself fails. Asks apt, which reads the lists however they are compressed; its output is read
# whole, never piped into `grep -q`, whose early exit kills apt-cache with SIGPIPE (a failure under pipefail).
usable_deb() {
  local policy candidate depends
  policy=$(apt-cache policy "$1") || { echo "setup: 'apt-cache policy $1' failed (exit $?)" >&2; return 2; }
  candidate=$(sed -n '/^ *Candidate: */{s///p;q}' <<< "$policy")
  if [[ -z $candidate || $candidate == "(none)" ]]; then
    echo "the package lists offer no '$1' package"
    return 1
  fi
  depends=$(apt-cache show "$1=$candidate" 2>/dev/null | sed -n 's/^\(Pre-\)\{0,1\}Depends: //p') || true
  if [[ $candidate == *snap* ]] || grep -Eq '(^|[ ,])snapd([ ,(]|$)' <<< "$depends"; then
    echo "'$1' $candidate is a stub that installs a snap, not a browser"
    return 1
  fi
  echo "$candidate"
}
if [[ " ${wanted[*]} " == *" chromium "* ]]; then
  rm -f "$no_browser_note"
  browser_package=""
  reasons=()
  for name in chromium chromium-browser; do
    if answer=$(usable_deb "$name"); then browser_package=$name; break; else status=$?; fi
    ((status == 1)) || exit 1
    reasons+=("$answer")
  done
  if [[ -n $browser_package ]]; then
    echo "setup: installing $browser_package $answer (headless Chromium for the report tests)"
    apt_install "$browser_package"
    has_browser || { echo "setup: $browser_package installed but no chromium executable is on PATH" >&2; exit 1; }
  else
    reason_text=$(printf '%s; ' "${reasons[@]}")
    note="no usable Chromium package here (${reason_text%; }): the report's browser tests will skip, and fail under CI=true"
    echo "setup: $note" >&2
    mkdir -p build && echo "$note" > "$no_browser_note"
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
