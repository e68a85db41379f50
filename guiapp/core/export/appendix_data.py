"""The facts behind the methods appendix: ``build_appendix`` turns an ``ExperimentResult`` into a
plain, JSON-able dictionary.

Only facts that are in the result (or that the caller passes in) are written; a fact that is not
known is left out rather than guessed, so the prose and the tables built from this dictionary
never show an invented number. Scores are copied unrounded; rounding is for the prose and HTML.

A model that needs few or no coded texts adds ``few_shot``: for a zero-shot model the language
model, the template, each category's description (or that it was described by its name) and that it
learnt from no coded text; for SetFit the sentence model, its pairs, epochs, learning rate and head.
A language model with your codebook adds ``codebook`` (``codebook_facts.codebook_appendix_facts``):
the language model and its weights' SHA-256 or the server's digest, the runtime, the full prompt and
its hash, k, seed, temperature, the prompt sensitivity and whether the texts left the computer.

A study where a text can have several categories adds ``data.multi_label`` (with the texts without
a category), ``evaluation.multi_label`` (how the categories were decided and stratified, the
measures with their meaning), per model micro-F1, Hamming loss, its thresholds and each category's
F1 interval; ``test.accuracy`` is then the subset accuracy.
"""

from __future__ import annotations

import copy
import dataclasses
import math
import re
import statistics
from datetime import UTC, datetime
from pathlib import PurePath, PureWindowsPath
from typing import Any

from guiapp import APP_NAME, __version__
from guiapp.core.experiment.results.result_parts import Combination, StudyProtocol
from guiapp.core.experiment.results.experiment_result import ExperimentResult, ModelResult
from guiapp.core.export.codebook_facts import codebook_appendix_facts
from guiapp.core.export.multi_label_facts import (
    OVERALL_MEASURES,
    measure_label,
    measure_meaning,
    threshold_rule,
    thresholds_tuned,
)
from guiapp.core.models.conventional import CLASSIFIERS, describe_params
from guiapp.core.models.llm.codebook_options import CODEBOOK_LLM, GRID_LABELS
from guiapp.core.study.category_fixes import CategoryFixes
from guiapp.core.study.sections import (
    CODEBOOK_LLM_CLASSIFIER_LABELS,
    FEW_SHOT_CLASSIFIER_LABELS,
    REPRESENTATION_LABELS,
)

APPENDIX_VERSION = 1
RANDOM_SPLIT = "random hold-out"
SPLIT_NAMES = {"random": RANDOM_SPLIT, RANDOM_SPLIT: RANDOM_SPLIT, "split column": "split column", "test file": "test file"}
# the option that names a pre-trained model or vector file, per representation
PRETRAINED_OPTION = {"word_vectors": "vectors", "sentence_embeddings": "model", "transformer": "model",
                     "zero_shot": "model", "setfit": "model", "codebook_llm": "model"}
SETTING_LABELS = {"learning_rate": "Learning rate", "epochs": "Epochs", "pairs_per_text": "Pairs per text"}
FEW_SHOT = ("zero_shot", "setfit")
ITERATIVE_STRATIFICATION = "iterative stratification (Sechidis et al., 2011)"


def build_appendix(
    result: ExperimentResult, *, data_sha256: str | None = None, extra: dict[str, Any] | None = None,
    learning_curve: Any = None,
) -> dict[str, Any]:
    """The methods appendix as data (see the module docstring).

    ``data_sha256`` is the checksum of the coded-texts file when the caller knows it (else the
    study's own, if it recorded one). ``extra`` is merged in last, dictionaries key by key: e.g.
    ``{"data": {"rows": 1500}}`` adds the number of rows of the table, which a result does not hold.
    """
    protocol = result.protocol
    ranked = result.ranked()
    rank = {id(model): position for position, model in enumerate(ranked, start=1)}
    appendix: dict[str, Any] = {
        "appendix_version": APPENDIX_VERSION,
        "study": _drop_empty({
            "name": result.study_source.study_name,
            "seed": protocol.seed,
            "status": result.status,
            "started_at": result.started_at,
            "finished_at": result.finished_at,
        }),
        "data": _data(result, data_sha256),
        "split": _split(result),
        "evaluation": _evaluation(result, protocol),
        "models": [_model(model, protocol, rank.get(id(model)), result.categories) for model in result.models],
        "best_model": ranked[0].name if ranked else None,
        "comparisons": _comparisons(result) if len(ranked) >= 2 else None,
        "learning_curve": _learning_curve(learning_curve) if learning_curve is not None else None,
        "software": _software(result.environment),
        "hardware": _hardware(result),
        "notes": list(result.notes),
        "generated_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "generated_by": f"{APP_NAME} {__version__}",
    }
    if extra:
        _merge(appendix, copy.deepcopy(extra))
    return appendix


