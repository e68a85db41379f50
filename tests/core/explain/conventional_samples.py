"""Small conventional models for the explanation tests, built the way a study builds final models."""

from __future__ import annotations

import re

import numpy as np

from guiapp.core.experiment.protocol import fitting
from guiapp.core.features.registry import make_representation
from guiapp.core.predict.trained_model import ConventionalModel, TrainedModel
from tests.core.synthetic_texts import SHARED, TOPIC_WORDS, coded_texts

CATEGORIES = ["defence", "energy", "health"]
KEYWORD = "zebra"
FILLER = SHARED + [word for words in TOPIC_WORDS.values() for word in words]
CLASSIFIER_SETTINGS = {
    "logistic_regression": {"C": 10.0},
    "svm": {"kernel": "linear", "C": 1.0},
    "svm_rbf": {"kernel": "rbf", "C": 10.0, "gamma": 0.1},
    "naive_bayes": {"alpha": 0.1},
    "xgboost": {"n_estimators": 20, "max_depth": 3, "learning_rate": 0.3},
}


def topic_corpus(n: int = 150, seed: int = 1) -> tuple[list[str], np.ndarray]:
    frame = coded_texts(n, shares=(0.5, 0.3, 0.2), seed=seed)
    return frame["text"].tolist(), np.searchsorted(CATEGORIES, frame["label"].to_numpy().astype(str))


def planted_corpus(n: int = 80, seed: int = 0, keyword: str = KEYWORD) -> tuple[list[str], np.ndarray]:
    """Random policy words; a text is category 1 exactly when it contains ``keyword``."""
    rng = np.random.default_rng(seed)
    texts, labels = [], []
    for i in range(n):
        tokens = [str(word) for word in rng.choice(FILLER, size=int(rng.integers(5, 10)))]
        if i % 2:
            tokens.insert(int(rng.integers(0, len(tokens) + 1)), keyword)
        texts.append(" ".join(tokens).capitalize() + ".")
        labels.append(i % 2)
    return texts, np.asarray(labels)


def train(representation_kind: str, options: dict, classifier: str, texts: list[str], labels: np.ndarray,
          categories: list[str], name: str = "model") -> ConventionalModel:
    """Representation and final classifier as the engine makes them (calibrated SVM included)."""
    representation = make_representation(representation_kind, options)
    X = representation.fit_transform(texts)
    key = "svm" if classifier.startswith("svm") else classifier
    fitted = fitting.fit_classifier(key, CLASSIFIER_SETTINGS[classifier], 0, 1, X, labels, probabilities=True)
    return ConventionalModel(name, representation, fitted, categories)


class KeywordModel(TrainedModel):
    """A hand-made model: P("yes") = 0.9 with the word "great" in the text, 0.6 with "good", else 0.2.

    Every call is recorded, so tests can count batches.
    """

    family = "conventional"

    def __init__(self) -> None:
        self.name, self.categories, self.calls = "keyword model", ["no", "yes"], []

    def answer(self, texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
        self.calls.append(list(texts))
        words = [set(re.findall(r"\w+", text.lower())) for text in texts]
        yes = np.array([0.9 if "great" in found else 0.6 if "good" in found else 0.2 for found in words])
        probabilities = np.column_stack([1 - yes, yes])
        return probabilities.argmax(axis=1), probabilities
