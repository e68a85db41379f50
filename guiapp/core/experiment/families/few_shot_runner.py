"""The models that need few or no coded texts in a study: zero-shot (similarity, NLI) and SetFit,
compared like every other model — the same training and test texts, folds, metrics, combined
models and saved model.

Zero-shot: nothing is learnt from the coded texts. The model reads every training text once;
its ``cv_scores`` are its macro-F1 on each validation fold of the study's folds (so the
recommendation and the paired tests treat it as any model; its grid is one point, nothing tuned);
those probabilities are also its out-of-fold probabilities for the combined models, since it never
learnt from any text. Then it answers the test texts once. Where a text can have several
categories, a similarity model's centres are set from the training texts (their codes are never
read), and thresholds, when the study tunes them, are chosen on the training texts' probabilities.

SetFit: every setting of its grid is trained on every tuning split — the study's folds, or one
stratified validation split of the training texts where the folds would take long on a CPU
(``few_shot_estimates.setfit_tuning``, the Transformer's ``transformer_tuning`` rule) — and the
setting with the best mean macro-F1 is refitted on all training texts. Its probabilities for the
texts held out from the chosen setting's tuning runs are its out-of-fold probabilities (every
training text with the folds, the validation texts with one split). After one validation split,
when combined models are learnt and it is affordable (``transformer_out_of_fold.setfit_out_of_fold_fits``,
at most ten minutes more, the fine-tuned Transformer's rule), the chosen setting is trained once more
in each of the study's folds, so every training text has out-of-fold probabilities.

Each category's description defaults to its name; ``representation_options["descriptions"]``
replaces it per category (said in the model's notes).
"""

from __future__ import annotations

import time
from functools import partial
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np

from guiapp.core.events import EventCallback, Log, Progress, sub_progress
from guiapp.core.experiment.scores import metrics
from guiapp.core.experiment.results.artefacts import model_folder_name
from guiapp.core.experiment.speed.few_shot_estimates import (
    CROSS_VALIDATION,
    setfit_tuning,
    setfit_work,
)
from guiapp.core.experiment.protocol.held_out import CI_LEVEL, evaluate_on_test
from guiapp.core.experiment.protocol.out_of_fold import OutOfFold
from guiapp.core.experiment.protocol.resampling import oversampled_rows
from guiapp.core.experiment.results.experiment_result import GridPointResult, ModelResult
from guiapp.core.experiment.speed.estimates import mean_subword_tokens
from guiapp.core.experiment.scores.threshold_choice import tuned_thresholds
from guiapp.core.experiment.families.transformer_decisions import Decisions
from guiapp.core.experiment.families.transformer_out_of_fold import setfit_out_of_fold_fits
from guiapp.core.experiment.families.model_run_inputs import Folds, ModelRunInputs
from guiapp.core.experiment.families.tuning_splits import splits_for
from guiapp.core.models.few_shot_options import (
    category_descriptions,
    expand_setfit_grid,
    normalise_setfit_grid,
    setfit_options,
    zero_shot_options,
)
from guiapp.core.study.sections import ModelSpec
from guiapp.core.study.spec import ExperimentSpec
from guiapp.core.study.study_data import StudyData

SETFIT_OVERSAMPLING_NOTE = (
    "No texts were oversampled: a text can have several categories, and copies of texts drawn for one category "
    "would also change the pairs of the others. SetFit learnt from the coded texts as they are.")


def run_few_shot_model(model: ModelSpec, inputs: ModelRunInputs, on_event: EventCallback) -> ModelResult:
    """Score (zero-shot) or tune, refit and test (SetFit) one model (see the module docstring); the
    final model is saved in a folder of its own under ``inputs.artefacts_dir``. With
    ``inputs.out_of_fold``, its probabilities for training texts it did not learn from are kept there
    under the model's name."""
    if inputs.executor is not None and inputs.executor.remote:
        on_event(Log(f"{model.display_name}: runs on this computer, not on the cluster's workers."))
    run = _run_zero_shot if model.representation == "zero_shot" else _run_setfit
    return run(model, inputs.data, inputs.folds, inputs.spec, on_event, inputs.artefacts_dir, inputs.out_of_fold)


