#!/usr/bin/env bash
# Sets up, builds and runs every test (CTest labels unit, nvrtc, export, slurm; gpu tests skip without a GPU,
# the slurm test without root).
# It must never hide a failing test: the exit status is CTest's.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cd build
ctest --output-on-failure --parallel "$(nproc)" "$@"
