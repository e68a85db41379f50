"""A zero-shot model opened from its folder (``zero_shot.json``), answering for new texts like any
trained model: the most likely category, or — where a text can have several categories — every
category whose probability reaches its threshold (the study's, or 0.5).

A similarity model embeds new texts as it embedded the study's: through the sentence-embedding
representation of its language model (``experiment/families/study_text_vectors.py``), which computes in
16 bits where that was checked to agree with full precision — so a text gets the same answer in
the study and from the saved model. New texts are not written to the embedding cache."""

from __future__ import annotations

from typing import Any

import numpy as np

from guiapp.core.models.zero_shot.similarity import ZeroShotSimilarity
from guiapp.core.predict.trained_model import TrainedModel


class ZeroShotTrainedModel(TrainedModel):
    """A :class:`~guiapp.core.models.zero_shot.ZeroShotSimilarity` or ``ZeroShotNLI`` as a trained model."""

    family = "zero_shot"

    def __init__(self, name: str, zero_shot: Any) -> None:
        self.name, self.zero_shot = name, zero_shot
        self.categories = list(zero_shot.categories)
        self.multi_label = bool(zero_shot.multi_label)
        if isinstance(zero_shot, ZeroShotSimilarity) and zero_shot.embed_texts is None:
            zero_shot.embed_texts = _new_text_vectors(zero_shot)

    def answer(self, texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
        probabilities = np.asarray(self.zero_shot.predict_proba(list(texts)), dtype=np.float64)
        if self.multi_label:
            return (probabilities >= self.thresholds).astype(np.uint8), probabilities
        return probabilities.argmax(axis=1), probabilities

    @property
    def thresholds(self) -> np.ndarray:
        """The thresholds the study chose, else one half for every category."""
        saved = self.zero_shot.thresholds
        return np.asarray(saved, dtype=np.float64) if saved else super().thresholds

    @property
    def tokenizer(self) -> Any:
        return self.zero_shot.tokenizer()

    @property
    def max_tokens(self) -> int | None:
        return int(self.zero_shot.max_tokens())


def _new_text_vectors(zero_shot: Any) -> Any:
    """``embed_texts`` for new texts: the study's way of embedding, without the cache."""
    from guiapp.core.experiment.families.study_text_vectors import sentence_representation

    representation = sentence_representation(zero_shot)

    def embed(texts: list[str], on_event: Any) -> np.ndarray:
        return representation.prepare(texts, on_event, cache=False).matrix

    return embed
