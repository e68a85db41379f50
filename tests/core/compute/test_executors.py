"""The Dask executor's checks (``cluster_checks.py``: a real LocalCluster, a killed worker, Cancel,
for single calls and whole studies),
run in a separate Python process so the Dask client's threads never share a process with Qt."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from tests.core.local_cluster import run_checks_apart

# found, not imported: importing distributed here would put its threads in the Qt tests' process
if importlib.util.find_spec("distributed") is None:
    pytest.skip("the cluster extra (dask[distributed]) is not installed", allow_module_level=True)


def test_the_dask_executor_on_a_real_local_cluster() -> None:
    run_checks_apart(Path(__file__).with_name("cluster_checks.py"), 8, timeout=400)
