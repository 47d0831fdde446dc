#!/usr/bin/env bash
# Windowed smoke test under Xvfb: tilelab opens a GLFW window with a swapchain, draws 60 frames,
# reads back the last swapchain image into a PNG and exits 0; survives being resized; without a
# display it refuses
# politely (non-zero, pointing at --headless) instead of crashing.
# Usage: test_windowed.sh <tilelab binary> <scratch dir>
set -euo pipefail
bin=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
rm -f "$out/win.png"

fail() { echo "FAIL: $*" >&2; exit 1; }
command -v xvfb-run >/dev/null || fail "xvfb-run is not installed (Debian: apt install xvfb xauth)"

log="$out/windowed.log"
if ! xvfb-run -a -s "-screen 0 1600x900x24" "$bin" --frames 60 --size 1280x720 --screenshot "$out/win.png" \
        --validate >"$log" 2>&1; then
    cat "$log" >&2
    fail "windowed tilelab exited non-zero"
fi
cat "$log"
grep -q "Window: " "$log" || fail "no window/swapchain line in the log"
[ -s "$out/win.png" ] || fail "no screenshot written"
python3 "$here/png_check.py" "$out/win.png" size 1280 720
python3 "$here/png_check.py" "$out/win.png" nonblank
python3 "$here/png_check.py" "$out/win.png" has-color 41 74 122 3 0 0 300 30
grep -q "Vulkan validation: 0 messages" "$log" || fail "validation messages reported (see log above)"

# Resize while running: the swapchain is recreated and the last frame has the new size. The
# window is resized from outside (X11 through ctypes) every 0.3 s until tilelab exits.
rm -f "$out/resized.png"
resize_log="$out/resize.log"
if ! xvfb-run -a -s "-screen 0 1600x900x24" bash -c '
        "$1" --frames 150 --size 800x600 --screenshot "$2/resized.png" --validate >"$3" 2>&1 &
        pid=$!
        while kill -0 $pid 2>/dev/null; do
            grep -q "Window: " "$3" && python3 "$4/x11_resize.py" 720 480 >/dev/null
            sleep 0.3
        done
        wait $pid' _ "$bin" "$out" "$resize_log" "$here"; then
    cat "$resize_log" >&2
    fail "tilelab exited non-zero while being resized"
fi
python3 "$here/png_check.py" "$out/resized.png" size 720 480
python3 "$here/png_check.py" "$out/resized.png" nonblank
grep -q "Vulkan validation: 0 messages" "$resize_log" || { cat "$resize_log" >&2; fail "validation messages while resizing"; }

# No display: a clear message that names --headless, a non-zero exit, no crash (rc < 128).
set +e
msg=$(env -u DISPLAY -u WAYLAND_DISPLAY "$bin" 2>&1)
rc=$?
set -e
echo "$msg"
[ "$rc" -ne 0 ] || fail "tilelab without a display exited 0"
[ "$rc" -lt 128 ] || fail "tilelab without a display crashed (exit $rc)"
grep -q -- "--headless" <<< "$msg" || fail "the no-display message does not mention --headless"
echo "PASS"
