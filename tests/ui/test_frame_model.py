"""The table model: spreadsheet row numbers, readable cells, column roles, marked rows, big tables."""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QTableView

from guiapp.core.study.mapping import ColumnMapping
from guiapp.ui.theme import HIGHLIGHT as HIGHLIGHT_COLOR
from guiapp.ui.common.frame_model import (
    DISPLAY_CHARS,
    RAW_VALUE_ROLE,
    TOOLTIP_CHARS,
    DataFrameModel,
    column_roles_for,
)

DISPLAY = Qt.ItemDataRole.DisplayRole
TOOLTIP = Qt.ItemDataRole.ToolTipRole
BACKGROUND = Qt.ItemDataRole.BackgroundRole
VERTICAL = Qt.Orientation.Vertical
HORIZONTAL = Qt.Orientation.Horizontal


def _shown(model, row, column, role=DISPLAY):
    return model.data(model.index(row, column), role)


@pytest.fixture
def small_frame():
    return pd.DataFrame({
        "text": ["short", "x" * 1000, None, "line one\nline two", "<b>not bold</b> " * 10],
        "label": pd.array(["a", "b", pd.NA, "a", "c"], dtype="string"),
        "score": [5.0, 3.14159265, np.nan, 1234567.891, -0.5],
        "count": pd.array([1, 2, None, 4, 5], dtype="Int64"),
        "date": pd.to_datetime(["2021-03-04", "2021-03-05 10:30", None, "2020-01-01", "2019-12-31"], format="mixed"),
        "flag": [True, False, True, False, True],
    })


def test_vertical_header_gives_spreadsheet_rows(qtbot, small_frame):
    model = DataFrameModel(small_frame)
    assert model.rowCount() == 5 and model.columnCount() == 6
    assert [model.headerData(i, VERTICAL) for i in range(5)] == ["2", "3", "4", "5", "6"]
    assert "Row 2 in your spreadsheet" in model.headerData(0, VERTICAL, TOOLTIP)


def test_vertical_header_counts_title_rows_and_keeps_a_selection_s_own_rows(qtbot, small_frame):
    from guiapp.core.tables.rows import RowOrigin, set_row_origin

    set_row_origin(small_frame, RowOrigin(first_row=4, sheet="Codes"))  # two title rows, header in row 3
    model = DataFrameModel(small_frame)
    assert [model.headerData(i, VERTICAL) for i in range(5)] == ["4", "5", "6", "7", "8"]
    assert model.headerData(0, VERTICAL, TOOLTIP) == "Row 4 in the sheet “Codes” (row 3 holds the column names)."
    model.set_frame(small_frame.iloc[[1, 3]])  # e.g. the uncoded rows
    assert [model.headerData(i, VERTICAL) for i in range(2)] == ["5", "7"]


def test_cells_are_formatted_for_people(qtbot, small_frame):
    model = DataFrameModel(small_frame)
    assert _shown(model, 0, 0) == "short"
    assert _shown(model, 0, 2) == "5"
    assert _shown(model, 1, 2) == "3.14159"
    assert _shown(model, 3, 2) == "1234567.891"
    assert _shown(model, 1, 3) == "2"
    assert _shown(model, 0, 4) == "2021-03-04"
    assert _shown(model, 1, 4) == "2021-03-05 10:30"
    assert _shown(model, 0, 5) == "TRUE"
    assert _shown(model, 3, 0) == "line one ⏎ line two"
    right = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    assert _shown(model, 0, 2, Qt.ItemDataRole.TextAlignmentRole) == right
    assert _shown(model, 0, 0, Qt.ItemDataRole.TextAlignmentRole) != right


def test_missing_values_are_blank(qtbot, small_frame):
    model = DataFrameModel(small_frame)
    for column in range(5):  # None, pd.NA, NaN, <NA>, NaT
        assert _shown(model, 2, column) == ""
        assert _shown(model, 2, column, RAW_VALUE_ROLE) is None
        assert _shown(model, 2, column, TOOLTIP) is None


def test_long_text_is_elided_with_the_full_text_in_the_tooltip(qtbot, small_frame):
    model = DataFrameModel(small_frame)
    shown = _shown(model, 1, 0)
    assert len(shown) == DISPLAY_CHARS and shown.endswith("…")
    tip = _shown(model, 1, 0, TOOLTIP)
    assert tip.replace("\n", "") == "x" * 1000
    assert max(len(line) for line in tip.splitlines()) <= 90  # wrapped
    assert _shown(model, 0, 0, TOOLTIP) is None  # short values need no tooltip
    assert _shown(model, 1, 0, RAW_VALUE_ROLE) == "x" * 1000


