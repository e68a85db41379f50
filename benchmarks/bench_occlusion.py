"""Leaving words out (occlusion): seconds per document for the models that have no exact explanation.

Two trained models from the bundled example (US Congress bill titles, 20 topics), built as a study
builds final models: logistic regression on sentence embeddings (bundled MiniLM; the example's best
model) and an RBF SVM on averaged GloVe vectors. Each explains N test titles toward its predicted
topic with ``explain_by_occlusion`` (Captum ``FeatureAblation`` over word masks, 64 variants per
model call). In the same process, the baselines a competent user would write by hand:

  - strong: every "text without word i" built by hand and sent to the model in one call per
    document (what the method must at least spend: the model's answers for words + 1 texts);
  - naive (printed beside it): one model call per left-out word.

Usage: bench_occlusion.py [--docs 30]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def train_models():
    import pandas as pd

    from guiapp.core.experiment.protocol.fitting import fit_classifier
    from guiapp.core.features import make_representation
    from guiapp.core.locations import example_path
    from guiapp.core.predict.trained_model import ConventionalModel

    frame = pd.read_excel(example_path(), engine="calamine")
    texts, labels = frame["Title"].astype(str).tolist(), frame["Topic"].astype(str)
    categories = sorted(labels.unique())
    y = labels.map({c: i for i, c in enumerate(categories)}).to_numpy()
    train, test = slice(0, 3000), slice(3000, None)
    models = []
    for kind, classifier, settings, name in [
        ("sentence_embeddings", "logistic_regression", {"C": 10.0}, "Logistic regression · Sentence embeddings"),
        ("word_vectors", "svm", {"kernel": "rbf", "C": 10.0, "gamma": 0.1}, "SVM (RBF) · Word vectors"),
    ]:
        representation = make_representation(kind, {})
        X = representation.fit_transform(texts[train])
        fitted = fit_classifier(classifier, settings, 0, 1, X, y[train], probabilities=True)
        models.append(ConventionalModel(name, representation, fitted, categories))
    return models, texts[test]


def by_hand(model, text: str, target: int, one_call: bool) -> None:
    from guiapp.core.explain.words import split_words, text_without

    words = split_words(text)
    variants = [text] + [text_without(text, words, [i]) for i in range(len(words))]
    if one_call:
        model.answer(variants)
    else:
        for variant in variants:
            model.answer([variant])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--docs", type=int, default=30)
    args = parser.parse_args()
    from guiapp.core.explain.occlusion import explain_by_occlusion
    from guiapp.core.explain.words import split_words

    models, texts = train_models()
    texts = texts[: args.docs]
    print(f"{len(texts)} titles, {statistics.mean(len(split_words(t)) for t in texts):.1f} words on average")
    print(f"{'model':42} {'TextLab s/doc':>13} {'by hand, 1 call':>16} {'ratio':>6} {'1 call/word':>12} {'ratio':>6}")
    for model in models:
        targets = model.answer(texts)[0]
        model.answer(texts[:2])  # warm up
        ours, strong, naive = [], [], []
        for text, target in zip(texts, targets, strict=True):
            start = time.perf_counter()
            explain_by_occlusion(model, text, int(target))
            ours.append(time.perf_counter() - start)
            start = time.perf_counter()
            by_hand(model, text, int(target), one_call=True)
            strong.append(time.perf_counter() - start)
            start = time.perf_counter()
            by_hand(model, text, int(target), one_call=False)
            naive.append(time.perf_counter() - start)
        a, b, c = (float(np.median(x)) for x in (ours, strong, naive))
        print(f"{model.name:42} {a:13.3f} {b:16.3f} {b / a:5.2f}x {c:12.3f} {c / a:5.2f}x")
    print("ratio > 1: TextLab is faster than the baseline")


if __name__ == "__main__":
    main()
