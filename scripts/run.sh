#!/usr/bin/env bash
# The README's run command: installs dependencies, builds, and starts tilelab on the default
# image. Extra arguments go to tilelab (e.g. --validate, --headless --frames 30 --screenshot out.png).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset default
cmake --build --preset default
exec ./build/app/tilelab "$@"
