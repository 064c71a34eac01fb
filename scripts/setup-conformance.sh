#!/usr/bin/env bash
# Creates .venv-conformance/ (gitignored) with the pinned ejKernel, jax[cpu]
# and numpy of test/Conformance/requirements.txt, for the conformance suite
# (docs/conformance.md). Idempotent: does nothing when the venv already has
# exactly those pins. Fails loudly when PyPI cannot be reached.
#
#   scripts/setup-conformance.sh
#   EJK_CONFORMANCE_VENV=/some/dir scripts/setup-conformance.sh   # elsewhere
#
# Needs python3-venv (scripts/install-deps.sh). pip's cache (~/.cache/pip)
# makes a rebuild of the venv take seconds instead of a download.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${EJK_CONFORMANCE_VENV:-$ROOT/.venv-conformance}"
REQS="$ROOT/test/Conformance/requirements.txt"
PY="$VENV/bin/python"
STAMP="$VENV/.ejk-requirements"

# Already set up: the same pins were installed and the packages are there
# (found, not imported: importing jax and ejkernel takes seconds).
FIND='import importlib.util as u, sys; sys.exit(not all(u.find_spec(m) for m in ("ejkernel", "jax", "jaxlib", "numpy")))'
if [ -x "$PY" ] && [ -f "$STAMP" ] && cmp -s "$REQS" "$STAMP" &&
   "$PY" -c "$FIND" >/dev/null 2>&1; then
  echo "setup-conformance: $VENV is set up"
  exit 0
fi

if [ ! -x "$PY" ]; then
  echo "setup-conformance: creating $VENV"
  if ! /usr/bin/python3 -m venv "$VENV"; then
    echo "setup-conformance: error: '/usr/bin/python3 -m venv' failed;" \
         "install python3-venv (scripts/install-deps.sh)" >&2
    exit 1
  fi
fi

echo "setup-conformance: installing $(grep -v '^#' "$REQS" | xargs)"
if ! "$PY" -m pip install --disable-pip-version-check -q -r "$REQS"; then
  echo "setup-conformance: error: pip could not install the pinned packages of" \
       "$REQS (is PyPI reachable? set PIP_INDEX_URL for a mirror). The" \
       "conformance suite needs them; EJK_SKIP_CONFORMANCE=1 scripts/test.sh" \
       "runs the other tests without it (its lit test is then UNSUPPORTED)." >&2
  exit 1
fi
if ! "$PY" -c "import ejkernel.modules.operations, jax; assert jax.devices('cpu')"; then
  echo "setup-conformance: error: the packages installed but do not import" >&2
  exit 1
fi
cp "$REQS" "$STAMP"
echo "setup-conformance: done ($VENV)"
