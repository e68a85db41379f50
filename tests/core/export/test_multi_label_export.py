"""A study where a text can have several categories, exported: the Excel workbook (measures, scores per
category with intervals and thresholds, a 2×2 table per category, the test texts' categories joined by
"; "), the folder of CSV files, and the methods appendix (text, HTML, facts)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from guiapp.core.experiment.scores.multilabel_metrics import multilabel_test_result
from guiapp.core.experiment.results.experiment_result import (
    ExperimentResult,
    GridPointResult,
    ModelResult,
)
from guiapp.core.study.mapping import ColumnMapping
from guiapp.core.study.sections import EvaluationSpec, ModelSpec
from guiapp.core.study.spec import DataSpec, ExperimentSpec

CATEGORIES = ["Economy", "Health", "Migration", "Environment"]
# the coding of the 12 test texts (indices into CATEGORIES); text 6 was coded with no category
CODED = [[0], [0, 1], [1], [2], [2, 3], [3], [], [0, 2], [1, 3], [0], [2], [1]]
# (model, its categories per test text, its probabilities, thresholds)
SVM_PREDICTED = [[0], [0, 1], [1], [2], [2], [3], [], [0], [1, 3], [0, 1], [2], [1]]
LOGIT_PREDICTED = [[0], [0], [1], [0], [2, 3], [], [3], [0, 2], [1], [0], [2], [0]]
THRESHOLDS = {"SVM · Basic BOW": [0.45, 0.5, 0.38, 0.6], "Logistic regression · Sentence embeddings": [0.5] * 4}


def indicator(rows: list[list[int]], k: int = len(CATEGORIES)) -> np.ndarray:
    matrix = np.zeros((len(rows), k), dtype=np.uint8)
    for text, categories in enumerate(rows):
        matrix[text, categories] = 1
    return matrix


def probabilities(predicted: list[list[int]], thresholds: list[float], seed: int) -> list[list[float]]:
    """Each category's own chance per text (rows need not sum to one), on the right side of its threshold."""
    rng = np.random.default_rng(seed)
    chosen = indicator(predicted)
    above = np.asarray(thresholds) + rng.uniform(0.02, 1 - max(thresholds) - 0.01, chosen.shape)
    below = np.asarray(thresholds) * rng.uniform(0.05, 0.9, chosen.shape)
    return np.round(np.where(chosen == 1, above, below), 4).tolist()


def multi_label_model(name: str, representation: str, classifier: str, predicted, seed: int) -> ModelResult:
    spec = ModelSpec(representation, classifier)
    thresholds = THRESHOLDS[name]
    test = multilabel_test_result(indicator(CODED), indicator(predicted), CATEGORIES, samples=200, seed=seed)
    noise = np.random.default_rng(seed).normal(0, 0.03, 5)
    scores = [round(float(np.clip(test.macro_f1 - 0.02 + value, 0, 1)), 4) for value in noise]
    point = GridPointResult(params={"C": 1.0}, fold_scores=scores, mean=float(np.mean(scores)),
                            std=float(np.std(scores)), fit_seconds=2.5)
    return ModelResult(
        name=name, representation=representation, classifier=classifier, spec=spec.to_dict() | {"name": name},
        chosen_params={"C": 1.0}, cv_scores=scores, grid=[point], test=test,
        predictions=[list(categories) for categories in predicted],
        probabilities=probabilities(predicted, thresholds, seed), thresholds=list(thresholds),
        seconds={"features": 1.2, "tuning": 8.0, "final_fit": 1.1, "predict": 0.2, "total": 10.5},
        n_features=2_048,
    )


def multi_label_result(tune_thresholds: bool = True) -> ExperimentResult:
    """A finished study of 2 models on 12 test texts that can each have several of 4 categories."""
    mapping = ColumnMapping(text_columns=["Text"], category_column=None, id_column="ID", multi_label=True,
                            category_columns=list(CATEGORIES))
    spec = ExperimentSpec(
        data=DataSpec(source="/home/user/speeches.xlsx", mapping=mapping), name="Speeches by topic",
        evaluation=EvaluationSpec(folds=5, tune_thresholds=tune_thresholds),
        models=[ModelSpec("bow", "svm"), ModelSpec("sentence_embeddings", "logistic_regression")],
    )
    models = [
        multi_label_model("SVM · Basic BOW", "bow", "svm", SVM_PREDICTED, 1),
        multi_label_model("Logistic regression · Sentence embeddings", "sentence_embeddings",
                          "logistic_regression", LOGIT_PREDICTED, 2),
    ]
    return ExperimentResult(
        spec=spec.to_dict(), categories=list(CATEGORIES),
        split={"how": "random", "n_train": 28, "n_test": 12,
               "description": "30 % of the coded texts, drawn by iterative stratification"},
        test_rows=list(range(30, 42)), test_ids=[f"S{i:02d}" for i in range(12)],
        test_texts=[f"Speech {i} on the budget, hospitals and borders" for i in range(12)],
        test_true=[list(categories) for categories in CODED], models=models,
        started_at="2024-05-02T10:14:03", finished_at="2024-05-02T10:21:47", multi_label=True,
    )


