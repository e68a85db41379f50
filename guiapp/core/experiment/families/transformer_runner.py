"""One fine-tuned Transformer in a study: tuned, refitted and tested like the other models.

The same training texts, the same test texts and the same metrics as the conventional models;
tuning uses the study's k folds, or — the default without a GPU, where k × grid fine-tunings
would take hours — one stratified validation split of the training texts (said in the log and
in the result). Oversampling, as for the other models, only touches the texts a model learns
from. The final model is saved (safetensors, tokenizer, label map) when a folder is given.

Where a text can have several categories (the study's labels are a 0/1 matrix), the Transformer
has one sigmoid probability per category (``transformer_decisions.py``): its validation split is
drawn by iterative stratification, a text is put in every category whose probability reaches that
category's threshold (0.5, or tuned on the held-out training texts when the study asks), and no
texts are oversampled.

The study's training runs (each setting on each tuning split, then the chosen setting once per
seed) are planned here, the same wherever they run, and handed to a strategy that runs them:
``LocalFineTuning`` in this process, or ``RemoteFineTuning`` on a cluster's workers.
"""

from __future__ import annotations

import time
from itertools import pairwise
from pathlib import Path

import numpy as np

from guiapp.core.events import EventCallback, Log, Progress
from guiapp.core.experiment.scores import metrics
from guiapp.core.experiment.results.artefacts import model_folder_name
from guiapp.core.experiment.families.fine_tuning_local import LocalFineTuning, free_memory
from guiapp.core.experiment.families.fine_tuning_pieces import FineTuningRun, FineTuningStrategy, PlannedRun
from guiapp.core.experiment.families.fine_tuning_remote import RemoteFineTuning
from guiapp.core.experiment.protocol.out_of_fold import OutOfFold
from guiapp.core.experiment.protocol.resampling import oversampled_rows
from guiapp.core.experiment.results.experiment_result import GridPointResult, ModelResult
from guiapp.core.experiment.families.seed_average import save_seed_average
from guiapp.core.experiment.families.setting_choice import choose_setting, describe_choice
from guiapp.core.experiment.families.transformer_decisions import OVERSAMPLING_NOTE, Decisions
from guiapp.core.experiment.families.model_run_inputs import ModelRunInputs
from guiapp.core.experiment.families.transformer_out_of_fold import out_of_fold_fits
from guiapp.core.experiment.families.tuning_splits import CROSS_VALIDATION, splits_for
from guiapp.core.study.sections import ModelSpec
from guiapp.core.study.spec import ExperimentSpec
from guiapp.core.study.study_data import StudyData


def tuning_splits(
    data: StudyData, folds: list[tuple[np.ndarray, np.ndarray]], spec: ExperimentSpec, on_gpu: bool
) -> tuple[list[tuple[np.ndarray, np.ndarray]], str]:
    """The splits of the training texts used to choose the setting, and how they were made."""
    how = spec.evaluation.transformer_tuning
    if how == "auto":
        how = CROSS_VALIDATION if on_gpu else "validation split"
    return splits_for(data, folds, spec, how)


