"""A fine-tuned Transformer in a study where a text can have several categories: its validation split
keeps every category, it is scored on decisions per category, no texts are oversampled, and its result
holds one threshold per category (0.5, or tuned on held-out training texts only when the study asks)
and each test text's list of categories; the saved model reopens with the same answers and thresholds.
A tiny randomly initialised BERT keeps each study to a few seconds."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from sklearn.metrics import f1_score

from guiapp.core.events import Log
from guiapp.core.experiment.scores import thresholds as threshold_module
from guiapp.core.experiment.protocol.resampling import cv_folds
from guiapp.core.experiment.families.model_run_inputs import ModelRunInputs
from guiapp.core.experiment.families.transformer_runner import run_transformer_model, tuning_splits
from guiapp.core.models.transformers import fast_inference
from guiapp.core.models.transformers.sources.files import LABELS_FILE
from guiapp.core.predict.open_model import open_trained_model
from guiapp.core.study.mapping import ColumnMapping
from guiapp.core.study.sections import EvaluationSpec, ModelSpec
from guiapp.core.study.spec import DataSpec, ExperimentSpec
from guiapp.core.study.split import random_holdout
from guiapp.core.study.study_data import StudyData
from tests.core.models.test_multi_label_transformer import CATEGORIES, KEYWORDS, label_sets
from tests.core.models.test_transformer_training import WORDS
from tests.tiny_bert import save_tiny_bert, tiny_tokenizer


@pytest.fixture(autouse=True)
def exact_answers(monkeypatch, tmp_path):
    monkeypatch.setenv("TEXTLAB_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv(fast_inference.VARIABLE, "0")


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    root = tmp_path_factory.mktemp("models")
    return save_tiny_bert(root / "tiny bert", tiny_tokenizer(root / "vocabulary", [*WORDS, *KEYWORDS]))


@pytest.fixture(scope="module")
def data() -> StudyData:
    texts, labels = label_sets(96, seed=11)
    split = random_holdout(labels, 0.25, seed=4)
    return StudyData(texts, labels, list(CATEGORIES), list(range(2, 98)), list(range(96)), split)


def study(tiny, seeds: int = 1, **evaluation) -> tuple[ModelSpec, ExperimentSpec]:
    model = ModelSpec("transformer", "fine_tune",
                      representation_options={"model": str(tiny), "max_length": 32, "batch_size": 8, "device": "cpu"},
                      grid={"learning_rate": [1e-2, 3e-3], "epochs": [3]})
    spec = ExperimentSpec(
        data=DataSpec(mapping=ColumnMapping(text_columns=["text"], multi_label=True, category_columns=CATEGORIES)),
        evaluation=EvaluationSpec(**{"folds": 3, "bootstrap_samples": 50, "transformer_seeds": seeds, "combine": False,
                                     **evaluation}),
        models=[model], seed=4,
    )
    return model, spec


def run(tiny, data, folder=None, seeds: int = 1, **evaluation):
    model, spec = study(tiny, seeds, **evaluation)
    events: list = []
    folds = cv_folds(data.y[data.split.train], 3, spec.seed)
    result = run_transformer_model(model, ModelRunInputs(data, folds, spec, artefacts_dir=folder), events.append)
    return result, events


def test_the_validation_split_keeps_every_category(data, tiny):
    _, spec = study(tiny)
    (fit, valid), = tuning_splits(data, [], spec, on_gpu=False)[0]
    train = data.y[data.split.train]
    assert len(valid) == math.ceil(0.2 * len(train))  # as scikit-learn's split of one category per text
    assert sorted([*fit, *valid]) == list(range(len(train)))
    assert (train[valid].sum(axis=0) > 0).all() and (train[fit].sum(axis=0) > 0).all()


def test_a_multi_label_study_gives_thresholds_and_lists_of_categories(data, tiny, tmp_path):
    result, events = run(tiny, data, tmp_path, oversampling="random")
    assert result.thresholds == [0.5, 0.5, 0.5]
    probabilities = np.asarray(result.probabilities)
    assert probabilities.shape == (len(data.split.test), 3)
    assert not np.allclose(probabilities.sum(axis=1), 1.0, atol=1e-3)  # a probability per category
    decided = (probabilities >= 0.5).astype(np.uint8)
    assert result.predictions == [np.flatnonzero(row).tolist() for row in decided]
    assert all(isinstance(p, list) and all(isinstance(k, int) for k in p) for p in result.predictions)
    y_test = data.y[data.split.test]
    coded_or_predicted = (y_test.sum(axis=0) + decided.sum(axis=0)) > 0  # scikit-learn as the reference
    expected = f1_score(y_test[:, coded_or_predicted], decided[:, coded_or_predicted], average="macro", zero_division=0)
    assert result.test.multi_label and result.test.macro_f1 == pytest.approx(expected)
    messages = [e.message for e in events if isinstance(e, Log)]
    assert any("No texts were oversampled" in m for m in messages)  # asked for, but not for a shared network
    assert any("reached 0.5" in note for note in result.spec["notes"])

    reopened = open_trained_model(result.artefact, result.name)
    assert reopened.multi_label
    decisions, again = reopened.answer([data.texts[i] for i in data.split.test])
    np.testing.assert_allclose(again, probabilities, atol=1e-5)
    assert np.array_equal(decisions, decided)


def test_thresholds_are_tuned_on_held_out_training_texts_only_when_asked(data, tiny, tmp_path, monkeypatch):
    seen: list[tuple[np.ndarray, np.ndarray]] = []
    real = threshold_module.tune_thresholds
    monkeypatch.setattr(threshold_module, "tune_thresholds", lambda y, p: seen.append((y, p)) or real(y, p))

    untuned, _ = run(tiny, data)
    assert seen == [] and untuned.thresholds == [0.5, 0.5, 0.5]

    tuned, _ = run(tiny, data, tmp_path, seeds=2, tune_thresholds=True)
    (y_held_out, p_held_out), = seen
    (_, valid), = tuning_splits(data, [], study(tiny)[1], on_gpu=False)[0]
    assert np.array_equal(y_held_out, data.y[data.split.train][valid])  # the validation texts: no test text
    assert p_held_out.shape == (len(valid), 3) and not np.isnan(p_held_out).any()
    assert len(tuned.thresholds) == 3 and tuned.thresholds != [0.5, 0.5, 0.5]
    assert tuned.thresholds == pytest.approx(list(real(y_held_out, p_held_out)))
    probabilities = np.asarray(tuned.probabilities)
    decided = (probabilities >= np.asarray(tuned.thresholds)).astype(np.uint8)
    assert tuned.predictions == [np.flatnonzero(row).tolist() for row in decided]
    assert any("tuned on the" in note for note in tuned.spec["notes"])
    combined = json.loads((tmp_path / tuned.artefact.split("/")[-1] / "combined.json").read_text(encoding="utf-8"))
    assert combined["combiner"]["thresholds"] == pytest.approx(tuned.thresholds)  # two seeds: one averaged model
    for seed in ("seed-1", "seed-2"):
        meta = json.loads((tmp_path / tuned.artefact.split("/")[-1] / seed / LABELS_FILE).read_text(encoding="utf-8"))
        assert meta["multi_label"] is True and meta["thresholds"] == pytest.approx(tuned.thresholds)
    from guiapp.core.predict.open_model import open_trained_model

    averaged = open_trained_model(tuned.artefact)  # Predict decides with the same thresholds
    texts = [data.texts[i] for i in data.split.test]
    decisions, chances = averaged.answer(texts)
    assert averaged.multi_label and decisions.shape == chances.shape
    np.testing.assert_array_equal(decisions, (chances >= np.asarray(tuned.thresholds)).astype(np.uint8))


def test_a_learning_curve_of_the_transformer_scores_sets_of_categories(data, tiny):
    from guiapp.core.experiment.curves.learning_curve_transformer import transformer_curve
    from guiapp.core.experiment.curves.nested_subsets import CurvePlan

    model, spec = study(tiny, oversampling="random")
    train = data.split.train
    # drawn here: the curve's stratified order of training texts takes one category per text
    plan = CurvePlan(train, data.y, [36, len(train)], [7], [np.random.default_rng(7).permutation(len(train))])
    events: list = []
    curve = transformer_curve(model, data, plan, {36: len(train), len(train): len(train)}, spec, events.append)
    assert [point.size for point in curve.points] == [36, len(train)]
    assert all(len(point.category_f1) == 3 and 0.0 <= point.macro_f1 <= 1.0 for point in curve.points)
    assert curve.tuning[0].how.startswith("one validation split")
    messages = [e.message for e in events if isinstance(e, Log)]
    assert any("reaches 0.5" in m for m in messages) and any("No texts were oversampled" in m for m in messages)
