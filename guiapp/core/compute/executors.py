"""Where a study's pieces of work run: this computer's worker processes, or a Dask cluster.

One interface, :class:`Executor`:

* ``map_calls(tick, fn, arguments)`` runs ``fn(argument)`` for each argument and returns the values
  in order, calling ``tick(number finished)`` between short waits so that progress is reported and a
  ``Cancelled`` raised by ``tick`` stops the work; ``call(tick, fn, *args)`` runs one call so.
* ``share(value)`` sends a large value (a fold's features, the study's texts) to the workers once;
  the handle it returns is passed inside the arguments instead of the value. ``forget()`` lets the
  workers drop what was shared (after each model).

Two executors:

* :class:`LocalExecutor` — the engine's own process pool (``process_pool.py``), the default:
  unchanged behaviour and speed (``share`` returns the value itself);
* :class:`DaskExecutor` — a ``distributed.Client`` (any Dask scheduler: a ``LocalCluster``, a
  ``dask_jobqueue.SLURMCluster``, a scheduler address). Each call is one Dask task submitted with
  ``pure=False`` and ``retries`` (a worker that dies has its task run again elsewhere, with the same
  arguments and therefore the same result); Cancel cancels every future of the call. Shared values
  are sent once, as tasks that Dask can run again if the worker holding them dies.

A piece of work is a module-level function and plain data (numbers, arrays, text), so any Python
process with TextLab installed can run it. Dask is an optional dependency (``pip install
textlab[cluster]``); it is imported only when a Dask executor is made.
"""

from __future__ import annotations

import threading
import time
import warnings
from collections.abc import Callable
from typing import Any, Protocol

from guiapp.core.compute import process_pool
from guiapp.core.errors import UserError
from guiapp.core.events import EventCallback, Progress, ignore_events

POLL_SECONDS = process_pool.POLL_SECONDS
DASK_RETRIES = 3


class Executor(Protocol):
    remote: bool

    def map_calls(self, tick: Callable[[int], None], fn: Callable[[Any], Any], arguments: list[Any],
                  fine_tuning: bool = False) -> list[Any]: ...

    def call(self, tick: Callable[[], None], fn: Callable[..., Any], *args: Any) -> Any: ...

    def share(self, value: Any) -> Any: ...

    def forget(self) -> None: ...

    def ask_workers(self, fn: Callable[..., Any], *args: Any) -> list[Any]: ...

    def describe(self) -> str: ...


class LocalExecutor:
    """This computer: ``n_jobs`` worker processes (one: in this process)."""

    remote = False

    def __init__(self, n_jobs: int) -> None:
        self.n_jobs = n_jobs

    def map_calls(self, tick: Callable[[int], None], fn: Callable[[Any], Any], arguments: list[Any],
                  fine_tuning: bool = False) -> list[Any]:
        return process_pool.map_calls(1 if fine_tuning else self.n_jobs, tick, fn, arguments)

    def call(self, tick: Callable[[], None], fn: Callable[..., Any], *args: Any) -> Any:
        if self.n_jobs > 1:  # in a worker process, so that Cancel can stop even a long fit at once
            return process_pool.call(self.n_jobs, tick, fn, *args)
        return fn(*args)

    def share(self, value: Any) -> Any:
        return value

    def forget(self) -> None:
        pass

    def ask_workers(self, fn: Callable[..., Any], *args: Any) -> list[Any]:
        """``fn(*args)`` here (this computer is the only worker)."""
        return [fn(*args)]

    def close(self) -> None:
        pass

    def describe(self) -> str:
        return f"this computer ({self.n_jobs} worker process{'es' if self.n_jobs != 1 else ''})"


