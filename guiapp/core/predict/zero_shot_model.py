"""A zero-shot model opened from its folder (``zero_shot.json``), answering for new texts like any
trained model: the most likely category, or — where a text can have several categories — every
category whose probability reaches its threshold (the study's, or 0.5)."""

from __future__ import annotations

from typing import Any

import numpy as np

from guiapp.core.predict.trained_model import TrainedModel


class ZeroShotTrainedModel(TrainedModel):
    """A :class:`~guiapp.core.models.zero_shot.ZeroShotSimilarity` or ``ZeroShotNLI`` as a trained model."""

    family = "zero_shot"

    def __init__(self, name: str, zero_shot: Any) -> None:
        self.name, self.zero_shot = name, zero_shot
        self.categories = list(zero_shot.categories)
        self.multi_label = bool(zero_shot.multi_label)

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
