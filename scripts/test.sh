#!/usr/bin/env bash
# The README's test command: installs dependencies, builds (CUDA kernels too when nvcc is
# present, compiled for sm_90 only), and runs every test that needs no NVIDIA GPU
# (labels unit, vulkan, app) on Mesa's lavapipe and Xvfb.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset ci
cmake --build --preset ci
ctest --preset ci --timeout 900 "$@"
