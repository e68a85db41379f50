#!/usr/bin/env bash
# Moves TextLab to the newest versions pyproject.toml's ranges allow today: writes
# requirements/lock-<system>-<machine>-py<version>.txt (exact versions and hashes) for this computer,
# and its -bundle twin for the installers' build environment.
# Afterwards: run the set-up and the tests (README), build the installer and run its self-test
# (docs/installers.md), then commit the lock.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"
"$PY" scripts/write_lock.py --torch "${TEXTLAB_TORCH:-torch==2.13.0}"
