#!/usr/bin/env bash
# Everything that needs an NVIDIA GPU, in one go, writing logs and results into OUT_DIR:
# the gpu-labelled ctest (check matrix, bad input, SASS, per-pixel, histogram, interop),
# `tilelab check`, the NPP peer plugin (built here, where NPP is, by scripts/build-npp-peer.sh),
# `tilelab bench` (stencil + per-pixel rows, NPP rows, JSON) and a headless screenshot of the
# CUDA path. Usage: scripts/gpu-suite.sh BUILD_DIR OUT_DIR [SECONDS_PER_STEP]
# STEPS="gpu_tests interop check npp_peer bench bench8k overhead shot sanitizers" (the default) picks the steps. The test
# programs are run directly (not through ctest) so the tree also runs on a machine whose CMake
# differs from the one that configured it.
set -uo pipefail
build=${1:?build dir}
out=${2:?output dir}
step=${3:-240}
mkdir -p "$out"
app=$build/app/tilelab
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
rc=0
steps=" ${STEPS:-gpu_tests interop check npp_peer bench bench8k overhead shot sanitizers} "
run() {  # name, command...: runs with a time limit, logs to $out/name.log, remembers failures
  local name=$1; shift
  local key=$name
  [[ $name == sanitizer_* ]] && key=sanitizers
  [[ $steps == *" $key "* ]] || return 0
  echo "=== $name: $*"
  timeout "$step" "$@" > "$out/$name.log" 2>&1
  local r=$?
  tail -n 25 "$out/$name.log"
  echo "=== $name: exit $r"
  [ $r -eq 0 ] || rc=1
}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader
# The gtest suite is the longest step (H100: ~300 s, of which the 4K check matrix is 73 s).
per_step=$step; step=$((step * 2))
run gpu_tests "$build/tests/gpu/tilelab_gpu_tests"
step=$per_step
run interop "$build/tests/interop/tilelab_interop_tests"
run check "$app" check --quiet
# Beside the executable, where the bench looks for it; a failed build leaves the bench saying
# "NPP peer not loaded: ..." and timing everything else.
run npp_peer bash "$here/scripts/build-npp-peer.sh" "$(dirname "$app")"
run bench "$app" bench --size 4k --json "$out/bench.json" --pixel --pixel-json "$out/bench_pixel.json"
run bench8k "$app" bench --size 8k --filters box,sobel --mechanisms tma --pixel --json "$out/bench8k.json" \
  --pixel-json "$out/bench8k_pixel.json"
run overhead bash "$here/tests/interop/interop_overhead.sh" "$app" 300 "$out/overhead" "$build/tests/interop/tilelab_interop_tests"
run shot "$app" --headless --frames 60 --size 1920x1080 --ui-scale 1.25 --filter sobel --screenshot "$out/shot.png"
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in memcheck racecheck synccheck; do
  run "sanitizer_$tool" "$san" --tool "$tool" --error-exitcode 1 "$app" check --sizes 17x9 129x65 --quiet
done
exit $rc
