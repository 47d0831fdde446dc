#!/usr/bin/env bash
# Everything that needs an NVIDIA GPU, in one go, writing logs and results into OUT_DIR:
# the gpu-labelled ctest (check matrix, bad input, SASS, per-pixel, histogram, interop),
# `tilelab check`, `tilelab bench` (stencil + per-pixel rows, JSON) and a headless screenshot
# of the CUDA path. Usage: scripts/gpu-suite.sh BUILD_DIR OUT_DIR [SECONDS_PER_STEP]
# STEPS="ctest_gpu check bench shot sanitizers" (the default) picks and orders the steps.
set -uo pipefail
build=${1:?build dir}
out=${2:?output dir}
step=${3:-240}
mkdir -p "$out"
app=$build/app/tilelab
rc=0
steps=" ${STEPS:-ctest_gpu check bench shot sanitizers} "
run() {  # name, command...: runs with a time limit, logs to $out/name.log, remembers failures
  local name=$1; shift
  [[ $steps == *" $name "* ]] || return 0
  echo "=== $name: $*"
  timeout "$step" "$@" > "$out/$name.log" 2>&1
  local r=$?
  tail -n 25 "$out/$name.log"
  echo "=== $name: exit $r"
  [ $r -eq 0 ] || rc=1
}
# gtest_discover_tests (PRE_TEST) includes GoogleTestAddTests.cmake from the CMake that configured
# the tree; on a machine with another CMake version, point that path at this machine's copy.
need=$(grep -ho '/[^ )"]*/Modules/GoogleTestAddTests.cmake' "$build"/tests/*/*_include.cmake 2>/dev/null | head -1)
if [ -n "$need" ] && [ ! -e "$need" ]; then
  have=$(find / -path '*/Modules/GoogleTestAddTests.cmake' -not -path "${need%/Modules/*}/*" 2>/dev/null | head -1)
  # Link the whole CMake root: the module includes siblings relative to its own folder.
  [ -n "$have" ] && mkdir -p "$(dirname "${need%/Modules/*}")" && ln -sfn "${have%/Modules/*}" "${need%/Modules/*}"
fi
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader
run ctest_gpu ctest --test-dir "$build" -L gpu -E sanitizer --output-on-failure
run check "$app" check --quiet
run bench "$app" bench --size 4k --json "$out/bench.json" --pixel --pixel-json "$out/bench_pixel.json"
run shot "$app" --headless --frames 60 --size 1920x1080 --ui-scale 1.25 --filter sobel --screenshot "$out/shot.png"
run sanitizers ctest --test-dir "$build" -L gpu -R sanitizer --output-on-failure
exit $rc