def _data(result: ExperimentResult, data_sha256: str | None) -> dict[str, Any]:
    source = result.study_source
    mapping = source.mapping
    counts = [0] * len(result.categories)
    for answer in result.test_true:
        for index in (answer if result.multi_label else [answer]):
            if 0 <= index < len(counts):
                counts[index] += 1
    data = {
        "file": file_name(source.source),
        "sheet": source.sheet,
        "sha256": data_sha256 or source.sha256 or None,
        "test_file": file_name(source.test_source),
        "test_sheet": source.test_sheet if source.test_source else None,
        "text_columns": list(mapping.text_columns),
        "category_column": mapping.category_column,
        "id_column": mapping.id_column,
        "split_column": mapping.split_column,
        # fixes of the categories the study recorded (the data file itself was not changed)
        "category_fixes": _category_fixes(source.category_fixes),
        "coded_texts": result.test_split.coded_texts,
        "n_categories": len(result.categories),
        "multi_label": _label_sets(result) if result.multi_label else None,
        # how many test texts each category has: the only per-category counts a result holds
        "categories": [
            {"name": name, "test_texts": counts[index]} if result.test_true else {"name": name}
            for index, name in enumerate(result.categories)
        ],
    }
    return _drop_empty(data)


def _label_sets(result: ExperimentResult) -> dict[str, Any]:
    """How the categories of a study where a text can have several were coded, and how many per test text."""
    mapping = result.study_source.mapping
    sizes = [len(answer) for answer in result.test_true]
    facts: dict[str, Any] = {
        "layout": "one 0/1 column per category" if mapping.category_columns else "categories listed in one column",
        "category_columns": list(mapping.category_columns) or None,
        "label_separator": mapping.label_separator if mapping.category_column else None,
    }
    if sizes:
        facts["test_texts_without_category"] = sum(1 for size in sizes if size == 0)
        facts["mean_categories_per_test_text"] = statistics.fmean(sizes)
    return _drop_empty(facts)


def _category_fixes(fixes: CategoryFixes) -> dict[str, Any] | None:
    """``[data] category_fixes`` with a sentence for the HTML appendix; None when there are none."""
    if fixes.is_empty():
        return None
    return {**fixes.to_dict(), "summary": fixes.summary()}


def _split(result: ExperimentResult) -> dict[str, Any]:
    recorded = result.test_split
    how = SPLIT_NAMES.get(recorded.how, recorded.how or None)
    split = {
        "how": how,
        "n_train": recorded.n_train,
        "n_test": recorded.n_test,
        "description": recorded.description,
    }
    if how == RANDOM_SPLIT:
        split["test_share"] = result.protocol.test_share
        split["stratified"] = True  # the random hold-out keeps each category's share
        if result.multi_label:  # several categories per text: iterative stratification (Sechidis et al., 2011)
            split["stratification"] = ITERATIVE_STRATIFICATION
    if how == "split column":
        split["split_column"] = result.study_source.mapping.split_column
    if how == "test file":
        split["test_file"] = file_name(result.study_source.test_source)
    return _drop_empty(split)


def _evaluation(result: ExperimentResult, protocol: StudyProtocol) -> dict[str, Any]:
    levels = {model.test.ci_level for model in result.finished_models() if model.test and model.test.macro_f1_ci}
    oversampling = protocol.oversampling
    facts = {
        "folds": protocol.folds,
        "selection_metric": "macro-averaged F1",
        "oversampling": oversampling,
        "oversampling_ratio": protocol.oversampling_ratio if oversampling == "random" else None,
        "bootstrap_samples": protocol.bootstrap_samples,
        "ci_level": levels.pop() if len(levels) == 1 else None,
        "seed": protocol.seed,
    }
    if any(model.representation in ("transformer", "setfit") for model in result.models):
        facts["transformer_tuning"] = protocol.transformer_tuning
        facts["validation_share"] = protocol.validation_share
    if result.multi_label:
        facts["multi_label"] = _multi_label_protocol(result)
    return _drop_empty(facts)