def run_transformer_model(model: ModelSpec, inputs: ModelRunInputs, on_event: EventCallback) -> ModelResult:
    """With ``inputs.out_of_fold``, the chosen setting's probabilities for the texts held out from its
    tuning runs are kept there under the model's name (for the combined models). With a remote
    ``inputs.executor`` (a Dask cluster) every training run is a piece of work on the cluster
    (``fine_tuning_remote.py``), else the runs go one after the other in this process
    (``fine_tuning_local.py``)."""
    data, folds, spec = inputs.data, inputs.folds, inputs.spec
    artefacts_dir, out_of_fold, executor = inputs.artefacts_dir, inputs.out_of_fold, inputs.executor
    from guiapp.core.models.transformers.options import (
        expand_transformer_grid,
        full_options,
        normalise_transformer_grid,
    )
    from guiapp.core.models.transformers.sources.resolve import describe_source
    from guiapp.core.models.transformers.training.settings import FineTuneSettings

    total_start = time.perf_counter()
    options = full_options(model.representation_options)
    points = expand_transformer_grid(model.grid, options["model"])
    on_event(Progress(0.0, "finding the model"))
    if executor is not None and executor.remote:  # the workers resolve the model themselves
        strategy: FineTuningStrategy = RemoteFineTuning(options, data, on_event, executor)
    else:
        strategy = LocalFineTuning(options, data, on_event)
    splits, how = tuning_splits(data, folds, spec, strategy.device.kind == "cuda")
    on_event(Log(f"{model.display_name}: {describe_source(options['model'])} on {strategy.where}; "
                 f"settings chosen by {how}."))
    ratio = spec.evaluation.oversampling_ratio if spec.evaluation.oversampling == "random" else None
    train, test = data.split.train, data.split.test
    n_labels = len(data.categories)
    decide = Decisions.for_study(data.y)
    if decide.multi_label and ratio is not None:
        on_event(Log(f"{model.display_name}: {OVERSAMPLING_NOTE}"))
        ratio = None

    def learning_rows(rows: np.ndarray) -> np.ndarray:
        return rows[oversampled_rows(data.y[rows], ratio, spec.seed)] if ratio is not None else rows

    # the chosen setting once more in each fold, where affordable, for held-out probabilities of every text
    oof_folds = folds if out_of_fold_fits(
        model, len(train), len(folds), validation_split=len(splits) == 1 and len(folds) >= 2,
        combined=out_of_fold is not None, on_gpu=strategy.device.kind == "cuda") else []
    # progress: every training run weighs its epochs; the final refit counts as the longest
    weights = [point["epochs"] * len(fit) for fit, _ in splits for point in points]
    most_epochs = max(point["epochs"] for point in points)
    weights += [most_epochs * len(fit) for fit, _ in oof_folds]
    n_seeds = spec.evaluation.transformer_seeds
    weights += [most_epochs * len(train)] * n_seeds
    spans = list(pairwise(np.concatenate([[0.0], np.cumsum(weights) / sum(weights)]) * 0.95 + 0.02))
    runs: list[PlannedRun] = []  # setting × split, split by split
    for split_index, (fit_part, valid_part) in enumerate(splits):
        fit_rows = learning_rows(train[fit_part])
        for index, point in enumerate(points):
            piece = FineTuningRun(options["model"], fit_rows, train[valid_part], n_labels,
                                  FineTuneSettings.from_options(options, point, spec.seed))
            runs.append(PlannedRun(piece, _run_label(split_index, len(splits), point, index, len(points)),
                                   *spans[len(runs)]))
    scores = np.zeros((len(points), len(splits)))
    seconds = np.zeros(len(points))
    keep_held_out = out_of_fold is not None or decide.tunes(spec)
    held_out = np.full((len(points), len(train), n_labels), np.nan) if keep_held_out else None
    valid_predictions = [np.zeros((len(points), *data.y[train[valid]].shape), dtype=int) for _, valid in splits]
    notes: list[str] = []
    tuning_start = time.perf_counter()
    for number, outcome in enumerate(strategy.tune(runs)):
        split_index, index = divmod(number, len(points))
        valid_part = splits[split_index][1]
        seconds[index] += outcome.seconds
        valid_predictions[split_index][index] = decide(outcome.probabilities)
        scores[index, split_index] = metrics.macro_f1(data.y[train[valid_part]], valid_predictions[split_index][index])
        if held_out is not None:
            held_out[index, valid_part] = outcome.probabilities
        notes.extend(note for note in outcome.notes if note not in notes)
    tuning_seconds = time.perf_counter() - tuning_start
    grid = [
        GridPointResult(dict(point), [float(v) for v in scores[i]], float(scores[i].mean()), float(scores[i].std()), float(seconds[i]))
        for i, point in enumerate(points)
    ]
    choice = choose_setting(points, scores, valid_predictions, [data.y[train[valid]] for _, valid in splits],
                            spec.evaluation.transformer_choice, spec.seed)
    chosen = choice.chosen
    chosen_params = dict(points[chosen])
    notes.extend(describe_choice(choice, points, "the validation texts" if len(splits) == 1 else "the folds"))
    held_out_chosen = held_out[chosen] if held_out is not None else None
    del held_out
    if held_out_chosen is not None and out_of_fold is not None:
        out_of_fold[model.display_name] = OutOfFold(held_out_chosen)
    if oof_folds and out_of_fold is not None:
        out_of_fold[model.display_name] = _every_text_out_of_fold(
            strategy, oof_folds, train, learning_rows, options, chosen_params, n_labels, spec.seed,
            spans[len(runs):len(runs) + len(oof_folds)])
        held_out_chosen = out_of_fold[model.display_name].probabilities
        notes.append(f"For the combined models, the chosen setting was also fine-tuned in each of the "
                     f"{len(oof_folds)} folds, so every training text has probabilities from a model that never "
                     "saw it.")
    if decide.multi_label:
        notes.append(decide.choose_thresholds(spec, data.y[train], held_out_chosen))

    extra_seconds = out_of_fold[model.display_name].seconds if oof_folds and out_of_fold is not None else 0.0
    final_rows = learning_rows(train)
    final_runs = [  # several seeds: their probabilities are averaged
        PlannedRun(FineTuningRun(options["model"], final_rows, test, n_labels,
                                 FineTuneSettings.from_options(options, chosen_params, spec.seed + number),
                                 tuple(data.categories), keep_model=True, thresholds=tuple(decide.thresholds)),
                   f"final model ({_describe(chosen_params)}" + (f", seed {number + 1} of {n_seeds})" if n_seeds > 1 else ")"),
                   *spans[len(runs) + len(oof_folds) + number])
        for number in range(n_seeds)
    ]
    finals = strategy.fit_finals(final_runs)
    final = finals[0]
    probabilities = np.mean([outcome.probabilities for outcome in finals], axis=0)
    predicted = decide(probabilities)
    seed_scores = [metrics.macro_f1(data.y[test], decide(outcome.probabilities)) for outcome in finals]
    if n_seeds > 1:
        notes.append(f"The chosen setting was fine-tuned with {n_seeds} seeds and their probabilities averaged; "
                     f"alone, each seed's model scored {min(seed_scores):.3f}–{max(seed_scores):.3f} test macro-F1.")
    notes.extend(note for note in final.notes if note not in notes)
    notes.extend(_cut_notes(final.n_truncated, len(final_rows), final.n_test_truncated, len(test), final.token_limit,
                            options["truncation"]))
    for note in notes:
        on_event(Log(f"{model.display_name}: {note}", "warning" if "memory" in note else "info"))
    artefact = ""
    if artefacts_dir is not None:
        folder = Path(artefacts_dir) / model_folder_name(model.display_name)
        if n_seeds == 1:
            strategy.save(final, folder, data.categories)
        else:
            save_seed_average(finals, folder, model.display_name, data.categories, strategy.save,
                              thresholds=decide.thresholds if decide.multi_label else None)
        artefact = str(folder)
    y_test = data.y[test]
    device = strategy.device
    full_spec = model.to_dict()
    full_spec.update(
        name=model.display_name,
        representation_options=options,
        grid=normalise_transformer_grid(model.grid, options["model"]),
        tuning=how,
        device={"kind": device.kind, "name": device.name, "bf16": device.bf16},
        notes=notes,
        setting_choice=choice.to_dict(),
        **({"seeds": n_seeds, "seed_scores": [round(score, 6) for score in seed_scores]} if n_seeds > 1 else {}),
    )
    from guiapp.core.experiment.protocol.held_out import CI_LEVEL, evaluate_on_test

    result = ModelResult(
        name=model.display_name,
        representation=model.representation,
        classifier=model.classifier,
        spec=full_spec,
        chosen_params=chosen_params,
        cv_scores=grid[chosen].fold_scores,
        grid=grid,
        test=evaluate_on_test(y_test, predicted, data, spec, CI_LEVEL),
        predictions=decide.as_predictions(predicted),
        probabilities=np.round(probabilities, 6).tolist(),
        thresholds=[float(value) for value in decide.thresholds] if decide.multi_label else [],
        seconds={
            "features": 0.0,
            "tuning": round(tuning_seconds, 4),
            "final_fit": round(sum(outcome.seconds for outcome in finals), 4),
            "predict": round(sum(outcome.predict_seconds for outcome in finals), 4),
            # the fine-tunings for the combined models count as theirs, as a conventional model's refits do
            "total": round(time.perf_counter() - total_start - extra_seconds, 4),
        },
        n_features=final.n_parameters,
        artefact=artefact,
    )
    del final, finals
    free_memory()
    on_event(Progress(1.0, "done"))
    return result


