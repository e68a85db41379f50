"""Cross-validated grid search on prepared features — the engine's fast equivalent of
scikit-learn's ``GridSearchCV`` over an imbalanced-learn ``Pipeline(representation, oversampler,
classifier)``.

Equivalent, because per fold it fits the representation on the training part only, oversamples
the training part only (the validation fold is never touched), and scores every setting with
the same macro-F1; ties go to the first setting in grid order, like ``GridSearchCV``. Faster,
because the per-document work is done once (``prepare``), each fold's features are built once
for all settings, XGBoost settings that differ only in the number of trees share a fit, and fits
run in parallel worker processes that Cancel can stop at once.
"""

from __future__ import annotations

import os
from concurrent.futures import Future
from dataclasses import dataclass

import numpy as np
from sklearn.base import clone

from guiapp.core.compute import process_pool
from guiapp.core.compute.executors import Executor
from guiapp.core.events import EventCallback, Progress, ignore_events
from guiapp.core.experiment.protocol.fitting import fit_and_score, group_points, task_result
from guiapp.core.experiment.protocol.resampling import oversampled_rows
from guiapp.core.experiment.results.experiment_result import GridPointResult
from guiapp.core.experiment.protocol.work_pieces import SettingsOnFold, run_piece
from guiapp.core.models.conventional import Params


@dataclass
class Fold:
    """One cross-validation fold's features, with the oversampled training part."""

    X_train: object
    y_train: np.ndarray
    X_valid: object
    y_valid: np.ndarray
    # studies where a text can have several categories: each category's classifier oversamples its own
    # yes/no labels to this ratio (single-label folds are oversampled by rows when built)
    oversampling: float | None = None


def build_folds(
    representation,
    prepared,
    y: np.ndarray,
    train_rows: np.ndarray,
    folds: list[tuple[np.ndarray, np.ndarray]],
    oversampling_ratio: float | None,
    seed: int,
    on_event: EventCallback = ignore_events,
) -> list[Fold]:
    """Fit the representation on each fold's training part and build both parts' features."""
    built = []
    for number, (fit_part, valid_part) in enumerate(folds, 1):
        on_event(Progress(None, f"preparing part {number} of {len(folds)} of the data"))
        fit_rows, valid_rows = train_rows[fit_part], train_rows[valid_part]
        fold_representation = clone(representation).fit_prepared(prepared, fit_rows)
        X_train = fold_representation.transform_prepared(prepared, fit_rows)
        X_valid = fold_representation.transform_prepared(prepared, valid_rows)
        y_train = y[fit_rows]
        if y.ndim == 2:  # several categories per text: oversampled per category when fitted
            built.append(Fold(X_train, y_train, X_valid, y[valid_rows], oversampling_ratio))
            continue
        if oversampling_ratio is not None:
            drawn = oversampled_rows(y_train, oversampling_ratio, seed)
            X_train, y_train = X_train[drawn], y_train[drawn]
        built.append(Fold(X_train, y_train, X_valid, y[valid_rows]))
    return built


def default_jobs() -> int:
    return max(1, min(os.cpu_count() or 1, 8))


