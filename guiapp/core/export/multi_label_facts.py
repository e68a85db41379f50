"""What every export of a study where a text can have several categories says the same way: the
categories of a text in words ("Economy; Health"), how the decision thresholds were set, and the
measures reported beside macro-F1, each with its one-line meaning (from the engine's own
:data:`~guiapp.core.experiment.scores.multilabel_metrics.MULTI_LABEL_MEASURES`).
"""

from __future__ import annotations

from collections.abc import Sequence

from guiapp.core.experiment.scores.multilabel_metrics import MULTI_LABEL_MEASURES
from guiapp.core.experiment.results.experiment_result import ExperimentResult, ModelResult
from guiapp.core.experiment.scores.thresholds import DEFAULT_THRESHOLD
from guiapp.core.study.label_sets import LIST_SEPARATOR, NO_CATEGORY

# the measures reported for the whole test set, in the order the exports list them
OVERALL_MEASURES = ("macro_f1", "micro_f1", "accuracy", "hamming_loss")
SUBSET_ACCURACY_WORDS = "all categories of a text right"


def measure_label(name: str) -> str:
    """``"Micro-F1"``, ``"Exact match (subset accuracy)"`` …"""
    return MULTI_LABEL_MEASURES[name][0]


def measure_meaning(name: str) -> str:
    """The measure's meaning in one line, starting with a capital and ending with a full stop."""
    meaning = MULTI_LABEL_MEASURES[name][1]
    return meaning[:1].upper() + meaning[1:] + ("" if meaning.endswith(".") else ".")


def categories_text(indices: Sequence[int], categories: Sequence[str]) -> str:
    """A text's categories in category order, joined by "; " ("(none of the categories)" for none)."""
    names = [str(categories[index]) for index in sorted(int(i) for i in indices)]
    return LIST_SEPARATOR.join(names) if names else NO_CATEGORY


def thresholds_tuned(result: ExperimentResult) -> bool:
    """Whether the study tuned each category's threshold on the training texts' out-of-fold probabilities."""
    evaluation = result.spec.get("evaluation") if isinstance(result.spec, dict) else None
    return bool(evaluation.get("tune_thresholds")) if isinstance(evaluation, dict) else False


def threshold_rule(result: ExperimentResult) -> str:
    """How a category was decided, in one sentence."""
    if thresholds_tuned(result):
        return ("A text is put in a category when the model's probability for it reaches that category's "
                "threshold, tuned per category for the best F1 on the out-of-fold probabilities of the training "
                "texts (never on the test texts).")
    return (f"A text is put in a category when the model's probability for it reaches {DEFAULT_THRESHOLD:g}; "
            "each category is decided on its own.")


def model_thresholds(model: ModelResult, n_categories: int) -> list[float | None]:
    """The model's threshold per category (None where the result did not record one)."""
    recorded = [float(value) for value in model.thresholds]
    return recorded if len(recorded) == n_categories else [None] * n_categories
