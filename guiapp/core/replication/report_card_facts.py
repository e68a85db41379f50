"""The facts of a report card for a study's recommended model, as plain JSON values.

Every number is read from the study's results (``project.result``, the same values as its
``results.json``), its codings and its codebook, or computed from them with the study's own seed
and number of bootstrap resamples — never typed in. :mod:`.report_card` writes them as a page.

What the facts hold (keys of the returned dictionary):

* ``model`` — the recommended model (``ExperimentResult.best()``: chosen on the training texts alone,
  see ``experiment/results/recommendation.py``) and why it was chosen;
* ``training`` — the texts it learnt from and was tested on, the categories, the data's fingerprint,
  and, when the texts were coded in TextLab, the coders and the codebook's version;
* ``overall`` and ``per_category`` — macro-F1 and accuracy, and each category's F1 with a bootstrap
  interval (resampling the test texts with the study's seed);
* ``groups`` — the scores per group of test texts for each column the study kept for group
  comparisons (its metadata columns), when the table holds them;
* ``confusions`` and ``mistakes`` — the categories it confuses most, and its most confident
  mistakes among the test texts, with the text;
* ``agreement`` — its agreement with the coding (Cohen's κ, Krippendorff's α with intervals) beside
  the coders' agreement with each other (a coding team, or a second coder), where there is one;
* ``words`` — the words it relies on per category: the model's own weights for a linear model on a
  bag of words, else the explanations already computed on the Documents step;
* ``settings`` — the study's seed, folds, test share, resamples and the model's chosen settings.
"""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING, Any

import numpy as np

from guiapp.core.errors import UserError

if TYPE_CHECKING:
    from guiapp.core.experiment.results.experiment_result import ExperimentResult, ModelResult
    from guiapp.core.project.format import Project

TOP_CONFUSIONS = 5
TOP_MISTAKES = 5
TOP_WORDS = 8
MAX_GROUP_COLUMNS = 3
TEXT_SHOWN = 400  # characters of a mistaken text shown on the card
LEVEL = 0.95


def _num(value: Any) -> float | None:
    """A finite number rounded for the page's JSON, or None."""
    if value is None or isinstance(value, bool):
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def _pair(values: Any) -> list[float | None] | None:
    if not values:
        return None
    low, high = (_num(v) for v in values)
    return None if low is None or high is None else [low, high]


def report_card_facts(project: Project) -> dict[str, Any]:
    """The report card's facts for ``project``'s recommended model; :class:`UserError` in words when
    the project holds no finished run."""
    result = project.result
    model = result.best() if result is not None else None
    if result is None or model is None or model.test is None:
        raise UserError("This project holds no finished run, so there is no model to describe.",
                        "Run the study on the Run step first; the report card describes the model it recommends.")
    recommendation = result.recommendation()
    samples, seed = result.protocol.samples(1000), int(result.protocol.seed or 0)
    facts: dict[str, Any] = {
        "format": "textlab-report-card", "version": 1,
        "study_name": result.study_source.study_name or project.spec.name or "",
        "run_finished": result.finished_at,
        "textlab_version": str(result.environment.get("textlab", "")),
        "multi_label": bool(result.multi_label),
        "model": {
            "name": model.name, "representation": model.representation, "classifier": model.classifier,
            "cv_macro_f1": _num(model.cv_mean),
            "why": recommendation.reason if recommendation is not None and recommendation.model is model else
            "It is the only finished model of the study." if len(result.finished_models()) == 1 else
            "It has the highest macro-F1 on the test texts.",
            "others": [{"name": other.name, "macro_f1": _num(other.test.macro_f1)}
                       for other in result.ranked()[1:] if other.test is not None],
        },
        "training": _training(project, result),
        "overall": {
            "macro_f1": _num(model.test.macro_f1), "macro_f1_ci": _pair(model.test.macro_f1_ci),
            "ci_level": _num(model.test.ci_level), "accuracy": _num(model.test.accuracy),
            "test_texts": result.n_test_texts, "samples": samples, "seed": seed,
        },
        "per_category": _per_category(result, model, samples, seed),
        "groups": _groups(project, result, model),
        "confusions": _confusions(result, model),
        "mistakes": _mistakes(result, model),
        "agreement": {"model": _model_agreement(result, model, samples, seed),
                      "coders": _coders_agreement(project, samples, seed)},
        "words": _words(project, result, model),
        "settings": _settings(result, model),
    }
    json.dumps(facts, allow_nan=False)  # plain values only
    return facts


