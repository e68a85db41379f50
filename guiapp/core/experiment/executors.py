"""Where a study's pieces of work run: this computer's worker processes, or a Dask cluster.

One interface, :class:`Executor` — ``map_calls(tick, fn, arguments)`` runs ``fn(argument)`` for each
argument and returns the values in order, calling ``tick(number finished)`` between short waits so
that progress is reported and a ``Cancelled`` raised by ``tick`` stops the work:

* :class:`LocalExecutor` — the engine's own process pool (``process_pool.py``), the default;
* :class:`DaskExecutor` — a ``distributed.Client`` (any Dask scheduler: a ``LocalCluster``, a
  ``dask_jobqueue.SLURMCluster``, a scheduler address). Each call is one Dask task submitted with
  ``pure=False`` and ``retries`` (a worker that dies has its task run again elsewhere, with the same
  arguments and therefore the same result); Cancel cancels every future of the call. Large arguments
  can be scattered once with :meth:`DaskExecutor.scatter` and passed as futures.

Dask is an optional dependency (``pip install textlab[cluster]``); it is imported only here, and
only when a Dask executor is made.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Protocol

from guiapp.core.errors import UserError
from guiapp.core.experiment import process_pool

POLL_SECONDS = process_pool.POLL_SECONDS
DASK_RETRIES = 3


class Executor(Protocol):
    def map_calls(self, tick: Callable[[int], None], fn: Callable[[Any], Any], arguments: list[Any]) -> list[Any]: ...


class LocalExecutor:
    """This computer: ``n_jobs`` worker processes (one: in this process)."""

    def __init__(self, n_jobs: int) -> None:
        self.n_jobs = n_jobs

    def map_calls(self, tick: Callable[[int], None], fn: Callable[[Any], Any], arguments: list[Any]) -> list[Any]:
        return process_pool.map_calls(self.n_jobs, tick, fn, arguments)


class DaskExecutor:
    """A Dask cluster behind a ``distributed.Client``."""

    def __init__(self, client: Any, retries: int = DASK_RETRIES) -> None:
        self.client, self.retries = client, retries

    @classmethod
    def connect(cls, address: str, timeout: float = 10.0) -> DaskExecutor:
        """A client for the Dask scheduler at ``address`` (e.g. ``tcp://host:8786``)."""
        distributed = _distributed()
        try:
            return cls(distributed.Client(address, timeout=f"{timeout}s"))
        except (OSError, TimeoutError) as error:
            raise UserError(f"No Dask scheduler answered at {address}.",
                            "Check the address and that the scheduler is running (dask scheduler), then try again.",
                            details=repr(error)) from error

    def scatter(self, value: Any) -> Any:
        """Send ``value`` to the workers once; pass the returned future instead of the value."""
        return self.client.scatter(value, broadcast=True)

    def map_calls(self, tick: Callable[[int], None], fn: Callable[[Any], Any], arguments: list[Any]) -> list[Any]:
        distributed = _distributed()
        futures = [self.client.submit(fn, argument, pure=False, retries=self.retries) for argument in arguments]
        finished = False
        try:
            done = 0
            while done < len(futures):
                try:
                    distributed.wait(futures, timeout=POLL_SECONDS, return_when="FIRST_COMPLETED")
                except distributed.TimeoutError:
                    pass
                done = sum(future.done() for future in futures)
                tick(done)
            values = self.client.gather(futures)
            finished = True
            return list(values)
        finally:
            if not finished:  # Cancel or an error: nothing of this call keeps running on the cluster
                self.client.cancel(futures, force=True)


def _distributed():
    try:
        import distributed
    except ImportError as error:
        raise UserError("Running on a Dask cluster needs TextLab's cluster extra.",
                        "Install it with: pip install 'textlab[cluster]' (dask[distributed] and dask-jobqueue).",
                        details=repr(error)) from error
    return distributed


def wait_for_workers(client: Any, n: int, timeout: float = 60.0) -> None:
    """Block until ``n`` workers have joined ``client``'s scheduler (a cluster that is scaling up)."""
    deadline = time.monotonic() + timeout
    while len(client.scheduler_info().get("workers", {})) < n:
        if time.monotonic() > deadline:
            raise UserError(f"Only {len(client.scheduler_info().get('workers', {}))} of {n} Dask workers started "
                            f"within {timeout:.0f} s.", "Check the cluster's queue and the workers' logs.")
        time.sleep(0.2)