# --------------------------------------------------------------------------- zero-shot


def _run_zero_shot(model: ModelSpec, data: StudyData, folds: Folds, spec: ExperimentSpec, on_event: EventCallback,
                   artefacts_dir: Path | None, out_of_fold: dict[str, OutOfFold] | None) -> ModelResult:
    total_start = time.perf_counter()
    name = model.display_name
    categories = list(data.categories)
    scorer, recorded, notes = zero_shot_scorer(model, data)
    train, test = data.split.train, data.split.test
    train_texts, test_texts = [data.texts[i] for i in train], [data.texts[i] for i in test]
    on_event(Log(f"{name}: learns nothing from the coded texts; it reads the {len(train):,} training texts once "
                 f"to be scored on the study's folds, then answers the {len(test):,} test texts."))
    seconds: dict[str, float] = {"features": 0.0}

    start = time.perf_counter()
    # several categories per text: the training texts, scored first, set each category's centre (never their codes)
    train_probabilities = _scores(scorer, train_texts, sub_progress(on_event, 0.0, 0.6))
    if data.multi_label and model.classifier == "similarity":
        notes.append(f"Each category's centre (the similarity of an ordinary text to it) was set from the "
                     f"{len(train):,} training texts; their coding was not read.")
    decide = Decisions.for_study(data.y)
    fold_scores = [metrics.macro_f1(data.y[train[valid]], decide(train_probabilities[valid])) for _, valid in folds]
    if decide.tunes(spec):  # each category's threshold from the training texts' probabilities, never the test texts'
        decide.thresholds = np.asarray(tuned_thresholds(data.y[train], train_probabilities, categories, name,
                                                        on_event), dtype=np.float64)
        notes.append("Each category's decision threshold was chosen on the training texts' probabilities (never on "
                     f"the test texts): from {decide.thresholds.min():.2f} to {decide.thresholds.max():.2f}.")
    elif decide.multi_label:
        notes.append("A text was put in every category whose probability reached 0.5.")
    if out_of_fold is not None:  # it learnt from no text: its probabilities are held out for every training text
        out_of_fold[name] = OutOfFold(train_probabilities)
    seconds["tuning"] = time.perf_counter() - start

    start = time.perf_counter()
    test_probabilities = _scores(scorer, test_texts, sub_progress(on_event, 0.6, 0.97))
    predicted = decide(test_probabilities)
    seconds["final_fit"] = 0.0
    seconds["predict"] = time.perf_counter() - start
    thresholds = [float(value) for value in decide.thresholds] if decide.multi_label else None
    artefact = save_final_model(name, partial(scorer.save, thresholds=thresholds), artefacts_dir, on_event)
    for note in notes:
        on_event(Log(f"{name}: {note}"))
    full_spec = {**model.to_dict(), "name": name, "representation_options": recorded, "grid": {}, "notes": notes}
    seconds["total"] = time.perf_counter() - total_start
    on_event(Progress(1.0, "done"))
    point = GridPointResult({}, [float(score) for score in fold_scores], float(np.mean(fold_scores)),
                            float(np.std(fold_scores)), 0.0)
    return ModelResult(
        name=name, representation=model.representation, classifier=model.classifier, spec=full_spec,
        chosen_params={}, cv_scores=point.fold_scores, grid=[point],
        **tested_answers(data, spec, decide, predicted, test_probabilities),
        seconds={key: round(value, 4) for key, value in seconds.items()},
        artefact=artefact,
    )