@pytest.fixture(scope="module")
def result() -> ExperimentResult:
    return multi_label_result()


def test_the_sample_is_a_multi_label_result(result):
    best = result.models[0]
    assert result.multi_label and best.test.multi_label
    assert best.test.confusion == [] and len(best.test.category_confusions) == 4
    assert all(scores.f1_ci is not None for scores in best.test.per_category)
    assert ExperimentResult.from_json(result.to_json(include_texts=True)).multi_label


# -- the Excel workbook -------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def workbook(result, tmp_path_factory):
    from openpyxl import load_workbook

    from guiapp.core.export.excel import write_excel

    path = write_excel(tmp_path_factory.mktemp("excel") / "speeches.xlsx", result=result)
    return load_workbook(path)


def rows_of(sheet) -> list[list]:
    return [list(row) for row in sheet.iter_rows(values_only=True)]


def test_workbook_has_the_per_category_tables_instead_of_the_confusion_matrices(workbook):
    assert workbook.sheetnames == ["Model comparison", "Is the best really better", "Per-category tables",
                                   "Test documents", "Settings"]


def test_the_comparison_has_the_new_measures_formatted_as_scores(workbook, result):
    sheet = workbook["Model comparison"]
    rows = rows_of(sheet)
    assert rows[0][:12] == ["Model", "Representation", "Classifier", "Macro-F1 (test texts)", "95 % interval: low",
                            "95 % interval: high", "Micro-F1 (test texts)",
                            "Exact match: all categories of a text right (subset accuracy)",
                            "Hamming loss (share of yes/no decisions wrong)", "Macro-F1 (cross-validation mean)",
                            "Time in total (s)", "Status"]
    for row, model in zip(rows[1:3], result.models, strict=True):
        test = model.test
        assert row[0] == model.name
        assert row[3:9] == pytest.approx([test.macro_f1, *test.macro_f1_ci, test.micro_f1, test.accuracy,
                                          test.hamming_loss])
    assert [sheet.cell(2, col).number_format for col in range(4, 11)] == ["0.000"] * 7
    assert sheet.cell(2, 11).number_format == "#,##0.0"


def test_the_scores_per_category_have_intervals_and_thresholds(workbook, result):
    sheet = workbook["Model comparison"]
    rows = rows_of(sheet)
    start = next(i for i, row in enumerate(rows) if row[0] == "Model" and row[1] == "Category")
    assert rows[start][:10] == ["Model", "Category", "Precision", "Recall", "F1", "F1 interval: low",
                                "F1 interval: high", "Coded (test texts)", "Predicted (test texts)", "Threshold"]
    body = rows[start + 1:start + 9]
    expected = [[model.name, s.category, s.precision, s.recall, s.f1, *s.f1_ci, s.support, s.predicted, threshold]
                for model in result.models
                for s, threshold in zip(model.test.per_category, model.thresholds, strict=True)]
    for shown, wanted in zip(body, expected, strict=True):
        assert shown[:2] == wanted[:2] and shown[2:10] == pytest.approx(wanted[2:])
    first = start + 2  # the first row of scores, counted from 1
    assert [sheet.cell(first, col).number_format for col in range(3, 11)] == [
        "0.000", "0.000", "0.000", "0.000", "0.000", "#,##0", "#,##0", "0.000"]
    meanings = {row[0]: row[1] for row in rows if row[0] in ("Micro-F1", "Hamming loss", "Threshold")}
    assert "pooled" in meanings["Micro-F1"] and "wrong" in meanings["Hamming loss"]
    assert "out-of-fold probabilities of the training texts" in meanings["Threshold"]


def test_each_category_has_its_two_by_two_table(workbook, result):
    rows = rows_of(workbook["Per-category tables"])
    for model in result.models:
        start = next(i for i, row in enumerate(rows) if row[0] == model.name)
        assert rows[start + 1][:8] == ["Category", "Coded yes · model yes (agree)", "Coded yes · model no (missed)",
                                       "Coded no · model yes (added)", "Coded no · model no (agree)",
                                       "Coded (test texts)", "Predicted (test texts)", "Test texts"]
        for row, category, ((tn, fp), (fn, tp)) in zip(rows[start + 2:start + 6], result.categories,
                                                      model.test.category_confusions, strict=True):
            assert row[:8] == [category, tp, fn, fp, tn, tp + fn, tp + fp, 12]
    health = next(row for row in rows if row[0] == "Health")  # the first model's: one text added
    assert health[1:5] == [4, 0, 1, 7]


