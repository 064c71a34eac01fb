#!/usr/bin/env bash
# Installs every system dependency ejk needs on Debian bookworm (amd64).
# Idempotent: does nothing when everything is present. Fails loudly when a
# package cannot be had.
set -euo pipefail

PACKAGES=(
  cmake ninja-build g++ pkg-config python3 python3-venv ccache
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools clang-22
  libclang-rt-22-dev
  libvulkan-dev mesa-vulkan-drivers vulkan-tools spirv-tools
  glslang-tools vulkan-validationlayers
  nlohmann-json3-dev libgtest-dev googletest libssl-dev
  python3-numpy zlib1g-dev libzstd-dev libedit-dev libcurl4-openssl-dev
  # Optional for the runtime (libejk_runtime_mpi, ring attention; the build
  # skips it without MPI), installed so that CI runs the ring tests.
  openmpi-bin libopenmpi-dev
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi

echo "install-deps: installing: ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
if ! $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"; then
  echo "install-deps: error: apt-get could not install: ${missing[*]}" >&2
  echo "install-deps: LLVM/MLIR 22 come from Debian bookworm's security archive;" \
       "check that it is in /etc/apt/sources.list" >&2
  exit 1
fi
for p in "${missing[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    echo "install-deps: error: package '$p' is still missing after install" >&2
    exit 1
  fi
done
echo "install-deps: done"
