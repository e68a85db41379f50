"""Hand-made explanation records (as the explain part would produce them) for view and export tests."""

from __future__ import annotations

import numpy as np

from guiapp.core.explain.attention_maps import AttentionMaps
from guiapp.core.explain.attribution import INTEGRATED_GRADIENTS, LINEAR_EXACT, Attribution, Faithfulness
from guiapp.core.explain.corpus_table import CorpusWord, CorpusWords
from guiapp.core.explain.words import split_words

IG_SENTENCE = ("Integrated gradients: each word's share of the model's score for the category, found by "
               "fading the word in from a blank text (500 steps).")
LINEAR_SENTENCE = ("Exact word contributions: the model's weight for each word times how often it occurs; "
                   "together with the intercept they give the model's score.")

SPEECH = (
    "Mr. Speaker, this tax bill is a giveaway to the wealthiest 1% & their lobbyists.\n"
    "It cuts <Medicare> and raises the deficit by $1.5 trillion. I will vote against it!"
)
SPEECH_SCORES = {
    "tax": 0.21, "giveaway": 0.92, "wealthiest": 0.64, "lobbyists": 0.41, "cuts": 0.55, "Medicare": 0.38,
    "deficit": 0.47, "against": 0.71, "vote": 0.12, "Speaker": -0.18, "bill": -0.09, "trillion": 0.05,
    "raises": 0.02, "&": -0.04, "<": 0.0, "!": 0.08, "I": -0.3, "1": 0.0001,
}


def attribution_for(text: str, scores: dict[str, float], **kwargs) -> Attribution:
    words = split_words(text)
    values = {
        "model": "BERT (fine-tuned)", "method": INTEGRATED_GRADIENTS, "method_sentence": IG_SENTENCE,
        "target": 1, "target_name": "against", "probability": 0.93, "scale": "logit",
        "base_value": -0.4, "delta": 0.002,
    }
    values.update(kwargs)
    return Attribution(words=words, scores=[scores.get(w.text, 0.0) for w in words], **values)


def speech() -> tuple[str, Attribution, Faithfulness]:
    """A short floor speech explained toward "against", its last sentence never read by the model."""
    attribution = attribution_for(SPEECH, SPEECH_SCORES)
    cut = SPEECH.index("I will")
    attribution.unseen = [(cut, len(SPEECH))]
    faithfulness = Faithfulness("against", 5, ["giveaway", "wealthiest", "cuts", "deficit", "lobbyists"],
                                0.93, 0.41, 0.88)
    return SPEECH, attribution, faithfulness


def linear_review() -> tuple[str, Attribution, None]:
    text = "Great support for farmers; the subsidy helps small farms survive. Good bill."
    scores = {"Great": 0.8, "support": 1.1, "farmers": 0.3, "subsidy": 0.6, "helps": 0.9, "Good": 0.7,
              "bill": -0.2, "small": -0.1}
    attribution = attribution_for(text, scores, model="Logistic regression · Basic BOW", method=LINEAR_EXACT,
                                  method_sentence=LINEAR_SENTENCE, target=0, target_name="for",
                                  probability=0.81, scale="margin")
    return text, attribution, None


def attention_maps(n_layers: int = 4, n_heads: int = 6) -> AttentionMaps:
    tokens = ["[CLS]", "this", "tax", "bill", "is", "a", "give", "##away", "to", "the", "wealth", "##iest",
              "[SEP]"]
    rng = np.random.default_rng(5)
    n = len(tokens)
    raw = rng.random((n_layers, n_heads, n, n)) ** 4
    raw[..., 2] += 0.4  # everything looks at "tax"
    attentions = (raw / raw.sum(axis=-1, keepdims=True)).astype(np.float32)
    rollout = np.eye(n)
    for layer in attentions.mean(axis=1):
        rollout = (0.5 * layer + 0.5 * np.eye(n)) @ rollout
    word_index = [-1, 0, 1, 2, 3, 4, 5, 5, 6, 7, 8, 8, -1]
    return AttentionMaps("BERT (fine-tuned)", tokens, word_index, attentions, rollout.astype(np.float32))


def corpus_words(coefficients: bool = False) -> CorpusWords:
    rows = [
        CorpusWord("against", "giveaway", 0.81, 42, 37, 1.9 if coefficients else None),
        CorpusWord("against", "deficit", 0.52, 120, 88, 1.2 if coefficients else None),
        CorpusWord("against", "cuts", 0.47, 95, 71, 0.8 if coefficients else None),
        CorpusWord("against", "wealthiest", 0.44, 18, 18, 1.4 if coefficients else None),
        CorpusWord("against", "lobbyists", 0.31, 25, 20, 0.7 if coefficients else None),
        CorpusWord("against", "Medicare", 0.29, 64, 40, 0.5 if coefficients else None),
        CorpusWord("against", "jobs", -0.22, 130, 97, -0.6 if coefficients else None),
        CorpusWord("against", "growth", -0.35, 77, 60, -0.9 if coefficients else None),
        CorpusWord("for", "jobs", 0.66, 130, 97, 0.6 if coefficients else None),
        CorpusWord("for", "growth", 0.58, 77, 60, 0.9 if coefficients else None),
        CorpusWord("for", "relief", 0.49, 54, 51, 1.1 if coefficients else None),
        CorpusWord("for", "families", 0.33, 88, 70, 0.4 if coefficients else None),
    ]
    return CorpusWords("BERT (fine-tuned)", INTEGRATED_GRADIENTS, 250, ["against", "for"], rows)
