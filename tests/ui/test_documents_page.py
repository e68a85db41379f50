"""The Documents step lists the test texts with every model's answer; the filters narrow them down,
the reading pane shows the chosen text in full, and a confusion-matrix click leads here."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from PySide6.QtCore import QPoint, QPointF, Qt

from guiapp.core.explain.documents import DocumentFilter
from guiapp.ui.steps.documents.documents_page import EMPTY_TEXT, NO_SELECTION_TEXT, DocumentsPage
from guiapp.ui.steps.results.results_page import ResultsPage
from guiapp.ui.steps.results.results_tabs import CELL_CLICK_HINT
from guiapp.ui.steps.documents.documents_table import AGREE_BACKGROUND, DISAGREE_BACKGROUND, preview
from tests.core.explain.test_documents import big_result
from tests.ui.helpers import save_screenshot
from tests.ui.sample_results import sample_result

OPENINGS = {
    "Economy": ["We will cut taxes for small businesses", "Wages must keep pace with prices",
                "The budget deficit has to come down", "Public investment in railways creates jobs"],
    "Health": ["Every patient deserves a doctor within a week", "Nurses need better pay and fewer night shifts",
               "We will build twenty new hospitals", "Prescription drugs must become cheaper"],
    "Foreign affairs": ["Our embassies must defend human rights", "We stand with our partners in NATO",
                        "Trade agreements need fair labour standards", "Development aid should reach 0.7 % of GDP"],
}
ENDINGS = [", because families feel the cost of living every day.",
           " and the next government will act on it in its first hundred days.",
           "; the régime of the last years has failed our regions, from the coast to the mountains.",
           ". This is a question of fairness between generations, between town and countryside, and between "
           "those who have much and those who have little; we will not leave anyone behind."]


def readable_result():
    """``sample_result()`` with manifesto-like texts and, for three models, probabilities."""
    result = sample_result()
    rng = np.random.default_rng(11)
    texts = []
    for code in result.test_true:
        category = result.categories[code]
        texts.append(str(rng.choice(OPENINGS[category])) + str(rng.choice(ENDINGS)))
    result.test_texts = texts
    for model in result.finished_models()[:3]:
        predicted = np.asarray(model.predictions)
        confidence = rng.uniform(0.36, 0.99, len(predicted))
        probabilities = np.tile(((1 - confidence) / 2)[:, None], (1, 3))
        probabilities[np.arange(len(predicted)), predicted] = confidence
        model.probabilities = probabilities.tolist()
    return result


def party_metadata(n: int) -> pd.DataFrame:
    rng = np.random.default_rng(4)
    return pd.DataFrame({"Party": rng.choice(["Social Democrats", "Greens", "Liberals"], n),
                         "Year": rng.choice([2013, 2017, 2021], n)})


@pytest.fixture(scope="module")
def result():
    return readable_result()


@pytest.fixture
def page(qtbot, result):
    view = DocumentsPage()
    qtbot.addWidget(view)
    view.resize(1280, 800)
    view.show()
    view.show_result(result, party_metadata(len(result.test_true)))
    return view


def column_texts(page, title: str) -> list[str]:
    """What a column shows, top to bottom; confidence columns are named "confidence MODEL"."""
    model = page.documents
    if title.startswith("confidence "):
        column = model.column_of("confidence:" + title.removeprefix("confidence "))
    else:
        column = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())].index(title)
    return [model.index(r, column).data() for r in range(model.rowCount())]


def test_empty_state_before_any_result(qtbot, result):
    view = DocumentsPage()
    qtbot.addWidget(view)
    assert view.stack.currentWidget() is view.empty
    assert view.empty_label.text() == EMPTY_TEXT
    view.show_result(result)
    assert view.stack.currentWidget() is view.content
    view.clear()
    assert view.stack.currentWidget() is view.empty and view.selected_document() is None


def test_every_test_text_is_listed_with_each_models_answer(page, result):
    best = result.best()
    assert page.count_text() == "Showing all 1,335 documents"
    assert page.documents.rowCount() == 1335
    model = page.documents
    titles = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    assert titles[:5] == ["Row", "ID", "Text", "Your coding", f"{best.name}\nanswer"]
    assert titles[5] == "\nconfidence"
    assert model.headerData(5, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole).startswith(f"{best.name}: ")
    assert titles[-2:] == ["Party", "Year"]
    assert len(titles) == 4 + 2 * len(result.finished_models()) + 2
    assert column_texts(page, "Row")[:3] == [str(row) for row in result.test_rows[:3]]
    assert column_texts(page, "Text")[0] == preview(result.test_texts[0])
    assert column_texts(page, "Your coding")[0] == result.categories[result.test_true[0]]
    answers = column_texts(page, f"{best.name}\nanswer")
    for i in range(20):
        mark = "✓" if best.predictions[i] == result.test_true[i] else "✗"
        assert answers[i] == f"{mark} {result.categories[best.predictions[i]]}"
    confidence = column_texts(page, f"confidence {best.name}")
    assert confidence[0] == f"{max(best.probabilities[0]) * 100:.0f} %"
    assert set(column_texts(page, f"confidence {result.ranked()[-1].name}")) == {"—"}  # no probabilities
    # the chosen model's answers are coloured: blue when right, orange when wrong
    right = answers.index(next(a for a in answers if a.startswith("✓")))
    wrong = answers.index(next(a for a in answers if a.startswith("✗")))
    column = titles.index(f"{best.name}\nanswer")
    assert model.index(right, column).data(Qt.ItemDataRole.BackgroundRole).color().name() == AGREE_BACKGROUND
    assert model.index(wrong, column).data(Qt.ItemDataRole.BackgroundRole).color().name() == DISAGREE_BACKGROUND
    assert model.index(0, titles.index("Text")).data(Qt.ItemDataRole.ToolTipRole).replace("\n", " ") == \
        result.test_texts[0]


def test_only_mistakes_of_the_chosen_model(page, result, qtbot):
    best = result.best()
    mistakes = sum(1 for t, p in zip(result.test_true, best.predictions, strict=True) if t != p)
    page.filters.mistakes_box.setChecked(True)
    assert page.documents.rowCount() == mistakes
    assert page.count_text() == f"Showing {mistakes:,} of 1,335 documents"
    assert all(answer.startswith("✗") for answer in column_texts(page, f"{best.name}\nanswer"))
    other = result.ranked()[1]
    page.filters.set_model(other.name)
    assert page.documents.rowCount() == sum(1 for t, p in zip(result.test_true, other.predictions, strict=True)
                                             if t != p)
    assert page.documents.headerData(4, Qt.Orientation.Horizontal) == f"{other.name}\nanswer"  # its columns first
    qtbot.mouseClick(page.filters.clear_button, Qt.MouseButton.LeftButton)
    assert page.documents.rowCount() == 1335 and not page.filters.mistakes_box.isChecked()
    assert page.filters.chosen_model() == other.name


def test_a_confusion_cell_shows_exactly_its_documents(page, result):
    model = result.ranked()[1]
    page.filters.mistakes_box.setChecked(True)
    page.filters.search_edit.setText("budget")
    page.show_cell(model.name, 1, 0)
    assert page.documents.rowCount() == model.test.confusion[1][0]
    assert page.filters.human_combo.currentText() == "Health"
    assert page.filters.predicted_combo.currentText() == "Economy"
    assert page.filters.chosen_model() == model.name
    assert page.filters.search_edit.text() == "" and not page.filters.mistakes_box.isChecked()
    assert set(column_texts(page, "Your coding")) == {"Health"}
    assert set(column_texts(page, f"{model.name}\nanswer")) == {"✗ Economy"}
    page.show_cell(model.name, "Economy", "Economy")  # names work too; agreement cells are allowed
    assert page.documents.rowCount() == model.test.confusion[0][0]


def test_search_waits_for_typing_to_pause(page, result, qtbot):
    qtbot.keyClicks(page.filters.search_edit, "NURSES")
    assert page.documents.rowCount() == 1335  # not yet: the search waits 200 ms after the last key
    expected = sum(1 for text in result.test_texts if "nurses" in text.lower())
    qtbot.waitUntil(lambda: page.documents.rowCount() == expected, timeout=30_000)
    assert all("nurses" in text.lower() for text in column_texts(page, "Text"))
    page.filters.search_edit.setText("regime")  # accents do not matter
    accented = sum(1 for text in result.test_texts if "régime" in text)
    qtbot.waitUntil(lambda: page.documents.rowCount() == accented, timeout=30_000)
    assert page.count_text() == f"Showing {accented:,} of 1,335 documents"


def test_confidence_range_and_another_column(page, result):
    filters = page.filters
    last = result.ranked()[-1]
    filters.set_model(last.name)
    assert not filters.high_spin.isEnabled()  # this model gives no confidence
    best = result.best()
    filters.set_model(best.name)
    assert filters.high_spin.isEnabled()
    filters.high_spin.setValue(60)
    confidence = np.asarray(best.probabilities).max(axis=1)
    assert page.documents.rowCount() == int((confidence <= 0.60).sum())
    filters.low_spin.setValue(80)  # above the upper end: the upper end follows
    assert filters.high_spin.value() == 80
    assert page.documents.rowCount() == int(((confidence >= 0.8) & (confidence <= 0.8)).sum())
    filters.clear_filters()
    metadata = party_metadata(len(result.test_true))
    filters.column_combo.setCurrentIndex(filters.column_combo.findData("Year"))
    filters.mode_combo.setCurrentIndex(filters.mode_combo.findData("equals"))
    filters.value_edit.setText("2017")
    filters.value_edit.returnPressed.emit()  # Enter filters at once
    assert page.documents.rowCount() == int((metadata["Year"] == 2017).sum())
    assert set(column_texts(page, "Year")) == {"2017"}


def test_selecting_a_document_shows_it_in_full_with_every_answer(page, result, qtbot):
    assert page.no_selection_label.text() == NO_SELECTION_TEXT
    assert page.reader_stack.currentWidget() is page.no_selection_label
    page.filters.mistakes_box.setChecked(True)
    target = page.documents.document_at(2)
    with qtbot.waitSignal(page.documentSelected) as signal:
        rect = page.view.visualRect(page.documents.index(2, 2))
        qtbot.mouseClick(page.view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert signal.args == [target] and page.selected_document() == target
    assert page.reader_stack.currentWidget() is page.reader
    assert page.text_browser.toPlainText() == result.test_texts[target]
    assert f"Row {result.test_rows[target]:,}" in page.heading_label.text()
    assert result.categories[result.test_true[target]] in page.heading_label.text()
    assert "Party: " in page.details_label.text() and "Year: " in page.details_label.text()
    answers = page.answers()
    finished = result.ranked()
    assert [row[0] for row in answers] == [model.name for model in finished]
    for row, model in zip(answers, finished, strict=True):
        right = model.predictions[target] == result.test_true[target]
        assert row[1] == result.categories[model.predictions[target]]
        assert row[3] == ("✓ yes" if right else "✗ no")
    assert answers[0][3] == "✗ no"  # a mistake of the best model, as filtered
    # the document stays chosen while it passes the filters, even when sorted
    page.view.sortByColumn(2, Qt.SortOrder.DescendingOrder)
    assert page.selected_document() == target
    assert page.documents.document_at(page.view.currentIndex().row()) == target
    page.filters.set_model(finished[1].name)
    if finished[1].predictions[target] == result.test_true[target]:  # not a mistake of this model
        assert page.selected_document() is None
        assert page.reader_stack.currentWidget() is page.no_selection_label


def test_header_click_sorts_the_documents(page, result, qtbot):
    header = page.view.horizontalHeader()
    column = page.documents.column_of("confidence:" + result.best().name)
    point = QPoint(header.sectionViewportPosition(column) + 10, header.height() // 2)
    qtbot.mouseClick(header.viewport(), Qt.MouseButton.LeftButton, pos=point)
    best = result.best()
    confidence = np.asarray(best.probabilities).max(axis=1)
    shown = page.shown_documents()
    assert np.all(np.diff(confidence[shown]) >= 0)
    qtbot.mouseClick(header.viewport(), Qt.MouseButton.LeftButton, pos=point)
    shown = page.shown_documents()
    assert np.all(np.diff(confidence[shown]) <= 0)
    page.filters.mistakes_box.setChecked(True)  # filtering keeps the order
    assert np.all(np.diff(confidence[page.shown_documents()]) <= 0)


def test_clicking_a_confusion_cell_on_the_results_step(qtbot):
    results = ResultsPage()
    qtbot.addWidget(results)
    results.resize(1090, 760)
    results.show()
    sample = sample_result()
    results.show_result(sample)
    results.show_tab("Confusion matrix")
    heatmap = results.heatmap
    qtbot.waitExposed(heatmap)
    assert CELL_CLICK_HINT in results.confusion_caption.plain_text()
    assert CELL_CLICK_HINT in heatmap.toolTip() and heatmap.click_hint == CELL_CLICK_HINT  # also on each cell
    view = heatmap.getPlotItem().getViewBox()
    point = heatmap.mapFromScene(view.mapViewToScene(QPointF(0, 2)))  # column 0, row 2
    with qtbot.waitSignal(results.confusionCellClicked) as signal:
        qtbot.mouseClick(heatmap.viewport(), Qt.MouseButton.LeftButton, pos=point)
    assert signal.args == [sample.best().name, 2, 0]
    # and the Documents step shows that cell
    documents = DocumentsPage()
    qtbot.addWidget(documents)
    documents.show_result(sample)
    documents.show_cell(*signal.args)
    assert documents.documents.rowCount() == sample.best().test.confusion[2][0]


@pytest.mark.slow
def test_a_hundred_thousand_documents(qtbot):
    big, metadata = big_result()
    view = DocumentsPage()
    qtbot.addWidget(view)
    view.resize(1200, 700)
    view.show()
    view.show_result(big, metadata)
    assert view.documents.rowCount() == 100_000
    assert view.count_text() == "Showing all 100,000 documents"
    human = np.asarray(big.test_true)
    svm = np.asarray(big.models[0].predictions)
    view.filters.mistakes_box.setChecked(True)
    assert view.documents.rowCount() == int((svm != human).sum())
    view.show_cell("SVM", 2, 1)
    assert view.documents.rowCount() == int(((human == 2) & (svm == 1)).sum())
    view.set_filter(DocumentFilter(model="Bayes", text="ÉCONOMIE", metadata_column="Party", metadata_value="Grüne",
                                   metadata_mode="equals"))
    expected = sum(1 for i, text in enumerate(big.test_texts) if "économie" in text and metadata["Party"][i] == "Grüne")
    assert view.documents.rowCount() == expected
    view.view.sortByColumn(view.documents.column_of("text"), Qt.SortOrder.AscendingOrder)
    assert view.select_document(view.documents.document_at(0))
    assert view.text_browser.toPlainText() == big.test_texts[view.selected_document()]


def test_a_study_where_no_model_finished_still_lists_its_texts(qtbot):
    failed = sample_result(models=[("word_vectors", "xgboost", None)])
    view = DocumentsPage()
    qtbot.addWidget(view)
    view.show_result(failed)
    assert view.documents.rowCount() == 1335 and view.documents.columnCount() == 4
    assert not view.filters.mistakes_box.isEnabled() and not view.filters.model_combo.isEnabled()
    view.filters.human_combo.setCurrentIndex(view.filters.human_combo.findData("Health"))
    assert view.documents.rowCount() == failed.test_true.count(1)
    assert view.select_document(view.documents.document_at(0)) and view.answers() == []


def test_screenshot(qtbot, result):
    view = DocumentsPage()
    qtbot.addWidget(view)
    view.resize(1360, 820)
    view.show()
    view.show_result(result, party_metadata(len(result.test_true)))
    view.filters.mistakes_box.setChecked(True)
    view.select_document(view.documents.document_at(1))
    qtbot.waitExposed(view)
    qtbot.wait(50)
    save_screenshot(view, "documents_page")
