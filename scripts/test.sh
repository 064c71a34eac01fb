#!/usr/bin/env bash
# Sets everything up from nothing and runs every test: the lit suite
# (dialect, passes, tools, integration) and the GoogleTest suites, via ctest.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${EJK_BUILD_DIR:-$ROOT/build}"

bash "$ROOT/scripts/install-deps.sh"
bash "$ROOT/scripts/build.sh"
cd "$BUILD"
ctest --output-on-failure -j "${EJK_JOBS:-$(nproc)}"
