"""The model families that need few or no coded texts (zero-shot, SetFit and a language model with
your codebook), as explanations see them.

All read the whole text through a language model (every character, punctuation included, at a
cost that grows with the text's length) and hold no weight per word: they are explained by leaving
words out, through the model's own answer for the chosen category (a language model with your
codebook: its probability of the category, or of "yes" to the category's question; on a server
there is nothing else to read).
"""

from __future__ import annotations

from guiapp.core.predict.trained_model import TrainedModel

FEW_SHOT_FAMILIES = frozenset({"zero_shot", "setfit", "codebook_llm"})
CODEBOOK_FAMILY = "codebook_llm"


def is_few_shot(model: TrainedModel) -> bool:
    """Whether ``model`` is a zero-shot, a SetFit model or a language model with your codebook."""
    return getattr(model, "family", "") in FEW_SHOT_FAMILIES


def is_codebook_llm(model: TrainedModel) -> bool:
    """Whether ``model`` is a generative language model coding with the codebook (one prompt pass of
    a language model per answer, or one per category where a text can have several)."""
    return getattr(model, "family", "") == CODEBOOK_FAMILY
