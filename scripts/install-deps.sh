#!/usr/bin/env bash
# Installs the Debian 12 packages tilelab builds, runs and tests with. Idempotent: a no-op
# (one dpkg query) when everything is already there. The CUDA 13 toolkit is optional and is
# not installed here (it lives at /usr/local/cuda when present).
set -euo pipefail
pkgs=(
  build-essential cmake ninja-build ccache pkg-config
  libvulkan-dev vulkan-validationlayers glslc mesa-vulkan-drivers vulkan-tools
  libglfw3-dev libglm-dev libstb-dev libimgui-dev libcli11-dev nlohmann-json3-dev
  libgtest-dev xvfb xauth
)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
