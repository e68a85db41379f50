"""``run_experiment``: the one way a study is run, by the GUI and the command line alike.

For each model of the spec: prepare the representation once for all texts (shared between
models with the same representation settings), tune by cross-validated grid search on the
training texts, refit the chosen setting on all training texts, and evaluate once on the test
texts. Reports progress, per-model state changes and log lines through ``on_event``; a failing
model is recorded with its reason and the others still run; Cancel stops at the next checkpoint.
"""

from __future__ import annotations

import json
import os
import platform
import sys
import time
from importlib import metadata
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.base import clone

from guiapp import __version__
from guiapp.core.compute import process_pool
from guiapp.core.compute.executors import Executor
from guiapp.core.compute.machine_load import read_load
from guiapp.core.compute.where import open_executor
from guiapp.core.errors import UserError
from guiapp.core.events import (
    Cancelled,
    EventCallback,
    Log,
    Progress,
    TaskUpdate,
    ignore_events,
    sub_progress,
)
from guiapp.core.experiment.results.artefacts import model_folder_name, run_folder
from guiapp.core.experiment.combined.combined_models import add_combined_models
from guiapp.core.experiment.families.conventional_files import save_conventional
from guiapp.core.experiment.families.model_run_inputs import ModelRunInputs
from guiapp.core.experiment.protocol.fitting import fit_classifier, predict, predict_proba
from guiapp.core.experiment.protocol.held_out import CI_LEVEL, evaluate_on_test
from guiapp.core.experiment.protocol.out_of_fold import OutOfFold, conventional_out_of_fold
from guiapp.core.experiment.run.per_model import (
    PreparedCache,
    model_events,
    now,
    prepared_texts,
    progress_spans,
)
from guiapp.core.experiment.protocol.resampling import cv_folds, oversampled_rows
from guiapp.core.experiment.results.experiment_result import ExperimentResult, ModelResult, answers
from guiapp.core.experiment.run.run_plan import fine_tunes_on_gpu
from guiapp.core.experiment.speed.estimates import mean_subword_tokens
from guiapp.core.experiment.run.run_size import estimate_run
from guiapp.core.experiment.scores.threshold_choice import tuned_thresholds
from guiapp.core.experiment.protocol.tuning import build_folds, default_jobs, grid_search
from guiapp.core.experiment.protocol.work_pieces import FinalFit, run_piece
from guiapp.core.models.conventional import describe_params, expand_grid, normalise_grid
from guiapp.core.study.model_sources import NO_MODELS, NO_MODELS_HINT
from guiapp.core.study.sections import ModelSpec
from guiapp.core.study.spec import ExperimentSpec
from guiapp.core.study.study_data import StudyData, load_study_data


def run_experiment(
    spec: ExperimentSpec,
    on_event: EventCallback = ignore_events,
    *,
    spec_file: str | Path | None = None,
    table: pd.DataFrame | None = None,
    n_jobs: int | None = None,
    artefacts_dir: str | Path | None = None,
    executor: Executor | None = None,
) -> ExperimentResult:
    """Run every model of ``spec`` and return what was found (see the module docstring).

    The pieces of work run where ``spec.cluster`` says — this computer's worker processes, a Dask
    scheduler, or SLURM worker jobs started for this run and released after it — unless an
    ``executor`` is given (``core/compute``). The results do not depend on where they ran.

    On Cancel, :class:`Cancelled` is raised with ``.partial``: an ``ExperimentResult`` with
    ``status = "cancelled"`` holding the models that had finished (nothing is written anywhere).

    Every final model is saved under ``artefacts_dir`` (default: a folder for this run in
    TextLab's cache), so they can be applied to new texts later."""
    if not spec.models:
        raise UserError(NO_MODELS, NO_MODELS_HINT)  # the words `textlab health --spec` gives too
    for model in spec.models:
        model.check()
    _check_codebook_sources(spec)  # a language model with your codebook that cannot start: refused before anything
    spec.evaluation.check()
    spec.cluster.check()
    n_jobs = default_jobs() if n_jobs is None else n_jobs
    if executor is None:
        with open_executor(spec.cluster, n_jobs, on_event) as opened:
            return _run_experiment(spec, on_event, spec_file, table, n_jobs, artefacts_dir, opened)
    return _run_experiment(spec, on_event, spec_file, table, n_jobs, artefacts_dir, executor)


