"""A study where a text can have several categories, end to end through the engine: the run, its
results file, the saved models answering new texts, the learning curve, and ``textlab run``."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from guiapp.core.experiment.curves.learning_curves import LearningCurveOptions, run_learning_curve
from guiapp.core.experiment.results.experiment_result import ExperimentResult
from guiapp.core.experiment.run.runner import run_experiment
from guiapp.core.predict.new_texts import category_counts, predict_new_texts
from guiapp.core.predict.open_model import open_trained_model
from guiapp.core.study.mapping import ColumnMapping
from guiapp.core.study.sections import EvaluationSpec, ModelSpec
from guiapp.core.study.spec import DataSpec, ExperimentSpec

FIXTURE = Path(__file__).resolve().parents[3] / "fixtures" / "multi_label_small.csv"
CATEGORIES = ["economy", "health", "environment", "migration"]


def _spec(source: Path, tune: bool = False, oversampling: str = "off") -> ExperimentSpec:
    return ExperimentSpec(
        name="several categories",
        data=DataSpec(source=str(source), mapping=ColumnMapping(text_columns=["text"], multi_label=True,
                                                                category_columns=list(CATEGORIES))),
        evaluation=EvaluationSpec(folds=3, bootstrap_samples=100, tune_thresholds=tune, oversampling=oversampling),
        models=[ModelSpec("bow", "logistic_regression", grid={"C": [1.0, 10.0]}),
                ModelSpec("bow", "svm", grid={"kernel": ["linear"], "C": [1.0]})],
    )


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    folder = tmp_path_factory.mktemp("multi")
    source = folder / "coded.csv"
    shutil.copy(FIXTURE, source)
    result = run_experiment(_spec(source, tune=True), n_jobs=1, artefacts_dir=folder / "models")
    return result, folder


def test_every_model_and_combination_is_scored_as_a_multi_label_study(study):
    result, _ = study
    assert result.multi_label
    assert [model.status for model in result.models] == ["done"] * 4
    n_test = len(result.test_true)
    assert all(isinstance(coded, list) for coded in result.test_true)
    truth = np.zeros((n_test, len(result.categories)), dtype=np.uint8)
    for row, coded in enumerate(result.test_true):
        truth[row, coded] = 1
    for model in result.models:
        assert len(model.thresholds) == len(result.categories)
        assert all(isinstance(predicted, list) for predicted in model.predictions)
        test = model.test
        assert test.multi_label and test.confusion == []
        assert test.micro_f1 is not None and 0.0 <= test.hamming_loss <= 1.0
        predicted = np.zeros_like(truth)
        for row, chosen in enumerate(model.predictions):
            predicted[row, chosen] = 1
        assert test.hamming_loss == pytest.approx((predicted != truth).mean())
        assert test.accuracy == pytest.approx((predicted == truth).all(axis=1).mean())
        probabilities = np.asarray(model.probabilities)
        assert probabilities.shape == (n_test, len(result.categories))
        np.testing.assert_array_equal(predicted, probabilities >= np.asarray(model.thresholds))


def test_the_results_file_keeps_the_sets_of_categories(study):
    result, _ = study
    again = ExperimentResult.from_json(result.to_json(include_texts=True))
    assert again.multi_label and again.test_true == result.test_true
    assert again.models[0].thresholds == result.models[0].thresholds
    assert again.models[0].test.category_confusions == result.models[0].test.category_confusions
    assert again.models[0].test.per_category[0].f1_ci == result.models[0].test.per_category[0].f1_ci


def test_saved_models_give_new_texts_each_category_s_chance_and_their_set(study):
    result, _ = study
    models = [open_trained_model(model.artefact, model.name) for model in result.models]
    assert all(model.multi_label for model in models)
    texts = ["Taxes and the budget of the hospital were debated.", "", "Refugees at the border."]
    found = predict_new_texts(models, texts)
    for model, predictions in zip(result.models, found.predictions, strict=True):
        assert predictions.predicted.shape == (3, 4) and predictions.n_empty == 1
        assert predictions.labels()[1] == ""
        decided = predictions.probabilities[[0, 2]] >= np.asarray(model.thresholds)
        np.testing.assert_array_equal(predictions.predicted[[0, 2]], decided)
    counts = category_counts(found)
    assert list(counts.index) == result.categories
    # the saved model answers the test texts as the run did
    first = found.predictions[0]
    again = predict_new_texts(models[:1], result.test_texts).predictions[0]
    np.testing.assert_allclose(again.probabilities, np.asarray(result.models[0].probabilities), atol=1e-5)
    assert first.categories == result.categories


def test_oversampling_per_category_runs(tmp_path):
    source = tmp_path / "coded.csv"
    shutil.copy(FIXTURE, source)
    spec = _spec(source, oversampling="random")
    spec.evaluation.combine = False
    result = run_experiment(spec, n_jobs=1)
    assert [model.status for model in result.models] == ["done", "done"]


def test_the_learning_curve_works_unchanged(tmp_path):
    source = tmp_path / "coded.csv"
    shutil.copy(FIXTURE, source)
    spec = _spec(source)
    spec.models = spec.models[:1]
    curve = run_learning_curve(spec, options=LearningCurveOptions(sizes=(30, 45), repeats=1), n_jobs=1)
    points = curve.models[0].points
    assert sorted({point.size for point in points})[:2] == [30, 45]  # and all training texts
    assert all(0.0 <= point.macro_f1 <= 1.0 and len(point.category_f1) == 4 for point in points)


def test_textlab_run_reads_a_multi_label_study_file(tmp_path, capsys):
    from guiapp.cli.entry import main

    shutil.copy(FIXTURE, tmp_path / "coded.csv")
    _spec(Path("coded.csv")).save(tmp_path / "study.toml")
    out = tmp_path / "results"
    assert main(["run", str(tmp_path / "study.toml"), "--out", str(out), "--jobs", "1"]) == 0
    result = ExperimentResult.from_json((out / "results.json").read_text(encoding="utf-8"))
    assert result.multi_label and result.categories == sorted(CATEGORIES)
    assert "macro-F1" in capsys.readouterr().out
    predictions = pd.read_csv(out / "predictions.csv")
    assert len(predictions) == len(result.test_true) * len(result.models)  # a row per test text and model

    assert main(["agreement", str(out), "--samples", "50"]) == 0  # agreement per category
    printed = capsys.readouterr().out
    assert "Per category (a text in it or not)" in printed
    for category in CATEGORIES:
        assert category in printed
    assert "several categories" in printed  # why there is no comparison with single coders



def test_the_project_keeps_the_study_its_results_and_models(study, tmp_path):
    from guiapp.core.project.format import Project, model_folders_of
    from guiapp.core.project.opening import open_project
    from guiapp.core.project.saving import save_project
    from guiapp.core.study.spec import ExperimentSpec

    result, folder = study
    spec = ExperimentSpec.from_dict(result.spec)
    table = pd.read_csv(folder / "coded.csv")
    path = save_project(tmp_path / "speeches.textlab",
                        Project(spec=spec, table=table, result=result, model_folders=model_folders_of(result)))
    reopened = open_project(path, extract_models_to=tmp_path / "models")
    assert reopened.spec.data.mapping.multi_label
    assert reopened.spec.data.mapping.category_columns == CATEGORIES
    assert reopened.spec.evaluation.tune_thresholds
    assert reopened.result.to_dict() == result.to_dict()
    model = open_trained_model(reopened.model_folder(result.models[0].name), result.models[0].name)
    assert model.multi_label
    np.testing.assert_allclose(model.answer(result.test_texts)[1], np.asarray(result.models[0].probabilities),
                               atol=1e-5)
