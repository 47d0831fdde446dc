#!/usr/bin/env bash
# Builds only the bench's NPP peer plugin (libtilelab_npp.so from cuda/stencil/npp_plugin.cpp) on
# a machine that has NPP, in seconds, with that toolkit's own headers and libraries: tilelab
# binaries built elsewhere (without NPP) load it at run time from next to the executable or from
# $TILELAB_NPP_PLUGIN. Usage: scripts/build-npp-peer.sh OUT_DIR   (e.g. build-x/app, beside tilelab)
# CUDA_HOME (default /usr/local/cuda) picks the toolkit; CXX the compiler (default g++, else the
# toolkit's nvcc driving its host compiler).
set -euo pipefail
out=${1:?usage: scripts/build-npp-peer.sh OUT_DIR}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cuda=${CUDA_HOME:-/usr/local/cuda}
src=$here/cuda/stencil/npp_plugin.cpp
inc=$cuda/include
lib=$cuda/lib64
[ -d "$cuda/targets/x86_64-linux/lib" ] && lib=$cuda/targets/x86_64-linux/lib
if [ ! -f "$inc/nppi_filtering_functions.h" ]; then
  echo "build-npp-peer: no NPP headers under $inc (nppi_filtering_functions.h); set CUDA_HOME" >&2
  exit 1
fi
if ! ls "$lib"/libnppif.so* >/dev/null 2>&1 || ! ls "$lib"/libnppc.so* >/dev/null 2>&1; then
  echo "build-npp-peer: no libnppif/libnppc under $lib" >&2
  exit 1
fi
mkdir -p "$out"
target=$out/libtilelab_npp.so
# The run path points at this toolkit's NPP, so the plugin loads without LD_LIBRARY_PATH.
flags=(-std=c++17 -O2 -fPIC -shared -fvisibility=hidden -Wall -Wextra -I"$here/cuda/stencil" -I"$inc")
libs=(-L"$lib" -Wl,-rpath,"$lib" -lnppif -lnppc -Wl,--no-undefined)
cxx=${CXX:-}
if [ -z "$cxx" ] && command -v g++ >/dev/null; then cxx=g++; fi
if [ -n "$cxx" ]; then
  "$cxx" "${flags[@]}" "$src" -o "$target" "${libs[@]}"
else
  "$cuda/bin/nvcc" -x c++ -std=c++17 -O2 -shared -Xcompiler -fPIC,-fvisibility=hidden -I"$here/cuda/stencil" \
    -I"$inc" "$src" -o "$target" -L"$lib" -Xlinker -rpath,"$lib" -lnppif -lnppc
fi
echo "build-npp-peer: built $target against $(basename "$(readlink -f "$cuda")") NPP"
