"""Keeps track of running workers so the app (and the tests) can wait for them on exit."""

from __future__ import annotations

import threading
from typing import Protocol


class _Stoppable(Protocol):
    name: str

    def cancel(self) -> None: ...

    def wait(self, ms: int) -> bool: ...

    def is_running(self) -> bool: ...


_lock = threading.Lock()
# Strong references: a running worker must not be garbage-collected while its thread runs.
_live: set[_Stoppable] = set()


def register(worker: _Stoppable) -> None:
    with _lock:
        _live.add(worker)


def unregister(worker: _Stoppable) -> None:
    with _lock:
        _live.discard(worker)


def running_workers(wait_ms: int = 0) -> list[str]:
    """Names of workers still running after waiting up to ``wait_ms`` for each."""
    with _lock:
        workers = list(_live)
    still = []
    for worker in workers:
        if worker.is_running() and not worker.wait(wait_ms):
            still.append(worker.name)
    return still


def cancel_all(wait_ms: int = 5000) -> list[str]:
    """Cancel every running worker and wait for them; returns the names that did not stop."""
    with _lock:
        workers = list(_live)
    for worker in workers:
        worker.cancel()
    return running_workers(wait_ms)
