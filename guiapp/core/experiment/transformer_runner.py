"""One fine-tuned Transformer in a study: tuned, refitted and tested like the other models.

The same training texts, the same test texts and the same metrics as the conventional models;
tuning uses the study's k folds, or — the default without a GPU, where k × grid fine-tunings
would take hours — one stratified validation split of the training texts (said in the log and
in the result). Oversampling, as for the other models, only touches the texts a model learns
from. The final model is saved (safetensors, tokenizer, label map) when a folder is given.
"""

from __future__ import annotations

import dataclasses
import gc
import threading
import time
from pathlib import Path

import numpy as np
from sklearn.model_selection import train_test_split

from guiapp.core.compute.executors import Executor
from guiapp.core.events import EventCallback, Log, Metric, Progress, sub_progress
from guiapp.core.experiment import metrics
from guiapp.core.experiment.artefacts import model_folder_name
from guiapp.core.experiment.fine_tuning_pieces import FineTuningOutcome, FineTuningRun, write_files
from guiapp.core.experiment.out_of_fold import OutOfFold
from guiapp.core.experiment.resampling import oversampled_rows
from guiapp.core.experiment.results import GridPointResult, ModelResult
from guiapp.core.experiment.seed_average import save_seed_average
from guiapp.core.experiment.setting_choice import choose_setting, describe_choice
from guiapp.core.experiment.work_pieces import run_piece
from guiapp.core.study.sections import ModelSpec
from guiapp.core.study.spec import ExperimentSpec
from guiapp.core.study.study_data import StudyData


def tuning_splits(
    data: StudyData, folds: list[tuple[np.ndarray, np.ndarray]], spec: ExperimentSpec, on_gpu: bool
) -> tuple[list[tuple[np.ndarray, np.ndarray]], str]:
    """The splits of the training texts used to choose the setting, and how they were made."""
    how = spec.evaluation.transformer_tuning
    if how == "auto":
        how = "cross-validation" if on_gpu else "validation split"
    if how == "cross-validation":
        return folds, f"{len(folds)}-fold cross-validation"
    positions = np.arange(len(data.split.train))
    fit, valid = train_test_split(
        positions,
        test_size=spec.evaluation.validation_share,
        stratify=data.y[data.split.train],
        random_state=spec.seed,
    )
    share = spec.evaluation.validation_share
    return [(np.sort(fit), np.sort(valid))], f"one validation split ({share:.0%} of the training texts)"


