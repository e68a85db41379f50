"""``textlab predict --scheduler/--cluster``: the checks of predicting on Dask workers
(``predict_on_workers_checks.py``: a real LocalCluster, a worker that dies mid-run, Cancel and
resume, the command line), run in a separate Python process so the Dask client's threads never
share a process with Qt."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

# found, not imported: importing distributed here would put its threads in the Qt tests' process
if importlib.util.find_spec("distributed") is None:
    pytest.skip("the cluster extra (dask[distributed]) is not installed", allow_module_level=True)


def test_predicting_on_dask_workers_gives_what_one_computer_gives() -> None:
    checks = Path(__file__).with_name("predict_on_workers_checks.py")
    root = Path(__file__).resolve().parents[3]
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x", str(checks)],
                          cwd=root, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "4 passed" in done.stdout
