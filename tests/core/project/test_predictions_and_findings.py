"""The texts predicted on the Predict step and the findings last shown are kept in the project: saved,
opened again as they were, without pickles; a project without them opens as before."""

from __future__ import annotations

import json
import math
import zipfile

import numpy as np
import pandas as pd
import pytest

from guiapp.core.findings.from_study import findings_inputs
from guiapp.core.findings.kept_findings import KeptFindings
from guiapp.core.predict.new_texts import open_models, predict_new_texts
from guiapp.core.predict.predicted_texts import OWN_ROWS, PredictedTexts
from guiapp.core.project import format as fmt
from guiapp.core.project.opening import open_project
from guiapp.core.project.saving import save_project
from tests.core.project.helpers import plain_project, run_project
from tests.core.synthetic_texts import coded_texts


@pytest.fixture(scope="module")
def kept(tmp_path_factory):
    """A project with a study, 80 new texts predicted by both models (one empty text, top words for
    the first model), and the findings per year of the best model."""
    folder = tmp_path_factory.mktemp("kept")
    project = run_project(folder / "run")
    corpus = coded_texts(80, seed=3).drop(columns="label").assign(year=np.arange(80) % 4 + 2000)
    corpus.loc[5, "text"] = ""
    corpus.index = corpus.index + 1000  # the rows keep their numbers (the table's own uncoded rows do)
    names = [model.name for model in project.result.ranked()]
    models = open_models([(name, project.model_folder(name)) for name in names])
    found = predict_new_texts(models, corpus["text"].tolist(), coded_texts=project.result.test_texts)
    found.top_words = [[f"word{i}" for i in range(len(corpus))], None]
    project.predicted = PredictedTexts(found, corpus, source="/somewhere/new texts.xlsx", sheet="Sheet 2",
                                       text_columns=["text"])
    inputs = findings_inputs(project.result, names[0], found, corpus, project.table)
    findings = inputs.estimate("year") if "year" in inputs.columns() else inputs.estimate()
    project.findings = KeptFindings(findings, {"source": "predicted", "model": names[0], "group": "year"})
    path = save_project(folder / "predicted.textlab", project)
    return project, path, folder


def test_the_predicted_texts_and_every_answer_come_back(kept):
    project, path, folder = kept
    again = open_project(path, extract_models_to=folder / "models")
    before, after = project.predicted, again.predicted
    assert after is not None
    pd.testing.assert_frame_equal(after.table, before.table)
    assert list(after.table.index[:2]) == [1000, 1001]
    assert after.predictions.models == before.predictions.models
    assert after.predictions.warnings == before.predictions.warnings
    for was, now in zip(before.predictions.predictions, after.predictions.predictions, strict=True):
        assert now.categories == was.categories
        np.testing.assert_array_equal(now.predicted, was.predicted)
        np.testing.assert_array_equal(now.probabilities, was.probabilities)  # NaN for the empty text too
        assert now.n_empty == was.n_empty == 1
    assert after.predictions.top_words_of(0) == before.predictions.top_words_of(0)
    assert after.predictions.top_words_of(1) is None
    assert (after.source, after.sheet, after.text_columns) == ("/somewhere/new texts.xlsx", "Sheet 2", ["text"])
    assert after.source_name() == "new texts.xlsx"


def test_the_findings_come_back_with_what_they_measured(kept):
    project, path, _ = kept
    again = open_project(path, extract_models_to=None)
    assert again.findings is not None
    assert again.findings.choice == project.findings.choice
    was, now = project.findings.findings, again.findings.findings
    assert now.group_name == was.group_name and now.groups == was.groups and now.method == was.method
    assert len(now.shares) == len(was.shares) > len(was.categories)
    for a, b in zip(was.shares, now.shares, strict=True):
        for name in ("estimate", "low", "high", "naive", "coded_only"):
            x, y = getattr(a, name), getattr(b, name)
            assert (math.isnan(x) and math.isnan(y)) or x == y
        assert (a.group, a.category, a.n_texts, a.n_coded, a.warning) == (b.group, b.category, b.n_texts,
                                                                          b.n_coded, b.warning)
    assert now.differences == was.differences
    assert now.methods_paragraph() == was.methods_paragraph()
    assert again.findings.matches({"source": "predicted", "model": was_model(project), "group": "year"})
    assert not again.findings.matches({"source": "table", "group": "year"})


def was_model(project) -> str:
    return project.findings.choice["model"]


def test_the_file_holds_them_as_json_and_parquet_in_format_2(kept):
    _, path, _ = kept
    with zipfile.ZipFile(path) as archive:
        names = set(archive.namelist())
        header = json.loads(archive.read("project.json"))
    assert {fmt.PREDICTED_TEXTS, fmt.PREDICTION_ANSWERS, fmt.PREDICTIONS_JSON, fmt.FINDINGS_JSON} <= names
    assert all(not fmt.is_pickle_like(name) for name in names)
    assert header["format_version"] == 2


def test_a_project_without_them_stays_format_1_and_opens_without_them(tmp_path):
    path = save_project(tmp_path / "plain.textlab", plain_project(20))
    with zipfile.ZipFile(path) as archive:
        assert json.loads(archive.read("project.json"))["format_version"] == 1
    again = open_project(path, extract_models_to=None)
    assert again.predicted is None and again.findings is None


def test_damaged_predictions_or_findings_cost_only_themselves(kept, tmp_path):
    from tests.core.project.test_safety import forge, members_of

    _, path, _ = kept
    header, members = members_of(path)
    broken = forge(tmp_path / "broken.textlab", header,
                   {**members, fmt.PREDICTIONS_JSON: b'{"version": 1, "models": [{"name": 3}]}',
                    fmt.FINDINGS_JSON: b'{"version": 1, "findings": {"shares": "no"}}'})
    again = open_project(broken, extract_models_to=None)
    assert again.predicted is None and again.findings is None
    assert again.result is not None  # the rest of the project is there


def test_the_uncoded_rows_of_the_table_are_named_as_such(kept):
    project, _, _ = kept
    own = PredictedTexts(project.predicted.predictions, project.predicted.table)
    assert own.source_name() == OWN_ROWS


def test_answers_with_several_categories_per_text_come_back(tmp_path):
    from guiapp.core.predict.new_texts import NewTextPredictions
    from guiapp.core.predict.stream import NO_PREDICTION, Predictions

    predicted = np.array([[1, 0, 1], [0, 0, 0], [NO_PREDICTION] * 3], dtype=np.int8)
    chances = np.array([[0.9, 0.2, 0.7], [0.1, 0.3, 0.2], [np.nan] * 3], dtype=np.float32)
    found = NewTextPredictions(["Several"], [Predictions(["a", "b", "c"], predicted, chances, 1.5)], ["Short texts."])
    project = plain_project(10)
    project.predicted = PredictedTexts(found, pd.DataFrame({"text": ["x y", "z", ""]}))
    again = open_project(save_project(tmp_path / "several.textlab", project), extract_models_to=None).predicted
    answers = again.predictions.predictions[0]
    assert answers.multi_label and answers.categories == ["a", "b", "c"] and answers.seconds == 1.5
    np.testing.assert_array_equal(answers.predicted, predicted)
    np.testing.assert_array_equal(answers.probabilities, chances)
    labels = answers.labels()
    assert labels[0] == "a; c" and labels[2] == ""
    assert again.predictions.warnings == ["Short texts."] and again.source_name() == OWN_ROWS
