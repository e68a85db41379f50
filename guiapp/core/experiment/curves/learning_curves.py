"""``run_learning_curve``: how a study's models do with more or fewer coded texts.

The reference paper's learning-curve protocol (Wankmüller 2022, Figure 14): one fixed test set — here the
study's own test texts — and nested, stratified random training subsets of growing size
(default 500, 1,000, 2,000, 5,000 and 10,000 texts below the number of training texts, then all of
them; for smaller studies halvings of the training texts, so a curve has at least 4 points:
``nested_subsets.default_sizes``), the whole
sampling repeated 5 times with seeds derived from the study's seed (``nested_subsets.py``). Every
model learns from every subset and is scored once on the test texts: macro-F1 and the F1 of each
category. Per size the mean and the min–max over the repeats are reported. Classifiers and
fine-tuning use the study's seed at every point, so the repeats differ by the texts drawn (and the
oversampled copies), not by a model's own randomness; a size that takes all training texts without
oversampling is therefore the same in every repeat and is fitted once.

Hyperparameters are tuned once, as in the paper — by the study's cross-validation on the 1,000-text
subset of the first repeat (or the nearest larger size, or the largest) — and reused for every size
and repeat; with ``tune_per_size`` each size is tuned on its own subset of the first repeat instead.

Work is shared as in ``run_experiment``: each representation is prepared once for all texts and
reused for every subset (the representation itself is fitted on each training subset only);
oversampling, if the study asks for it, is applied inside each training subset only; the fits run
in the engine's worker processes. Fine-tuned Transformers are trained by the engine's own
fine-tuning code (``learning_curve_transformer.py``); zero-shot models, which learn nothing and so
score the same at every size, answer the test texts once, and SetFit is trained per size
(``learning_curve_few_shot.py``); a language model with your codebook, which learns nothing
either, is drawn over the examples per category it is shown instead (``learning_curve_codebook.py``). Progress and log lines go to ``on_event``;
Cancel stops between fits (and within a fit where the fit allows it).
"""

from __future__ import annotations

import dataclasses
import os
import time
from itertools import pairwise
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.base import clone

from guiapp.core.errors import DataError, UserError
from guiapp.core.events import Cancelled, EventCallback, Log, Progress, TaskUpdate, ignore_events, sub_progress
from guiapp.core.experiment.curves.learning_curve_fits import fit_and_predict, map_lazily
from guiapp.core.experiment.curves.learning_curve_results import (
    CurvePoint,
    LearningCurveResult,
    ModelCurve,
    TuningChoice,
    with_shared_points,
)
from guiapp.core.experiment.curves.nested_subsets import (
    DEFAULT_REPEATS,
    CurvePlan,
    curve_sizes,
    default_tuning_size,
    repeat_seeds,
)
from guiapp.core.experiment.run.per_model import PreparedCache, model_events, now, prepared_texts
from guiapp.core.experiment.protocol.resampling import cv_folds, oversampled_rows
from guiapp.core.experiment.protocol.tuning import build_folds, default_jobs, grid_search
from guiapp.core.study.sections import ModelSpec
from guiapp.core.study.spec import ExperimentSpec
from guiapp.core.study.study_data import StudyData, load_study_data


@dataclasses.dataclass
class LearningCurveOptions:
    """What to draw: sizes (None = ``nested_subsets.default_sizes``: 500 … 10,000, or halvings of
    a smaller training set), repeats, and how to tune."""

    sizes: tuple[int, ...] | None = None
    repeats: int = DEFAULT_REPEATS
    tune_per_size: bool = False  # tune each size on its own subset (first repeat) instead of once
    tuning_size: int | None = None  # where to tune once; None = 1,000 texts as in the paper
    add_full_set: bool = True  # all training texts as the last point when more than the largest size


