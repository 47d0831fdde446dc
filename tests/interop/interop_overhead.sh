#!/usr/bin/env bash
# The interop overhead and frame-rate measurement (issue 4), on a machine with an NVIDIA GPU:
# the same 4K image processed every frame, headless, by
#   1. a plain copy: the CUDA stage's cudaMemcpyAsync vs the Vulkan-only path's vkCmdCopyBuffer,
#   2. a 3x3 filter (box r=1): the best CUDA mechanism vs Vulkan compute (vulkan-tiled),
# each run printing its steady-state summary (frames/s, frame GPU span, time waiting for CUDA,
# GPU frame period, per-pass and per-stage times). Prints the copy runs' difference of median
# frame GPU span. Usage: interop_overhead.sh <tilelab binary> [frames] [out dir]
set -uo pipefail
bin=${1:?tilelab binary}
frames=${2:-400}
out=${3:-.}
mkdir -p "$out"
common=(--headless --frames "$frames" --generate zone-plate --gen-size 4k --view filtered)
run() {  # name, flags...
  local name=$1; shift
  echo "=== $name: ${common[*]} $*"
  "$bin" "${common[@]}" "$@" > "$out/$name.log" 2>&1
  local rc=$?
  grep -E "^(Filter path|CUDA|Frame time|Steady state|Frame GPU time|tilelab:)" "$out/$name.log"
  [ $rc -eq 0 ] || echo "=== $name: exit $rc"
}
span() { sed -n 's/.*median over [0-9]* frames): \([0-9.]*\) ms.*/\1/p' "$out/$1.log" | tail -1; }
run copy_cuda --stage copy --mechanism global
run copy_vulkan --stage copy --mechanism vulkan-tiled
run box3_cuda --filter box --radius 1
run box3_vulkan --filter box --radius 1 --mechanism vulkan-tiled --every-frame
c=$(span copy_cuda); v=$(span copy_vulkan)
if [ -n "$c" ] && [ -n "$v" ]; then
  python3 -c "c, v = float('$c'), float('$v'); print(f'Interop overhead (copy, 4K): CUDA path {c*1000:.1f} us - Vulkan-only {v*1000:.1f} us = {(c-v)*1000:+.1f} us per frame (median frame GPU span)')"
else
  echo "Interop overhead: a frame GPU span is missing (see the logs)"
fi