def run_transformer_model(
    model: ModelSpec,
    data: StudyData,
    folds: list[tuple[np.ndarray, np.ndarray]],
    spec: ExperimentSpec,
    on_event: EventCallback,
    artefacts_dir: Path | None = None,
    out_of_fold: dict[str, OutOfFold] | None = None,
    executor: Executor | None = None,
) -> ModelResult:
    """With ``out_of_fold``, the chosen setting's probabilities for the texts held out from its tuning
    runs are kept there under the model's name (for the combined models). With a remote ``executor``
    (a Dask cluster) every training run is a piece of work on the cluster (``fine_tuning_pieces.py``):
    the runs go in parallel, one per GPU, and the texts are shared with the workers once."""
    from guiapp.core.models.transformers.fine_tuning import (
        DeviceInfo,
        fine_tune,
        pick_device,
        predict_proba,
        save_fine_tuned,
    )
    from guiapp.core.models.transformers.options import (
        expand_transformer_grid,
        full_options,
        normalise_transformer_grid,
    )
    from guiapp.core.models.transformers.sources.resolve import describe_source, resolve_model
    from guiapp.core.models.transformers.training.settings import FineTuneSettings

    total_start = time.perf_counter()
    options = full_options(model.representation_options)
    points = expand_transformer_grid(model.grid, options["model"])
    on_event(Progress(0.0, "finding the model"))
    remote = executor is not None and executor.remote
    if remote:  # the workers resolve the model themselves
        assert executor is not None
        devices = executor.ask_workers(_device_on_worker, options["device"])
        device = next((found for found in devices if found.kind == "cuda"), devices[0])
        where = f"the cluster's workers ({device.name})"
        shared = executor.share((np.asarray(data.texts, dtype=object), data.y))
    else:
        path = resolve_model(options["model"], sub_progress(on_event, 0.0, 0.02))
        device = pick_device(options["device"])
        where = device.name
    splits, how = tuning_splits(data, folds, spec, device.kind == "cuda")
    on_event(Log(f"{model.display_name}: {describe_source(options['model'])} on {where}; settings chosen by {how}."))
    ratio = spec.evaluation.oversampling_ratio if spec.evaluation.oversampling == "random" else None
    train, test = data.split.train, data.split.test
    texts = np.asarray(data.texts, dtype=object)
    n_labels = len(data.categories)

    def settings(point: dict, seed: int = spec.seed) -> FineTuneSettings:
        return FineTuneSettings(
            learning_rate=point["learning_rate"], epochs=point["epochs"], batch_size=options["batch_size"],
            max_length=options["max_length"], truncation=options["truncation"], dropout=options["dropout"],
            seed=seed, device=options["device"], mixed_precision=options["mixed_precision"],
        )  # fmt: skip

    def learning_rows(rows: np.ndarray) -> np.ndarray:
        return rows[oversampled_rows(data.y[rows], ratio, spec.seed)] if ratio is not None else rows

    # progress: every training run weighs its epochs; the final refit counts as the longest
    weights = [point["epochs"] * len(fit) for fit, _ in splits for point in points]
    n_seeds = spec.evaluation.transformer_seeds
    weights += [max(point["epochs"] for point in points) * len(train)] * n_seeds
    bounds = np.concatenate([[0.0], np.cumsum(weights) / sum(weights)]) * 0.95 + 0.02
    scores = np.zeros((len(points), len(splits)))
    seconds = np.zeros(len(points))
    held_out = np.full((len(points), len(train), n_labels), np.nan) if out_of_fold is not None else None
    valid_predictions = [np.zeros((len(points), len(valid)), dtype=int) for _, valid in splits]
    notes: list[str] = []
    run = 0
    tuning_start = time.perf_counter()

    def record(split_index: int, index: int, probabilities: np.ndarray, run_seconds: float, run_notes: list[str]) -> None:
        valid_part = splits[split_index][1]
        seconds[index] += run_seconds
        scores[index, split_index] = metrics.macro_f1(data.y[train[valid_part]], probabilities.argmax(axis=1))
        valid_predictions[split_index][index] = probabilities.argmax(axis=1)
        if held_out is not None:
            held_out[index, valid_part] = probabilities
        notes.extend(note for note in run_notes if note not in notes)

    if remote:
        assert executor is not None
        runs = [(split_index, index) for split_index in range(len(splits)) for index in range(len(points))]
        pieces = [(FineTuningRun(options["model"], learning_rows(train[splits[split_index][0]]),
                                 train[splits[split_index][1]], n_labels, settings(points[index])), shared)
                  for split_index, index in runs]
        outcomes = executor.map_calls(_remote_progress(on_event, bounds, 0, len(runs), "tuning on the cluster"),
                                      run_piece, pieces, fine_tuning=True)
        for (split_index, index), outcome in zip(runs, outcomes, strict=True):
            record(split_index, index, outcome.probabilities, outcome.seconds, outcome.notes)
        run = len(runs)
    for split_index, (fit_part, valid_part) in enumerate(splits if not remote else []):
        fit_rows, valid_rows = learning_rows(train[fit_part]), train[valid_part]
        for index, point in enumerate(points):
            label = _run_label(split_index, len(splits), point, index, len(points))
            forward = labelled_progress(on_event, bounds[run], bounds[run + 1], label)
            start = time.perf_counter()
            tuned = fine_tune(path, list(texts[fit_rows]), data.y[fit_rows], n_labels, settings(point), forward)
            probabilities = predict_proba(tuned, list(texts[valid_rows]), forward)
            record(split_index, index, probabilities, time.perf_counter() - start, tuned.notes)
            del tuned
            free_memory()
            run += 1
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
    if held_out is not None and out_of_fold is not None:
        out_of_fold[model.display_name] = OutOfFold(held_out[chosen])
        del held_out

    final_rows = learning_rows(train)
    finals, seed_probabilities, final_seconds, predict_seconds = [], [], 0.0, 0.0
    if remote:
        assert executor is not None
        pieces = [(FineTuningRun(options["model"], final_rows, test, n_labels, settings(chosen_params, spec.seed + number),
                                 tuple(data.categories), keep_model=True), shared) for number in range(n_seeds)]
        finals = executor.map_calls(_remote_progress(on_event, bounds, run, n_seeds, "final model on the cluster"),
                                    run_piece, pieces, fine_tuning=True)
        executor.forget()
        seed_probabilities = [outcome.probabilities for outcome in finals]
        final_seconds = sum(outcome.seconds for outcome in finals)
        device = DeviceInfo(**finals[0].device)
    for number in range(n_seeds if not remote else 0):  # several seeds: their probabilities are averaged
        seed = spec.seed + number
        label = f"final model ({_describe(chosen_params)}" + (f", seed {number + 1} of {n_seeds})" if n_seeds > 1 else ")")
        span = len(bounds) - 1 - n_seeds + number  # the final fits are the last n_seeds spans
        forward = labelled_progress(on_event, bounds[span], bounds[span + 1], label)
        start = time.perf_counter()
        finals.append(fine_tune(path, list(texts[final_rows]), data.y[final_rows], n_labels,
                                settings(chosen_params, seed), forward))
        final_seconds += time.perf_counter() - start
        start = time.perf_counter()
        seed_probabilities.append(predict_proba(finals[-1], list(texts[test]), sub_progress(on_event, 0.97, 0.99)))
        predict_seconds += time.perf_counter() - start
    final = finals[0]  # a FineTuned here, a FineTuningOutcome from the cluster
    probabilities = np.mean(seed_probabilities, axis=0)
    predicted = probabilities.argmax(axis=1)
    seed_scores = [metrics.macro_f1(data.y[test], p.argmax(axis=1)) for p in seed_probabilities]
    if n_seeds > 1:
        notes.append(f"The chosen setting was fine-tuned with {n_seeds} seeds and their probabilities averaged; "
                     f"alone, each seed's model scored {min(seed_scores):.3f}–{max(seed_scores):.3f} test macro-F1.")
    notes.extend(note for note in final.notes if note not in notes)
    limit = options["max_length"]
    if remote:
        limit, cut_test = final.token_limit, final.n_test_truncated
    else:
        limit = min(limit, int(getattr(final.model.config, "max_position_embeddings", 512) or 512))
        cut_test = _truncated(final, texts[test], limit, options["truncation"])
    notes.extend(_cut_notes(final.n_truncated, len(final_rows), cut_test, len(test), limit, options["truncation"]))
    for note in notes:
        on_event(Log(f"{model.display_name}: {note}", "warning" if "memory" in note else "info"))
    artefact = ""
    if artefacts_dir is not None:
        folder = Path(artefacts_dir) / model_folder_name(model.display_name)
        save = _write_outcome if remote else save_fine_tuned
        if n_seeds == 1:
            save(final, folder, data.categories)
        else:
            save_seed_average(finals, folder, model.display_name, data.categories, save)
        artefact = str(folder)
    y_test = data.y[test]
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
    from guiapp.core.experiment.held_out import CI_LEVEL, evaluate_on_test

    result = ModelResult(
        name=model.display_name,
        representation=model.representation,
        classifier=model.classifier,
        spec=full_spec,
        chosen_params=chosen_params,
        cv_scores=grid[chosen].fold_scores,
        grid=grid,
        test=evaluate_on_test(y_test, predicted, data, spec, CI_LEVEL),
        predictions=[int(value) for value in predicted],
        probabilities=np.round(probabilities, 6).tolist(),
        seconds={
            "features": 0.0,
            "tuning": round(tuning_seconds, 4),
            "final_fit": round(final_seconds, 4),
            "predict": round(predict_seconds, 4),
            "total": round(time.perf_counter() - total_start, 4),
        },
        n_features=final.n_parameters if remote else int(sum(p.numel() for p in final.model.parameters())),
        artefact=artefact,
    )
    del final, finals
    free_memory()
    on_event(Progress(1.0, "done"))
    return result


