#!/usr/bin/env bash
# gpu test: the viewer's CUDA path end to end. tilelab --headless --mechanism <m> renders frames
# with the filter run by CUDA on buffers shared with Vulkan (timeline hand-off); the PNG must not
# be blank, stderr must say the CUDA path ran, and validation must stay silent.
# Usage: cuda_screenshot.sh <tilelab binary> <scratch dir> <png_check.py> [mechanism]
set -euo pipefail
bin=$1
out=$2
check=$3
mech=${4:-tma}
mkdir -p "$out"
rm -f "$out/cuda_$mech.png"
fail() { echo "FAIL: $*" >&2; exit 1; }

log="$out/cuda_$mech.log"
if ! "$bin" --headless --frames 30 --screenshot "$out/cuda_$mech.png" --mechanism "$mech" --validate >"$log" 2>&1; then
    cat "$log" >&2
    fail "tilelab --headless --mechanism $mech exited non-zero"
fi
cat "$log"
grep -q "CUDA interop: on" "$log" || fail "CUDA interop was not enabled"
grep -q "Filter path: CUDA $mech" "$log" || fail "the CUDA $mech path was not chosen"
grep -q "CUDA path ran: $mech" "$log" || fail "no CUDA run completed"
grep -q "not run" "$log" && fail "a CUDA stage was refused"
python3 "$check" "$out/cuda_$mech.png" size 1600 900
python3 "$check" "$out/cuda_$mech.png" nonblank
grep -q "Vulkan validation: 0 messages" "$log" || fail "validation messages reported"
echo "PASS"