# -- what it learnt from -----------------------------------------------------------------------------
def _training(project: Project, result: ExperimentResult) -> dict[str, Any]:
    split, source = result.test_split, result.study_source
    counts = np.zeros(len(result.categories), dtype=int)
    for true in result.test_true:
        for index in (true if isinstance(true, list) else [true]):
            counts[int(index)] += 1
    facts: dict[str, Any] = {
        "n_train": split.n_train, "n_test": split.n_test, "split": split.description,
        "categories": list(result.categories),
        "test_texts_per_category": {name: int(count) for name, count in zip(result.categories, counts, strict=True)},
        "source_name": project.source_name or source.source.rsplit("/", 1)[-1],
        "source_sha256": project.source_sha256 or source.sha256, "table_rows": source.rows,
        "text_columns": list(source.mapping.text_columns), "category_column": source.mapping.category_column,
        "coded_in_textlab": None,
    }
    log = project.codings
    if log is not None and len(log):
        study = log.study_codings()
        coders = [coder for coder in (log.team.coders if log.team is not None else log.coders()) if coder]
        history = log.history
        facts["coded_in_textlab"] = {
            "texts": sum(1 for text in study.texts if text.category is not None),
            "coders": coders,
            "codebook_version": history.current.number if history is not None else None,
            "codebook_versions": len(history.versions) if history is not None else 0,
            "codebook_categories": len(project.codebook) if project.codebook is not None and len(project.codebook)
            else len(history.current.codebook) if history is not None else 0,
        }
    return facts


def _settings(result: ExperimentResult, model: ModelResult) -> dict[str, Any]:
    protocol = result.protocol
    return {
        "seed": protocol.seed, "folds": protocol.folds, "cv_repeats": protocol.cv_repeats,
        "test_share": _num(protocol.test_share), "bootstrap_samples": protocol.bootstrap_samples,
        "oversampling": protocol.oversampling, "transformer_tuning": protocol.transformer_tuning,
        "chosen": {str(name): value for name, value in model.chosen_params.items()
                   if isinstance(value, str | int | float | bool) or value is None},
        "python": str(result.environment.get("python", "")),
        "started": result.started_at, "finished": result.finished_at,
    }


