#!/usr/bin/env bash
# Configures and builds ejk in ./build (or $EJK_BUILD_DIR) with Ninja.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${EJK_BUILD_DIR:-$ROOT/build}"
JOBS="${EJK_JOBS:-$(nproc)}"

if [ ! -f "$BUILD/build.ninja" ]; then
  cmake -G Ninja -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit
fi
ninja -C "$BUILD" -j "$JOBS" "$@"
