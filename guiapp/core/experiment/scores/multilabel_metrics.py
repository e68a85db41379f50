"""How well predictions agree with the human coding when a text can have several categories.

The coding ``Y_true`` and the predictions ``Y_pred`` are indicator matrices (test texts ×
categories, uint8 0/1). The headline is macro-F1 over the categories coded or predicted in the test
texts (a category with neither is left out, as for single-label studies); beside it micro-F1,
subset accuracy (texts whose categories the model got exactly), Hamming loss, and per category
precision, recall, F1 (with a bootstrap interval), support, predicted and its 2×2 table.

Intervals are percentile bootstraps over the test texts: a resample draws whole texts with
replacement, so a text's categories stay together; the macro-F1 interval and every category's F1
interval come from the same resamples (:func:`guiapp.core.stats.multilabel_scores.bootstrap_f1`).

:data:`MULTI_LABEL_MEASURES` says in one line what each measure means, for the window and the appendix.
"""

from __future__ import annotations

import numpy as np

from guiapp.core.experiment.scores.metrics import CategoryScores
from guiapp.core.experiment.results.experiment_result import TestResult
from guiapp.core.stats.multilabel_scores import (
    bootstrap_f1,
    category_counts,
    category_table,
    check_pair,
    f1_from_counts,
    macro_f1_from_counts,
    micro_f1_from_counts,
    percentile_interval,
)

MACRO_F1_MEANS = ("the average of the categories' F1 scores, each category counting equally "
                  "(categories neither coded nor predicted in the test texts are left out)")
MICRO_F1_MEANS = "F1 over every (text, category) decision pooled, so frequent categories weigh more"
SUBSET_ACCURACY_MEANS = "the share of test texts whose categories the model got exactly: all of them and no others"
HAMMING_LOSS_MEANS = "the share of (text, category) decisions the model got wrong"
PRECISION_MEANS = "of the texts the model put in this category, the share you coded with it"
RECALL_MEANS = "of the texts you coded with this category, the share the model found"
F1_MEANS = "the balance of precision and recall for this category (1 is perfect, 0 means no hit)"
F1_INTERVAL_MEANS = "the range this category's F1 would likely take with other test texts"
SUPPORT_MEANS = "how many test texts you coded with this category"
PREDICTED_MEANS = "how many test texts the model put in this category"
CATEGORY_CONFUSION_MEANS = ("per category, the test texts both left out, the model alone added, the model missed, "
                            "and both put in it")

# name (as in TestResult / CategoryScores) -> (label on screen, what it means in one line)
MULTI_LABEL_MEASURES: dict[str, tuple[str, str]] = {
    "macro_f1": ("Macro-F1", MACRO_F1_MEANS),
    "micro_f1": ("Micro-F1", MICRO_F1_MEANS),
    "accuracy": ("Exact match (subset accuracy)", SUBSET_ACCURACY_MEANS),
    "hamming_loss": ("Hamming loss", HAMMING_LOSS_MEANS),
    "precision": ("Precision", PRECISION_MEANS),
    "recall": ("Recall", RECALL_MEANS),
    "f1": ("F1", F1_MEANS),
    "f1_ci": ("F1 interval", F1_INTERVAL_MEANS),
    "support": ("Coded", SUPPORT_MEANS),
    "predicted": ("Predicted", PREDICTED_MEANS),
    "category_confusions": ("Per-category table", CATEGORY_CONFUSION_MEANS),
}


