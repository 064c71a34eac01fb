#!/usr/bin/env bash
# Sets everything up from nothing and runs ejk's main job on the bundled
# example, docs/examples/attention.mlir: the IR is parsed, verified and
# printed by ejk-opt (the CPU pipeline will compile, run and check it).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${EJK_BUILD_DIR:-$ROOT/build}"

bash "$ROOT/scripts/install-deps.sh"
bash "$ROOT/scripts/build.sh" ejk-opt
"$BUILD/bin/ejk-opt" "$ROOT/docs/examples/attention.mlir" "$@"