def _multi_label_protocol(result: ExperimentResult) -> dict[str, Any]:
    """How a study where a text can have several categories decided and scored them."""
    families = sorted({(model.representation if model.representation in ("transformer", "combined", *FEW_SHOT,
                                                                          CODEBOOK_LLM)
                        else "conventional") for model in result.models})
    return {
        "model_families": families,
        "stratification": ITERATIVE_STRATIFICATION,
        "thresholds": "tuned" if thresholds_tuned(result) else "0.5",
        "threshold_rule": threshold_rule(result),
        "measures": {measure_label(name): measure_meaning(name) for name in OVERALL_MEASURES},
    }


def _model(model: ModelResult, protocol: StudyProtocol, rank: int | None, categories: list[str]) -> dict[str, Any]:
    options = model.representation_options
    device = model.device
    info = CLASSIFIERS.get(model.classifier)
    facts: dict[str, Any] = {
        "name": model.name,
        "status": model.status,
        "message": model.message or None,
        "rank": rank,
        "representation": model.representation,
        "representation_label": REPRESENTATION_LABELS.get(model.representation, model.representation),
        "classifier": model.classifier,
        "classifier_label": info.label if info else ("Fine-tuning" if model.classifier == "fine_tune" else
                                                     FEW_SHOT_CLASSIFIER_LABELS.get(model.classifier) or
                                                     CODEBOOK_LLM_CLASSIFIER_LABELS.get(model.classifier,
                                                                                        model.classifier)),
        "options": options,
        "pretrained": _pretrained(model.representation, options),
        "grid": _grid_searched(model.classifier, model.settings_tried or _grid_from_points(model)),
        "grid_labels": (dict(GRID_LABELS) if model.representation == CODEBOOK_LLM else
                        _grid_labels(model.classifier, model.settings_tried or _grid_from_points(model))),
        "n_settings": len(model.grid) or None,
        "tuning": model.tuning or (f"{protocol.folds}-fold cross-validation" if protocol.folds else None),
        "device": dataclasses.asdict(device) if device is not None else None,
        "model_notes": model.notes or None,
        "n_features": model.n_features or None,
        "seconds": dict(model.seconds) or None,
    }
    if model.representation in FEW_SHOT:
        facts["few_shot"] = _few_shot(model, categories)
    if model.representation == CODEBOOK_LLM:
        facts["codebook"] = codebook_appendix_facts(model)
        facts["pretrained"] = facts["codebook"].get("language_model") or facts.get("pretrained")
    if model.representation == "combined":
        facts.update(_combined(model))
    elif model.representation == "zero_shot":  # nothing tuned; scored on the study's folds like every model
        facts.update(grid=None, grid_labels=None, n_settings=None, tuning=None)
        facts.update(_cv_summary(model))
    elif model.chosen_params:
        facts["chosen"] = dict(model.chosen_params)
        facts["chosen_text"] = _describe(model.classifier, model.chosen_params)
        facts.update(_cv_summary(model))
    test = model.test
    if model.ok and test is not None:
        facts["test"] = _drop_empty({
            "macro_f1": test.macro_f1,
            "macro_f1_ci": list(test.macro_f1_ci) if test.macro_f1_ci else None,
            "ci_level": test.ci_level if test.macro_f1_ci else None,
            "accuracy": test.accuracy,  # several categories per text: the subset accuracy
            "micro_f1": test.micro_f1,
            "hamming_loss": test.hamming_loss,
        })
        facts["per_category"] = [  # a category neither coded nor predicted in the test texts has no scores
            {"category": s.category, "support": s.support,
             **({"precision": s.precision, "recall": s.recall, "f1": s.f1} if s.counted else
                {"precision": None, "recall": None, "f1": None}),
             **({"f1_ci": list(s.f1_ci)} if s.f1_ci is not None and s.counted else {}),
             **({"predicted": s.predicted} if test.multi_label and s.predicted >= 0 else {})}
            for s in test.per_category
        ]
        facts["thresholds"] = [float(value) for value in model.thresholds] or None
    return _drop_empty(facts)


COMBINED_LABELS = {"weighted_vote": "Weighted vote", "stacking": "Stacking"}