# -- how well it does ----------------------------------------------------------------------------------
def category_f1_intervals(truth: list, predicted: list, n_classes: int, samples: int, seed: int,
                          level: float = LEVEL) -> list[tuple[float, float] | None]:
    """A percentile bootstrap interval of each category's F1 (one category per text), resampling the
    test texts with replacement; None for a category neither coded nor predicted."""
    truth_a, predicted_a = np.asarray(truth, dtype=int), np.asarray(predicted, dtype=int)
    n = len(truth_a)
    if n == 0 or samples <= 0:
        return [None] * n_classes
    rng = np.random.default_rng(seed)
    pair = truth_a * n_classes + predicted_a
    f1 = np.empty((samples, n_classes))
    chunk = max(1, 2_000_000 // max(n, 1))
    for start in range(0, samples, chunk):
        stop = min(samples, start + chunk)
        offsets = (np.arange(stop - start) * n_classes**2)[:, None]
        cells = (pair[rng.integers(0, n, size=(stop - start, n))] + offsets).ravel()
        tables = np.bincount(cells, minlength=(stop - start) * n_classes**2).reshape(-1, n_classes, n_classes)
        tp = np.diagonal(tables, axis1=1, axis2=2).astype(float)
        denominator = tables.sum(axis=1) + tables.sum(axis=2)
        f1[start:stop] = np.divide(2 * tp, denominator, out=np.zeros_like(tp), where=denominator > 0)
    present = (np.bincount(truth_a, minlength=n_classes) + np.bincount(predicted_a, minlength=n_classes)) > 0
    tail = (1 - level) / 2
    return [(float(np.quantile(f1[:, k], tail)), float(np.quantile(f1[:, k], 1 - tail))) if present[k] else None
            for k in range(n_classes)]


def _per_category(result: ExperimentResult, model: ModelResult, samples: int, seed: int) -> list[dict[str, Any]]:
    assert model.test is not None
    if result.multi_label:
        intervals = [scores.f1_ci for scores in model.test.per_category]
    else:
        intervals = category_f1_intervals(result.test_true, model.predictions, len(result.categories), samples, seed)
    return [{"category": scores.category, "f1": _num(scores.f1), "f1_ci": _pair(interval),
             "precision": _num(scores.precision), "recall": _num(scores.recall), "support": int(scores.support)}
            for scores, interval in zip(model.test.per_category, intervals, strict=True)]


def _groups(project: Project, result: ExperimentResult, model: ModelResult) -> list[dict[str, Any]]:
    """The recommended model's scores per group for each column kept for group comparisons."""
    from guiapp.core.errors import DataError
    from guiapp.core.experiment.scores.subgroup_scores import candidate_columns, subgroup_scores

    mapping = result.study_source.mapping
    table = project.test_table if result.test_split.from_test_file and project.test_table is not None else project.table
    if table is None or not len(result.test_rows):
        return []
    wanted = [column for column in mapping.metadata_columns if column in candidate_columns(table, mapping)]
    found = []
    for column in wanted[:MAX_GROUP_COLUMNS]:
        try:
            scores = subgroup_scores(result, project.table, column, model.name, test_table=project.test_table)
        except (DataError, UserError, ValueError, KeyError, IndexError):
            continue
        groups = scores.model(model.name).groups
        found.append({
            "column": column, "score_name": scores.score_name, "note": scores.score_note(),
            "describe": scores.describe(), "headline": scores.model(model.name).headline,
            "groups": [{"label": g.label, "n_texts": g.n_texts,
                        "macro_f1": _num(g.macro_f1) if g.macro_f1_meaningful else None,
                        "macro_f1_ci": _pair(g.macro_f1_interval) if g.macro_f1_meaningful else None,
                        "share_right": _num(g.share_right), "share_right_ci": _pair(g.share_right_interval),
                        "verdict": g.verdict, "flagged": bool(g.flagged)} for g in groups],
        })
    return found


# -- where it fails ----------------------------------------------------------------------------------
def _confusions(result: ExperimentResult, model: ModelResult) -> list[dict[str, Any]]:
    """The pairs (coded as, answered) the model mixes up most, from the confusion matrix; where a text
    can have several categories, the categories it misses and adds most."""
    assert model.test is not None
    categories = result.categories
    if model.test.multi_label:
        rows = []
        for name, matrix in zip(categories, model.test.category_confusions or [], strict=False):
            (_, false_pos), (false_neg, _) = matrix
            rows.append({"coded": name, "predicted": None, "missed": int(false_neg), "added": int(false_pos),
                         "count": int(false_neg) + int(false_pos)})
        return sorted((row for row in rows if row["count"]), key=lambda row: -row["count"])[:TOP_CONFUSIONS]
    matrix = np.asarray(model.test.confusion, dtype=int)
    if matrix.size == 0:
        return []
    pairs = [(int(matrix[i, j]), i, j) for i in range(len(matrix)) for j in range(len(matrix)) if i != j and matrix[i, j]]
    pairs.sort(key=lambda item: (-item[0], item[1], item[2]))
    coded_totals = matrix.sum(axis=1)
    return [{"coded": categories[i], "predicted": categories[j], "count": count,
             "share_of_coded": _num(count / coded_totals[i]) if coded_totals[i] else None}
            for count, i, j in pairs[:TOP_CONFUSIONS]]


def _as_names(value: Any, categories: list[str]) -> str:
    if isinstance(value, list):
        return ", ".join(categories[int(v)] for v in value) or "(none)"
    return categories[int(value)]


def _mistakes(result: ExperimentResult, model: ModelResult) -> list[dict[str, Any]]:
    """The test texts the model got wrong with the highest probability for its answer."""
    wrong = [i for i, (true, said) in enumerate(zip(result.test_true, model.predictions, strict=False))
             if (sorted(true) if isinstance(true, list) else true) != (sorted(said) if isinstance(said, list) else said)]
    probabilities = model.probabilities

    def confidence(i: int) -> float | None:
        if not probabilities or i >= len(probabilities):
            return None
        said = model.predictions[i]
        chosen = said if isinstance(said, list) else [said]
        values = [probabilities[i][int(k)] for k in chosen] if chosen else [1 - max(probabilities[i])]
        return float(min(values))

    ranked = sorted(wrong, key=lambda i: -(confidence(i) or 0.0))[:TOP_MISTAKES]
    rows = []
    for i in ranked:
        text = result.test_texts[i] if i < len(result.test_texts) else ""
        rows.append({"row": result.test_rows[i] if i < len(result.test_rows) else None,
                     "coded": _as_names(result.test_true[i], result.categories),
                     "predicted": _as_names(model.predictions[i], result.categories),
                     "confidence": _num(confidence(i)),
                     "text": text if len(text) <= TEXT_SHOWN else text[:TEXT_SHOWN].rstrip() + "…"})
    return rows


# -- agreement -----------------------------------------------------------------------------------------
def _model_agreement(result: ExperimentResult, model: ModelResult, samples: int, seed: int) -> dict[str, Any] | None:
    from guiapp.core.experiment.scores.comparisons import agreement_with_coding

    found = next((a for a in agreement_with_coding(result, samples, seed) if a.model == model.name), None)
    if found is None:
        return None
    return {"n_texts": found.n_texts, "share_agreeing": _num(found.share_agreeing),
            "kappa": _num(found.kappa), "kappa_ci": _pair(found.kappa_interval),
            "alpha": _num(found.alpha), "alpha_ci": _pair(found.alpha_interval), "level": found.level}


def _coders_agreement(project: Project, samples: int, seed: int) -> dict[str, Any] | None:
    """The coders' agreement with each other: a coding team's α (and Fleiss' κ), else a second coder's
    α and κ against the first; None when only one person coded."""
    from guiapp.core.coding.second_coder import compare_coders, split_by_coder
    from guiapp.core.errors import DataError

    log = project.codings
    if log is None or not len(log):
        return None
    if log.team_mode:
        from guiapp.core.export.appendix_coding_team import coding_team_facts

        facts = coding_team_facts(log, categories=project.codebook.names() or None) or {}
        agreement = facts.get("agreement")
        if not agreement:
            return {"who": "team", "coders": facts.get("coders", []), "problem": facts.get("agreement_problem", "")}
        fleiss = agreement.get("fleiss") or {}
        return {"who": "team", "coders": facts.get("coders", []), "n_texts": agreement.get("texts_compared"),
                "alpha": agreement.get("alpha"), "alpha_ci": _pair(agreement.get("alpha_interval")),
                "kappa": fleiss.get("kappa"), "kappa_ci": _pair(fleiss.get("interval")), "kappa_name": "Fleiss' κ",
                "level": agreement.get("level")}
    first, second = split_by_coder(log.entries)
    if not second:
        return None
    try:
        found = compare_coders(first, second, samples=samples, seed=seed)
    except DataError as error:
        return {"who": "second coder", "coders": [], "problem": str(error)}
    return {"who": "second coder", "coders": [c for c in log.coders() if c], "n_texts": found.n_texts,
            "share_agreeing": _num(found.share_agreeing),
            "alpha": _num(found.alpha), "alpha_ci": _pair(found.alpha_interval),
            "kappa": _num(found.kappa), "kappa_ci": _pair(found.kappa_interval), "kappa_name": "Cohen's κ",
            "level": found.level}


# -- the words it relies on ----------------------------------------------------------------------------
def _words(project: Project, result: ExperimentResult, model: ModelResult) -> dict[str, Any]:
    """Per category, the words with the largest weight toward it: the model's own weights (a linear
    model on a bag of words), else the explanations already computed for it."""
    folder = project.model_folder(model.name)
    if folder is not None and folder.is_dir() and model.representation == "bow":
        try:
            from guiapp.core.explain.corpus_words import linear_coefficients
            from guiapp.core.predict.open_model import open_trained_model

            trained = open_trained_model(folder, model.name)
            weights = linear_coefficients(trained, top=TOP_WORDS) if hasattr(trained, "representation") else {}
        except (UserError, OSError, ValueError, TypeError, AttributeError):
            weights = {}
        if weights:
            language = getattr(trained.representation, "stem_language", None)
            written = _written_forms(result.test_texts, language) if language else {}
            return {"source": "model weights", "documents": None, "stemmed": bool(language) and not written,
                    "per_category": {name: [[written.get(word, word), round(w, 4)] for word, w in words.items() if w > 0]
                                     for name, words in weights.items()}}
    return _explained_words(project, result, model)


def _written_forms(texts: list[str], language: str) -> dict[str, str]:
    """Each stem's most frequent written form among ``texts`` ("militari" → "military"); a term of
    several words keeps its stems."""
    import re
    from collections import Counter, defaultdict

    from guiapp.core.explain.corpus_words import word_key

    forms: dict[str, Counter] = defaultdict(Counter)
    for text in texts:
        for token in re.findall(r"\w+", text.casefold()):
            forms[word_key(token, language)][token] += 1
    return {stem: counts.most_common(1)[0][0] for stem, counts in forms.items()}


def _explained_words(project: Project, result: ExperimentResult, model: ModelResult) -> dict[str, Any]:
    from guiapp.core.explain.attribution import Attribution
    from guiapp.core.explain.cache import FORMAT, model_file_name
    from guiapp.core.explain.corpus_words import corpus_words

    none = {"source": None, "documents": 0, "per_category": {}}
    raw = project.explanations.get(model_file_name(model.name)) if project.explanations else None
    if not raw:
        return none
    try:
        data = json.loads(raw)
        if data.get("format") != FORMAT or data.get("model") != model.name:
            return none
        attributions = [Attribution.from_dict(value) for value in data.get("attributions", {}).values()]
    except (ValueError, TypeError, KeyError, AttributeError):
        return none
    if not attributions:
        return none
    by_method: dict[str, list] = {}
    for attribution in attributions:
        by_method.setdefault(attribution.method, []).append(attribution)
    method, chosen = max(by_method.items(), key=lambda item: len(item[1]))
    words = corpus_words(chosen, result.categories, model.name, method, top=TOP_WORDS, min_documents=1)
    per_category = {name: [[row.word, round(row.mean_score, 4)] for row in words.for_category(name, 1)
                           if row.mean_score > 0]
                    for name in result.categories}
    return {"source": "explanations", "documents": words.n_documents,
            "per_category": {name: rows for name, rows in per_category.items() if rows}}
