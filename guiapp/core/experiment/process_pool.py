"""The engine's worker processes: fits run there so that Cancel can stop them at once.

One pool of the engine's own (loky, the process pool behind joblib) serves every grid search and
final fit of a study; idle workers exit after two minutes. It is not loky's process-wide reusable
executor: joblib's ``Parallel`` reuses that one and expects its own bookkeeping on it, so sharing
it made any later ``joblib.Parallel(backend="loky")`` in the same process fail. Callers wait for results in short slices and
report progress between them, so a Cancel raised by the progress callback takes effect within
``POLL_SECONDS``; the pool's processes are then killed rather than waited for.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, wait
from typing import Any

POLL_SECONDS = 0.2
IDLE_TIMEOUT_SECONDS = 120

_POOL: Any = None
_POOL_LOCK = threading.Lock()


def pool(n_jobs: int):
    """The engine's pool with ``n_jobs`` workers: the running one when it fits, else a new one."""
    global _POOL
    from joblib.externals.loky import ProcessPoolExecutor

    with _POOL_LOCK:
        current = _POOL
        usable = (current is not None and current._max_workers == n_jobs
                  and not current._flags.shutdown and not current._flags.broken)
        if not usable:
            if current is not None:
                current.shutdown(wait=True, kill_workers=True)
            _POOL = ProcessPoolExecutor(max_workers=n_jobs, timeout=IDLE_TIMEOUT_SECONDS)
        return _POOL


def shutdown() -> None:
    """Stop the engine's workers (they also exit by themselves when idle)."""
    global _POOL
    with _POOL_LOCK:
        if _POOL is not None:
            _POOL.shutdown(wait=True)
            _POOL = None


def kill(executor) -> None:
    """Stop the workers now (after Cancel or an error); the next call starts a fresh pool."""
    executor.shutdown(wait=True, kill_workers=True)


def wait_some(pending: dict[Future, Any], tick: Callable[[], None]) -> list[Future]:
    """The futures that finished within one slice; ``tick`` (which may raise Cancelled) runs after it."""
    done, _ = wait(list(pending), timeout=POLL_SECONDS, return_when=FIRST_COMPLETED)
    tick()
    return list(done)


def call(n_jobs: int, tick: Callable[[], None], fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` in a worker process, calling ``tick`` every slice while it runs."""
    executor = pool(n_jobs)
    finished = False
    try:
        future = executor.submit(fn, *args)
        pending = {future: None}
        while not wait_some(pending, tick):
            pass
        value = future.result()
        finished = True
        return value
    finally:
        if not finished:
            kill(executor)