def test_tooltip_is_capped_and_stays_plain(qtbot):
    text = "word " * 2000
    model = DataFrameModel(pd.DataFrame({"text": [text, "<b>not bold</b> " * 10]}))
    tip = _shown(model, 0, 0, TOOLTIP)
    assert len(tip) < TOOLTIP_CHARS + 200
    assert "10,000 characters in total" in tip
    html_like = _shown(model, 1, 0, TOOLTIP)
    assert "&lt;b&gt;" in html_like  # shown as typed, not rendered as bold


def test_column_roles_are_shown_under_the_name_and_tinted(qtbot, small_frame):
    model = DataFrameModel(small_frame)
    assert model.headerData(0, HORIZONTAL) == "text"
    with qtbot.waitSignal(model.headerDataChanged):
        model.set_column_roles({"text": "text", "label": "category", "unknown": "ID"})
    assert model.headerData(0, HORIZONTAL) == "text\n(text)"
    assert model.headerData(1, HORIZONTAL) == "label\n(category)"
    assert model.headerData(2, HORIZONTAL) == "score"
    assert model.headerData(1, HORIZONTAL, Qt.ItemDataRole.UserRole) == "label"
    assert model.headerData(0, HORIZONTAL, BACKGROUND) is not None
    assert model.headerData(2, HORIZONTAL, BACKGROUND) is None
    assert _shown(model, 0, 1, BACKGROUND) is not None and _shown(model, 0, 2, BACKGROUND) is None
    assert "category of each text" in model.headerData(1, HORIZONTAL, TOOLTIP)
    assert "not used" in model.headerData(2, HORIZONTAL, TOOLTIP)


def test_roles_from_a_column_mapping(qtbot):
    mapping = ColumnMapping(text_columns=["title", "body"], category_column="topic", id_column="id",
                            split_column="part", metadata_columns=["year"])
    assert column_roles_for(mapping) == {
        "title": "text", "body": "text", "topic": "category", "id": "ID", "part": "split", "year": "metadata",
    }


def test_highlighted_rows_stand_out(qtbot, small_frame):
    model = DataFrameModel(small_frame)
    with qtbot.waitSignal(model.dataChanged):
        model.highlight_rows([3, 1, 99])  # 99 is not in the table
    assert model.highlighted_rows() == [1, 3]
    assert _shown(model, 1, 0, BACKGROUND).color().name() == HIGHLIGHT_COLOR
    assert model.headerData(3, VERTICAL, BACKGROUND).color().name() == HIGHLIGHT_COLOR
    assert _shown(model, 0, 0, BACKGROUND) is None
    model.clear_highlight()
    assert model.highlighted_rows() == [] and _shown(model, 1, 0, BACKGROUND) is None


def test_set_frame_resets_and_keeps_roles_of_existing_columns(qtbot, small_frame):
    model = DataFrameModel(small_frame)
    model.set_column_roles({"text": "text", "label": "category"})
    model.highlight_rows([0])
    with qtbot.waitSignal(model.modelReset):
        model.set_frame(pd.DataFrame({"text": ["a", "b"], "other": [1, 2]}))
    assert model.rowCount() == 2
    assert model.column_roles() == {"text": "text"}
    assert model.highlighted_rows() == []
    model.set_frame(None)
    assert model.rowCount() == 0 and model.columnCount() == 0


def test_a_million_rows_open_at_once(qtbot):
    n = 1_000_000
    rng = np.random.default_rng(0)
    columns = {f"number {i}": rng.random(n) for i in range(8)}
    columns["label"] = pd.Categorical(rng.choice(["pro", "contra", "neutral"], size=n))
    columns["text"] = pd.array(np.char.add("text number ", np.arange(n).astype(str)), dtype="string")
    frame = pd.DataFrame(columns)

    start = time.perf_counter()
    model = DataFrameModel()
    model.set_frame(frame)
    assert model.rowCount() == 1_000_000 and model.columnCount() == 10
    assert _shown(model, n - 1, 9) == "text number 999999"
    assert model.headerData(n - 1, VERTICAL) == "1000001"
    model.highlight_rows(range(0, n, 100))
    elapsed = time.perf_counter() - start
    # typically ~0.1 s; copying or formatting every row would take minutes. Loose for busy machines.
    assert elapsed < 10.0, f"opening took {elapsed:.2f} s"

    view = QTableView()
    qtbot.addWidget(view)
    view.setModel(model)
    view.resize(900, 500)
    start = time.perf_counter()
    view.show()
    qtbot.waitExposed(view)
    view.scrollToBottom()
    assert not view.grab().isNull()
    assert time.perf_counter() - start < 30.0  # only the visible rows are drawn
