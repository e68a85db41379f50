"""A trained model opened from its folder, ready to answer for new texts — whatever its family.

A study saves every final model in a folder of its own (``ModelResult.artefact``): fine-tuned
Transformers as safetensors with their tokenizer (``models/transformers/sources/files.py``),
conventional models as JSON, arrays and XGBoost's JSON model (``conventional_files``). Opening
never runs code from the folder. :class:`TrainedModel` gives both families one face for
:func:`guiapp.core.predict.stream.predict_in_chunks`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

import numpy as np

from guiapp.core.experiment.protocol.per_category import PerCategoryClassifier
from guiapp.core.experiment.scores.thresholds import DEFAULT_THRESHOLD


class TrainedModel(ABC):
    """One trained model: its categories and its answer (decision, probabilities) for texts."""

    name: str
    family: str  # "transformer" | "conventional"
    categories: list[str]
    multi_label: bool = False  # a text can have several categories: answers are 0/1 rows

    @abstractmethod
    def answer(self, texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """(category index per text — or, where a text can have several categories, a 0/1 matrix
        (len(texts), len(categories)) —, probabilities (len(texts), len(categories)))."""

    @property
    def thresholds(self) -> np.ndarray:
        """Where a text can have several categories: the probability at which each category is given
        (one half, unless the study tuned them)."""
        return np.full(len(self.categories), DEFAULT_THRESHOLD)

    @property
    def tokenizer(self) -> Any:
        """The tokenizer whose limit cuts long texts (Transformers); None for the others."""
        return None

    @property
    def max_tokens(self) -> int | None:
        return None


class TransformerModel(TrainedModel):
    family = "transformer"

    def __init__(self, name: str, fine_tuned: Any, categories: list[str]) -> None:
        self.name, self.fine_tuned, self.categories = name, fine_tuned, categories
        self.multi_label = bool(fine_tuned.multi_label)  # sigmoid per category, saved thresholds

    def answer(self, texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
        from guiapp.core.models.transformers.fine_tuning import decide, predict_proba

        probabilities = predict_proba(self.fine_tuned, texts)  # multi-label: sigmoid per category
        return decide(self.fine_tuned, probabilities), probabilities  # multi-label: 0/1 matrix at its thresholds

    @property
    def thresholds(self) -> np.ndarray:
        return np.asarray(self.fine_tuned.decision_thresholds(), dtype=np.float64)

    @property
    def tokenizer(self) -> Any:
        return self.fine_tuned.tokenizer

    @property
    def max_tokens(self) -> int | None:
        return int(self.fine_tuned.settings.max_length)


class ConventionalModel(TrainedModel):
    family = "conventional"

    def __init__(self, name: str, representation: Any, classifier: Any, categories: list[str]) -> None:
        self.name, self.representation, self.classifier, self.categories = name, representation, classifier, categories
        self.multi_label = isinstance(classifier, PerCategoryClassifier)  # one classifier per category

    @property
    def thresholds(self) -> np.ndarray:
        return np.asarray(self.classifier.thresholds, dtype=np.float64) if self.multi_label else super().thresholds

    def answer(self, texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
        from guiapp.core.experiment.protocol.fitting import predict, predict_proba

        X = self.representation.transform(texts)
        decisions = predict(self.classifier, X)
        probabilities = predict_proba(self.classifier, X, len(self.categories))
        if probabilities is None and self.multi_label:  # decisions count as certain
            return decisions, decisions.astype(float)
        if probabilities is None:  # a classifier without probabilities: all weight on its decision
            probabilities = np.zeros((len(texts), len(self.categories)))
            probabilities[np.arange(len(texts)), decisions] = 1.0
        return decisions, probabilities
