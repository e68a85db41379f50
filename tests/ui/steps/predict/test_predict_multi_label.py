"""The Predict step where a text can have several categories: the uncoded rows of a table with one
0/1 column per category are offered, each model's answer is its list of categories with one chance
per category, a text counts in each of its categories, and the top words name the first category
the model gave the text."""

from __future__ import annotations

import numpy as np
import openpyxl
import pandas as pd
import pytest
from PySide6.QtCore import Qt

from guiapp.core.study.label_sets import NO_CATEGORY
from guiapp.core.study.mapping import ColumnMapping
from guiapp.ui.steps.predict.predict_page import SEVERAL_COUNTS_TEXT, SEVERAL_TOP_WORDS_TIP, PredictPage
from tests.core.explain.test_multi_label_explain import manifesto_texts
from tests.ui.helpers import save_screenshot, session_with_table
from tests.ui.steps.documents.test_documents_multi_label import CATEGORIES, trained_manifesto_study


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    return trained_manifesto_study(tmp_path_factory.mktemp("models"))


def indicator_table() -> pd.DataFrame:
    """The study's table: one 0/1 column per category; eight rows nobody has coded yet (all empty)."""
    texts, Y = manifesto_texts(40, seed=21)
    table = pd.DataFrame({"ID": [f"P-{i:03d}" for i in range(40)], "Text": texts})
    for k, category in enumerate(CATEGORIES):
        table[category] = Y[:, k].astype(float)
    table.loc[table.index[3:35:4], CATEGORIES] = np.nan
    return table


@pytest.fixture
def page(qtbot, study):
    mapping = ColumnMapping(text_columns=["Text"], id_column="ID", multi_label=True, category_columns=CATEGORIES)
    widget = PredictPage(session=session_with_table(indicator_table(), mapping))
    qtbot.addWidget(widget)
    widget.resize(1250, 1000)
    widget.show()
    result, folders = study
    widget.set_result(result, lambda model: folders.get(model.name))
    yield widget
    widget.cancel_jobs()


def test_the_uncoded_rows_get_their_categories_and_each_categorys_chance(qtbot, page, study, tmp_path):
    _, folders = study
    name = next(iter(folders))
    assert page.chosen_models() == [name]
    assert page.top_words_box.toolTip() == SEVERAL_TOP_WORDS_TIP
    assert page.source.own_button.isEnabled() and "8 uncoded rows" in page.source.own_button.text()
    page.source.own_button.click()
    page.top_words_box.setChecked(True)
    assert not page.top_words_note.isVisible()  # exact word scores: quick
    page.predict()
    qtbot.waitUntil(lambda: page.found is not None, timeout=30000)
    qtbot.waitUntil(lambda: not page.is_busy())

    preview = page.preview_model.frame()
    answers = [f"{name}: predicted categories", *(f"{name}: probability {c}" for c in CATEGORIES), f"{name}: top words"]
    assert list(preview.columns[-len(answers):]) == answers
    cells = preview[f"{name}: predicted categories"].tolist()
    assert all(cell == NO_CATEGORY or set(cell.split("; ")) <= set(CATEGORIES) for cell in cells)
    assert any("; " in cell for cell in cells)  # a text with several categories
    chances = page.found.predictions[0].probabilities
    assert (chances.sum(axis=1) > 1.05).any()  # each category's own chance: no need to sum to one
    assert preview[f"{name}: probability Economy"].iloc[0].endswith(" %")
    for cell, words in zip(cells, preview[f"{name}: top words"], strict=True):
        if cell != NO_CATEGORY and words:
            assert words.startswith(cell.split("; ")[0] + ": ")  # the first category it gave, named
    top = list(preview.columns).index(f"{name}: top words")
    tip = page.preview_model.headerData(top, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole)
    assert "first category" in tip
    chance_tip = page.preview_model.headerData(top - 1, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole)
    assert "need not add up to 100 %" in chance_tip

    # a text counts in each of its categories; the texts given none get their own row
    assert page.counts_label.text() == SEVERAL_COUNTS_TEXT
    counts = page.counts_model.frame()
    assert counts["category"].tolist() == [*CATEGORIES, NO_CATEGORY]
    given = page.found.predictions[0].predicted
    assert counts[f"{name}: texts"].tolist() == [*given.sum(axis=0).tolist(), int((given == 0).all(axis=1).sum())]
    save_screenshot(page, "predict_multi_label")
    assert page.preview_model.headerData(top, Qt.Orientation.Horizontal) == f"{name}:\ntop words"
    page.answers_box.resize(1200, 900)
    bar = page.preview_view.horizontalScrollBar()
    bar.setValue(bar.maximum())  # the answers, at the right
    save_screenshot(page.answers_box, "predict_multi_label_answers")

    out = tmp_path / "answers.xlsx"
    page.save_to(out)
    qtbot.waitUntil(lambda: not page.is_busy() and out.exists(), timeout=30000)
    header = [cell.value for cell in next(openpyxl.load_workbook(out, read_only=True)["Predictions"].iter_rows(max_row=1))]
    assert header[-len(answers):] == answers
