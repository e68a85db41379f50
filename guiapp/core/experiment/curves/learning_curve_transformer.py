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

import time
from itertools import pairwise

import numpy as np

from guiapp.core.events import EventCallback, Log, Progress
from guiapp.core.experiment.curves.learning_curve_results import ModelCurve
from guiapp.core.experiment.curves.nested_subsets import CurvePlan
from guiapp.core.experiment.curves.trained_curve_steps import tune_then_fit
from guiapp.core.experiment.protocol.resampling import cv_folds
from guiapp.core.experiment.families.fine_tuning_local import LocalFineTuning
from guiapp.core.experiment.families.fine_tuning_pieces import FineTuningRun, PlannedRun
from guiapp.core.experiment.families.transformer_decisions import OVERSAMPLING_NOTE, Decisions
from guiapp.core.study.sections import ModelSpec
from guiapp.core.study.spec import ExperimentSpec
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


    def train_and_predict(rows: np.ndarray, predict_rows: np.ndarray, point: dict, label: str, span) -> np.ndarray:
        piece = FineTuningRun(options["model"], rows, predict_rows, n_labels,
                              FineTuneSettings.from_options(options, point, spec.seed))  # as a study fine-tunes
        (outcome,) = fine_tuning.tune([PlannedRun(piece, label, *span)])
        return decide(outcome.probabilities)

    on_gpu = device.kind == "cuda"
    how_wanted = spec.evaluation.transformer_tuning
    use_folds = how_wanted == "cross-validation" or (how_wanted == "auto" and on_gpu)
    plan_spans = _spans(plan, tuning_sizes, points, spec.evaluation.folds if use_folds else 1)

    def splits_at(tune_size: int, rows: np.ndarray, subset: StudyData):  # noqa: ANN202 - see SplitsAt
        folds = cv_folds(data.y[rows], spec.evaluation.folds, spec.seed) if use_folds else []
        return tuning_splits(subset, folds, spec, on_gpu)

    def say_chosen(tune_size: int, point: dict, mean: float, how: str) -> None:
        on_event(Log(f"{model.display_name}: learning rate {point['learning_rate']:g}, "
                     f"{point['epochs']} epochs, chosen on the {tune_size:,}-text subset of draw 1 "
                     f"(macro-F1 {mean:.3f} by {how})."))

    tuning, curve_points, seconds = tune_then_fit(data, plan, tuning_sizes, points, spec.seed, ratio, splits_at,
                                                  train_and_predict, plan_spans, say_chosen)
    on_event(Progress(1.0, "done"))
    return ModelCurve(
        name=model.display_name, representation=model.representation, classifier=model.classifier,
        spec={**model.to_dict(), "representation_options": options, "device": {"kind": device.kind, "name": device.name}},
        tuning=tuning, points=curve_points, seconds={**seconds, "total": round(time.perf_counter() - total_start, 4)},
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