def _run_experiment(spec: ExperimentSpec, on_event: EventCallback, spec_file: str | Path | None,
                    table: pd.DataFrame | None, n_jobs: int, artefacts_dir: str | Path | None,
                    executor: Executor) -> ExperimentResult:
    started = now()
    on_event(Log(f"Reading the coded texts for '{spec.name or 'this study'}'."))
    data = load_study_data(spec, spec_file, table, sub_progress(on_event, 0.0, 0.02))
    train, test = data.split.train, data.split.test
    folds = cv_folds(data.y[train], spec.evaluation.folds, spec.seed, spec.evaluation.cv_repeats)
    on_event(Log(f"{data.split.describe()}; {len(data.categories)} categories."))
    # before the first fit: every fit of the study and how each model is tuned, in words (run_plan.py)
    size = estimate_run(spec, len(train), len(test), len(data.categories), n_jobs,
                        on_gpu=None if executor.remote else fine_tunes_on_gpu(spec),
                        mean_tokens=mean_subword_tokens([data.texts[i] for i in train]),
                        load=None if executor.remote else read_load(), multi_label=data.multi_label)
    on_event(Log(size.warning(), "warning") if size.large else Log(size.describe()))
    result = ExperimentResult(
        spec=spec.to_dict(),
        categories=data.categories,
        split={"how": data.split.how, "n_train": len(train), "n_test": len(test), "description": data.split.describe()},
        test_rows=[data.rows[i] for i in test],
        test_ids=[data.ids[i] for i in test],
        test_texts=[data.texts[i] for i in test],
        test_true=answers(data.y[test]),
        environment=environment(n_jobs, executor),
        notes=list(data.notes),
        test_rows_in=data.test_rows_in,
        started_at=started,
        multi_label=data.multi_label,
    )
    prepared_cache: PreparedCache = {}
    n_models = len(spec.models)
    # the models' out-of-fold probabilities, kept when combined models will be learnt from them
    out_of_fold: dict[str, OutOfFold] | None = {} if spec.evaluation.combine and n_models >= 2 else None
    spans = progress_spans(_model_seconds(spec, size, len(train) + len(test)))
    inputs = ModelRunInputs(data, folds, spec, run_folder(artefacts_dir, started), out_of_fold, executor)
    try:
        _run_models(spec, inputs, result, prepared_cache, spans, n_jobs, executor, on_event)
    finally:
        _release_language_models(spec)  # the memory of a language model with your codebook, once per study
    if out_of_fold is not None:
        add_combined_models(result, data, spec, out_of_fold, run_folder(artefacts_dir, started), on_event)
    result.environment = environment(n_jobs, executor)  # after the models: records torch and the GPU when used
    result.finished_at = now()
    on_event(Progress(1.0, "Finished"))
    return result