def labelled_progress(on_event: EventCallback, start: float, end: float, label: str) -> EventCallback:
    """``on_event`` for one training run: its progress mapped onto [start, end] and every message and
    training-curve point labelled with the run (used by studies and learning curves alike)."""
    mapped = sub_progress(on_event, float(start), float(end))

    def forward(event) -> None:  # noqa: ANN001
        if isinstance(event, Progress):
            event = dataclasses.replace(event, message=f"{label}: {event.message}" if event.message else label)
        elif isinstance(event, Metric):
            event = dataclasses.replace(event, run=label)
        mapped(event)

    return forward


def _describe(point: dict) -> str:
    epochs = point["epochs"]
    return f"learning rate {point['learning_rate']:g}, {epochs} epoch{'s' if epochs != 1 else ''}"


def _run_label(split: int, n_splits: int, point: dict, index: int, n_points: int) -> str:
    where = f"part {split + 1} of {n_splits} of the data, " if n_splits > 1 else ""
    return f"{where}setting {index + 1} of {n_points} ({_describe(point)})"


def _truncated(final, texts, limit: int, truncation: str) -> int:  # noqa: ANN001
    from guiapp.core.models.transformers.training.truncation import encode_texts

    return encode_texts(final.tokenizer, list(texts), limit, truncation).n_truncated