def zero_shot_scorer(model: ModelSpec, data: StudyData, *,
                     every_text: bool = True) -> tuple[Any, dict[str, Any], list[str]]:
    """The zero-shot model of ``model`` for the study's categories, its options as used (the
    descriptions and examples of the study's categories only) and what was noted about them. A
    similarity model reads the study's texts as sentence embeddings of its language model, from the
    app's embedding cache where they were embedded before (``study_text_vectors.py``; ``every_text``:
    it will score every text of the study, so they are embedded together)."""
    from guiapp.core.experiment.families.study_text_vectors import study_text_vectors
    from guiapp.core.models.zero_shot import ZeroShotNLI, ZeroShotSimilarity

    options = zero_shot_options(model.classifier, model.representation_options)
    categories = list(data.categories)
    descriptions, notes = category_descriptions(categories, options["descriptions"])
    examples = {category: texts for category, texts in options["examples"].items() if category in categories}
    common: dict[str, Any] = {"template": options["template"], "multi_label": data.multi_label,
                              "examples": examples or None, "batch_size": options["batch_size"]}
    if model.classifier == "nli":
        scorer = ZeroShotNLI(categories, descriptions, options["model"], **common)
    else:
        scorer = ZeroShotSimilarity(categories, descriptions, options["model"], temperature=options["temperature"],
                                    **common)
        scorer.embed_texts = study_text_vectors(scorer, data.texts, every_text=every_text)
    return scorer, {**options, "descriptions": descriptions, "examples": examples}, notes


def _scores(scorer: Any, texts: list[str], on_event: EventCallback) -> np.ndarray:
    """The zero-shot model's probabilities of ``texts`` (texts × categories)."""
    return np.asarray(scorer.predict_proba(texts, on_event), dtype=np.float64)


# --------------------------------------------------------------------------- SetFit


