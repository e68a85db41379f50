"""Small combined models for the explanation tests: conventional parts trained as a study trains
final models, combined by a weighted vote or by stacking learnt on their probabilities."""

from __future__ import annotations

import re

import numpy as np

from guiapp.core.experiment.combined.combining import WeightedVote, fit_stacking
from guiapp.core.predict.combined_model import CombinedModel
from guiapp.core.predict.trained_model import TrainedModel
from tests.core.explain.conventional_samples import CATEGORIES, topic_corpus, train

BOW = {"min_df": 0.0, "max_df": 0.9}
PARTS = [("logistic_regression", "LR · BOW"), ("naive_bayes", "NB · BOW"), ("xgboost", "XGBoost · BOW"),
         ("svm_rbf", "SVM (RBF) · BOW")]


def topic_parts(n: int = 150) -> tuple[list[TrainedModel], list[str], np.ndarray]:
    texts, labels = topic_corpus(n)
    parts = [train("bow", BOW, classifier, texts, labels, CATEGORIES, name=name) for classifier, name in PARTS]
    return parts, texts, labels


def vote(parts: list[TrainedModel], weights: list[float]) -> CombinedModel:
    return CombinedModel("Combined: weighted vote", parts, WeightedVote(weights), list(parts[0].categories))


def stacking(parts: list[TrainedModel], texts: list[str], labels: np.ndarray) -> CombinedModel:
    probabilities = [part.answer(texts)[1] for part in parts]
    combiner = fit_stacking(probabilities, labels, len(parts[0].categories), seed=0)
    return CombinedModel("Combined: stacking", parts, combiner, list(parts[0].categories))


class CountingModel(TrainedModel):
    """Answers like ``inner`` and records every text it was asked about."""

    family = "conventional"

    def __init__(self, inner: TrainedModel) -> None:
        self.inner, self.name, self.categories, self.asked = inner, inner.name, inner.categories, []

    def answer(self, texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
        self.asked.extend(texts)
        return self.inner.answer(texts)


class WordCountModel(TrainedModel):
    """Two categories; P("yes") rises smoothly with the number of "good" words: 1 − 0.6 · 0.5^count."""

    family = "conventional"

    def __init__(self, name: str = "word count model") -> None:
        self.name, self.categories = name, ["no", "yes"]

    def answer(self, texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
        counts = np.array([len(re.findall(r"\bgood\b", text.lower())) for text in texts])
        yes = 1.0 - 0.6 * 0.5 ** counts
        probabilities = np.column_stack([1 - yes, yes])
        return probabilities.argmax(axis=1), probabilities
