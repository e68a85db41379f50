"""``open_executor``: the executor for a study's ``[cluster]`` section, opened for the study's run
and closed after it (also on Cancel, an error or Ctrl-C).

* this computer (the default) — the engine's worker processes;
* ``scheduler = "tcp://host:8786"`` — a client of that running Dask scheduler; whether anything
  answers there is checked with a plain TCP connection first, so a wrong address gets a message at
  once (and Dask is not even imported);
* ``system = "slurm"`` — a ``dask_jobqueue.SLURMCluster`` whose worker jobs are submitted now and
  cancelled (``scancel``) when the run ends, however it ends. The run waits, reporting the queue,
  until the first worker has started; Cancel works while it waits.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import urlsplit

from guiapp.core.compute.executors import DaskExecutor, Executor, LocalExecutor
from guiapp.core.errors import UserError
from guiapp.core.events import EventCallback, Log, ignore_events
from guiapp.core.study.sections import ClusterSpec

EXAMPLE_ADDRESS = "tcp://login1:8786"


def scheduler_address_problem(address: str) -> str:
    """Why ``address`` is not a Dask scheduler address, in a sentence ("" when its form is right);
    nothing is contacted (the app checks the form as it is typed)."""
    address = address.strip()
    if not address:
        return f"Type the Dask scheduler's address, e.g. {EXAMPLE_ADDRESS}, or choose “This computer”."
    parts = urlsplit(address if "://" in address else f"tcp://{address}")
    if parts.scheme not in ("tcp", "tls") or not parts.hostname or " " in address:
        return f"“{address}” is not a Dask scheduler address: write it as tcp://HOST:PORT, e.g. {EXAMPLE_ADDRESS}."
    try:
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number in range
    except ValueError:
        return f"“{address}” has no valid port number: write it as tcp://HOST:PORT, e.g. {EXAMPLE_ADDRESS}."
    return ""


def check_scheduler_address(address: str, timeout: float = 5.0) -> tuple[str, int]:
    """``(host, port)`` of a ``tcp://host:port`` address that accepts connections; a plain message if not."""
    problem = scheduler_address_problem(address)
    if problem:
        raise UserError(problem, "Copy the address the Dask scheduler printed when it started.")
    parts = urlsplit(address if "://" in address else f"tcp://{address}")
    port = parts.port or 8786
    try:
        with socket.create_connection((parts.hostname, port), timeout=timeout):
            pass
    except OSError as error:
        raise UserError(
            f"Nothing answered at {address}.",
            "Check the address and that the Dask scheduler is running there (start it with: dask scheduler); "
            "from a laptop, the cluster may only be reachable through an SSH tunnel.",
            details=repr(error),
        ) from error
    return parts.hostname, port


@contextmanager
def open_executor(cluster: ClusterSpec, n_jobs: int, on_event: EventCallback = ignore_events,
                  log_directory: str | None = None) -> Iterator[Executor]:
    """The executor for ``cluster``; Dask clients and SLURM jobs are released when the block ends."""
    if cluster.local:
        yield LocalExecutor(n_jobs)
        return
    if cluster.scheduler:
        check_scheduler_address(cluster.scheduler)
        executor = DaskExecutor.connect(cluster.scheduler)
        try:
            workers = executor.wait_for_workers(1, on_event, f"waiting for a worker to join {cluster.scheduler}")
            on_event(Log(f"Running on the Dask scheduler at {cluster.scheduler} ({_describe(workers)})."))
            yield executor
        finally:
            executor.close()
        return
    from guiapp.core.compute.slurm_jobs import start_slurm_cluster

    on_event(Log(f"Submitting {cluster.describe()}."))
    slurm = start_slurm_cluster(cluster, log_directory)
    try:
        import distributed

        executor = DaskExecutor(distributed.Client(slurm))
        try:
            workers = executor.wait_for_workers(1, on_event, "waiting for SLURM to start the worker jobs")
            on_event(Log(f"The first SLURM worker job started ({_describe(workers)}); more join as SLURM starts them."))
            yield executor
        finally:
            executor.close()
    finally:
        slurm.close()  # cancels every worker job still queued or running
        on_event(Log("The SLURM worker jobs were released."))


def _describe(workers: dict) -> str:
    threads = sum(int(info.get("nthreads", 1)) for info in workers.values())
    return f"{len(workers)} worker{'s' if len(workers) != 1 else ''}, {threads} thread{'s' if threads != 1 else ''}"