def _run_models(spec: ExperimentSpec, inputs: ModelRunInputs, result: ExperimentResult,
                prepared_cache: PreparedCache, spans: list, n_jobs: int, executor: Executor,
                on_event: EventCallback) -> None:
    """Run each model of the study in turn into ``result.models`` (a failing model is recorded with
    its reason; Cancel raises :class:`Cancelled` with the finished models on it)."""
    n_models = len(spec.models)
    for index, model in enumerate(spec.models):
        report = model_events(on_event, index, n_models, model.display_name, spans[index] if spans else None)
        on_event(TaskUpdate(index, "running", model.display_name))
        try:
            if model.representation == "transformer":
                from guiapp.core.experiment.families.transformer_runner import run_transformer_model

                model_result = run_transformer_model(model, inputs, report)
            elif model.representation in ("zero_shot", "setfit"):  # models that need few or no coded texts
                from guiapp.core.experiment.families.few_shot_runner import run_few_shot_model

                model_result = run_few_shot_model(model, inputs, report)
            elif model.representation == "codebook_llm":  # a language model with your codebook
                from guiapp.core.experiment.families.codebook_runner import run_codebook_model

                model_result = run_codebook_model(model, inputs, report)
            else:
                model_result = run_model(model, inputs, prepared_cache, n_jobs, report)
        except Cancelled as stop:
            on_event(TaskUpdate(index, "cancelled", model.display_name))
            # the models that had finished are not lost: the caller finds them on the exception
            result.status = "cancelled"
            result.environment = environment(n_jobs, executor)
            result.finished_at = now()
            stop.partial = result
            raise
        except (UserError, MemoryError, ValueError) as error:
            message = error.message if isinstance(error, UserError) else _plain_failure(error)
            model_result = _failed(model, message)
            on_event(Log(f"{model.display_name} failed: {message}", "error"))
            on_event(TaskUpdate(index, "failed", message, model_result))
        else:
            test = model_result.test
            assert test is not None
            on_event(
                Log(
                    f"{model.display_name}: test macro-F1 {test.macro_f1:.3f}; chosen "
                    f"{_describe_chosen(model, model_result.chosen_params)}; "
                    f"{model_result.seconds['total']:.1f} s."
                )
            )
            on_event(TaskUpdate(index, "done", model.display_name, model_result))
        result.models.append(model_result)


def _describe_chosen(model: ModelSpec, params: dict) -> str:
    return describe_params(model.classifier, params)


def _check_codebook_sources(spec: ExperimentSpec) -> None:
    """Refuse, in words, a language model with your codebook whose folder is missing, whose Hugging
    Face model is not on this computer, or whose server would get the texts without consent."""
    from guiapp.core.study.model_sources import check_codebook_source

    for model in spec.models:
        if model.representation == "codebook_llm":
            from guiapp.core.models.llm.codebook_options import codebook_llm_options

            try:
                check_codebook_source(model.classifier, codebook_llm_options(model.classifier,
                                                                             dict(model.representation_options)))
            except UserError as error:
                raise UserError(f"{model.display_name}: {error.message}", error.hint) from None


def _release_language_models(spec: ExperimentSpec) -> None:
    if any(model.representation == "codebook_llm" for model in spec.models):
        from guiapp.core.models.llm.codebook_model import release_language_model

        release_language_model()


def _model_seconds(spec: ExperimentSpec, size, n_texts: int) -> list[float | None]:  # size: a RunSize
    """Each model's expected seconds, the texts' sentence embeddings counted with the first model that
    needs them (for the progress bar's shares)."""
    from guiapp.core.experiment.speed.estimates import embedding_seconds

    # a language-model server's time is not known: then every model gets an equal share of the bar
    seconds: list[float | None] = [None if model.untimed else model.seconds for model in size.plan.models]
    if len(seconds) != len(spec.models):
        return [None] * len(spec.models)
    embedded: set[str] = set()
    for index, model in enumerate(spec.models):
        key = json.dumps([model.representation, model.representation_options], sort_keys=True, default=str)
        if model.representation == "sentence_embeddings" and key not in embedded and seconds[index] is not None:
            embedded.add(key)
            seconds[index] = (seconds[index] or 0.0) + embedding_seconds(model, n_texts)
    return seconds