def test_the_test_texts_list_categories_joined_and_a_probability_per_category(workbook, result):
    sheet = workbook["Test documents"]
    rows = rows_of(sheet)
    best = result.ranked()[0]
    headers = rows[0]
    assert headers[:5] == ["Row in your spreadsheet", "ID", "Text", "Coded categories",
                           f"{best.name}: predicted categories"]
    assert headers[5:10] == [*(f"{best.name}: probability {c}" for c in CATEGORIES), f"{best.name}: all categories right"]
    assert headers[-1] == "Models that get all categories right"
    assert rows[2][3] == "Economy; Health" and rows[2][4] == "Economy; Health"
    assert rows[7][3] == "(none of the categories)"  # text 6 was coded with no category
    assert rows[5][3] == "Migration; Environment" and rows[5][4] == "Migration" and rows[5][9] == "✗"
    assert rows[1][5:9] == pytest.approx(best.probabilities[0], abs=1e-6)
    assert sheet.cell(2, 6).number_format == "0.0%"
    assert [row[-1] for row in rows[1:]] == [
        sum(sorted(m.predictions[i]) == sorted(CODED[i]) for m in result.models) for i in range(12)]


def test_the_settings_say_how_categories_were_decided(workbook):
    lines = {row[0]: row[1] for row in rows_of(workbook["Settings"]) if row[0]}
    assert lines["Several categories per text"].startswith("yes")
    assert "out-of-fold probabilities" in lines["How a text's categories are decided"]
    thresholds = [row[1] for row in rows_of(workbook["Settings"]) if row[0] == "Threshold per category"]
    assert thresholds == ["Economy 0.45, Health 0.50, Migration 0.38, Environment 0.60",
                          "Economy 0.50, Health 0.50, Migration 0.50, Environment 0.50"]
    assert lines["Columns with your coding (one 0/1 column per category)"] == ", ".join(CATEGORIES)


def test_the_paired_sheet_shows_the_bootstrap(workbook):
    rows = rows_of(workbook["Is the best really better"])
    title = next(i for i, row in enumerate(rows) if str(row[0]).startswith("Every pair of models"))
    assert "paired bootstrap" in rows[title][0]
    assert rows[title + 1][2] == "Difference in macro-F1 (A − B)"
    assert isinstance(rows[title + 2][2], float)


# -- the folder of CSV files and the results folder ---------------------------------------------------------
def test_the_csv_folder_holds_the_same_tables(result, tmp_path):
    from guiapp.core.export.flat_files import write_results_csv

    written = write_results_csv(tmp_path / "csv", result)
    assert sorted(path.name for path in written) == [
        "model comparison.csv", "per-category tables.csv", "scores per category.csv", "test texts.csv"]
    assert (tmp_path / "csv" / "test texts.csv").read_bytes().startswith(b"\xef\xbb\xbf")
    comparison = pd.read_csv(tmp_path / "csv" / "model comparison.csv", encoding="utf-8-sig")
    assert comparison["Micro-F1 (test texts)"].tolist() == pytest.approx([m.test.micro_f1 for m in result.models])
    scores = pd.read_csv(tmp_path / "csv" / "scores per category.csv", encoding="utf-8-sig")
    assert scores["Threshold"].tolist() == pytest.approx([t for m in result.models for t in m.thresholds])
    assert scores["F1 interval: low"].tolist() == pytest.approx(
        [s.f1_ci[0] for m in result.models for s in m.test.per_category])
    tables = pd.read_csv(tmp_path / "csv" / "per-category tables.csv", encoding="utf-8-sig")
    assert tables.iloc[1, :6].tolist() == ["SVM · Basic BOW", "Health", 4, 0, 1, 7]
    texts = pd.read_csv(tmp_path / "csv" / "test texts.csv", encoding="utf-8-sig")
    assert texts["Coded categories"][1] == "Economy; Health"
    assert texts["SVM · Basic BOW: probability Health"].tolist() == pytest.approx(
        [row[1] for row in result.models[0].probabilities], abs=1e-6)