def _few_shot(model: ModelResult, categories: list[str]) -> dict[str, Any]:
    """What a zero-shot or SetFit model was made of: for zero-shot the template and each category's
    description (a category without one was described by its name) and that no coded text was
    learnt from; for SetFit the pairs, epochs, learning rate and head."""
    options = model.representation_options
    if model.representation == "setfit":
        chosen = model.chosen_params or {}
        return _drop_empty({
            "learnt_from_coded_texts": True,
            "sentence_model": model_name(str(options["model"])) if options.get("model") else None,
            "pairs_per_text": chosen.get("pairs_per_text"),
            "epochs": chosen.get("epochs"),
            "learning_rate": chosen.get("learning_rate"),
            "pairs": model.spec.get("pairs") if isinstance(model.spec.get("pairs"), int) else None,
            "max_pairs": options.get("max_pairs"),
            "head": model.spec.get("head"),
            "max_length": options.get("max_length"),
        })
    given = options.get("descriptions") if isinstance(options.get("descriptions"), dict) else {}
    examples = options.get("examples") if isinstance(options.get("examples"), dict) else {}
    return _drop_empty({
        "learnt_from_coded_texts": False,
        "kind": model.classifier,
        "language_model": model_name(str(options["model"])) if options.get("model") else None,
        "template": options.get("template"),
        "temperature": options.get("temperature") if model.classifier == "similarity" else None,
        "descriptions": [
            {"category": name, "description": str(given[name]), "by_name": False} if given.get(name) else
            {"category": name, "description": name, "by_name": True} for name in categories],
        "examples": {str(name): len(texts) for name, texts in examples.items() if isinstance(texts, list) and texts}
        or None,
    })


def _combined(model: ModelResult) -> dict[str, Any]:
    """A combined model's facts: what it combines, with which weights, learnt on how many texts."""
    combination = model.combination or Combination()
    scores = list(model.cv_scores)
    return {
        "representation_label": "Combined model",
        "classifier_label": COMBINED_LABELS.get(model.classifier, model.classifier),
        "grid": None, "grid_labels": None, "tuning": None, "n_features": None,
        "parts": list(combination.parts),
        "weights": dict(combination.weights),
        "learnt_on_texts": combination.learnt_on_texts,
        "stacking_C": (model.chosen_params or {}).get("C"),
        "cv_scores": scores or None,
        "cv_mean": statistics.fmean(scores) if scores else None,
        "cv_splits": len(scores) or None,
    }


def _learning_curve(curve: Any) -> dict[str, Any]:
    """A drawn learning curve (LearningCurveResult): sizes, draws, tuning, and per model its means and reading."""
    from guiapp.core.experiment.curves.learning_curve_reading import read_curves

    readings = {reading.model: reading for reading in read_curves(curve)}
    return {
        "sizes": list(curve.sizes), "repeats": curve.repeats, "tuning": curve.tuning, "n_test": curve.n_test,
        "models": [{"name": model.name, "means": {str(p.size): p.mean for p in model.summary()},
                    **({"axis": model.axis} if model.over_examples else {}),  # over examples per category (k)
                    **_last_doubling(readings[model.name]), "reading": readings[model.name].words}
                   for model in curve.models if model.ok and model.name in readings],
    }


def _last_doubling(reading: Any) -> dict[str, Any]:
    """How the curve's last doubling was read (``learning_curve_reading.trend_of``): the trend, the
    gain per doubling with the spread between draws (per doubling), and the two sizes."""
    facts = {"trend": reading.trend, "gain_per_doubling": reading.gain_per_doubling,
             "spread_per_doubling": reading.spread_per_doubling, "from_size": reading.from_size,
             "to_size": reading.to_size}
    return {key: value for key, value in facts.items() if value is not None}


def _comparisons(result: ExperimentResult) -> dict[str, Any] | None:
    """The best model against the runner-up on the same test texts, and its agreement with the coding."""
    from guiapp.core.experiment.scores.comparisons import compare_models

    found = compare_models(result)
    ranked = result.ranked()
    best, second = ranked[0].name, ranked[1].name
    pair = next((c for c in found.test_set if {c.model_a, c.model_b} == {best, second}), None)
    agreement = next((a for a in found.agreement if a.model == best), None)
    facts: dict[str, Any] = {}
    if pair is not None and pair.n_only_a_right is None:  # the paired bootstrap of the difference in macro-F1
        sign = 1 if pair.model_a == best else -1
        low, high = sorted((sign * (pair.ci_low or 0.0), sign * (pair.ci_high or 0.0)))
        facts["best_vs_second"] = {
            "best": best, "second": second, "method": pair.method, "p": pair.p_value, "p_holm": pair.p_holm,
            "n_pairs": pair.n_comparisons, "difference": sign * (pair.mean_difference or 0.0),
            "difference_ci": [low, high], "level": pair.level,
        }
    elif pair is not None:
        best_first = pair.model_a == best
        facts["best_vs_second"] = {
            "best": best, "second": second, "method": pair.method, "p": pair.p_value, "p_holm": pair.p_holm,
            "n_pairs": pair.n_comparisons,
            "only_best_right": pair.n_only_a_right if best_first else pair.n_only_b_right,
            "only_second_right": pair.n_only_b_right if best_first else pair.n_only_a_right,
        }
    if agreement is not None:
        facts["best_agreement"] = {"kappa": agreement.kappa, "kappa_ci": list(agreement.kappa_interval),
                                   "alpha": agreement.alpha, "alpha_ci": list(agreement.alpha_interval)}
        if agreement.per_category:  # several categories per text: each category a yes/no coding, then the mean
            facts["best_agreement"]["mean_over_categories"] = True
    return _drop_empty(facts) or None


