"""The learning curve's unit of work — fit one setting on one training subset, predict the test
texts — and running many of them in the engine's worker processes.

Imports only numpy and the engine's fitting code (never torch), so worker processes start light.
Fits are handed to the workers one at a time as workers come free, and their features are built
only then (:func:`map_lazily`), so a curve with 25 subsets never holds 25 feature matrices at once.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future
from typing import Any

import numpy as np

from guiapp.core.compute import process_pool
from guiapp.core.experiment.protocol.fitting import fit_classifier, predict


def fit_and_predict(args: tuple[Any, ...]) -> tuple[np.ndarray, float]:
    """Picklable: fit ``(classifier, params, seed, n_threads, X_train, y_train, X_test, oversampling[, check])``
    and return the predicted categories of ``X_test`` and the seconds it took (``oversampling``: the
    per-category ratio where a text can have several categories, else None)."""
    classifier, params, seed, n_threads, X_train, y_train, X_test, oversampling, *check = args
    start = time.perf_counter()
    model = fit_classifier(classifier, params, seed, n_threads, X_train, y_train, check[0] if check else None,
                           oversampling=oversampling)
    return np.asarray(predict(model, X_test)), time.perf_counter() - start


def map_lazily(n_jobs: int, tick: Callable[[], None], fn: Callable[[Any], Any],
               arguments: Iterable[Any]) -> Iterator[tuple[int, Any]]:
    """``(position, fn(argument))`` for each argument, in the order they finish.

    With ``n_jobs`` > 1 the calls run in the engine's worker processes, at most one per worker in
    flight; the next argument is drawn from ``arguments`` only when a worker comes free. ``tick``
    runs between slices of waiting (and before each call in-process); a Cancel it raises stops
    the workers at once."""
    source = enumerate(arguments)
    if n_jobs <= 1:
        for position, argument in source:
            tick()
            yield position, fn(argument)
        return
    executor = process_pool.pool(n_jobs)
    pending: dict[Future, int] = {}
    finished = False
    exhausted = False
    try:
        while True:
            while not exhausted and len(pending) < n_jobs:
                drawn = next(source, None)
                if drawn is None:
                    exhausted = True
                    break
                pending[executor.submit(fn, drawn[1])] = drawn[0]
            if not pending:
                break
            for future in process_pool.wait_some(pending, tick):
                position = pending.pop(future)
                yield position, future.result()
        finished = True
    finally:
        if not finished:  # Cancel, an error, or the caller stopped early: stop the workers now
            process_pool.kill(executor)
