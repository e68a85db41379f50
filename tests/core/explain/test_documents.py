"""The Documents step's table: every test document with each model's answer, filtered and sorted."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from guiapp.core.experiment.results import experiment_result as results
from guiapp.core.explain.documents import (
    CONFIDENCE,
    CORRECT,
    HUMAN,
    ID,
    METADATA,
    PREDICTED,
    ROW,
    TEXT,
    DocumentFilter,
    DocumentsTable,
    fold,
    matching_rows,
    sort_rows,
)

CATEGORIES = ["Economy", "Health", "Foreign affairs"]
TEXTS = [
    "Taxes on small firms must fall.",  # 0
    "Hospitals need more nurses.",  # 1
    "Our embassy in Paris reopens; the café too.",  # 2
    "The CAFÉ owners want lower TAXES.",  # 3
    "Vaccines for every child.",  # 4
    "Trade with China grows.",  # 5
]
HUMAN_CODES = [0, 1, 2, 0, 1, 2]
SVM = [0, 1, 0, 1, 1, 0]  # wrong on 2, 3, 5
BAYES = [0, 0, 2, 0, 1, 2]  # wrong on 1
SVM_PROBABILITIES = [
    [0.9, 0.05, 0.05], [0.2, 0.7, 0.1], [0.5, 0.1, 0.4], [0.3, 0.6, 0.1], [0.05, 0.95, 0.0], [0.4, 0.3, 0.3],
]


def _model(name: str, predictions, probabilities=None, score: float = 0.5, status: str = "done") -> results.ModelResult:
    """A model's result as the runner reports it; ``score`` orders the models (best first)."""
    test = results.TestResult(score, None, 0.95, score, [], []) if status == "done" else None
    return results.ModelResult(name=name, representation="bow", classifier="svm", spec={}, status=status, test=test,
                       predictions=[int(p) for p in predictions], probabilities=probabilities)


def small_result() -> results.ExperimentResult:
    return results.ExperimentResult(
        spec={}, categories=list(CATEGORIES), split={}, test_rows=[12, 3, 40, 7, 25, 9],
        test_ids=["a", "b", None, "d", "e", "f"], test_texts=list(TEXTS), test_true=list(HUMAN_CODES),
        models=[
            _model("SVM", SVM, SVM_PROBABILITIES, score=0.5),
            _model("Naive Bayes", BAYES, score=0.8),  # the best, listed first
            _model("XGBoost", [], status="failed"),
        ],
    )


METADATA_FRAME = pd.DataFrame(
    {"Party": ["SPD", "Grüne", "CDU", "grüne", "SPD", None], "Year": [2021, 2017, 2021, 2013, 2021, 2017]},
    index=[100, 101, 102, 103, 104, 105],  # not the documents' positions: the table re-aligns by order
)


@pytest.fixture
def table() -> DocumentsTable:
    return DocumentsTable.from_result(small_result(), METADATA_FRAME)


def rows(table, **parts) -> list[int]:
    return matching_rows(table, DocumentFilter(**parts)).tolist()


def test_the_table_holds_each_finished_model_best_first(table):
    assert len(table) == 6
    assert table.model_names() == ["Naive Bayes", "SVM"]
    svm = table.model("SVM")
    assert svm.correct.tolist() == [True, True, False, False, True, False]
    assert svm.confidence.tolist() == pytest.approx([0.9, 0.7, 0.5, 0.6, 0.95, 0.4])
    assert svm.has_confidence and not table.model("Naive Bayes").has_confidence
    assert table.model(None).name == "Naive Bayes"
    with pytest.raises(ValueError):
        table.model("XGBoost")
    assert table.metadata_columns() == ["Party", "Year"]
    assert table.has_ids()


def test_a_document_has_every_answer_for_the_reading_pane(table):
    document = table.document(3)
    assert (document.row, document.id, document.text, document.human) == (7, "d", TEXTS[3], "Economy")
    bayes, svm = document.answers
    assert (bayes.model, bayes.category, bayes.confidence, bayes.correct) == ("Naive Bayes", "Economy", None, True)
    assert (svm.model, svm.category, svm.correct) == ("SVM", "Health", False)
    assert svm.confidence == pytest.approx(0.6)
    assert document.metadata == {"Party": "grüne", "Year": 2013}


def test_metadata_must_have_one_row_per_document():
    with pytest.raises(ValueError, match="6 test documents"):
        DocumentsTable.from_result(small_result(), METADATA_FRAME.iloc[:4])