def _run_setfit(model: ModelSpec, data: StudyData, folds: Folds, spec: ExperimentSpec, on_event: EventCallback,
                artefacts_dir: Path | None, out_of_fold: dict[str, OutOfFold] | None) -> ModelResult:
    total_start = time.perf_counter()
    name = model.display_name
    options = setfit_options(model.representation_options)
    points = expand_setfit_grid(model.grid)
    train, test = data.split.train, data.split.test
    categories = list(data.categories)
    n_labels = len(categories)
    tuning = setfit_tuning(spec.evaluation.transformer_tuning, on_gpu(options["device"]), model, len(train),
                           len(folds), mean_tokens=mean_subword_tokens([data.texts[i] for i in train]))
    splits, how = splits_for(data, folds, spec, tuning)
    reason = (": on this computer's processor the folds would take long"
              if tuning != CROSS_VALIDATION and spec.evaluation.transformer_tuning == "auto" and len(folds) > 1 else "")
    on_event(Log(f"{name}: settings chosen by {how}{reason}."))
    notes: list[str] = [f"Settings chosen by {how}{reason}."]
    decide = Decisions.for_study(data.y)
    ratio = spec.evaluation.oversampling_ratio if spec.evaluation.oversampling == "random" else None
    if decide.multi_label and ratio is not None:
        notes.append(SETFIT_OVERSAMPLING_NOTE)
        ratio = None

    def learning_rows(rows: np.ndarray) -> np.ndarray:
        return rows[oversampled_rows(data.y[rows], ratio, spec.seed)] if ratio is not None else rows

    train_on = setfit_trainer(data, options, spec.seed)
    # the chosen setting once more in each fold, where affordable, for held-out probabilities of every text
    oof_folds = folds[:spec.evaluation.folds] if setfit_out_of_fold_fits(
        model, len(train), spec.evaluation.folds, validation_split=len(splits) == 1,
        combined=out_of_fold is not None, on_gpu=on_gpu(options["device"]),
        mean_tokens=mean_subword_tokens([data.texts[i] for i in train])) else []
    # progress: each training run weighs its pairs × epochs; the refits and the final one count as the dearest setting
    weights = [setfit_work(point, len(fit), options["max_pairs"]) for fit, _ in splits for point in points]
    weights += [max(setfit_work(point, len(fit), options["max_pairs"]) for point in points) for fit, _ in oof_folds]
    weights.append(max(setfit_work(point, len(train), options["max_pairs"]) for point in points))
    spans = list(pairwise(np.concatenate([[0.0], np.cumsum(weights) / sum(weights)]) * 0.95 + 0.02))
    scores = np.zeros((len(points), len(splits)))
    fit_seconds = np.zeros(len(points))
    held_out = np.full((len(points), len(train), n_labels), np.nan)
    covering = spec.evaluation.folds if len(splits) > 1 else 1  # the first k folds hold each text out once
    tuning_start = time.perf_counter()
    for split_index, (fit_part, valid_part) in enumerate(splits):
        rows = learning_rows(train[fit_part])
        for index, point in enumerate(points):
            span = spans[split_index * len(points) + index]
            where = f"part {split_index + 1} of {len(splits)}, " if len(splits) > 1 else ""
            on_event(Progress(span[0], f"{where}setting {index + 1} of {len(points)}"))
            begun = time.perf_counter()
            fitted = train_on(rows, point, sub_progress(on_event, *span))
            probabilities = fitted.predict_proba([data.texts[i] for i in train[valid_part]])
            del fitted
            fit_seconds[index] += time.perf_counter() - begun
            scores[index, split_index] = metrics.macro_f1(data.y[train[valid_part]], decide(probabilities))
            if split_index < covering:
                held_out[index, valid_part] = probabilities
    tuning_seconds = time.perf_counter() - tuning_start
    means = scores.mean(axis=1)
    chosen = int(np.flatnonzero(means == means.max())[0])  # ties: the first, which trains least
    chosen_params = dict(points[chosen])
    grid = [GridPointResult(dict(point), [float(v) for v in scores[i]], float(scores[i].mean()),
                            float(scores[i].std()), float(fit_seconds[i])) for i, point in enumerate(points)]
    held_out_chosen = held_out[chosen]
    extra_seconds = 0.0
    if oof_folds and out_of_fold is not None:
        begun = time.perf_counter()
        for number, (fit_part, valid_part) in enumerate(oof_folds):
            span = spans[len(splits) * len(points) + number]
            on_event(Progress(span[0], f"held-out answers for the combined models, fold {number + 1} of "
                                       f"{len(oof_folds)}"))
            fitted = train_on(learning_rows(train[fit_part]), chosen_params, sub_progress(on_event, *span))
            held_out_chosen[valid_part] = fitted.predict_proba([data.texts[i] for i in train[valid_part]])
            del fitted
        extra_seconds = time.perf_counter() - begun
        notes.append(f"For the combined models, the chosen setting was also trained in each of the {len(oof_folds)} "
                     "folds, so every training text has probabilities from a model that never saw it.")
    covered = ~np.isnan(held_out_chosen).any(axis=1)
    if out_of_fold is not None:
        out_of_fold[name] = OutOfFold(held_out_chosen, extra_seconds)
    if decide.tunes(spec) and covered.any():
        decide.thresholds = np.asarray(tuned_thresholds(data.y[train][covered], held_out_chosen[covered], categories,
                                                        name, on_event), dtype=np.float64)
        notes.append(f"Each category's decision threshold was tuned on the {int(covered.sum()):,} training texts "
                     "held out from the tuning runs (never on the test texts): from "
                     f"{decide.thresholds.min():.2f} to {decide.thresholds.max():.2f}.")
    elif decide.multi_label:
        notes.append("A text was put in every category whose probability reached 0.5.")

    on_event(Progress(spans[-1][0], "training the chosen setting on all training texts"))
    start = time.perf_counter()
    final = train_on(learning_rows(train), chosen_params, sub_progress(on_event, *spans[-1]))
    final_seconds = time.perf_counter() - start
    start = time.perf_counter()
    probabilities = np.asarray(final.predict_proba([data.texts[i] for i in test]), dtype=np.float64)
    predicted = decide(probabilities)
    predict_seconds = time.perf_counter() - start
    notes.extend(note for note in final.notes if note not in notes)
    thresholds = [float(value) for value in decide.thresholds] if decide.multi_label else None
    artefact = save_final_model(name, partial(final.save, categories=categories, thresholds=thresholds), artefacts_dir, on_event)
    for note in notes[1:]:
        on_event(Log(f"{name}: {note}"))
    full_spec = {
        **model.to_dict(), "name": name, "representation_options": options,
        "grid": normalise_setfit_grid(model.grid), "tuning": how, "notes": notes,
        "device": {"kind": final.device, "name": _device_name(final.device), "bf16": bool(final.bf16)},
        "pairs": int(final.n_pairs), "head": "logistic regression (C = 1, balanced class weights)",
    }
    n_parameters = int(sum(parameter.numel() for parameter in final.net.parameters()))
    del final
    on_event(Progress(1.0, "done"))
    return ModelResult(
        name=name, representation=model.representation, classifier=model.classifier, spec=full_spec,
        chosen_params=chosen_params, cv_scores=grid[chosen].fold_scores, grid=grid,
        **tested_answers(data, spec, decide, predicted, probabilities),
        seconds={"features": 0.0, "tuning": round(tuning_seconds, 4), "final_fit": round(final_seconds, 4),
                 "predict": round(predict_seconds, 4),
                 # the training runs for the combined models count as theirs, as a conventional model's refits do
                 "total": round(time.perf_counter() - total_start - extra_seconds, 4)},
        n_features=n_parameters,
        artefact=artefact,
    )


