"""A fine-tuned Transformer's learning curve: the engine's own fine-tuning on this computer
(``fine_tuning_local.py``), on each subset.

The same subsets, test texts and scores as for the conventional models (``learning_curves.py``).
The setting (learning rate × epochs) is chosen on the tuning subset the way a study chooses it
(``transformer_runner.tuning_splits``: the study's folds, or — the default without a GPU — one
stratified validation split of that subset), then one model is fine-tuned per size and repeat and
predicts the test texts. Oversampling only touches the texts a model learns from.

Where a text can have several categories, each point's model puts a text in every category whose
probability reaches 0.5 (``transformer_decisions.py``; thresholds are not tuned per point), and no
texts are oversampled.
"""

from __future__ import annotations

import dataclasses
import time
from itertools import pairwise

import numpy as np

from guiapp.core.events import EventCallback, Log, Progress
from guiapp.core.experiment.scores import metrics
from guiapp.core.experiment.curves.learning_curve_results import CurvePoint, ModelCurve, TuningChoice, with_shared_points
from guiapp.core.experiment.curves.nested_subsets import CurvePlan
from guiapp.core.experiment.protocol.resampling import cv_folds, oversampled_rows
from guiapp.core.experiment.families.fine_tuning_local import LocalFineTuning
from guiapp.core.experiment.families.fine_tuning_pieces import FineTuningRun, PlannedRun
from guiapp.core.experiment.families.transformer_decisions import OVERSAMPLING_NOTE, Decisions
from guiapp.core.study.sections import ModelSpec
from guiapp.core.study.spec import ExperimentSpec
from guiapp.core.study.split import TrainTestSplit
from guiapp.core.study.study_data import StudyData


