"""Leaving words out (occlusion) for any model that answers for texts.

For models whose features are not words (sentence embeddings, XGBoost or an RBF SVM on word
vectors, …) no exact decomposition exists, but one question can always be asked: how much does
the probability of the category drop when this word is left out of the text? Captum's
:class:`~captum.attr.FeatureAblation` asks it word by word: its input is a 0/1 mask over the
words of :func:`~guiapp.core.explain.words.split_words`, the forward function turns each mask
into the text without the masked words and returns the model's probability for the target.
Masks are evaluated in batches (``perturbations_per_eval``), one ``answer()`` call per batch.
"""

from __future__ import annotations

import math
from typing import Any

from guiapp.core.events import EventCallback, Progress, ignore_events
from guiapp.core.explain.attribution import OCCLUSION, Attribution
from guiapp.core.explain.words import WordSpan, split_words, text_without
from guiapp.core.predict.trained_model import TrainedModel

BATCH_SIZE = 64  # perturbed texts per answer() call: most documents take one call besides the whole text


def occlusion_sentence(target_name: str) -> str:
    return (f"Colours show how much the probability of “{target_name}” drops when the word is left out: "
            "red words supported it, blue words held it back.")


def explain_by_occlusion(
    model: TrainedModel,
    text: str,
    target: int,
    *,
    batch_size: int = BATCH_SIZE,
    on_event: EventCallback = ignore_events,
) -> Attribution:
    """The drop in the target's probability when each word of ``text`` is left out, one at a time.

    Progress is reported per batch; raising :class:`~guiapp.core.events.Cancelled` from
    ``on_event`` stops between batches.
    """
    import torch
    from captum.attr import FeatureAblation

    spans = split_words(text)
    name = model.categories[target]
    details = {"batch_size": batch_size, "left_out": "one word at a time"}
    if not spans:
        probability = float(model.answer([text])[1][0, target])
        return Attribution(model=model.name, method=OCCLUSION, method_sentence=occlusion_sentence(name),
                           target=target, target_name=name, words=[], scores=[], probability=probability,
                           scale="probability", base_value=None, details=details)
    forward = _ProbabilityWithout(model, text, spans, target, batch_size, on_event)
    inputs = torch.ones((1, len(spans)), dtype=torch.float64)
    drops = FeatureAblation(forward).attribute(inputs, baselines=0.0, perturbations_per_eval=batch_size)
    on_event(Progress(1.0, f"Leaving words out: {len(spans):,} of {len(spans):,} words", forward.total, forward.total))
    return Attribution(model=model.name, method=OCCLUSION, method_sentence=occlusion_sentence(name),
                       target=target, target_name=name, words=spans, scores=drops[0].tolist(),
                       probability=forward.whole_text, scale="probability", base_value=None, details=details)


class _ProbabilityWithout:
    """Captum's forward: each 0/1 mask over the words → the target's probability for that shortened text."""

    def __init__(self, model: TrainedModel, text: str, spans: list[WordSpan], target: int, batch_size: int,
                 on_event: EventCallback) -> None:
        self.model, self.text, self.spans, self.target, self.on_event = model, text, spans, target, on_event
        self.batch_size = batch_size
        self.total = 1 + math.ceil(len(spans) / batch_size)  # Captum first evaluates the whole text
        self.calls = 0
        self.whole_text = float("nan")

    def __call__(self, masks: Any) -> Any:
        import torch

        words = min(max(self.calls - 1, 0) * self.batch_size, len(self.spans))
        self.on_event(Progress(self.calls / self.total, f"Leaving words out: {words:,} of {len(self.spans):,} words",
                               self.calls, self.total))
        texts = [text_without(self.text, self.spans, {i for i, keep in enumerate(row) if not keep})
                 for row in masks.tolist()]
        probabilities = self.model.answer(texts)[1][:, self.target]
        if self.calls == 0:
            self.whole_text = float(probabilities[0])
        self.calls += 1
        return torch.as_tensor(probabilities, dtype=torch.float64)
