"""What the Results step says about a combined model (``representation = "combined"``): which
models it combines, with which weights, learnt on which texts, and how it did on the held-out parts
of those texts. Plain functions of the result; the page only shows them."""

from __future__ import annotations

from guiapp.core.experiment import ModelResult

COMBINED_TERMS = ["combined model", "weighted vote", "stacking", "out-of-fold", "macro-F1", "fold", "weight"]
COMBINED_STAGES = (
    ("out_of_fold", "Refitting each model's chosen setting inside the folds (out-of-fold answers)"),
    ("combining", "Learning the combination"),
    ("total", "Total, with the training of the models it combines"),
)


def is_combined(model: ModelResult) -> bool:
    return model.representation == "combined"


def _share(weight: float) -> str:
    return f"{weight:.0%}"


def _weights(model: ModelResult) -> dict[str, float]:
    combination = model.combination
    return dict(combination.weights) if combination is not None else {}


def summary_part(model: ModelResult) -> str:
    """For the line under the chart, e.g. "combines 3 models"."""
    return f"combines {len(_weights(model))} models"


def chosen_text(model: ModelResult) -> str:
    weights = _weights(model)
    if model.classifier == "weighted_vote":
        used = [f"{name} ({_share(weight)})" for name, weight in weights.items() if weight > 0]
        unused = [name for name, weight in weights.items() if weight <= 0]
        text = "A weighted vote: it averages the probabilities of " + _join(used) + "."
        if unused:
            text += f" {_join(unused)} got no weight: adding {'it' if len(unused) == 1 else 'them'} did not help."
        return text
    shares = [f"{name} {_share(weight)}" for name, weight in weights.items()]
    return ("Stacking: a logistic regression reads the probabilities of " + _join(list(weights)) +
            " and learns which to trust for each category. How much each counts (share of the regression's "
            "weights): " + _join(shares) + ".")


def how_text(model: ModelResult) -> str:
    combination = model.combination
    where = (combination.learnt_on if combination is not None else "") or "the training texts"
    if model.classifier == "weighted_vote":
        how = "The weights were chosen to give the best macro-F1 on"
    else:
        strength = model.chosen_params.get("C")
        how = ("The regression" + (f" (regularisation C = {strength:g}, chosen by cross-validation)" if strength else "")
               + " was learnt on")
    return (f"This combined model was learnt after the others. {how} {where} (each from a model fitted without "
            "that text). The test texts were used only once, to score it like every other model.")


def folds_text(model: ModelResult) -> str:
    scores = model.cv_scores
    if not scores:
        return "Too few texts to check the combination on held-out parts of the training texts."
    shown = "  ·  ".join(f"{score:.2f}" for score in scores)
    text = (f"Its macro-F1 on each of {len(scores)} held-out parts of those texts (the combination learnt on the "
            f"others): {shown}  —  mean {model.cv_mean:.2f}")
    combination = model.combination
    evidence = combination.against_parts if combination is not None else None
    if evidence is not None:
        se = f", standard error {evidence.advantage_se:.3f}" if evidence.folds > 1 else ""
        text += (f". On the same parts its best model, {evidence.best_part}, scored {evidence.best_part_score:.2f}: "
                 f"a difference of {evidence.advantage:+.3f}{se}.")
    return text


def _join(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]