def setfit_trainer(data: StudyData, options: dict[str, Any], seed: int) -> Any:
    """``train(rows, point, on_event)``: SetFit with ``options`` and the grid point ``point`` trained on
    the study's ``rows`` (a :class:`~guiapp.core.models.setfit.model.SetFitModel`)."""

    def train(rows: np.ndarray, point: dict[str, Any], on_event: EventCallback) -> Any:
        from guiapp.core.models.setfit import SetFitSettings, train_setfit

        settings = SetFitSettings(epochs=point["epochs"], pairs_per_text=point["pairs_per_text"],
                                  learning_rate=point["learning_rate"], max_length=options["max_length"],
                                  batch_size=options["batch_size"], seed=seed, device=options["device"],
                                  max_pairs=options["max_pairs"])
        return train_setfit([data.texts[i] for i in rows], data.y[rows], len(data.categories), settings,
                            options["model"], on_event, categories=list(data.categories))

    return train


def on_gpu(device: str) -> bool:
    """Whether SetFit with this ``device`` option trains on a GPU of this computer."""
    if device == "cpu":
        return False
    try:
        import torch
    except ImportError:  # pragma: no cover - PyTorch comes with TextLab
        return False
    return bool(torch.cuda.is_available())


def _device_name(kind: str) -> str:
    if kind == "cuda":
        import torch

        return torch.cuda.get_device_name(0)
    return "Apple GPU" if kind == "mps" else "CPU"


def tested_answers(data: StudyData, spec: ExperimentSpec, decide: Decisions, predicted: np.ndarray,
                   probabilities: np.ndarray) -> dict[str, Any]:
    """What a :class:`ModelResult` holds of the test texts: the scores of the categories ``predicted``
    (with intervals), each text's categories, the probabilities, and the thresholds where a text can
    have several categories."""
    return {"test": evaluate_on_test(data.y[data.split.test], predicted, data, spec, CI_LEVEL),
            "predictions": decide.as_predictions(predicted),
            "probabilities": np.round(probabilities, 6).tolist(),
            "thresholds": [round(float(value), 4) for value in decide.thresholds] if decide.multi_label else []}


def save_final_model(name: str, save: Any, artefacts_dir: Path | None, on_event: EventCallback) -> str:
    """Save the model for predicting new texts later; a failure to save costs no results."""
    if artefacts_dir is None:
        return ""
    folder = Path(artefacts_dir) / model_folder_name(name)
    try:
        save(folder)
    except Exception as error:  # noqa: BLE001 — the results stand even when the model cannot be kept
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        on_event(Log(f"{name}: the model could not be saved, so it cannot be applied to new texts later ({reason}). "
                     "Check that there is free disk space and run the study again.", "warning"))
        return ""
    return str(folder)