class DaskExecutor:
    """A Dask cluster behind a ``distributed.Client``."""

    remote = True

    def __init__(self, client: Any, retries: int = DASK_RETRIES) -> None:
        self.client, self.retries = client, retries
        self._shared: dict[int, tuple[Any, Any]] = {}  # id(value) → (value, future)

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

    def share(self, value: Any) -> Any:
        """Send ``value`` to the cluster once (the same object shared again gives the same future).

        It is sent as the argument of a task that returns it, not with ``client.scatter``: a task has
        lineage, so when the worker holding the value dies the scheduler runs that task again on
        another worker, and the pieces that need it still finish (scattered data would be lost)."""
        known = self._shared.get(id(value))
        if known is not None and known[0] is value:
            return known[1]
        with warnings.catch_warnings():  # Dask's advice to scatter large values instead: see above
            warnings.filterwarnings("ignore", message=".*[Ll]arge.*")
            future = self.client.submit(_hold, value, pure=False, retries=self.retries)
        self._shared[id(value)] = (value, future)
        return future

    def forget(self) -> None:
        """Let the workers drop every shared value (released when no piece needs them any more)."""
        self._shared.clear()

    def map_calls(self, tick: Callable[[int], None], fn: Callable[[Any], Any], arguments: list[Any],
                  fine_tuning: bool = False) -> list[Any]:
        """With ``fine_tuning``, each call claims one unit of the workers' ``fine_tuning`` resource
        when they declare it (TextLab's SLURM workers: one per GPU), so a GPU runs one at a time."""
        resources = {"fine_tuning": 1} if fine_tuning and self._declares("fine_tuning") else None
        futures = [self.client.submit(fn, argument, pure=False, retries=self.retries, resources=resources)
                   for argument in arguments]
        # each finished future sets the event (from the client's thread): one wake-up per piece, instead
        # of a new wait over every future several times a second
        some_finished = threading.Event()
        for future in futures:
            future.add_done_callback(lambda _: some_finished.set())
        finished = False
        try:
            done = 0
            while done < len(futures):
                some_finished.wait(POLL_SECONDS)
                some_finished.clear()
                done = sum(future.done() for future in futures)
                tick(done)
            values = self.client.gather(futures)
            finished = True
            return list(values)
        finally:
            if not finished:  # Cancel or an error: nothing of this call keeps running on the cluster
                self.client.cancel(futures, force=True)

    def call(self, tick: Callable[[], None], fn: Callable[..., Any], *args: Any) -> Any:
        [value] = self.map_calls(lambda done: tick(), _Star(fn), [args])
        return value

    def ask_workers(self, fn: Callable[..., Any], *args: Any) -> list[Any]:
        """``fn(*args)`` on every worker (e.g. which device it would fine-tune on)."""
        return list(self.client.run(fn, *args).values())

    def workers(self) -> dict[str, Any]:
        return dict(self.client.scheduler_info().get("workers", {}))

    def threads(self) -> int:
        return sum(int(info.get("nthreads", 1)) for info in self.workers().values())

    def threads_per_worker(self) -> int:
        """The threads of the smallest worker (for a piece that may use a whole worker)."""
        return min((int(info.get("nthreads", 1)) for info in self.workers().values()), default=1)

    def _declares(self, resource: str) -> bool:
        return any(resource in (info.get("resources") or {}) for info in self.workers().values())

    def wait_for_workers(self, n: int, on_event: EventCallback = ignore_events, message: str = "waiting for workers",
                         timeout: float | None = None) -> dict[str, Any]:
        """Block until ``n`` workers have joined (a cluster that is scaling up), reporting the wait;
        a Cancel raised by ``on_event`` stops the wait."""
        started = time.monotonic()
        while len(workers := self.workers()) < n:
            waited = time.monotonic() - started
            if timeout is not None and waited > timeout:
                raise UserError(f"Only {len(workers)} of {n} Dask workers started within {timeout:.0f} s.",
                                "Check the cluster's queue (squeue --me) and the workers' logs.")
            on_event(Progress(None, f"{message} ({waited:.0f} s)"))
            time.sleep(POLL_SECONDS)
        return workers

    def close(self) -> None:
        self._shared.clear()
        self.client.close()

    def describe(self) -> str:
        workers = self.workers()
        return f"a Dask cluster ({len(workers)} worker{'s' if len(workers) != 1 else ''}, {self.threads()} threads)"


def _hold(value: Any) -> Any:
    """A shared value, as the result of a task (see :meth:`DaskExecutor.share`)."""
    return value


class _Star:
    """``fn(*args)`` as a one-argument call that pickles by reference to ``fn``."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn = fn

    def __call__(self, args: tuple) -> Any:
        return self.fn(*args)


def _distributed():
    try:
        import distributed
    except ImportError as error:
        raise UserError("Running on a Dask cluster needs TextLab's cluster extra.",
                        "Install it with: pip install 'textlab[cluster]' (dask[distributed] and dask-jobqueue).",
                        details=repr(error)) from error
    return distributed

