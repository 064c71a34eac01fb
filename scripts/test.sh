#!/usr/bin/env bash
# Sets everything up from nothing and runs every test: the lit suite
# (dialect, passes, tools, integration, conformance with ejKernel) and the
# GoogleTest suites, via ctest; then the sanitizer build, its tests and the
# bounded fuzz runs (scripts/reliability.sh; EJK_RELIABILITY=0 skips them).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${EJK_BUILD_DIR:-$ROOT/build}"

bash "$ROOT/scripts/install-deps.sh"
bash "$ROOT/scripts/build.sh"
# ejKernel + jax[cpu] for the conformance suite (test/Conformance); without
# it that lit test is UNSUPPORTED. EJK_SKIP_CONFORMANCE=1 skips it on purpose
# (e.g. offline); otherwise a failed setup fails the run.
if [ "${EJK_SKIP_CONFORMANCE:-0}" != 1 ]; then
  bash "$ROOT/scripts/setup-conformance.sh"
fi
# SPIRV-Tools 2025.5 for the VK_NV_cooperative_matrix2 emitter's tests
# (test/Vulkan/cm2-emit.test) and the cooperative modules' validation under
# the Vulkan memory model (test/Vulkan/memory-model.test);
# EJK_SKIP_SPIRV_TOOLS=1 leaves them UNSUPPORTED.
if [ "${EJK_SKIP_SPIRV_TOOLS:-0}" != 1 ]; then
  bash "$ROOT/scripts/setup-spirv-tools.sh"
fi
(cd "$BUILD" && ctest --output-on-failure -j "${EJK_JOBS:-$(nproc)}")
if [ "${EJK_RELIABILITY:-1}" != 0 ]; then
  bash "$ROOT/scripts/reliability.sh"
fi
