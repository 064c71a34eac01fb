#!/usr/bin/env bash
# Creates bench/.venv (gitignored) with numpy, matplotlib and every peer of the
# benchmark: ejKernel, PyTorch, JAX (CPU), IREE compiler and runtime, fla's
# PyTorch references (fla-core, without its Triton dependencies), all from
# PyPI. A peer that cannot be installed is reported and skipped: the harness
# then runs without it. Needs python3-venv (scripts/install-deps.sh).
#
#   bench/setup.sh                 # everything
#   EJK_BENCH_PEERS="jax iree" bench/setup.sh   # a subset of the peers
#
# PyPI's Linux torch wheel pulls in the CUDA libraries (about 4 GB; they are
# never used on the CPU). Where the PyTorch index is reachable, set
# EJK_BENCH_TORCH_INDEX=https://download.pytorch.org/whl/cpu for the CPU-only
# wheel instead. Where it is not (the build machines, 2026-11-27), plain PyPI
# torch with its CUDA dependencies works (about 50 s, 5.5 GB): `pip install
# --no-deps torch` alone does not import (libcufile.so.0 missing).
set -uo pipefail
BENCH="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VENV="$BENCH/.venv"
PY="$VENV/bin/python"

if [ ! -x "$PY" ]; then
  if ! /usr/bin/python3 -m venv "$VENV"; then
    echo "bench/setup: error: /usr/bin/python3 -m venv failed (install python3-venv:" \
         "scripts/install-deps.sh)" >&2
    exit 1
  fi
fi
"$PY" -m pip install -q --upgrade pip >/dev/null 2>&1 || true
if ! "$PY" -m pip install -q numpy matplotlib; then
  echo "bench/setup: error: numpy/matplotlib could not be installed" >&2
  exit 1
fi

declare -A SPEC=(
  [ejkernel]="ejkernel"
  [torch]="torch"
  [jax]="jax[cpu]"
  [iree]="iree-base-compiler iree-base-runtime"
  [fla]="fla-core==0.6.0 einops"
)
declare -A PROBE=(
  [ejkernel]="import ejkernel.modules"
  [torch]="import torch.nn.functional"
  [jax]="import jax"
  [iree]="import iree.compiler, iree.runtime"
  [fla]="import importlib.util as u, einops, sys; sys.exit(u.find_spec('fla') is None)"
)
failed=()
for peer in ${EJK_BENCH_PEERS:-jax ejkernel torch iree fla}; do
  if [ -z "${SPEC[$peer]:-}" ]; then
    echo "bench/setup: unknown peer '$peer' (known: ${!SPEC[*]})" >&2
    failed+=("$peer")
    continue
  fi
  extra=()
  if [ "$peer" = torch ] && [ -n "${EJK_BENCH_TORCH_INDEX:-}" ]; then
    extra=(--index-url "$EJK_BENCH_TORCH_INDEX")
  fi
  # fla: only its PyTorch reference files are used on the CPU (bench/linear.py);
  # its Triton and GPU dependencies are not needed there.
  if [ "$peer" = fla ]; then
    extra=(--no-deps)
  fi
  echo "bench/setup: installing $peer (${SPEC[$peer]})"
  # shellcheck disable=SC2086
  if "$PY" -m pip install -q "${extra[@]}" ${SPEC[$peer]} && "$PY" -c "${PROBE[$peer]}"; then
    echo "bench/setup: $peer ok"
  else
    echo "bench/setup: warning: $peer could not be installed; the benchmark skips it" >&2
    failed+=("$peer")
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "bench/setup: done without: ${failed[*]}"
else
  echo "bench/setup: done; run bench/run.sh"
fi
