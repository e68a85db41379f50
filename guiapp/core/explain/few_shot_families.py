"""The model families that need few or no coded texts (zero-shot and SetFit), as explanations see them.

Both read the whole text through a language model (every character, punctuation included, at a
cost that grows with the text's length) and hold no weight per word: they are explained by leaving
words out, through the model's own answer for the chosen category.
"""

from __future__ import annotations

from guiapp.core.predict.trained_model import TrainedModel

FEW_SHOT_FAMILIES = frozenset({"zero_shot", "setfit"})


def is_few_shot(model: TrainedModel) -> bool:
    """Whether ``model`` is a zero-shot or a SetFit model."""
    return getattr(model, "family", "") in FEW_SHOT_FAMILIES
