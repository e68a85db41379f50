"""The engine's worker processes: fits run there so that Cancel can stop them at once.

One reusable pool (loky, the process pool behind joblib) serves every grid search and final fit
of a study; idle workers exit after two minutes. Callers wait for results in short slices and
report progress between them, so a Cancel raised by the progress callback takes effect within
``POLL_SECONDS``; the pool's processes are then killed rather than waited for.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, wait
from typing import Any

POLL_SECONDS = 0.2
IDLE_TIMEOUT_SECONDS = 120


def pool(n_jobs: int):
    from joblib.externals.loky import get_reusable_executor

    return get_reusable_executor(max_workers=n_jobs, timeout=IDLE_TIMEOUT_SECONDS)


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