def grid_search(
    classifier: str,
    points: list[Params],
    folds: list[Fold],
    seed: int,
    n_jobs: int | None = None,
    on_event: EventCallback = ignore_events,
    executor: Executor | None = None,
) -> tuple[list[GridPointResult], int]:
    """Score every setting on every fold; return the per-setting results and the chosen index.

    The pieces (a group of settings on one fold) run in this computer's worker processes, or with a
    remote ``executor`` (a Dask cluster) there, each fold's features shared once."""
    n_jobs = default_jobs() if n_jobs is None else max(1, n_jobs)
    groups = group_points(classifier, points)
    tasks = [(fold_index, group) for fold_index in range(len(folds)) for group in groups]
    scores = np.zeros((len(points), len(folds)))
    seconds = np.zeros(len(points))
    total_fits = len(points) * len(folds)
    done_fits = 0
    last_message = [f"trying {len(points)} setting{'s' if len(points) != 1 else ''} on {len(folds)} parts of the data "
                    f"({total_fits:,} fits)"]

    def current() -> Progress:
        return Progress(done_fits / total_fits, last_message[0], done_fits, total_fits)

    def record(fold_index: int, group: list[int], outcome: list[tuple[float, float]]) -> None:
        nonlocal done_fits
        for index, (score, fit_seconds) in zip(group, outcome, strict=True):
            scores[index, fold_index] = score
            seconds[index] += fit_seconds
        done_fits += len(group)
        last_message[0] = f"part {fold_index + 1} of {len(folds)} of the data, setting {group[-1] + 1} of {len(points)}"
        on_event(current())

    if executor is not None and executor.remote:
        _run_remote(executor, classifier, points, folds, tasks, seed, record, on_event, current)
    elif n_jobs == 1 or len(tasks) == 1:
        for fold_index, group in tasks:
            fold = folds[fold_index]

            def check() -> None:
                on_event(current())

            outcome = fit_and_score(
                classifier, [points[i] for i in group], seed, os.cpu_count() or 1,
                fold.X_train, fold.y_train, fold.X_valid, fold.y_valid, check, fold.oversampling,
            )  # fmt: skip
            record(fold_index, group, outcome)
    else:
        _run_parallel(classifier, points, folds, tasks, seed, n_jobs, record, on_event, current)

    results = [
        GridPointResult(
            params=dict(point),
            fold_scores=[float(value) for value in scores[index]],
            mean=float(np.mean(scores[index])),
            std=float(np.std(scores[index])),
            fit_seconds=float(seconds[index]),
        )
        for index, point in enumerate(points)
    ]
    means = np.array([result.mean for result in results])
    return results, int(np.flatnonzero(means == means.max())[0])


def _run_remote(executor: Executor, classifier, points, folds, tasks, seed, record, on_event, current) -> None:
    shared = [executor.share(fold) for fold in folds]
    ordered = sorted(tasks, key=lambda task: -_task_weight(classifier, [points[i] for i in task[1]]))
    pieces = [(SettingsOnFold(classifier, tuple(points[i] for i in group), seed, 1), shared[fold_index])
              for fold_index, group in ordered]
    total = sum(len(group) for _, group in ordered)

    def tick(done: int) -> None:
        fits = sum(len(group) for _, group in ordered[:done])  # roughly: pieces finish out of order
        on_event(Progress(fits / total, current().message, fits, total))

    for (fold_index, group), outcome in zip(ordered, executor.map_calls(tick, run_piece, pieces), strict=True):
        record(fold_index, group, outcome)


def _run_parallel(classifier, points, folds, tasks, seed, n_jobs, record, on_event, current) -> None:
    executor = process_pool.pool(n_jobs)
    # larger fits first, so the last worker isn't left with the longest one
    queue = sorted(tasks, key=lambda task: -_task_weight(classifier, [points[i] for i in task[1]]))
    queue.reverse()  # pop() from the end
    pending: dict[Future, tuple[int, list[int]]] = {}
    finished = False

    def submit() -> None:
        # at most one task per worker in flight: nothing waits in the executor's queue, so a
        # Cancel has only running fits to stop
        while queue and len(pending) < n_jobs:
            fold_index, group = queue.pop()
            fold = folds[fold_index]
            args = (classifier, [points[i] for i in group], seed, 1, fold.X_train, fold.y_train, fold.X_valid, fold.y_valid,
                    None, fold.oversampling)
            pending[executor.submit(task_result, args)] = (fold_index, group)

    try:
        submit()
        while pending:
            for future in process_pool.wait_some(pending, lambda: on_event(current())):
                fold_index, group = pending.pop(future)
                record(fold_index, group, future.result())
            submit()
        finished = True
    finally:
        if not finished:  # Cancel or an error: stop the worker processes now
            process_pool.kill(executor)


def _task_weight(classifier: str, points: list[Params]) -> float:
    if classifier == "xgboost":
        return max(point["n_estimators"] * point["max_depth"] for point in points)
    if classifier == "svm":
        return len(points) * (3.0 if points[0]["kernel"] == "rbf" else 1.0)
    if classifier == "logistic_regression":
        return max(point["C"] for point in points)
    return 1.0

