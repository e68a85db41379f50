"""One classifier per category where a text can have several: fitting, thresholds, saving and
opening, predicting new texts, combining."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from guiapp.core.experiment.combined import combining
from guiapp.core.experiment.families.conventional_files import load_conventional, save_conventional
from guiapp.core.experiment.protocol.fitting import fit_classifier, fitted_probabilities, predict, predict_proba
from guiapp.core.experiment.protocol.per_category import ConstantAnswer, PerCategoryClassifier
from guiapp.core.export.predictions import ModelPredictions, predictions_table
from guiapp.core.features.bow import BagOfWords
from guiapp.core.predict.stream import predict_in_chunks
from guiapp.core.study.label_sets import NO_CATEGORY
from guiapp.core.predict.trained_model import ConventionalModel

WORDS = {0: "tax budget deficit", 1: "hospital doctor nurse", 2: "school teacher pupil"}


def _texts(n: int = 90, seed: int = 0) -> tuple[list[str], np.ndarray]:
    rng = np.random.default_rng(seed)
    Y = (rng.random((n, 3)) < 0.4).astype(np.uint8)
    texts = []
    for row in Y:
        words = [WORDS[k] for k in np.flatnonzero(row)] or ["weather news today"]
        texts.append(" ".join(words) + f" filler{rng.integers(5)}")
    return texts, Y


@pytest.mark.parametrize("classifier, params", [
    ("logistic_regression", {"C": 10.0}),
    ("svm", {"kernel": "linear", "C": 1.0}),
    ("xgboost", {"n_estimators": 20, "max_depth": 2, "learning_rate": 0.3}),
])
def test_one_classifier_per_category_learns_each_category(classifier, params):
    texts, Y = _texts()
    representation = BagOfWords().fit(texts)
    X = representation.transform(texts)
    model = fit_classifier(classifier, params, 0, 1, X, Y, probabilities=True)
    assert isinstance(model, PerCategoryClassifier) and model.n_categories == 3
    decided = predict(model, X)
    assert decided.shape == (90, 3) and set(np.unique(decided)) <= {0, 1}
    assert (decided == Y).mean() > 0.9
    probabilities = predict_proba(model, X, 3)
    assert probabilities.shape == (90, 3)
    assert not np.allclose(probabilities.sum(axis=1), 1.0)  # each category's own chance
    np.testing.assert_array_equal(decided, (probabilities >= 0.5).astype(np.uint8))


def test_thresholds_move_the_decisions():
    texts, Y = _texts()
    X = BagOfWords().fit(texts).transform(texts)
    model = fit_classifier("logistic_regression", {"C": 0.01}, 0, 1, X, Y, probabilities=True)
    probabilities = predict_proba(model, X, 3)
    model.thresholds = np.array([0.0, 0.5, 1.01])
    decided = predict(model, X)
    assert decided[:, 0].all() and not decided[:, 2].any()
    np.testing.assert_array_equal(decided[:, 1], probabilities[:, 1] >= 0.5)


def test_a_category_no_training_text_has_answers_its_share():
    texts, Y = _texts()
    Y[:, 2] = 0
    X = BagOfWords().fit(texts).transform(texts)
    model = fit_classifier("logistic_regression", {"C": 1.0}, 0, 1, X, Y, probabilities=True)
    assert isinstance(model.parts[2], ConstantAnswer)
    assert not predict(model, X)[:, 2].any()
    assert np.all(predict_proba(model, X, 3)[:, 2] == 0.0)


def test_oversampling_is_drawn_per_category():
    texts, Y = _texts()
    Y[:, 0] = 0
    Y[:3, 0] = 1  # a rare category
    X = BagOfWords().fit(texts).transform(texts)
    plain = fit_classifier("logistic_regression", {"C": 1.0}, 0, 1, X, Y, probabilities=True)
    grown = fit_classifier("logistic_regression", {"C": 1.0}, 0, 1, X, Y, probabilities=True, oversampling=1.0)
    # the rare category's classifier saw as many copies of its texts as other texts: higher chances
    assert predict_proba(grown, X, 3)[:, 0].mean() > predict_proba(plain, X, 3)[:, 0].mean() + 0.1


def test_held_out_probabilities_of_an_svm_without_calibration_are_its_decisions():
    texts, Y = _texts()
    X = BagOfWords().fit(texts).transform(texts)
    probabilities = fitted_probabilities(("svm", {"kernel": "linear", "C": 1.0}, 0, 1, X[:60], Y[:60], X[60:], 3))
    assert probabilities.shape == (30, 3) and np.isfinite(probabilities).all()


@pytest.mark.parametrize("classifier, params", [
    ("logistic_regression", {"C": 10.0}),
    ("svm", {"kernel": "linear", "C": 1.0}),
    ("xgboost", {"n_estimators": 10, "max_depth": 2, "learning_rate": 0.3}),
])
def test_saved_and_opened_again_it_answers_the_same(tmp_path, classifier, params):
    texts, Y = _texts()
    Y[:, 2] = 1  # a category every text has: learnt as a constant, saved as its share
    representation = BagOfWords().fit(texts)
    model = fit_classifier(classifier, params, 0, 1, representation.transform(texts), Y, probabilities=True)
    model.thresholds = np.array([0.3, 0.6, 0.5])
    save_conventional(tmp_path / "model", representation, model, ["economy", "health", "all"], {"name": "m"})
    opened = load_conventional(tmp_path / "model")
    assert isinstance(opened.classifier, PerCategoryClassifier)
    np.testing.assert_allclose(opened.classifier.thresholds, [0.3, 0.6, 0.5])
    X = opened.representation.transform(texts)
    np.testing.assert_allclose(predict_proba(opened.classifier, X, 3), predict_proba(model, X, 3), atol=1e-6)
    np.testing.assert_array_equal(predict(opened.classifier, X), predict(model, X))


def test_a_damaged_threshold_is_refused(tmp_path):
    import json

    from guiapp.core.errors import UserError

    texts, Y = _texts()
    representation = BagOfWords().fit(texts)
    model = fit_classifier("logistic_regression", {"C": 1.0}, 0, 1, representation.transform(texts), Y,
                           probabilities=True)
    save_conventional(tmp_path / "model", representation, model, ["a", "b", "c"], {})
    info = json.loads((tmp_path / "model" / "model.json").read_text())
    info["classifier"]["thresholds"] = [0.5, 7, 0.5]
    (tmp_path / "model" / "model.json").write_text(json.dumps(info))
    with pytest.raises(UserError, match="damaged"):
        load_conventional(tmp_path / "model")


def test_new_texts_get_one_probability_per_category_and_their_set_of_categories():
    texts, Y = _texts()
    representation = BagOfWords().fit(texts)
    classifier = fit_classifier("logistic_regression", {"C": 10.0}, 0, 1, representation.transform(texts), Y,
                                probabilities=True)
    model = ConventionalModel("LR", representation, classifier, ["economy", "health", "schools"])
    assert model.multi_label
    new = ["tax budget hospital doctor", "", "weather news today"]
    found = predict_in_chunks(model.answer, new, model.categories, multi_label=True)
    assert found.multi_label and found.n_empty == 1
    assert found.labels() == ["economy; health", "", NO_CATEGORY]
    table = predictions_table(pd.DataFrame({"text": new}),
                              [ModelPredictions("LR", found.categories, found.predicted, found.probabilities)])
    assert list(table.columns) == ["text", "LR: predicted categories", "LR: probability economy",
                                   "LR: probability health", "LR: probability schools"]
    cells = table["LR: predicted categories"].tolist()
    assert cells[0] == "economy; health" and pd.isna(cells[1]) and cells[2] == NO_CATEGORY


def test_nothing_to_answer_still_gives_rows_of_categories():
    found = predict_in_chunks(lambda texts: (np.zeros((len(texts), 2)), np.zeros((len(texts), 2))), ["", " "],
                              ["a", "b"], multi_label=True)
    assert found.predicted.shape == (2, 2) and found.n_empty == 2


def test_combining_models_where_a_text_can_have_several_categories():
    rng = np.random.default_rng(1)
    Y = (rng.random((300, 3)) < 0.3).astype(np.uint8)
    good = np.clip(Y * 0.7 + rng.random((300, 3)) * 0.3, 0, 1)
    noise = rng.random((300, 3))
    vote = combining.choose_vote_weights([good, noise], Y)
    assert vote.weights[0] > vote.weights[1]
    stacking = combining.fit_stacking([good, noise], Y, 3, 0, vote=vote)
    assert stacking.multi_label
    combined = stacking.combine([good, noise])
    assert combined.shape == (300, 3)
    assert combining.macro_f1(Y, combining.decide(combined, True)) > 0.9
    again = combining.combiner_from_dict(stacking.to_dict())
    np.testing.assert_allclose(again.combine([good, noise]), combined)


def test_the_multi_label_macro_f1_leaves_out_categories_neither_coded_nor_predicted():
    from sklearn.metrics import f1_score

    Y = np.array([[1, 0, 0], [0, 1, 0], [1, 1, 0]])
    P = np.array([[1, 0, 0], [1, 1, 0], [0, 1, 0]])
    expected = f1_score(Y[:, :2], P[:, :2], average="macro", zero_division=0)
    assert combining.macro_f1(Y, P) == pytest.approx(expected)
