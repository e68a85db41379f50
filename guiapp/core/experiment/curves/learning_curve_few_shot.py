"""The learning curve of a model that needs few or no coded texts (``learning_curves.py``).

Zero-shot: it learns nothing from the coded texts, so its score is the same at every size and in
every draw; it answers the test texts once and that score stands for every point (where a text can
have several categories, a similarity model's centres are set from the study's training texts, as
in a study run; their coding is never read).

SetFit: learns from each subset like any model. Its setting is chosen once on the tuning subset of
the first draw (or per size), by the study's folds or one validation split of that subset (the rule
of a study run, ``few_shot_estimates.setfit_tuning``), then one model is trained per size and draw
and answers the test texts. Where a text can have several categories a text is put in every
category whose probability reaches 0.5 (thresholds are not tuned per point) and no texts are
oversampled.
"""

from __future__ import annotations

import time
from itertools import pairwise
from typing import Any

import numpy as np

from guiapp.core.events import EventCallback, Log, Progress, sub_progress
from guiapp.core.experiment.speed.few_shot_estimates import setfit_tuning, setfit_work
from guiapp.core.experiment.curves.learning_curve_results import (
    CurvePoint,
    ModelCurve,
    with_shared_points,
)
from guiapp.core.experiment.curves.nested_subsets import CurvePlan
from guiapp.core.experiment.curves.trained_curve_steps import tune_then_fit
from guiapp.core.experiment.protocol.resampling import cv_folds
from guiapp.core.experiment.families.transformer_decisions import Decisions
from guiapp.core.experiment.families.tuning_splits import splits_for
from guiapp.core.study.sections import ModelSpec
from guiapp.core.study.spec import ExperimentSpec
from guiapp.core.study.study_data import StudyData


def few_shot_curve(model: ModelSpec, data: StudyData, plan: CurvePlan, tuning_sizes: dict[int, int],
                   spec: ExperimentSpec, on_event: EventCallback) -> ModelCurve:
    """One zero-shot or SetFit model's curve (see the module docstring)."""
    if model.representation == "zero_shot":
        return _zero_shot_curve(model, data, plan, on_event)
    return _setfit_curve(model, data, plan, tuning_sizes, spec, on_event)


def _zero_shot_curve(model: ModelSpec, data: StudyData, plan: CurvePlan, on_event: EventCallback) -> ModelCurve:
    from guiapp.core.experiment.families.few_shot_runner import zero_shot_scorer

    total_start = time.perf_counter()
    # the study's texts are embedded together only where every one is scored (the centres need the training texts)
    scorer, options, notes = zero_shot_scorer(model, data, every_text=data.multi_label)
    test = data.split.test
    if data.multi_label and model.classifier == "similarity":  # the centres, from the training texts as in a study
        scorer.calibrate([data.texts[i] for i in data.split.train], sub_progress(on_event, 0.0, 0.5))
    probabilities = np.asarray(scorer.predict_proba([data.texts[i] for i in test],
                                                    sub_progress(on_event, 0.5 if data.multi_label else 0.0, 0.98)),
                               dtype=np.float64)
    predicted = Decisions.for_study(data.y)(probabilities)
    seconds = time.perf_counter() - total_start
    on_event(Log(f"{model.display_name}: learns nothing from the coded texts, so it scores the same with any "
                 "number of them; the test texts were answered once and that score stands for every size."))
    first = [CurvePoint.scored(size, 1, data.y[test], predicted, len(data.categories), seconds if i == 0 else 0.0)
             for i, size in enumerate(plan.sizes)]
    on_event(Progress(1.0, "done"))
    return ModelCurve(
        name=model.display_name, representation=model.representation, classifier=model.classifier,
        spec={**model.to_dict(), "representation_options": options, "notes": notes}, tuning=[],
        points=with_shared_points(first, plan.sizes, plan.repeats),
        seconds={"fits": round(seconds, 4), "total": round(time.perf_counter() - total_start, 4)},
    )


def _setfit_curve(model: ModelSpec, data: StudyData, plan: CurvePlan, tuning_sizes: dict[int, int],
                  spec: ExperimentSpec, on_event: EventCallback) -> ModelCurve:
    from guiapp.core.experiment.families.few_shot_runner import on_gpu, setfit_trainer
    from guiapp.core.models.few_shot_options import expand_setfit_grid, setfit_options

    total_start = time.perf_counter()
    options = setfit_options(model.representation_options)
    points = expand_setfit_grid(model.grid)
    train_on = setfit_trainer(data, options, spec.seed)
    ratio = spec.evaluation.oversampling_ratio if spec.evaluation.oversampling == "random" else None
    decide = Decisions.for_study(data.y)  # several categories per text: 0.5 per category at every point
    if decide.multi_label:
        on_event(Log(f"{model.display_name}: a text is put in every category whose probability reaches 0.5."))
        ratio = None

    gpu = on_gpu(options["device"])
    folds = spec.evaluation.folds
    tune_at = sorted(set(tuning_sizes.values())) if len(points) > 1 else []
    hows = {size: setfit_tuning(spec.evaluation.transformer_tuning, gpu, model, size, folds) for size in tune_at}
    limit = options["max_pairs"]
    weights = [setfit_work(point, size, limit) for size in tune_at for point in points
               for _ in range(folds if hows[size] == "cross-validation" else 1)]
    weights += [max(setfit_work(point, size, limit) for point in points) for size in plan.sizes
                for _ in range(plan.repeats)]
    spans = list(pairwise(0.02 + 0.98 * np.concatenate([[0.0], np.cumsum(weights)]) / sum(weights)))

    def fit_and_answer(rows: np.ndarray, answer_rows: np.ndarray, point: dict[str, Any], _label: str,
                       span: tuple[float, float]) -> np.ndarray:
        fitted = train_on(rows, point, sub_progress(on_event, *span))
        return decide(fitted.predict_proba([data.texts[i] for i in answer_rows]))

    def splits_at(tune_size: int, rows: np.ndarray, subset: StudyData):  # noqa: ANN202 - see SplitsAt
        subset_folds = cv_folds(data.y[rows], folds, spec.seed) if hows[tune_size] == "cross-validation" else []
        return splits_for(subset, subset_folds, spec, hows[tune_size])

    tuning, curve_points, seconds = tune_then_fit(data, plan, tuning_sizes, points, spec.seed, ratio, splits_at,
                                                  fit_and_answer, spans)
    on_event(Progress(1.0, "done"))
    return ModelCurve(
        name=model.display_name, representation=model.representation, classifier=model.classifier,
        spec={**model.to_dict(), "representation_options": options}, tuning=tuning, points=curve_points,
        seconds={**seconds, "total": round(time.perf_counter() - total_start, 4)},
    )

