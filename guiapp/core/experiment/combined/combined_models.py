"""The combined models of a study: built after the compared models from their out-of-fold
probabilities (``out_of_fold.py``, ``combining.py``), tested on the same test texts with the same
metrics and interval, and saved so they can be applied to new texts like any other model.

Each combined model is a :class:`ModelResult` with ``representation = "combined"`` and
``classifier`` ``"weighted_vote"`` or ``"stacking"``; its ``spec`` names the models it combines
(``parts``), their weights, and on how many training texts the combination was learnt.
Its ``cv_scores`` are the combination learnt on all folds but one of the out-of-fold texts and
scored on the one left, in turn (everything it learns — the vote's weights, stacking's regression and
its strength — learnt anew without the fold), and ``spec["against_parts"]`` compares it with each
part on the same folds (``combined_evidence.py``).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np

from guiapp.core.atomic import write_text_atomic
from guiapp.core.events import EventCallback, Log
from guiapp.core.experiment.combined import combining
from guiapp.core.experiment.results.artefacts import COMBINED_FILE, COMBINED_FORMAT, model_folder_name
from guiapp.core.experiment.combined.combined_evidence import AgainstParts, against_parts
from guiapp.core.experiment.protocol.held_out import CI_LEVEL, evaluate_on_test
from guiapp.core.experiment.protocol.out_of_fold import OutOfFold
from guiapp.core.experiment.results.experiment_result import ExperimentResult, ModelResult, answers
from guiapp.core.experiment.scores.threshold_choice import tuned_thresholds
from guiapp.core.study.spec import ExperimentSpec
from guiapp.core.study.study_data import StudyData

METHOD_NAMES = {"weighted_vote": "Combined: weighted vote", "stacking": "Combined: stacking"}
MIN_TEXTS_PER_CATEGORY = 2  # out-of-fold texts of each category needed to learn a combination


def add_combined_models(
    result: ExperimentResult,
    data: StudyData,
    spec: ExperimentSpec,
    out_of_fold: dict[str, OutOfFold],
    artefacts_dir: Path | None,
    on_event: EventCallback,
) -> list[ModelResult]:
    """Append the combined models to ``result.models`` (and return them); a combination that cannot
    be learnt is explained in the log and left out, never failing the study."""
    parts = [model for model in result.models
             if model.ok and model.probabilities is not None and model.name in out_of_fold]
    if len(parts) < 2:
        if len(result.finished_models()) >= 2:
            on_event(Log("No combined model: fewer than two finished models give probabilities.", "warning"))
        return []
    start = time.perf_counter()
    oof = [out_of_fold[model.name] for model in parts]
    rows = np.logical_and.reduce([part.covered for part in oof])
    y = data.y[data.split.train][rows]
    multi = y.ndim == 2
    if multi:  # every category some texts have needs enough of them
        counts = y.sum(axis=0)
        present = np.flatnonzero(counts)
        counts = counts[present]
    else:
        present, counts = np.unique(y, return_counts=True)
    if len(present) < 2 or counts.min() < MIN_TEXTS_PER_CATEGORY:
        on_event(Log("No combined model: too few training texts were held out from every model to learn how to "
                     "combine them.", "warning"))
        return []
    learn = [part.probabilities[rows] for part in oof]
    tested = [np.asarray(model.probabilities, dtype=float) for model in parts]
    where = _where_learnt(int(rows.sum()), len(rows))
    folds = _held_out_folds(y, spec.seed)
    part_scores = {model.name: [combining.macro_f1(y[held], combining.decide(part[held], multi)) for _, held in folds]
                   for model, part in zip(parts, learn, strict=True)}
    added = []
    for method in ("weighted_vote", "stacking"):
        begun = time.perf_counter()
        try:
            combiner = _learn(method, learn, y, len(data.categories), spec.seed)
        except ValueError as error:
            on_event(Log(f"{METHOD_NAMES[method]} could not be learnt: {error}.", "warning"))
            continue
        fold_scores, held_out = _held_out_scores(method, learn, y, len(data.categories), spec.seed, folds)
        evidence = against_parts(fold_scores, part_scores, int(rows.sum())) if fold_scores else None
        if multi and spec.evaluation.tune_thresholds and fold_scores:
            # on the combination's own held-out answers for the training texts, never the test texts
            combiner.thresholds = [round(float(value), 4) for value in tuned_thresholds(
                y, held_out, data.categories, METHOD_NAMES[method], on_event)]
        probabilities = combiner.combine(tested)
        predicted = combining.decide(probabilities, multi, combiner.thresholds)
        name = _free_name(METHOD_NAMES[method], result)
        learnt_seconds = time.perf_counter() - begun
        extra = sum(part.seconds for part in oof) + learnt_seconds
        combined = ModelResult(
            name=name,
            representation="combined",
            classifier=method,
            spec=_spec(name, method, combiner, parts, int(rows.sum()), where, evidence),
            chosen_params=_chosen(combiner, parts),
            cv_scores=fold_scores,
            test=evaluate_on_test(data.y[data.split.test], predicted, data, spec, CI_LEVEL),
            predictions=answers(predicted),
            probabilities=np.round(probabilities, 6).tolist(),
            thresholds=(combiner.thresholds or [0.5] * len(data.categories)) if multi else [],
            seconds={
                "out_of_fold": round(sum(part.seconds for part in oof), 4),
                "combining": round(learnt_seconds, 4),
                # training it takes its parts' training and the refits inside the folds
                "total": round(sum(model.total_seconds or 0.0 for model in parts) + extra, 4),
            },
            n_features=len(parts) * len(data.categories),
        )
        combined.artefact = _save(combined, combiner, parts, data.categories, artefacts_dir, on_event)
        assert combined.test is not None
        on_event(Log(f"{name} of {', '.join(model.name for model in parts)}: test macro-F1 "
                     f"{combined.test.macro_f1:.3f}; learnt on {where}."))
        if evidence is not None and evidence.below_every_part:
            on_event(Log(f"{name} scored below every model it combines in cross-validation "
                         f"({evidence.score:.3f} against {evidence.worst_part_score:.3f}–{evidence.best_part_score:.3f}); "
                         "it is shown for comparison but never recommended.", "warning"))
        added.append(combined)
    result.models.extend(added)
    if added:
        on_event(Log(f"The combined models added {time.perf_counter() - start + sum(p.seconds for p in oof):.1f} s "
                     "(refitting inside the folds and learning the combination)."))
    return added


def _learn(method: str, probabilities: list[np.ndarray], y: np.ndarray, n_categories: int, seed: int):
    vote = combining.choose_vote_weights(probabilities, y)
    if method == "weighted_vote":
        return vote
    return combining.fit_stacking(probabilities, y, n_categories, seed, vote=vote)


def _held_out_folds(y: np.ndarray, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Up to five stratified folds of the out-of-fold texts (none when a category has a single text);
    iteratively stratified where a text can have several categories."""
    counts = y.sum(axis=0) if y.ndim == 2 else np.bincount(y)
    n_folds = int(min(5, counts[counts > 0].min()))
    if n_folds < 2:
        return []
    if y.ndim == 2:
        from iterstrat.ml_stratifiers import MultilabelStratifiedKFold

        return list(MultilabelStratifiedKFold(n_splits=n_folds, shuffle=True, random_state=seed).split(np.zeros(len(y)), y))
    from sklearn.model_selection import StratifiedKFold

    return list(StratifiedKFold(n_splits=n_folds, shuffle=True, random_state=seed).split(np.zeros(len(y)), y))


