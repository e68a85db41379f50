"""``textlab predict --scheduler/--cluster``: the checks of predicting on Dask workers
(``predict_on_workers_checks.py``: a real LocalCluster, a worker that dies mid-run, Cancel and
resume, the command line), run in a separate Python process so the Dask client's threads never
share a process with Qt."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from tests.core.local_cluster import run_checks_apart

# found, not imported: importing distributed here would put its threads in the Qt tests' process
if importlib.util.find_spec("distributed") is None:
    pytest.skip("the cluster extra (dask[distributed]) is not installed", allow_module_level=True)


def test_predicting_on_dask_workers_gives_what_one_computer_gives() -> None:
    run_checks_apart(Path(__file__).with_name("predict_on_workers_checks.py"), 4, timeout=300)