def run_model(
    model: ModelSpec, inputs: ModelRunInputs, prepared_cache: PreparedCache, n_jobs: int, on_event: EventCallback
) -> ModelResult:
    """Tune, refit and test one model (see the module docstring); the final model is saved in a
    folder of its own under ``inputs.artefacts_dir`` (in safe formats, see ``conventional_files``).
    With ``inputs.out_of_fold``, the chosen setting's out-of-fold probabilities are kept there, under
    the model's name, for the combined models."""
    data, folds, spec = inputs.data, inputs.folds, inputs.spec
    artefacts_dir, out_of_fold, executor = inputs.artefacts_dir, inputs.out_of_fold, inputs.executor
    total_start = time.perf_counter()
    seconds: dict[str, float] = {}
    points = expand_grid(model.classifier, model.grid)
    prepare_share = 0.4 if model.representation == "sentence_embeddings" else 0.05

    start = time.perf_counter()
    representation, prepared = prepared_texts(model, data.texts, prepared_cache, on_event, prepare_share)
    ratio = spec.evaluation.oversampling_ratio if spec.evaluation.oversampling == "random" else None
    train, test = data.split.train, data.split.test
    fold_data = build_folds(
        representation, prepared, data.y, train, folds, ratio, spec.seed, sub_progress(on_event, prepare_share, prepare_share + 0.05)
    )
    seconds["features"] = time.perf_counter() - start
    if fold_data:
        on_event(Log(f"{model.display_name}: each text becomes {fold_data[0].X_train.shape[1]:,} numbers."))

    start = time.perf_counter()
    grid, chosen = grid_search(
        model.classifier, points, fold_data, spec.seed, n_jobs, sub_progress(on_event, prepare_share + 0.05, 0.92),
        executor,
    )
    seconds["tuning"] = time.perf_counter() - start
    tune = data.multi_label and spec.evaluation.tune_thresholds
    thresholds = None
    if out_of_fold is not None or tune:
        start = time.perf_counter()
        k = spec.evaluation.folds  # the first k splits cover every training text once
        probabilities = conventional_out_of_fold(model.classifier, grid[chosen].params, fold_data[:k], folds[:k], len(train),
                                                 len(data.categories), spec.seed, n_jobs, sub_progress(on_event, 0.92, 0.93),
                                                 executor)
        if tune:  # each category's threshold from the training texts' held-out answers, never the test texts
            thresholds = tuned_thresholds(data.y[train], probabilities, data.categories, model.display_name, on_event)
        if out_of_fold is not None:  # its time is the combined models', not this model's
            out_of_fold[model.display_name] = OutOfFold(probabilities, time.perf_counter() - start)
            total_start += out_of_fold[model.display_name].seconds
        else:
            seconds["thresholds"] = time.perf_counter() - start
    del fold_data
    if executor is not None:
        executor.forget()  # the workers may drop the folds' features
    chosen_params = grid[chosen].params

    on_event(Progress(0.93, "training the chosen setting on all training texts"))
    start = time.perf_counter()
    final = clone(representation).fit_prepared(prepared, train)
    X_train, y_train = final.transform_prepared(prepared, train), data.y[train]
    per_category_ratio = ratio if data.multi_label else None  # a text with several categories: per category
    if ratio is not None and not data.multi_label:
        drawn = oversampled_rows(y_train, ratio, spec.seed)
        X_train, y_train = X_train[drawn], y_train[drawn]
    def check() -> None:
        on_event(Progress(0.95, "training the chosen setting on all training texts"))

    fit_args = (model.classifier, chosen_params, spec.seed, os.cpu_count() or 1, X_train, y_train)
    if executor is not None and executor.remote:  # on the cluster, with one worker's threads
        piece = FinalFit(model.classifier, chosen_params, spec.seed, executor.threads_per_worker(), per_category_ratio)
        classifier = executor.call(check, run_piece, (piece, executor.share((X_train, y_train))))
        executor.forget()
    elif n_jobs > 1:  # in a worker process, so that Cancel can stop even a long final fit at once
        classifier = process_pool.call(n_jobs, check, fit_classifier, *fit_args, None, True, per_category_ratio)
    else:
        classifier = fit_classifier(*fit_args, check, probabilities=True, oversampling=per_category_ratio)
    if thresholds is not None:
        classifier.thresholds = thresholds
    seconds["final_fit"] = time.perf_counter() - start

    on_event(Progress(0.98, "predicting the test texts"))
    start = time.perf_counter()
    X_test = final.transform_prepared(prepared, test)
    predicted = predict(classifier, X_test)
    probabilities = predict_proba(classifier, X_test, len(data.categories))
    seconds["predict"] = time.perf_counter() - start
    artefact = _save_final(model, final, classifier, data, chosen_params, artefacts_dir, on_event)

    y_test = data.y[test]
    seconds["total"] = time.perf_counter() - total_start
    on_event(Progress(1.0, "done"))
    return ModelResult(
        name=model.display_name,
        representation=model.representation,
        classifier=model.classifier,
        spec=_full_spec(model, representation),
        chosen_params=chosen_params,
        cv_scores=grid[chosen].fold_scores,
        grid=grid,
        test=evaluate_on_test(y_test, predicted, data, spec, CI_LEVEL),
        predictions=answers(predicted),
        probabilities=None if probabilities is None else np.round(probabilities, 6).tolist(),
        seconds={name: round(value, 4) for name, value in seconds.items()},
        n_features=int(X_test.shape[1]),
        artefact=artefact,
        thresholds=[round(float(value), 4) for value in classifier.thresholds] if data.multi_label else [],
    )