def run_learning_curve(
    spec: ExperimentSpec,
    on_event: EventCallback = ignore_events,
    *,
    options: LearningCurveOptions | None = None,
    spec_file: str | Path | None = None,
    table: pd.DataFrame | None = None,
    n_jobs: int | None = None,
) -> LearningCurveResult:
    """Draw the learning curve of every model of ``spec`` (see the module docstring).

    On Cancel, :class:`Cancelled` is raised with ``.partial``: the result with ``status =
    "cancelled"`` and the models that had finished."""
    options = options or LearningCurveOptions()
    if not spec.models:
        raise UserError("The study has no models to compare.", "Tick at least one model on the Models step.")
    for model in spec.models:
        model.check()
    spec.evaluation.check()
    n_jobs = default_jobs() if n_jobs is None else max(1, n_jobs)
    started = now()
    on_event(Log(f"Reading the coded texts for '{spec.name or 'this study'}'."))
    data = load_study_data(spec, spec_file, table, sub_progress(on_event, 0.0, 0.02))
    train, test = data.split.train, data.split.test
    sizes, notes = curve_sizes(options.sizes, len(train), options.add_full_set)
    plan = CurvePlan.make(train, data.y, sizes, repeat_seeds(spec.seed, options.repeats))
    tuning_sizes = _tuning_sizes(options, sizes, len(train))
    for note in notes:
        on_event(Log(note, "warning"))
    on_event(Log(f"{data.split.describe()}; training subsets of {', '.join(f'{s:,}' for s in sizes)} texts, "
                 f"{plan.repeats} random draw{'s' if plan.repeats != 1 else ''} each; {describe_tuning(tuning_sizes)}."))
    result = LearningCurveResult(
        spec=spec.to_dict(), categories=list(data.categories), sizes=sizes, repeat_seeds=plan.seeds,
        n_train=len(train), n_test=len(test), tuning="per size" if options.tune_per_size else "once",
        notes=[*data.notes, *notes], started_at=started,
    )  # fmt: skip
    try:
        _draw_curves(spec, data, plan, tuning_sizes, result, n_jobs, on_event)
    finally:
        if any(model.representation == "codebook_llm" for model in spec.models):  # its memory, once per curve
            from guiapp.core.models.llm.codebook_model import release_language_model

            release_language_model()
    from guiapp.core.experiment.run.runner import environment

    result.environment = environment(n_jobs)
    result.finished_at = now()
    on_event(Progress(1.0, "Finished"))
    return result


def _draw_curves(spec: ExperimentSpec, data: StudyData, plan: CurvePlan, tuning_sizes: dict[int, int],
                 result: LearningCurveResult, n_jobs: int, on_event: EventCallback) -> None:
    """Each model's curve in turn into ``result.models`` (a failing model is recorded with its reason;
    Cancel raises :class:`Cancelled` with the finished curves on it)."""
    prepared_cache: PreparedCache = {}
    n_models = len(spec.models)
    for index, model in enumerate(spec.models):
        report = model_events(on_event, index, n_models, model.display_name)
        on_event(TaskUpdate(index, "running", model.display_name))
        try:
            if model.representation == "transformer":
                from guiapp.core.experiment.curves.learning_curve_transformer import transformer_curve

                curve = transformer_curve(model, data, plan, tuning_sizes, spec, report)
            elif model.representation in ("zero_shot", "setfit"):  # models that need few or no coded texts
                from guiapp.core.experiment.curves.learning_curve_few_shot import few_shot_curve

                curve = few_shot_curve(model, data, plan, tuning_sizes, spec, report)
            elif model.representation == "codebook_llm":  # over the examples per category it is shown
                from guiapp.core.experiment.curves.learning_curve_codebook import codebook_curve

                curve = codebook_curve(model, data, plan, spec, report)
            else:
                curve = conventional_curve(model, data, plan, tuning_sizes, spec, prepared_cache, n_jobs, report)
        except Cancelled as stop:
            on_event(TaskUpdate(index, "cancelled", model.display_name))
            result.status, result.finished_at = "cancelled", now()
            stop.partial = result
            raise
        except (UserError, MemoryError, ValueError) as error:
            message = error.message if isinstance(error, UserError) else _plain_failure(error)
            curve = ModelCurve(model.display_name, model.representation, model.classifier, model.to_dict(),
                               status="failed", message=message)
            on_event(Log(f"{model.display_name} failed: {message}", "error"))
            on_event(TaskUpdate(index, "failed", message, curve))
        else:
            last = curve.summary()[-1]
            amount = (f"{last.size:,} example{'s' if last.size != 1 else ''} per category" if curve.over_examples
                      else f"{last.size:,} training texts")
            on_event(Log(f"{model.display_name}: test macro-F1 {last.mean:.3f} with {amount} "
                         f"({last.low:.3f}–{last.high:.3f} over {last.repeats} draws); "
                         f"{curve.seconds.get('total', 0.0):.1f} s."))
            on_event(TaskUpdate(index, "done", model.display_name, curve))
        result.models.append(curve)


