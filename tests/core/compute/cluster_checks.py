"""Running pieces of work on a Dask cluster gives what the local worker pool gives: a real
``distributed.LocalCluster`` (two worker processes over TCP); a worker killed mid-run has its pieces
re-run elsewhere with the same results; Cancel ends every future of the call within 2 s.

Run by ``test_executors.py`` in a process of its own: a Dask client leaves event-loop threads and
objects behind that should not share a process with the Qt tests."""

from __future__ import annotations

import os
import signal
import time

import numpy as np
import pytest

from guiapp.core.compute.executors import DaskExecutor, LocalExecutor
from guiapp.core.events import Cancelled
from guiapp.core.experiment import fitting

distributed = pytest.importorskip("distributed", reason="the cluster extra (dask[distributed]) is not installed")


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, protocol="tcp",
                                       dashboard_address=None, silence_logs=50)
    with distributed.Client(cluster) as dask_client:
        yield dask_client
    cluster.close()


def slow_double(value: int) -> int:
    time.sleep(0.3)
    return 2 * value


def test_grid_search_pieces_give_the_same_scores_on_dask_as_on_the_local_pool(client) -> None:
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(120, 6)), rng.integers(0, 3, 120)
    pieces = [("logistic_regression", [{"C": c}], 5, 1, X[:80], y[:80], X[80:], y[80:]) for c in (0.1, 1.0, 10.0)]
    local = LocalExecutor(1).map_calls(lambda done: None, fitting.task_result, pieces)
    remote = DaskExecutor(client).map_calls(lambda done: None, fitting.task_result, pieces)
    assert [[score for score, _ in outcome] for outcome in remote] == [[score for score, _ in outcome] for outcome in local]


def test_a_worker_killed_mid_run_has_its_pieces_run_again(client) -> None:
    executor = DaskExecutor(client)
    pids = list(client.run(os.getpid).values())
    killed = []

    def tick(done: int) -> None:
        if not killed and client.processing() and any(client.processing().values()):
            os.kill(pids[0], signal.SIGKILL)  # the nanny starts a new worker; Dask re-runs its pieces
            killed.append(pids[0])

    values = executor.map_calls(tick, slow_double, list(range(12)))
    assert killed and values == [2 * value for value in range(12)]


def test_cancel_ends_every_future_within_two_seconds(client) -> None:
    executor = DaskExecutor(client)

    def tick(done: int) -> None:
        raise Cancelled()

    started = time.monotonic()
    with pytest.raises(Cancelled):
        executor.map_calls(tick, slow_double, list(range(40)))
    deadline = time.monotonic() + 2.0
    while any(client.processing().values()) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(client.processing().values())
    assert time.monotonic() - started < 2.0 + 1.0
