#!/usr/bin/env bash
# Installs every system package the project needs (idempotent: packages
# already present are skipped, so a second run is quick and offline-safe).
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache pkg-config
  llvm-19-dev libmlir-19-dev mlir-19-tools llvm-19-tools clang-19 lld-19
  libboost-dev libzstd-dev zstd nlohmann-json3-dev
  googletest libgtest-dev
  python3-numpy python3-scipy
  libopenblas-dev libopenblas0-serial
  zlib1g-dev libblosc-dev python3-zarr python3-xarray python3-numcodecs nodejs
  python3-dev pybind11-dev python3-pytest python3-tqdm libnetcdf-dev
  python3-venv
  libopenmpi-dev openmpi-bin
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "bootstrap: all ${#packages[@]} packages already installed"
  exit 0
fi

echo "bootstrap: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq
$SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}"