def macro_f1(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """Mean F1 over the categories coded or predicted in these texts (0 when there are none)."""
    return float(macro_f1_from_counts(*category_counts(y_true, y_pred)))


def micro_f1(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    return micro_f1_from_counts(*category_counts(y_true, y_pred))


def subset_accuracy(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """The share of texts whose predicted categories are exactly the coded ones (0 for no texts)."""
    truth, predicted = check_pair(y_true, y_pred)
    return float(np.all(truth == predicted, axis=1).mean()) if len(truth) else 0.0


def hamming_loss(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """The share of (text, category) decisions that differ from the coding (0 for no texts)."""
    truth, predicted = check_pair(y_true, y_pred)
    return float((truth != predicted).mean()) if truth.size else 0.0


def category_confusions(y_true: np.ndarray, y_pred: np.ndarray) -> list[list[list[int]]]:
    """Per category [[true negatives, false positives], [false negatives, true positives]]
    (rows: the coding, columns: the prediction; as scikit-learn's ``multilabel_confusion_matrix``)."""
    tp, fp, fn = category_counts(y_true, y_pred)
    tn = len(np.asarray(y_true)) - tp - fp - fn
    return [[[int(a), int(b)], [int(c), int(d)]] for a, b, c, d in zip(tn, fp, fn, tp, strict=True)]


def category_scores(
    y_true: np.ndarray, y_pred: np.ndarray, categories: list[str],
    f1_cis: list[tuple[float, float] | None] | None = None,
) -> list[CategoryScores]:
    """Precision, recall, F1, support and predicted per category (0 where undefined, as
    scikit-learn's ``zero_division=0``), with the F1 intervals ``f1_cis`` when given."""
    table = category_table(y_true, y_pred)
    _check_categories(len(table["f1"]), categories)
    cis = f1_cis if f1_cis is not None else [None] * len(categories)
    return [
        CategoryScores(name, float(p), float(r), float(f), int(s), int(n), ci)
        for name, p, r, f, s, n, ci in zip(categories, table["precision"], table["recall"], table["f1"],
                                           table["support"], table["predicted"], cis, strict=True)
    ]


def bootstrap_intervals(
    y_true: np.ndarray, y_pred: np.ndarray, samples: int, seed: int, level: float = 0.95
) -> tuple[tuple[float, float] | None, list[tuple[float, float] | None]]:
    """Percentile bootstrap intervals over the test texts, from one set of resamples: (macro-F1's
    interval, each category's F1 interval). A category neither coded nor predicted in the test texts
    has no interval (None); for the others, resamples without the category are set aside. (None,
    [None, …]) when ``samples`` is 0 or there are no texts."""
    truth, predicted = check_pair(y_true, y_pred)
    if samples <= 0 or len(truth) == 0:
        return None, [None] * truth.shape[1]
    macro, per_category = bootstrap_f1(truth, [predicted], samples, seed)
    _, counted = f1_from_counts(*category_counts(truth, predicted))
    cis = [percentile_interval(per_category[:, 0, k], level) if counted[k] else None
           for k in range(truth.shape[1])]
    return percentile_interval(macro[:, 0], level), cis


def multilabel_test_result(
    y_true: np.ndarray, y_pred: np.ndarray, categories: list[str], samples: int, seed: int, level: float = 0.95
) -> TestResult:
    """The one evaluation on the test texts of a study where a text can have several categories:
    ``accuracy`` is the subset accuracy and ``confusion`` is empty (the 2×2 tables per category are
    in ``category_confusions``)."""
    truth, predicted = check_pair(y_true, y_pred)
    _check_categories(truth.shape[1], categories)
    macro_ci, f1_cis = bootstrap_intervals(truth, predicted, samples, seed, level)
    return TestResult(
        macro_f1=macro_f1(truth, predicted),
        macro_f1_ci=macro_ci,
        ci_level=level,
        accuracy=subset_accuracy(truth, predicted),
        per_category=category_scores(truth, predicted, categories, f1_cis),
        confusion=[],
        micro_f1=micro_f1(truth, predicted),
        hamming_loss=hamming_loss(truth, predicted),
        category_confusions=category_confusions(truth, predicted),
    )


def _check_categories(columns: int, categories: list[str]) -> None:
    if columns != len(categories):
        raise ValueError(f"The coding has {columns:,} category columns but {len(categories):,} categories are named.")