def test_a_result_saved_without_texts_still_lists_its_documents():
    result = small_result()
    result.test_texts = []
    table = DocumentsTable.from_result(result)
    assert len(table) == 6 and table.document(0).text == ""
    assert table.metadata_columns() == []


def test_no_filter_keeps_every_document(table):
    assert DocumentFilter().is_empty() and DocumentFilter(model="SVM").is_empty()
    assert not DocumentFilter(errors_only=True).is_empty()
    assert rows(table) == [0, 1, 2, 3, 4, 5]


def test_only_mistakes_of_the_chosen_model(table):
    assert rows(table, errors_only=True) == [1]  # the best model: Naive Bayes
    assert rows(table, model="SVM", errors_only=True) == [2, 3, 5]


def test_human_and_predicted_category(table):
    assert rows(table, human="Economy") == [0, 3]
    assert rows(table, model="SVM", predicted="Economy") == [0, 2, 5]
    assert rows(table, model="Naive Bayes", predicted="Economy") == [0, 1, 3]


def test_a_confusion_cell_matches_the_confusion_count(table):
    assert matching_rows(table, DocumentFilter.cell("SVM", "Foreign affairs", "Economy")).tolist() == [2, 5]
    assert matching_rows(table, DocumentFilter.cell("SVM", "Economy", "Health")).tolist() == [3]
    result = small_result()
    for h in range(3):
        for p in range(3):
            expected = sum(1 for t, s in zip(HUMAN_CODES, SVM, strict=True) if (t, s) == (h, p))
            found = matching_rows(table, DocumentFilter.cell("SVM", result.categories[h], result.categories[p]))
            assert len(found) == expected


def test_confidence_range_includes_its_ends_and_skips_models_without_one(table):
    assert rows(table, model="SVM", confidence=(0.6, 0.9)) == [0, 1, 3]
    assert rows(table, model="SVM", confidence=(0.0, 1.0)) == [0, 1, 2, 3, 4, 5]
    assert rows(table, model="Naive Bayes", confidence=(0.0, 1.0)) == []


def test_text_search_ignores_case_and_accents(table):
    assert rows(table, text="taxes") == [0, 3]
    assert rows(table, text="  CAFE ") == [2, 3]
    assert rows(table, text="café") == [2, 3]
    assert rows(table, text="nurses") == [1]
    assert rows(table, text="no such words") == []
    assert rows(table, text="   ") == [0, 1, 2, 3, 4, 5]
    assert fold("Économie Straße") == "economie strasse"


def test_metadata_equals_or_contains(table):
    assert rows(table, metadata_column="Party", metadata_value="grune", metadata_mode="equals") == [1, 3]
    assert rows(table, metadata_column="Party", metadata_value="sp", metadata_mode="equals") == []
    assert rows(table, metadata_column="Party", metadata_value="sp", metadata_mode="contains") == [0, 4]
    assert rows(table, metadata_column="Year", metadata_value="2021", metadata_mode="equals") == [0, 2, 4]
    assert rows(table, metadata_column="Year", metadata_value="201", metadata_mode="contains") == [1, 3, 5]
    assert rows(table, metadata_column="Party", metadata_value="") == [0, 1, 2, 3, 4, 5]
    with pytest.raises(ValueError):
        rows(table, metadata_column="Region", metadata_value="North")


def test_filters_combine(table):
    assert rows(table, model="SVM", errors_only=True, human="Foreign affairs") == [2, 5]
    assert rows(table, model="SVM", errors_only=True, human="Foreign affairs", text="trade") == [5]
    assert rows(table, model="SVM", errors_only=True, confidence=(0.45, 1.0), metadata_column="Year",
                metadata_value="2021", metadata_mode="equals") == [2]
    assert rows(table, human="Health", predicted="Health", text="vaccine", metadata_column="Party",
                metadata_value="spd") == [4]


def test_unknown_categories_are_refused(table):
    with pytest.raises(ValueError):
        rows(table, human="Sports")


