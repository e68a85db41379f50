"""How an NLI model's answers become zero-shot probabilities, as in Hugging Face's zero-shot
pipeline.

An NLI (natural language inference) model reads a premise and a hypothesis and answers whether the
premise entails, contradicts or is neutral to the hypothesis. Zero-shot: premise = the text,
hypothesis = "This text is about <category>."; then

- one category per text: a softmax over the categories of the *entailment* logits (the pipeline
  with ``multi_label=False``);
- several categories per text: for each category on its own, a softmax over its (contradiction,
  entailment) logits, i.e. P(entailment) = sigmoid(entailment − contradiction) (the pipeline with
  ``multi_label=True``).

Which of the model's answers is "entailment" (and "contradiction") is read from its configuration
(``id2label``), never guessed from positions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from scipy.special import expit

from guiapp.core.errors import UserError

_CHOOSE = "Choose an NLI model such as facebook/bart-large-mnli."


def nli_pairs(texts: Sequence[str], hypotheses: Sequence[str]) -> list[tuple[str, str]]:
    """Every (premise, hypothesis) pair the model is asked about, text by text: the pair of text i
    and category k is at position ``i * len(hypotheses) + k``."""
    return [(text, hypothesis) for text in texts for hypothesis in hypotheses]


def nli_label_ids(id2label: Mapping[object, object], model_name: str, multi_label: bool) -> tuple[int, int | None]:
    """The positions of the model's "entailment" answer and of its "contradiction" answer (None
    when there is none and it is not needed). Labels are matched without regard to case: one that
    starts with "entail" is entailment, one that starts with "contradict" is contradiction; a model
    with only two answers (entailment and e.g. "not_entailment") uses the other one as the
    contradiction. A :class:`UserError` in plain words when the model cannot serve."""
    labels: dict[int, str] = {}
    for key, value in dict(id2label or {}).items():
        try:
            labels[int(key)] = str(value)  # type: ignore[call-overload]
        except (TypeError, ValueError):
            continue
    listed = ", ".join(f"“{labels[i]}”" for i in sorted(labels)) or "none"
    entail = [i for i, label in labels.items() if label.strip().lower().startswith("entail")]
    if not entail:
        raise UserError(
            f"The model “{model_name}” has no 'entailment' answer (its answers are: {listed}), so it "
            "cannot be asked whether a text is about a category.", _CHOOSE)
    if len(entail) > 1:
        raise UserError(f"The model “{model_name}” has more than one 'entailment' answer ({listed}), so it "
                        "is not clear which one says that a text is about a category.", _CHOOSE)
    contradiction = [i for i, label in labels.items() if label.strip().lower().startswith("contradict")]
    if len(contradiction) == 1:
        return entail[0], contradiction[0]
    if len(labels) == 2 and not contradiction:
        return entail[0], next(i for i in labels if i != entail[0])
    if multi_label:
        raise UserError(
            f"The model “{model_name}” has no single 'contradiction' answer (its answers are: {listed}), so "
            "it cannot weigh each category on its own, as a study where a text can have several "
            "categories needs.", _CHOOSE)
    return entail[0], None


def nli_probabilities(entailment: np.ndarray, contradiction: np.ndarray | None, multi_label: bool) -> np.ndarray:
    """Probabilities (texts × categories) from the entailment logits and, for several categories per
    text, the contradiction logits of every text–category pair (see the module docstring)."""
    entailment = np.asarray(entailment, dtype=np.float64)
    if multi_label:
        if contradiction is None:
            raise ValueError("several categories per text need the contradiction logits")
        return expit(entailment - np.asarray(contradiction, dtype=np.float64))
    if entailment.shape[0] == 0:
        return entailment.copy()
    shifted = np.exp(entailment - entailment.max(axis=1, keepdims=True))
    return shifted / shifted.sum(axis=1, keepdims=True)