def _held_out_scores(method: str, probabilities: list[np.ndarray], y: np.ndarray, n_categories: int,
                     seed: int, folds: list[tuple[np.ndarray, np.ndarray]]) -> tuple[list[float], np.ndarray]:
    """Macro-F1 of the combination learnt without each fold of the out-of-fold texts, on that fold, and
    those held-out probabilities (NaN where no fold covered a text)."""
    scores = []
    held_out = np.full(probabilities[0].shape, np.nan)
    for learn_rows, score_rows in folds:
        try:
            combiner = _learn(method, [part[learn_rows] for part in probabilities], y[learn_rows], n_categories, seed)
        except ValueError:
            return [], held_out
        combined = combiner.combine([part[score_rows] for part in probabilities])
        held_out[score_rows] = combined
        scores.append(combining.macro_f1(y[score_rows], combining.decide(combined, y.ndim == 2)))
    return [float(score) for score in scores], held_out


def _where_learnt(n_rows: int, n_train: int) -> str:
    if n_rows == n_train:
        return f"the out-of-fold probabilities of all {n_train:,} training texts"
    return (f"the {n_rows:,} of {n_train:,} training texts held out from every model "
            "(a fine-tuned Transformer or SetFit tuned on one validation split has out-of-fold probabilities for "
            "those only, unless training it again in each fold was expected to take under ten minutes)")


def part_weights(combiner, parts: list[ModelResult]) -> dict[str, float]:
    """How much each part counts: the vote's weights, or the stacking's share of coefficient size."""
    weights = combiner.weights if isinstance(combiner, combining.WeightedVote) else combiner.part_influence
    return {model.name: round(float(weight), 4) for model, weight in zip(parts, weights, strict=True)}


def _chosen(combiner, parts: list[ModelResult]) -> dict:
    if isinstance(combiner, combining.WeightedVote):
        return {"weights": part_weights(combiner, parts)}
    return {"C": combiner.C, "influence": part_weights(combiner, parts)}


def _spec(name: str, method: str, combiner, parts: list[ModelResult], n_rows: int, where: str,
          evidence: AgainstParts | None) -> dict:
    return {
        **({"against_parts": evidence.to_dict()} if evidence is not None else {}),
        "name": name,
        "representation": "combined",
        "classifier": method,
        "parts": [model.name for model in parts],
        "weights": part_weights(combiner, parts),
        "learnt_on_texts": n_rows,
        "learnt_on": where,
        "combiner": combiner.to_dict(),
    }


def _free_name(name: str, result: ExperimentResult) -> str:
    taken = {model.name for model in result.models}
    candidate, number = name, 2
    while candidate in taken:
        candidate, number = f"{name} ({number})", number + 1
    return candidate


def _save(combined: ModelResult, combiner, parts: list[ModelResult], categories: list[str],
          artefacts_dir: Path | None, on_event: EventCallback) -> str:
    """Save the combination (plain JSON) beside its parts' folders; the parts are found by name."""
    if artefacts_dir is None or not all(model.artefact for model in parts):
        return ""
    folder = Path(artefacts_dir) / model_folder_name(combined.name)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        write_text_atomic(folder / COMBINED_FILE, json.dumps(combined_file(combined.name, combiner, parts, categories),
                                                                 indent=2, ensure_ascii=False) + "\n")
    except OSError as error:
        on_event(Log(f"{combined.name}: could not be saved, so it cannot be applied to new texts later "
                     f"({error.strerror or error}).", "warning"))
        return ""
    return str(folder)


def combined_file(name: str, combiner, parts: list[ModelResult], categories: list[str]) -> dict:
    return {
        "format": COMBINED_FORMAT,
        "version": 1,
        "name": name,
        "categories": list(categories),
        "parts": [{"name": model.name, "folder": Path(model.artefact).name} for model in parts],
        "combiner": combiner.to_dict(),
    }
