"""A real Dask LocalCluster for the checks that run apart from the Qt tests' process (importing
``distributed`` starts threads that the window tests must not share), and the runner of those checks."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run_checks_apart(checks: Path, passed: int, timeout: int) -> None:
    """Run the check file ``checks`` in a process of its own; all ``passed`` of its tests must pass."""
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x", str(checks)],
                          cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert f"{passed} passed" in done.stdout


@pytest.fixture(scope="module", name="client")
def local_client():
    """A client of a LocalCluster of 2 worker processes with one thread each (import this fixture only
    in a check file run apart)."""
    import distributed

    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, protocol="tcp",
                                       dashboard_address=None, silence_logs=50)
    with distributed.Client(cluster) as dask_client:
        yield dask_client
    cluster.close()