def test_a_single_label_csv_folder_has_the_confusion_matrices(tmp_path):
    from guiapp.core.export.flat_files import write_results_csv
    from tests.ui.sample_results import sample_result

    single = sample_result()
    names = sorted(path.name for path in write_results_csv(tmp_path, single))
    assert names == ["confusion matrices.csv", "model comparison.csv", "scores per category.csv", "test texts.csv"]
    matrices = pd.read_csv(tmp_path / "confusion matrices.csv", encoding="utf-8-sig")
    best = single.models[0]
    assert matrices["Test texts"][:3].tolist() == best.test.confusion[0]


def test_the_results_folder_lists_categories_joined(result):
    from guiapp.core.experiment.results.result_files import predictions_frame

    frame = predictions_frame(result)
    assert list(frame.columns[:7]) == ["row", "id", "text", "true_categories", "model", "predicted_categories",
                                       "correct"]
    assert frame["true_categories"][1] == "Economy; Health" and frame["true_categories"][6] == "(none of the categories)"
    assert frame["correct"][:12].tolist() == [int(sorted(p) == sorted(c)) for p, c in zip(SVM_PREDICTED, CODED, strict=True)]


# -- the methods appendix -----------------------------------------------------------------------------------
def test_appendix_facts_hold_the_multi_label_numbers(result):
    from guiapp.core.export.appendix import build_appendix

    appendix = build_appendix(result)
    assert appendix["data"]["multi_label"]["test_texts_without_category"] == 1
    assert appendix["data"]["multi_label"]["mean_categories_per_test_text"] == pytest.approx(15 / 12)
    assert [c["test_texts"] for c in appendix["data"]["categories"]] == [4, 4, 4, 3]
    assert appendix["split"]["stratification"] == "iterative stratification (Sechidis et al., 2011)"
    protocol = appendix["evaluation"]["multi_label"]
    assert protocol["thresholds"] == "tuned" and protocol["model_families"] == ["conventional"]
    assert set(protocol["measures"]) == {"Macro-F1", "Micro-F1", "Exact match (subset accuracy)", "Hamming loss"}
    best = appendix["models"][0]
    assert best["test"]["micro_f1"] == result.models[0].test.micro_f1
    assert best["test"]["hamming_loss"] == result.models[0].test.hamming_loss
    assert best["thresholds"] == THRESHOLDS["SVM · Basic BOW"]
    assert best["per_category"][1]["f1_ci"] == list(result.models[0].test.per_category[1].f1_ci)
    pair = appendix["comparisons"]["best_vs_second"]
    assert pair["difference"] == pytest.approx(result.models[0].test.macro_f1 - result.models[1].test.macro_f1)


def test_appendix_text_says_how_the_multi_label_study_was_done(result):
    from guiapp.core.export.appendix import appendix_paragraph, build_appendix

    text = appendix_paragraph(build_appendix(result))
    assert "multi-label: a text could have several categories" in text
    assert "one binary classifier per category (one-vs-rest)" in text
    assert "iterative stratification (Sechidis et al., 2011)" in text
    assert "out-of-fold probabilities of the training texts" in text and "never on the test texts" in text
    assert "subset accuracy (the share of test texts whose set of categories was predicted exactly)" in text
    assert "Hamming loss (the share of text–category decisions that were wrong)" in text
    assert "micro-F1 0.90, subset accuracy 0.75, Hamming loss 0.062" in text
    assert "paired bootstrap over the test texts" in text and "McNemar" not in text
    assert "Averaged over the categories" in text


def test_appendix_with_untuned_thresholds_and_a_transformer():
    from guiapp.core.export.appendix import (
        appendix_paragraph,
        build_appendix,
        render_appendix_html,
    )

    study = multi_label_result(tune_thresholds=False)
    study.models[1].representation, study.models[1].classifier = "transformer", "fine_tune"
    appendix = build_appendix(study)
    text = appendix_paragraph(appendix)
    assert "every category whose predicted probability reached 0.5" in text
    assert "one sigmoid output per category, trained with binary cross-entropy" in text
    page = render_appendix_html(appendix)
    assert "Decision thresholds per category" not in page  # nothing tuned: no table of thresholds
    assert "Transformers: one sigmoid output per category, binary cross-entropy" in page


def test_appendix_page_has_the_measures_and_the_reference(result):
    from guiapp.core.export.appendix import build_appendix, render_appendix_html

    page = render_appendix_html(build_appendix(result))
    assert "<th class=\"num\" style=\"white-space:nowrap\">Micro-F1</th>" in page
    assert "<h3>What the measures mean</h3>" in page and "Hamming loss" in page
    assert "1.000 (1.00–1.00)" in page  # Economy's F1 with its interval
    assert "<h2>Decision thresholds per category</h2>" in page and "<td class=\"num\">0.38</td>" in page
    assert "Sechidis, K., Tsoumakas, G., &amp; Vlahavas, I. (2011)" in page
