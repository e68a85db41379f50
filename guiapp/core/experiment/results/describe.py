"""A model's chosen setting in a line of words, whatever its family (for logs and the command line)."""

from __future__ import annotations

from guiapp.core.experiment.results.experiment_result import ModelResult


def describe_chosen(model: ModelResult) -> str:
    """"C (strictness) = 1", "learning rate 0.0001, 4 epochs", "weighted vote: SVM · Basic BOW 40 %, …",
    "2 examples per category, TextLab's instruction"."""
    if model.representation == "combined":
        weights = model.combination.weights if model.combination is not None else {}
        shares = ", ".join(f"{name} {weight:.0%}" for name, weight in weights.items())
        how = "weighted vote" if model.classifier == "weighted_vote" else "stacking"
        return f"{how}: {shares}" if shares else how
    from guiapp.core.errors import UserError
    from guiapp.core.models.conventional import describe_params

    try:
        return describe_params(model.classifier, model.chosen_params)
    except (UserError, KeyError, TypeError, ValueError):  # a classifier this version does not know
        return ", ".join(f"{name} = {value}" for name, value in model.chosen_params.items())