def _save_final(model: ModelSpec, representation, classifier, data: StudyData, chosen: dict,
                artefacts_dir: Path | None, on_event: EventCallback) -> str:
    """Save the final model for predicting new texts later; a failure to save costs no results."""
    if artefacts_dir is None:
        return ""
    folder = Path(artefacts_dir) / model_folder_name(model.display_name)
    try:
        save_conventional(folder, representation, classifier, data.categories,
                          {"name": model.display_name, "chosen_params": chosen})
    except Exception as error:  # noqa: BLE001 — the results stand even when the model cannot be kept
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        on_event(Log(f"{model.display_name}: the trained model could not be saved, so it cannot be applied to new "
                     f"texts later ({reason}). Check that there is free disk space and run the study again.", "warning"))
        return ""
    return str(folder)


def _full_spec(model: ModelSpec, representation) -> dict:
    """The model's settings with every default written out, as used."""
    data = model.to_dict()
    data["name"] = model.display_name
    data["representation_options"] = {
        name: value for name, value in representation.get_params().items() if _jsonable(value)
    }
    data["grid"] = normalise_grid(model.classifier, model.grid)
    return data


def _jsonable(value: object) -> bool:
    try:
        json.dumps(value)
    except TypeError:
        return False
    return True


def _failed(model: ModelSpec, message: str) -> ModelResult:
    return ModelResult(
        name=model.display_name,
        representation=model.representation,
        classifier=model.classifier,
        spec=model.to_dict(),
        status="failed",
        message=message,
    )


def _plain_failure(error: BaseException) -> str:
    if isinstance(error, MemoryError):
        return "The computer ran out of memory for this model. Try fewer texts, a smaller grid or other features."
    return f"The model could not be trained: {error}"


def environment(n_jobs: int, executor: Executor | None = None) -> dict[str, object]:
    """What ran the study: versions and hardware, for the methods appendix."""
    packages = {}
    for name in ("scikit-learn", "xgboost", "imbalanced-learn", "numpy", "pandas", "PyStemmer", "torch", "transformers", "safetensors"):
        try:
            packages[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    accelerator = None
    if "torch" in sys.modules:  # only when a Transformer or sentence embeddings ran
        import torch

        accelerator = torch.cuda.get_device_name(0) if torch.cuda.is_available() else None
        packages["cuda"] = torch.version.cuda or ""
    return {
        "textlab": __version__,
        "gpu": accelerator,
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "worker_processes": n_jobs,
        **({"ran_on": executor.describe()} if executor is not None and executor.remote else {}),
        "packages": packages,
    }
