#!/usr/bin/env bash
# Command-line behaviour: --help documents every flag (exit 0); unknown flags and invalid values
# exit 2 with the valid choices or range; a corrupt --image is reported and the app carries on
# with the default image (documented in --help), exit 0.
# Usage: test_cli.sh <tilelab binary> <scratch dir>
set -uo pipefail
bin=$1
out=$2
mkdir -p "$out"

fail() { echo "FAIL: $*" >&2; exit 1; }
# run <expected exit code> args...: captures stdout+stderr in $text
run() {
    local want=$1
    shift
    text=$("$bin" "$@" 2>&1)
    local rc=$?
    [ "$rc" -eq "$want" ] || { echo "$text" >&2; fail "tilelab $* exited $rc, expected $want"; }
}

run 0 --help
for flag in --headless --frames --screenshot --size --vsync --ui-scale --validate --image --generate --gen-size \
            --seed --assets --filter --radius --sigma --amount --kernel --scale --bias --border --variant --mechanism \
            --mechanism-a --view --gain --split apply check bench; do
    grep -q -- "$flag" <<< "$text" || fail "--help does not mention $flag"
done

run 2 --no-such-flag
grep -q -- "--no-such-flag" <<< "$text" || fail "unknown flag not named"
grep -q -- "--filter" <<< "$text" || fail "unknown flag: the valid flags are not listed"

run 2 --filter nosuch
for name in box gaussian sobel laplacian sharpen emboss; do
    grep -q "$name" <<< "$text" || fail "--filter nosuch does not list '$name'"
done

# --mechanism lists every CUDA mechanism of the table and both Vulkan variants.
run 2 --mechanism nosuch
for name in global texture smem ldgsts tma tma_ws cluster vulkan-plain vulkan-tiled; do
    grep -q "$name" <<< "$text" || fail "--mechanism nosuch does not list '$name'"
done
run 2 --mechanism-a vulkan-plain
run 0 --headless --frames 1 --size 640x360 --mechanism vulkan-plain
grep -q "Filter path: Vulkan compute (vulkan-plain)" <<< "$text" || fail "--mechanism vulkan-plain was not taken"

run 2 --filter box --radius 99
grep -q "1..32" <<< "$text" || fail "--radius 99 does not state the valid range"

run 2 --filter gaussian --sigma 50
grep -q "0.5..10" <<< "$text" || fail "--sigma 50 does not state the valid range"

run 2 --view sideways
grep -q "split" <<< "$text" || fail "--view sideways does not list the views"

run 2 --op gamma:9
grep -q "0.1..5" <<< "$text" || fail "--op gamma:9 does not state the valid range"
run 2 --op frobnicate
grep -q "invert" <<< "$text" || fail "--op frobnicate does not list the ops"

run 2 bench --box-radii 4,40
grep -q "1 to 32" <<< "$text" || fail "bench --box-radii 4,40 does not state the valid range"
run 0 bench --help
grep -q -- "--box-radii" <<< "$text" || fail "bench --help does not mention --box-radii"
# The subcommands' own value checks exit 2 as the parser's do; failures at run time exit 1.
run 2 bench --size 0x0
grep -q "1..16384" <<< "$text" || fail "bench --size 0x0 does not state the valid range"
run 2 bench --filters sparkle --size 64x48
run 2 bench --mechanisms warp9 --size 64x48
run 2 check --sizes 0x0
run 2 check --filters sparkle
run 2 apply --filter box --radius 40 "$out/in.png" "$out/apply_out.png"
grep -q "1..32" <<< "$text" || fail "apply --radius 40 does not state the valid range"
run 1 apply --filter sobel --mechanism cpu "$out/does_not_exist.png" "$out/apply_out.png"
# --box-radii replaces the Box rows (here on the Vulkan path: no CUDA device in CI).
run 0 bench --filters box --box-radii 2,7 --size 64x48 --iterations 1
grep -q "^box r=2 " <<< "$text" || fail "bench --box-radii 2,7 has no box r=2 row"
grep -q "^box r=7 " <<< "$text" || fail "bench --box-radii 2,7 has no box r=7 row"
if grep -q "^box r=4 " <<< "$text"; then fail "bench --box-radii 2,7 still times box r=4"; fi
# --sigmas likewise replaces the Gaussian rows, within the filter's own range.
run 2 bench --sigmas 3,12
grep -q "0.5..10" <<< "$text" || fail "bench --sigmas 3,12 does not state the valid range"
run 0 bench --filters gaussian --sigmas 0.75,4.5 --size 64x48 --iterations 1
grep -q "^gaussian s=0.75 " <<< "$text" || fail "bench --sigmas 0.75,4.5 has no gaussian s=0.75 row"
grep -q "^gaussian s=4.5 " <<< "$text" || fail "bench --sigmas 0.75,4.5 has no gaussian s=4.5 row"
if grep -q "^gaussian s=3 " <<< "$text"; then fail "bench --sigmas 0.75,4.5 still times gaussian s=3"; fi

run 2 --vsync maybe
run 2 --ui-scale 9
run 2 --headless
grep -q -- "--frames" <<< "$text" || fail "--headless without --frames does not say what is missing"

# A corrupt image: clear message naming the file, then the default image, exit 0, a real frame.
printf 'this is not a PNG file' > "$out/corrupt.png"
rm -f "$out/corrupt_shot.png"
run 0 --headless --frames 2 --image "$out/corrupt.png" --screenshot "$out/corrupt_shot.png"
grep -q "corrupt.png" <<< "$text" || fail "the corrupt image's name is not in the message"
grep -q "default image" <<< "$text" || fail "the message does not say the default image is shown"
[ -s "$out/corrupt_shot.png" ] || fail "no frame rendered after the corrupt image"

# A missing file behaves the same way.
run 0 --headless --frames 1 --image "$out/does_not_exist.png" --size 640x360
grep -q "does_not_exist.png" <<< "$text" || fail "the missing file is not named"
echo "PASS"
