"""Plain sentences for the technical words of explanations, used as tooltips.

They belong to the explanation views (the Documents step's panel, the corpus words, the
attention map); the terms of the other steps live in :mod:`guiapp.ui.common.glossary`.
"""

from __future__ import annotations

from guiapp.core.explain.corpus_table import RANKING, RANKING_SENTENCE

ATTRIBUTION_TIP = (
    "Attribution: a score per word saying how much that word pushed the model toward the chosen "
    "category (positive, red) or away from it (negative, blue) for this one text."
)
ATTENTION_TIP = (
    "Attention: inside a Transformer, each word piece spreads its 'attention' over the other "
    "pieces (each row adds up to 1); it shows where the model looked, not why it decided."
)
ROLLOUT_TIP = (
    "Rollout: the attention of all layers combined, following how attention passes from one layer "
    "to the next (Abnar & Zuidema, 2020); a rough summary of where the whole model looked."
)
HEAD_TIP = (
    "Head: each layer of a Transformer looks at the text in several ways at once ('heads'); "
    "'all heads, averaged' shows their mean."
)
LAYER_TIP = "Layer: a Transformer reads a text in several rounds (layers); the first ones are closest to the words."
FAITHFULNESS_TIP = (
    "Faithfulness: a check of whether the coloured words really drive the model: remove them and "
    "the probability should drop a lot; keep only them and it should stay about the same."
)
MEAN_SCORE_TIP = (
    "Mean score: the word's attribution toward the category, averaged over the explained documents "
    "that contain it; positive means it usually pushes toward the category."
)
COEFFICIENT_TIP = (
    "Coefficient: the linear model's own weight for this word; it is the same in every text, while "
    "the mean score also depends on how often the word occurs."
)
WEIGHTED_TIP = (f"Weighted score ({RANKING}): how the words are ranked. " + RANKING_SENTENCE)
