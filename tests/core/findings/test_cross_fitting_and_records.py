"""Cross-fitted probabilities from the quick model, and the record's tables and sentences."""

from __future__ import annotations

import numpy as np
import pytest

from guiapp.core.coding.quick_model import EMBEDDINGS, QuickModel, stratified_folds
from guiapp.core.findings import CodedSample, cross_fitted_probabilities, estimate_findings


def _features(seed: int = 0, n: int = 300):
    rng = np.random.default_rng(seed)
    labels = rng.choice(["a", "b", "c"], size=n)
    centres = {"a": [1.0, 0, 0, 0], "b": [0, 1.0, 0, 0], "c": [0, 0, 1.0, 0]}
    features = np.array([centres[label] for label in labels]) + rng.normal(0, 0.8, size=(n, 4))
    return features.astype(np.float32), labels


def test_coded_texts_get_out_of_fold_and_the_others_the_fold_models_mean():
    features, labels = _features()
    positions = np.arange(0, 300, 3)
    coded_labels = labels[positions].tolist()
    fitted = cross_fitted_probabilities(EMBEDDINGS, features, positions, coded_labels, folds=4, seed=2)
    assert fitted.categories == ("a", "b", "c")
    assert fitted.corpus.shape == (300, 3) and fitted.corpus.sum(axis=1) == pytest.approx(np.ones(300))
    assert fitted.corpus[positions] == pytest.approx(fitted.coded)
    folds = stratified_folds(coded_labels, 4, 2)
    models = [QuickModel(EMBEDDINGS, seed=2).fit(features[positions[folds != k]],
                                                 np.array(coded_labels)[folds != k].tolist(), ["a", "b", "c"])
              for k in range(4)]
    other = 1
    assert fitted.corpus[other] == pytest.approx(np.mean([m.predict_proba(features[[other]])[0] for m in models],
                                                         axis=0))
    first = np.flatnonzero(folds == 0)[0]
    assert fitted.coded[first] == pytest.approx(models[0].predict_proba(features[[positions[first]]])[0])


def test_record_tables_and_methods_paragraph():
    features, labels = _features(1, 600)
    positions = np.arange(0, 600, 2)
    fitted = cross_fitted_probabilities(EMBEDDINGS, features, positions, labels[positions].tolist())
    party = np.where(np.arange(600) % 4 < 2, "D", "R")
    found = estimate_findings(fitted.corpus, fitted.categories,
                              CodedSample(labels[positions].tolist(), fitted.coded, positions),
                              groups=party, group_name="party")
    frame = found.to_frame()
    assert len(frame) == 3 * 3 and list(frame["group"][:3]) == ["all texts"] * 3
    assert {"share", "low", "high", "classify and count", "coded texts alone", "texts", "coded texts",
            "warning"} <= set(frame.columns)
    assert frame.attrs["level"] == 0.95
    differences = found.differences_frame()
    assert list(differences["in words"])[0].startswith("D: ")
    paragraph = found.methods_paragraph()
    assert "600 texts" in paragraph and "300 coded texts" in paragraph
    assert "Egami" in paragraph and "Angelopoulos" in paragraph and "random sample of the corpus" in paragraph
    truth = [np.mean(labels == c) for c in found.categories]
    assert all(s.low <= t <= s.high for s, t in zip(found.overall(), truth, strict=True))