def test_sorting_is_stable_with_missing_values_last(table):
    everything = np.arange(6)
    assert sort_rows(table, everything, ROW).tolist() == [1, 3, 5, 0, 4, 2]
    assert sort_rows(table, everything, ROW, descending=True).tolist() == [2, 4, 0, 5, 3, 1]
    assert sort_rows(table, everything, ID).tolist() == [0, 1, 3, 4, 5, 2]  # no ID: last
    assert sort_rows(table, everything, ID, descending=True).tolist() == [5, 4, 3, 1, 0, 2]
    # categories alphabetically; ties keep the order they came in
    assert sort_rows(table, everything, HUMAN).tolist() == [0, 3, 2, 5, 1, 4]
    assert sort_rows(table, np.array([3, 0, 5, 2]), HUMAN).tolist() == [3, 0, 5, 2]
    assert sort_rows(table, everything, HUMAN, descending=True).tolist() == [1, 4, 2, 5, 0, 3]
    assert sort_rows(table, everything, PREDICTED + "SVM").tolist() == [0, 2, 5, 1, 3, 4]
    assert sort_rows(table, everything, CORRECT + "SVM").tolist() == [2, 3, 5, 0, 1, 4]  # mistakes first
    assert sort_rows(table, everything, CONFIDENCE + "SVM", descending=True).tolist() == [4, 0, 1, 3, 2, 5]
    # a model without confidence: all missing, the order stays as it was
    assert sort_rows(table, np.array([5, 1, 3]), CONFIDENCE + "Naive Bayes").tolist() == [5, 1, 3]
    assert sort_rows(table, everything, TEXT).tolist() == [1, 2, 0, 3, 5, 4]
    assert sort_rows(table, everything, METADATA + "Party").tolist() == [2, 1, 3, 0, 4, 5]  # missing party last
    assert sort_rows(table, everything, METADATA + "Year", descending=True).tolist() == [0, 2, 4, 1, 5, 3]
    with pytest.raises(ValueError):
        sort_rows(table, everything, "colour")


def test_sorting_a_filtered_subset_returns_only_those_documents(table):
    errors = matching_rows(table, DocumentFilter(model="SVM", errors_only=True))
    assert sort_rows(table, errors, CONFIDENCE + "SVM").tolist() == [5, 2, 3]


def big_result(n: int = 100_000, seed: int = 1) -> tuple[results.ExperimentResult, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    human = rng.integers(0, 3, n)
    words = np.array("taxes budget hospital nurses embassy treaty trade économie santé jobs the and of".split())
    texts = [" ".join(chosen) for chosen in rng.choice(words, size=(n, 25))]
    models = []
    for name, hit in (("SVM", 0.7), ("Bayes", 0.6)):
        predicted = np.where(rng.random(n) < hit, human, rng.integers(0, 3, n))
        probabilities = rng.dirichlet([1, 1, 1], n)
        models.append(_model(name, predicted, probabilities.tolist(), score=hit))
    result = results.ExperimentResult(spec={}, categories=list(CATEGORIES), split={}, test_rows=list(range(2, n + 2)),
                              test_ids=list(range(n)), test_texts=texts, test_true=human.tolist(), models=models)
    metadata = pd.DataFrame({"Party": rng.choice(["SPD", "CDU", "Grüne"], n), "Year": rng.integers(1990, 2024, n)})
    return result, metadata


def test_a_hundred_thousand_documents_filter_as_numpy_would():
    result, metadata = big_result()
    table = DocumentsTable.from_result(result, metadata)
    human = np.asarray(result.test_true)
    svm = np.asarray(result.models[0].predictions)
    probabilities = np.asarray(result.models[0].probabilities)
    confidence = probabilities[np.arange(len(svm)), svm]
    assert len(matching_rows(table, DocumentFilter(model="SVM", errors_only=True))) == int((svm != human).sum())
    cell = matching_rows(table, DocumentFilter.cell("SVM", "Health", "Economy"))
    assert cell.tolist() == np.flatnonzero((human == 1) & (svm == 0)).tolist()
    ranged = matching_rows(table, DocumentFilter(model="SVM", confidence=(0.3, 0.6)))
    assert ranged.tolist() == np.flatnonzero((confidence >= 0.3) & (confidence <= 0.6)).tolist()
    searched = matching_rows(table, DocumentFilter(text="ECONOMIE", errors_only=True, model="SVM"))
    expected = [i for i, text in enumerate(result.test_texts) if "économie" in text and svm[i] != human[i]]
    assert searched.tolist() == expected
    party = matching_rows(table, DocumentFilter(metadata_column="Party", metadata_value="grune",
                                                metadata_mode="equals"))
    assert party.tolist() == np.flatnonzero(metadata["Party"].to_numpy() == "Grüne").tolist()
    ordered = sort_rows(table, ranged, CONFIDENCE + "SVM", descending=True)
    assert len(ordered) == len(ranged) and np.all(np.diff(confidence[ordered]) <= 0)
