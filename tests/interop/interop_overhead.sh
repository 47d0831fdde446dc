#!/usr/bin/env bash
# The interop overhead and frame-rate measurement (issue 4), on a machine with an NVIDIA GPU:
# the same 4K image processed every frame, headless, by
#   1. a plain copy: the CUDA stage's cudaMemcpyAsync vs the Vulkan-only path's vkCmdCopyBuffer
#      (and the CUDA copy again with --diag-host-sync: the host waits for CUDA before submitting
#      the render part, so Vulkan's wait is already met when it is submitted),
#   2. a 3x3 filter (box r=1): the best CUDA mechanism vs Vulkan compute (vulkan-tiled),
# each run printing its steady-state summary (frames/s, frame GPU span, time waiting for CUDA,
# GPU frame period, per-pass and per-stage times). Prints the copy runs' difference of median
# frame GPU span (latency) and of median GPU frame period, and the mean frame time of each path
# (host wall time of a long run minus a short one, per extra frame: start-up cancels, and unlike
# a median it counts every frame: the throughput). When the interop test
# program is given, also runs its frame hand-off measurement (test_frame_handoff.cpp: 2 and 3
# frames in flight, several arrangements, the hand-off on one clock).
# Usage: interop_overhead.sh <tilelab binary> [frames] [out dir] [tilelab_interop_tests binary]
set -uo pipefail
bin=${1:?tilelab binary}
frames=${2:-400}
out=${3:-.}
tests=${4:-}
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
period() { sed -n 's/.*GPU frame period (end to end): \([0-9.]*\) ms.*/\1/p' "$out/$1.log" | tail -1; }
mean_frame() {  # name, flags...: prints and remembers the mean frame time (ms) of the path
  local name=$1; shift
  local t0 t1 t2
  t0=$(date +%s%N); "$bin" --headless --frames 200 "${common[@]:3}" "$@" > /dev/null 2>&1
  t1=$(date +%s%N); "$bin" --headless --frames 3200 "${common[@]:3}" "$@" > /dev/null 2>&1
  t2=$(date +%s%N)
  local ms
  ms=$(python3 -c "print(f'{(($t2 - $t1) - ($t1 - $t0)) / 3000 / 1e6:.4f}')")
  echo "Mean frame time $name: $ms ms (wall of 3200 frames - wall of 200, per frame)"
  eval "mean_$name=$ms"
}
run copy_cuda --stage copy --mechanism global
run copy_vulkan --stage copy --mechanism vulkan-tiled
run copy_cuda_hostsync --stage copy --mechanism global --diag-host-sync
run box3_cuda --filter box --radius 1
run box3_vulkan --filter box --radius 1 --mechanism vulkan-tiled --every-frame
mean_frame copy_cuda --stage copy --mechanism global
mean_frame copy_vulkan --stage copy --mechanism vulkan-tiled
mean_frame box3_cuda --filter box --radius 1
mean_frame box3_vulkan --filter box --radius 1 --mechanism vulkan-tiled --every-frame
c=$(span copy_cuda); v=$(span copy_vulkan); cp=$(period copy_cuda); vp=$(period copy_vulkan)
if [ -n "$c" ] && [ -n "$v" ] && [ -n "$cp" ] && [ -n "$vp" ]; then
  python3 -c "
c, v, cp, vp = float('$c'), float('$v'), float('$cp'), float('$vp')
print(f'Interop overhead (copy, 4K), latency: CUDA path {c*1000:.1f} us - Vulkan-only {v*1000:.1f} us = {(c-v)*1000:+.1f} us per frame (median frame GPU span)')
print(f'Interop overhead (copy, 4K), GPU frame period: CUDA path {cp*1000:.1f} us - Vulkan-only {vp*1000:.1f} us = {(cp-vp)*1000:+.1f} us per frame (medians)')"
else
  echo "Interop overhead: a frame GPU span or period is missing (see the logs)"
fi
if [ -n "${mean_copy_cuda:-}" ] && [ -n "${mean_copy_vulkan:-}" ]; then
  python3 -c "c, v = float('$mean_copy_cuda'), float('$mean_copy_vulkan'); print(f'Interop overhead (copy, 4K), throughput: CUDA path {c*1000:.1f} us - Vulkan-only {v*1000:.1f} us = {(c-v)*1000:+.1f} us per frame (mean frame time)')"
fi
if [ -n "$tests" ]; then
  echo "=== frame hand-off: $tests --gtest_filter=HandoffFixture.*"
  "$tests" --gtest_filter='HandoffFixture.*' > "$out/handoff.log" 2>&1
  rc=$?
  grep -vE "^\[ *(RUN|OK|=+|-+|PASSED) *\]" "$out/handoff.log"
  [ $rc -eq 0 ] || echo "=== frame hand-off: exit $rc"
fi
