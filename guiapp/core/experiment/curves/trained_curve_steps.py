"""The two steps of a learning curve for a model trained on each subset (SetFit, a fine-tuned
Transformer): choose the setting on each tuning subset, then fit one model per size and draw.

Each model family says how it trains and answers (``fit_and_answer``) and how a tuning subset is
split (``splits_at``); the steps here are the same for both: the macro-F1 of every setting on the
tuning subset's splits picks the setting (the first of the best), and a repeat that would learn
from the very same texts as the first draw is not fitted again (see ``with_shared_points``).
Every fit takes the next progress span from ``spans``, in the order the fits are made.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from guiapp.core.experiment.curves.learning_curve_results import CurvePoint, TuningChoice, with_shared_points
from guiapp.core.experiment.curves.nested_subsets import CurvePlan
from guiapp.core.experiment.protocol.resampling import oversampled_rows
from guiapp.core.experiment.scores import metrics
from guiapp.core.study.split import TrainTestSplit
from guiapp.core.study.study_data import StudyData

Span = tuple[float, float]
# (rows to learn from, rows to answer, setting, what the fit is for, progress span) -> predicted codes
FitAndAnswer = Callable[[np.ndarray, np.ndarray, dict[str, Any], str, Span], np.ndarray]
# (tuning size, its rows, the study cut to those rows) -> (fit/validation splits, how they were made)
SplitsAt = Callable[[int, np.ndarray, StudyData], tuple[list[tuple[np.ndarray, np.ndarray]], str]]


def tune_then_fit(
    data: StudyData,
    plan: CurvePlan,
    tuning_sizes: dict[int, int],
    points: list[dict[str, Any]],
    seed: int,
    ratio: float | None,
    splits_at: SplitsAt,
    fit_and_answer: FitAndAnswer,
    spans: list[Span],
    on_chosen: Callable[[int, dict[str, Any], float, str], None] | None = None,
) -> tuple[list[TuningChoice], list[CurvePoint], dict[str, float]]:
    """Both steps: the settings chosen, the curve's points (shared where a size's draws are the
    same texts) and the seconds each step took. ``ratio`` oversamples the texts a model learns from
    (with the study's ``seed`` while tuning, with each draw's seed for the points)."""

    def learning_rows(rows: np.ndarray, draw_seed: int) -> np.ndarray:
        return rows[oversampled_rows(data.y[rows], ratio, draw_seed)] if ratio is not None else rows

    # the setting chosen for each tuning size, on that size's subset of the first draw
    start = time.perf_counter()
    choices: dict[int, TuningChoice] = {}
    for tune_size in sorted(set(tuning_sizes.values())):
        used_for = [size for size, tuned_at in tuning_sizes.items() if tuned_at == tune_size]
        if len(points) == 1:
            choices[tune_size] = TuningChoice(tune_size, 1, dict(points[0]), None, "only one setting: nothing to tune", used_for)
            continue
        rows = plan.subset(tune_size, 0)
        subset = dataclasses.replace(data, split=TrainTestSplit(rows, data.split.test, data.split.how))
        splits, how = splits_at(tune_size, rows, subset)
        scores = np.zeros((len(points), len(splits)))
        for split_index, (fit_part, valid_part) in enumerate(splits):
            for index, point in enumerate(points):
                label = f"choosing the setting on {tune_size:,} texts, setting {index + 1} of {len(points)}"
                fit_rows = learning_rows(rows[fit_part], seed)
                predicted = fit_and_answer(fit_rows, rows[valid_part], point, label, spans.pop(0))
                scores[index, split_index] = metrics.macro_f1(data.y[rows[valid_part]], predicted)
        means = scores.mean(axis=1)
        chosen = int(np.flatnonzero(means == means.max())[0])
        choices[tune_size] = TuningChoice(tune_size, 1, dict(points[chosen]), round(float(means[chosen]), 6), how, used_for)
        if on_chosen is not None:
            on_chosen(tune_size, points[chosen], float(means[chosen]), how)
    tuning_seconds = time.perf_counter() - start

    # one model per size and draw with the setting chosen for its size, scored on the test texts
    start = time.perf_counter()
    test = data.split.test
    curve_points = []
    for size in plan.sizes:
        for repeat in range(plan.repeats):
            if repeat > 0 and plan.same_for_every_repeat(size, ratio is not None):
                spans.pop(0)
                continue  # the same texts in every repeat: fitted once (see with_shared_points)
            fit_start = time.perf_counter()
            rows = learning_rows(plan.subset(size, repeat), plan.seeds[repeat])
            label = f"{size:,} texts, draw {repeat + 1} of {plan.repeats}"
            predicted = fit_and_answer(rows, test, choices[tuning_sizes[size]].params, label, spans.pop(0))
            curve_points.append(CurvePoint.scored(size, repeat + 1, data.y[test], predicted, len(data.categories),
                                                  time.perf_counter() - fit_start))
    fits_seconds = time.perf_counter() - start
    shared = with_shared_points(curve_points, plan.shared_sizes(ratio is not None), plan.repeats)
    return list(choices.values()), shared, {"tuning": round(tuning_seconds, 4), "fits": round(fits_seconds, 4)}
