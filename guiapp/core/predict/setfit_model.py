"""A SetFit model opened from its folder (``setfit.json``), with the face every trained model has.

Its answer for a text is the head's probabilities on the fine-tuned sentence vector; the decision is
the most probable category, or — where a text can have several — every category whose probability
reaches its threshold (0.5, or the thresholds the study chose and saved with the model). Long
texts are cut to the model's maximum length in tokens, which :attr:`max_tokens` reports.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from guiapp.core.predict.trained_model import TrainedModel


class SetFitTrainedModel(TrainedModel):
    family = "setfit"

    def __init__(self, name: str, setfit: Any, categories: list[str] | None = None) -> None:
        self.name, self.setfit = name, setfit
        self.categories = list(categories) if categories is not None else list(setfit.categories)
        if len(self.categories) != setfit.n_categories:
            raise ValueError(f"{len(self.categories)} category names for a model of {setfit.n_categories} categories")
        self.multi_label = bool(setfit.multi_label)

    def answer(self, texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
        probabilities = self.setfit.predict_proba(list(texts))
        return self.setfit.decide(probabilities), probabilities

    @property
    def thresholds(self) -> np.ndarray:
        return self.setfit.decision_thresholds()

    @property
    def tokenizer(self) -> Any:
        return self.setfit.tokenizer

    @property
    def max_tokens(self) -> int | None:
        from guiapp.core.models.setfit.body import token_limit

        return token_limit(self.setfit.tokenizer, self.setfit.net.config, self.setfit.settings.max_length)


def open_setfit(folder: str | Path, name: str = "") -> SetFitTrainedModel:
    """The SetFit model saved in ``folder``; a :class:`~guiapp.core.errors.UserError` when it cannot be used."""
    from guiapp.core.models.setfit.loading import load_setfit

    folder = Path(folder)
    return SetFitTrainedModel(name or folder.name, load_setfit(folder))


__all__ = ["SetFitTrainedModel", "open_setfit"]