def conventional_curve(
    model: ModelSpec,
    data: StudyData,
    plan: CurvePlan,
    tuning_sizes: dict[int, int],
    spec: ExperimentSpec,
    prepared_cache: PreparedCache,
    n_jobs: int,
    on_event: EventCallback,
) -> ModelCurve:
    """One conventional model's curve: features prepared once, grid tuned once (or per size),
    then one fit per size and repeat, each scored on the test texts."""
    from guiapp.core.models.conventional import expand_grid

    total_start = time.perf_counter()
    seconds: dict[str, float] = {}
    prepare_share = 0.3 if model.representation == "sentence_embeddings" else 0.03
    start = time.perf_counter()
    representation, prepared = prepared_texts(model, data.texts, prepared_cache, on_event, prepare_share)
    seconds["features"] = time.perf_counter() - start
    points = expand_grid(model.classifier, model.grid)
    ratio = spec.evaluation.oversampling_ratio if spec.evaluation.oversampling == "random" else None
    weights = _Weights(plan, tuning_sizes, len(points) * spec.evaluation.folds if len(points) > 1 else 0, prepare_share)

    start = time.perf_counter()
    choices: dict[int, TuningChoice] = {}
    for tune_size in sorted(set(tuning_sizes.values())):
        rows = plan.subset(tune_size, 0)
        used_for = [size for size, tuned_at in tuning_sizes.items() if tuned_at == tune_size]
        if len(points) == 1:
            choices[tune_size] = TuningChoice(tune_size, 1, dict(points[0]), None, "only one setting: nothing to tune", used_for)
            continue
        folds = _folds(data.y[rows], spec, tune_size)
        tuning_events = sub_progress(on_event, *weights.tuning_span(tune_size))
        tuning_events(Progress(0.0, f"choosing the setting on {tune_size:,} texts"))
        fold_data = build_folds(representation, prepared, data.y, rows, folds, ratio, spec.seed)
        grid, chosen = grid_search(model.classifier, points, fold_data, spec.seed, n_jobs, tuning_events)
        del fold_data
        choices[tune_size] = TuningChoice(tune_size, 1, dict(grid[chosen].params), round(grid[chosen].mean, 6),
                                          f"{len(folds)}-fold cross-validation", used_for)
    seconds["tuning"] = time.perf_counter() - start
    for choice in choices.values():
        on_event(Log(f"{model.display_name}: {_describe_choice(model.classifier, choice)}"))

    test = data.split.test
    y_test = data.y[test]
    n_categories = len(data.categories)
    jobs = _fit_jobs(plan, ratio)
    threads = 1 if n_jobs > 1 else (os.cpu_count() or 1)
    done: list[tuple[int, int]] = []

    def tick() -> None:
        size = jobs[len(done)][0] if len(done) < len(jobs) else plan.sizes[-1]
        on_event(Progress(weights.fits_fraction(done), f"training on {size:,} texts ({len(done)} of {len(jobs)} fits)",
                          len(done), len(jobs)))

    def arguments():
        for size, repeat in jobs:
            rows = plan.subset(size, repeat)
            fitted = clone(representation).fit_prepared(prepared, rows)
            X_train, y_train = fitted.transform_prepared(prepared, rows), data.y[rows]
            if ratio is not None and not data.multi_label:  # inside this training subset only
                drawn = oversampled_rows(y_train, ratio, plan.seeds[repeat])
                X_train, y_train = X_train[drawn], y_train[drawn]
            params = choices[tuning_sizes[size]].params
            per_category = ratio if data.multi_label else None  # several categories per text: drawn per category
            args = (model.classifier, params, spec.seed, threads, X_train, y_train, fitted.transform_prepared(prepared, test),
                    per_category)
            yield args if n_jobs > 1 else (*args, tick)

    start = time.perf_counter()
    curve_points = []
    for position, (predicted, fit_seconds) in map_lazily(n_jobs, tick, fit_and_predict, arguments()):
        size, repeat = jobs[position]
        curve_points.append(CurvePoint.scored(size, repeat + 1, y_test, predicted, n_categories, fit_seconds))
        done.append(jobs[position])
    seconds["fits"] = time.perf_counter() - start
    seconds["total"] = time.perf_counter() - total_start
    on_event(Progress(1.0, "done"))
    return ModelCurve(
        name=model.display_name, representation=model.representation, classifier=model.classifier,
        spec=model.to_dict(), tuning=list(choices.values()), points=with_shared_points(curve_points, plan.shared_sizes(ratio is not None), plan.repeats),
        seconds={name: round(value, 4) for name, value in seconds.items()},
    )  # fmt: skip