def transformer_curve(
    model: ModelSpec,
    data: StudyData,
    plan: CurvePlan,
    tuning_sizes: dict[int, int],
    spec: ExperimentSpec,
    on_event: EventCallback,
) -> ModelCurve:
    """One fine-tuned Transformer's curve (see the module docstring)."""
    from guiapp.core.experiment.families.transformer_runner import tuning_splits
    from guiapp.core.models.transformers.options import expand_transformer_grid, full_options
    from guiapp.core.models.transformers.sources.resolve import describe_source
    from guiapp.core.models.transformers.training.settings import FineTuneSettings

    total_start = time.perf_counter()
    options = full_options(model.representation_options)
    points = expand_transformer_grid(model.grid, options["model"])
    on_event(Progress(0.0, "finding the model"))
    fine_tuning = LocalFineTuning(options, data, on_event)
    device = fine_tuning.device
    on_event(Log(f"{model.display_name}: {describe_source(options['model'])} on {fine_tuning.where}."))
    ratio = spec.evaluation.oversampling_ratio if spec.evaluation.oversampling == "random" else None
    n_labels = len(data.categories)
    decide = Decisions.for_study(data.y)  # multi-label: 0.5 per category at every point
    if decide.multi_label:
        on_event(Log(f"{model.display_name}: a text is put in every category whose probability reaches 0.5."))
        if ratio is not None:
            on_event(Log(f"{model.display_name}: {OVERSAMPLING_NOTE}"))
            ratio = None

    def learning_rows(rows: np.ndarray, seed: int) -> np.ndarray:
        return rows[oversampled_rows(data.y[rows], ratio, seed)] if ratio is not None else rows

    def train_and_predict(rows: np.ndarray, predict_rows: np.ndarray, point: dict, label: str, span) -> np.ndarray:
        piece = FineTuningRun(options["model"], rows, predict_rows, n_labels,
                              FineTuneSettings.from_options(options, point, spec.seed))  # as a study fine-tunes
        (outcome,) = fine_tuning.tune([PlannedRun(piece, label, *span)])
        return decide(outcome.probabilities)

    on_gpu = device.kind == "cuda"
    how_wanted = spec.evaluation.transformer_tuning
    use_folds = how_wanted == "cross-validation" or (how_wanted == "auto" and on_gpu)
    plan_spans = _spans(plan, tuning_sizes, points, spec.evaluation.folds if use_folds else 1)
    start = time.perf_counter()
    choices: dict[int, TuningChoice] = {}
    for tune_size in sorted(set(tuning_sizes.values())):
        used_for = [size for size, tuned_at in tuning_sizes.items() if tuned_at == tune_size]
        if len(points) == 1:
            choices[tune_size] = TuningChoice(tune_size, 1, dict(points[0]), None, "only one setting: nothing to tune", used_for)
            continue
        rows = plan.subset(tune_size, 0)
        subset = dataclasses.replace(data, split=TrainTestSplit(rows, data.split.test, data.split.how))
        folds = cv_folds(data.y[rows], spec.evaluation.folds, spec.seed) if use_folds else []
        splits, how = tuning_splits(subset, folds, spec, on_gpu)
        scores = np.zeros((len(points), len(splits)))
        for split_index, (fit_part, valid_part) in enumerate(splits):
            for index, point in enumerate(points):
                label = f"choosing the setting on {tune_size:,} texts, setting {index + 1} of {len(points)}"
                fit_rows = learning_rows(rows[fit_part], spec.seed)
                predicted = train_and_predict(fit_rows, rows[valid_part], point, label, plan_spans.pop(0))
                scores[index, split_index] = metrics.macro_f1(data.y[rows[valid_part]], predicted)
        means = scores.mean(axis=1)
        chosen = int(np.flatnonzero(means == means.max())[0])
        choices[tune_size] = TuningChoice(tune_size, 1, dict(points[chosen]), round(float(means[chosen]), 6), how, used_for)
        on_event(Log(f"{model.display_name}: learning rate {points[chosen]['learning_rate']:g}, "
                     f"{points[chosen]['epochs']} epochs, chosen on the {tune_size:,}-text subset of draw 1 "
                     f"(macro-F1 {means[chosen]:.3f} by {how})."))
    tuning_seconds = time.perf_counter() - start

    start = time.perf_counter()
    test = data.split.test
    curve_points = []
    for size in plan.sizes:
        for repeat in range(plan.repeats):
            if repeat > 0 and plan.same_for_every_repeat(size, ratio is not None):
                plan_spans.pop(0)
                continue  # the same texts in every repeat: fitted once (see with_shared_points)
            fit_start = time.perf_counter()
            rows = learning_rows(plan.subset(size, repeat), plan.seeds[repeat])
            label = f"{size:,} texts, draw {repeat + 1} of {plan.repeats}"
            predicted = train_and_predict(rows, test, choices[tuning_sizes[size]].params, label, plan_spans.pop(0))
            curve_points.append(CurvePoint.scored(size, repeat + 1, data.y[test], predicted, n_labels,
                                                  time.perf_counter() - fit_start))
    on_event(Progress(1.0, "done"))
    return ModelCurve(
        name=model.display_name, representation=model.representation, classifier=model.classifier,
        spec={**model.to_dict(), "representation_options": options, "device": {"kind": device.kind, "name": device.name}},
        tuning=list(choices.values()), points=with_shared_points(curve_points, plan.shared_sizes(ratio is not None), plan.repeats),
        seconds={"tuning": round(tuning_seconds, 4), "fits": round(time.perf_counter() - start, 4),
                 "total": round(time.perf_counter() - total_start, 4)},
    )  # fmt: skip


def _spans(plan: CurvePlan, tuning_sizes: dict[int, int], points: list[dict], n_splits: int) -> list[tuple[float, float]]:
    """Progress spans of every training run in order (tuning runs, then size × repeat), each
    weighted by its texts × epochs."""
    epochs = max(point["epochs"] for point in points)
    weights = []
    if len(points) > 1:
        for tune_size in sorted(set(tuning_sizes.values())):
            weights += [tune_size * point["epochs"] for _ in range(n_splits) for point in points]
    weights += [size * epochs for size in plan.sizes for _ in range(plan.repeats)]
    bounds = 0.02 + 0.98 * np.concatenate([[0.0], np.cumsum(weights)]) / sum(weights)
    return list(pairwise(bounds))
