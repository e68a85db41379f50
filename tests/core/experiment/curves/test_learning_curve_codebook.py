"""The learning curve of a language model with your codebook: over the examples per category it is
shown (k = 0, 1, 2, 4, 8 …), each draw drawing other examples from the training texts, scored on the
study's test texts like every curve, read in words, and kept across saving the curve."""

from __future__ import annotations

import pytest

from guiapp.core.experiment.curves.learning_curve_codebook import curve_ks
from guiapp.core.experiment.curves.learning_curve_reading import read_curves
from guiapp.core.experiment.curves.learning_curve_results import EXAMPLES_AXIS, LearningCurveResult
from guiapp.core.experiment.curves.learning_curves import LearningCurveOptions, run_learning_curve
from guiapp.core.models.llm import codebook_model as codebook_model_module
from guiapp.core.study.mapping import ColumnMapping
from guiapp.core.study.sections import EvaluationSpec, ModelSpec
from guiapp.core.study.spec import DataSpec, ExperimentSpec
from tests.core.models.llm.test_codebook_model import tiny_lm
from tests.core.synthetic_texts import coded_texts


def test_the_numbers_of_examples_double_up_to_the_grids_largest():
    assert curve_ks([0, 2]) == [0, 1, 2, 4, 8]
    assert curve_ks([0, 3, 12]) == [0, 1, 2, 3, 4, 8, 12]
    assert curve_ks([]) == [0, 1, 2, 4, 8]


@pytest.fixture(scope="module")
def drawn(tmp_path_factory):
    folder = str(tiny_lm(tmp_path_factory.mktemp("curve lm")))
    model = ModelSpec("codebook_llm", "in_textlab", representation_options={
        "model": folder, "device": "cpu", "batch_size": 8}, grid={"k": [0, 2]})
    spec = ExperimentSpec(data=DataSpec(mapping=ColumnMapping(text_columns=["text"], category_column="label")),
                          evaluation=EvaluationSpec(folds=2, bootstrap_samples=20),
                          models=[ModelSpec("bow", "logistic_regression", grid={"C": [1.0]}), model], seed=2)
    events: list = []
    result = run_learning_curve(spec, events.append, options=LearningCurveOptions(sizes=(10, 20), repeats=2),
                                table=coded_texts(40, seed=3), n_jobs=1)
    return result, events, dict(codebook_model_module._OPENED)


def test_the_curve_is_over_the_examples_per_category(drawn):
    result, _, kept = drawn
    bow, codebook = result.models
    assert bow.ok and bow.axis == "training texts" and not bow.over_examples
    assert codebook.ok, codebook.message
    assert codebook.axis == EXAMPLES_AXIS and codebook.over_examples
    assert sorted({point.size for point in codebook.points}) == [0, 1, 2, 4, 8]
    assert all(len([p for p in codebook.points if p.size == k]) == 2 for k in (0, 1, 2, 4, 8))
    zero = [point for point in codebook.points if point.size == 0]
    assert zero[0].macro_f1 == zero[1].macro_f1 and zero[1].seconds == 0.0  # answered once for both draws
    assert all(0.0 <= point.macro_f1 <= 1.0 and len(point.category_f1) == 3 for point in codebook.points)
    assert kept == {}  # the language model was let go at the end


def test_the_curve_is_read_and_kept_in_words(drawn):
    result, events, _ = drawn
    reopened = LearningCurveResult.from_json(result.to_json())
    assert reopened.models[1].axis == EXAMPLES_AXIS and reopened.models[1].points == result.models[1].points
    reading = {row.model: row for row in read_curves(reopened)}[result.models[1].name]
    assert reading.from_size == 4 and reading.to_size == 8
    assert "over the examples per category it is shown" in reading.words
    assert "Without examples (zero-shot) it scored" in reading.words
    said = " ".join(getattr(event, "message", "") for event in events)
    assert "its curve is over the examples per category it is shown (k = 0, 1, 2, 4, 8)" in said
    assert "examples per category (" in said


def test_the_scores_file_says_what_each_size_counts(drawn, tmp_path):
    import pandas as pd

    from guiapp.core.experiment.curves.learning_curve_files import CURVE_CSV_NAME, write_learning_curve

    result, _, _ = drawn
    write_learning_curve(result, tmp_path)
    table = pd.read_csv(tmp_path / CURVE_CSV_NAME, encoding="utf-8-sig")
    assert list(table.columns[:4]) == ["model", "size", "size_counts", "repeat"]
    counts = dict(zip(table["model"], table["size_counts"], strict=False))
    assert counts == {result.models[0].name: "training texts", result.models[1].name: EXAMPLES_AXIS}