def _cv_summary(model: ModelResult) -> dict[str, Any]:
    """Mean and standard deviation of the chosen setting's fold scores, as the grid search recorded them."""
    point = next((p for p in model.grid if p.params == model.chosen_params), None)
    scores = list(point.fold_scores if point else model.cv_scores)
    if point is not None:
        mean, sd = point.mean, point.std
    elif scores:
        mean, sd = statistics.fmean(scores), statistics.pstdev(scores)
    else:
        return {}
    return {"cv_scores": scores, "cv_mean": mean, "cv_sd": sd if len(scores) > 1 else None, "cv_splits": len(scores)}


def _describe(classifier: str, params: dict[str, Any]) -> str:
    try:
        return describe_params(classifier, params)
    except (KeyError, TypeError, ValueError):
        return ", ".join(f"{name} = {value}" for name, value in params.items())


def _grid_from_points(model: ModelResult) -> dict[str, list[Any]]:
    """The values tried per setting, read from the grid points when the spec does not list them."""
    grid: dict[str, list[Any]] = {}
    for point in model.grid:
        for name, value in point.params.items():
            if value not in grid.setdefault(name, []):
                grid[name].append(value)
    return grid


def _grid_searched(classifier: str, grid: dict[str, Any]) -> dict[str, list[Any]]:
    grid = {name: list(values) for name, values in grid.items()}
    if classifier == "svm" and "rbf" not in grid.get("kernel", ["rbf"]):
        grid.pop("gamma", None)  # γ only matters for the RBF kernel
    return grid


def _grid_labels(classifier: str, grid: dict[str, Any]) -> dict[str, str]:
    info = CLASSIFIERS.get(classifier)
    parameters = info.parameters if info else {}
    return {
        name: parameters[name].label if name in parameters else SETTING_LABELS.get(name, name)
        for name in _grid_searched(classifier, grid)
    }


def _pretrained(representation: str, options: dict[str, Any]) -> str | None:
    option = PRETRAINED_OPTION.get(representation)
    value = options.get(option) if option else None
    return model_name(str(value)) if value else None


def model_name(value: str) -> str:
    """A hub id (``roberta-base``, ``org/model``) as it is; a local folder or file by its last part."""
    if value.startswith(("/", "~", "\\", ".")) or re.match(r"^[A-Za-z]:[\\/]", value) or value.count("/") > 1:
        return file_name(value)
    return value


def file_name(path: str) -> str:
    """The last part of a path, Windows or POSIX, so the appendix does not show the user's folders."""
    if not path:
        return ""
    return PureWindowsPath(path).name if "\\" in path else PurePath(path).name


def _software(environment: dict[str, Any]) -> dict[str, Any]:
    return _drop_empty({
        "app": APP_NAME,
        "textlab": environment.get("textlab"),  # the version that ran the study
        "python": environment.get("python"),
        "platform": environment.get("platform"),
        "packages": dict(environment.get("packages") or {}),
    })


def _hardware(result: ExperimentResult) -> dict[str, Any]:
    environment = result.environment
    devices = []
    for model in result.models:
        device = model.device
        if device is not None and device.name and device.name not in devices:
            devices.append(device.name)
    return _drop_empty({
        "processor": environment.get("processor"),
        "cpu_count": environment.get("cpu_count"),
        "worker_processes": environment.get("worker_processes"),
        "gpu": environment.get("gpu"),
        "transformer_devices": devices,
    })


def _drop_empty(facts: dict[str, Any]) -> dict[str, Any]:
    """Leave out what is not known: None, empty strings and empty collections; NaN never gets in."""
    return {
        key: value
        for key, value in facts.items()
        if value is not None
        and value != ""
        and not (isinstance(value, list | dict) and not value)
        and not (isinstance(value, float) and not math.isfinite(value))
    }


def _merge(target: dict[str, Any], extra: dict[str, Any]) -> None:
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(target.get(key), dict):
            _merge(target[key], value)
        else:
            target[key] = value
