#!/usr/bin/env bash
# Runs bench/run.py with the peers' virtual environment (bench/setup.sh makes
# it); without it, with the system python (ejk only: every peer is skipped).
set -euo pipefail
BENCH="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PY="$BENCH/.venv/bin/python"
if [ ! -x "$PY" ]; then
  echo "bench: no $BENCH/.venv (run bench/setup.sh for the peers); using /usr/bin/python3" >&2
  PY=/usr/bin/python3
fi
exec "$PY" "$BENCH/run.py" "$@"
