#!/usr/bin/env bash
# Configures and builds ejk in ./build (or $EJK_BUILD_DIR) with Ninja.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${EJK_BUILD_DIR:-$ROOT/build}"
JOBS="${EJK_JOBS:-$(nproc)}"
# Paths relative to the checkout in ccache's keys, so that a clone in another
# directory (another worktree, a CI runner) hits the same cache entries.
export CCACHE_BASEDIR="$ROOT"
export CCACHE_NOHASHDIR=1

LAUNCHER=()
if command -v ccache > /dev/null; then
  LAUNCHER=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
if [ ! -f "$BUILD/build.ninja" ]; then
  cmake -G Ninja -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit "${LAUNCHER[@]}"
fi
# Two builds of one tree (a developer and a helper) wait for each other
# instead of writing the same files at once.
exec flock "$BUILD/.build.lock" ninja -C "$BUILD" -j "$JOBS" "$@"
