#!/usr/bin/env bash
# Sets everything up from nothing and runs ejk's main job on the bundled
# example, docs/examples/attention.mlir: it is compiled for this CPU, run on
# seeded random inputs, and checked against the reference evaluator.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${EJK_BUILD_DIR:-$ROOT/build}"

bash "$ROOT/scripts/install-deps.sh"
bash "$ROOT/scripts/build.sh" ejk-opt ejk-run ejkc
echo "== the example, verified by ejk-opt =="
"$BUILD/bin/ejk-opt" "$ROOT/docs/examples/attention.mlir"
echo "== compiled for this CPU, run and checked against the reference =="
"$BUILD/bin/ejk-run" "$ROOT/docs/examples/attention.mlir" --entry attention \
  --random-inputs 1 --check --bench 5 "$@"