def _cut_notes(cut_train: int, n_train: int, cut_test: int, n_test: int, limit: int, truncation: str) -> list[str]:
    from guiapp.core.models.transformers.training.truncation import describe

    if not cut_train and not cut_test:
        return [f"No text was longer than {limit} tokens; nothing was cut."]
    return [
        f"{cut_train:,} of {n_train:,} training texts and {cut_test:,} of {n_test:,} test texts "
        f"were longer than {limit} tokens and were cut ({describe(truncation, limit)})."
    ]


def _device_on_worker(preference: str):  # noqa: ANN202 — runs on each Dask worker
    from guiapp.core.models.transformers.fine_tuning import pick_device

    return pick_device(preference)


def _write_outcome(outcome: FineTuningOutcome, folder: Path, categories: list[str]) -> None:
    """Save a model fine-tuned on the cluster: its files, as the worker saved them."""
    assert outcome.files is not None
    write_files(outcome.files, folder)


def _remote_progress(on_event: EventCallback, bounds: np.ndarray, first: int, n_runs: int, message: str):
    """Progress of ``n_runs`` training runs on the cluster (spans ``first``… of ``bounds``), as runs finish."""
    def tick(done: int) -> None:
        end = min(first + done, len(bounds) - 1)
        on_event(Progress(float(bounds[end]), f"{message}: {done} of {n_runs} training runs finished"))

    return tick


def free_memory() -> None:
    """Free a fine-tuned model's memory before the next one starts.

    The full cyclic garbage collection runs on the main thread (the command line), and in a worker
    thread only when a GPU is used, where a model left to the next automatic collection could make the
    next one run out of GPU memory. On the processor, in the app's worker thread, it is left out: such a
    collection could also finalise Qt objects of the window from the wrong thread, which can crash, and
    the model's memory is freed by reference counting or the next automatic collection."""
    try:
        import torch

        on_gpu = torch.cuda.is_available()
    except ImportError:  # pragma: no cover
        on_gpu = False
    if on_gpu or threading.current_thread() is threading.main_thread():
        gc.collect()
    if on_gpu:
        torch.cuda.empty_cache()