def _describe(point: dict) -> str:
    epochs = point["epochs"]
    return f"learning rate {point['learning_rate']:g}, {epochs} epoch{'s' if epochs != 1 else ''}"


def _every_text_out_of_fold(strategy: FineTuningStrategy, folds: list[tuple[np.ndarray, np.ndarray]],
                            train: np.ndarray, learning_rows, options: dict, chosen_params: dict, n_labels: int,
                            seed: int, spans: list[tuple[float, float]]) -> OutOfFold:
    """The chosen setting fine-tuned in each fold; its probabilities for each fold's held-out texts."""
    from guiapp.core.models.transformers.training.settings import FineTuneSettings

    runs = [PlannedRun(FineTuningRun(options["model"], learning_rows(train[fit]), train[valid], n_labels,
                                     FineTuneSettings.from_options(options, chosen_params, seed)),
                       f"held-out probabilities for the combined models, fold {number + 1} of {len(folds)}", *span)
            for number, ((fit, valid), span) in enumerate(zip(folds, spans, strict=True))]
    start = time.perf_counter()
    probabilities = np.full((len(train), n_labels), np.nan)
    for (_, valid), outcome in zip(folds, strategy.tune(runs), strict=True):
        probabilities[valid] = outcome.probabilities
    return OutOfFold(probabilities, time.perf_counter() - start)


def _run_label(split: int, n_splits: int, point: dict, index: int, n_points: int) -> str:
    where = f"part {split + 1} of {n_splits} of the data, " if n_splits > 1 else ""
    return f"{where}setting {index + 1} of {n_points} ({_describe(point)})"


def _cut_notes(cut_train: int, n_train: int, cut_test: int, n_test: int, limit: int, truncation: str) -> list[str]:
    from guiapp.core.models.transformers.training.truncation import describe

    if not cut_train and not cut_test:
        return [f"No text was longer than {limit} tokens; nothing was cut."]
    return [
        f"{cut_train:,} of {n_train:,} training texts and {cut_test:,} of {n_test:,} test texts "
        f"were longer than {limit} tokens and were cut ({describe(truncation, limit)})."
    ]
