"""Findings' "Per group": columns with few values offered first, ids and days last and marked."""

from __future__ import annotations

import numpy as np
import pandas as pd
from PySide6.QtCore import Qt

from guiapp.ui.steps.findings.findings_page import FindingsPage
from tests.core.synthetic_texts import coded_texts
from tests.ui.helpers import session_with_table


def test_per_group_offers_few_values_first_and_marks_ids_and_dates(qtbot):
    from guiapp.core.study.mapping import ColumnMapping

    rng = np.random.default_rng(2)
    n = 400
    frame = coded_texts(n, seed=7)
    frame.insert(0, "id", np.arange(9001, 9001 + n))
    frame.insert(1, "date", pd.Timestamp("1996-01-01") + pd.to_timedelta(rng.permutation(4000)[:n], unit="D"))
    frame["year"] = frame["date"].dt.year
    frame["party"] = rng.choice(["red", "blue"], n)
    frame.loc[frame.index[150:], "label"] = None
    session = session_with_table(frame, ColumnMapping(text_columns=["text"], category_column="label"))
    widget = FindingsPage(session=session)
    qtbot.addWidget(widget)
    widget.show()
    qtbot.waitUntil(lambda: widget.inputs is not None and not widget.is_busy(), timeout=60_000)
    combo = widget.group_combo
    offered = [combo.itemText(i) for i in range(1, combo.count())]
    assert offered[:2] == ["party (2 groups)", f"year ({frame['year'].nunique()} groups)"]
    assert offered[2:] == ["id (nearly one value per text)", "date (nearly one value per text)"]
    assert [combo.itemData(i) for i in range(1, combo.count())] == ["party", "year", "id", "date"]
    assert "nearly one per text" in combo.itemData(3, Qt.ItemDataRole.ToolTipRole)  # the tooltip says why