def describe_tuning(tuning_sizes: dict[int, int]) -> str:
    """In words: where the settings are chosen."""
    tuned_at = sorted(set(tuning_sizes.values()))
    if len(tuned_at) == 1:
        return (f"settings chosen once, on the {tuned_at[0]:,}-text subset of the first draw, "
                "and used for every size and draw")
    return "settings chosen for each size on its subset of the first draw"


def _tuning_sizes(options: LearningCurveOptions, sizes: list[int], n_train: int) -> dict[int, int]:
    """For each size, the size of the first repeat's subset its setting is chosen on."""
    if options.tune_per_size:
        return {size: size for size in sizes}
    tune = default_tuning_size(sizes) if options.tuning_size is None else min(int(options.tuning_size), n_train)
    if tune < 10:
        raise UserError(f"Settings cannot be chosen on {tune} texts.", "Tune on at least a few hundred texts, e.g. 1,000.")
    return {size: tune for size in sizes}


def _folds(y_rows: np.ndarray, spec: ExperimentSpec, size: int) -> list[tuple[np.ndarray, np.ndarray]]:
    try:
        return cv_folds(y_rows, spec.evaluation.folds, spec.seed)
    except DataError as error:
        raise DataError(f"Among the {size:,} texts the settings are chosen on: {error.message}",
                        "Choose the settings on a larger subset (--tune-on), or use fewer folds.") from None


def _fit_jobs(plan: CurvePlan, ratio: float | None) -> list[tuple[int, int]]:
    """(size, repeat) of every fit, largest first (so no worker is left with the longest fit last)."""
    return [(size, repeat) for size in reversed(plan.sizes) for repeat in range(plan.repeats)
            if repeat == 0 or not plan.same_for_every_repeat(size, ratio is not None)]


class _Weights:
    """Progress weights: each fit counts its training texts; tuning counts its fold fits."""

    def __init__(self, plan: CurvePlan, tuning_sizes: dict[int, int], fits_per_tuning: int, start: float) -> None:
        self.start = start
        self.tunings = sorted(set(tuning_sizes.values())) if fits_per_tuning else []
        tuning_work = [fits_per_tuning * size * 0.8 for size in self.tunings]
        fit_work = sum(plan.sizes) * plan.repeats
        total = sum(tuning_work) + fit_work
        bounds = np.cumsum([0.0, *tuning_work]) / total
        self.tuning_bounds = dict(zip(self.tunings, pairwise(bounds), strict=True))
        self.fit_start, self.fit_work, self.total = bounds[-1], fit_work, total

    def _scale(self, fraction: float) -> float:
        return self.start + (1.0 - self.start) * fraction

    def tuning_span(self, size: int) -> tuple[float, float]:
        low, high = self.tuning_bounds[size]
        return self._scale(low), self._scale(high)

    def fits_fraction(self, done: list[tuple[int, int]]) -> float:
        return self._scale(self.fit_start + sum(size for size, _ in done) / self.total)


def _describe_choice(classifier: str, choice: TuningChoice) -> str:
    from guiapp.core.models.conventional import describe_params

    where = f"chosen on the {choice.tuned_on_size:,}-text subset of draw {choice.tuned_on_repeat}"
    score = f" (macro-F1 {choice.score:.3f} by {choice.how})" if choice.score is not None else ""
    return f"{describe_params(classifier, choice.params)}, {where}{score}."


def _plain_failure(error: BaseException) -> str:
    if isinstance(error, MemoryError):
        return "The computer ran out of memory for this model. Try fewer or smaller sizes, or other features."
    return f"The model could not be trained: {error}"

