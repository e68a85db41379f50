"""Words of the Data step: the category hint counts as the data check does, also after a fix, and
text lengths are whole numbers of words."""

from __future__ import annotations

import pandas as pd

from guiapp.core.health.findings import LengthStats
from guiapp.core.health.text_report import _length_line
from guiapp.core.study.category_fixes import CategoryFixes
from guiapp.core.study.mapping import ColumnMapping
from guiapp.ui.steps.data.health_parts import length_summary
from guiapp.ui.steps.data.mapping_panel import MappingPanel


def test_the_category_hint_counts_like_the_report_and_follows_a_merge(qtbot):
    table = pd.DataFrame({"text": [f"text {i}" for i in range(10)],
                          "party": ["Democrat", "Democrat ", "Republican", "Repulican", "Green"] * 2})
    panel = MappingPanel()
    qtbot.addWidget(panel)
    panel.set_table(table, ColumnMapping(text_columns=["text"], category_column="party"))
    assert "(5 different categories)" in panel.category_hint()  # not "4 different values": spaces count
    panel.set_category_fixes(CategoryFixes(trim_spaces=True, merge={"Repulican": "Republican"}))
    assert "3 different categories after your fixes; 5 as written" in panel.category_hint()
    panel.set_category_fixes(None)
    assert "(5 different categories)" in panel.category_hint()


def test_text_lengths_read_as_whole_words():
    stats = LengthStats("words", 639, 141.9, 120.5, 141.9, 610, (0.0, 700.0), (639,))
    summary = length_summary(stats, "words")
    assert "141.9" not in summary and "120.5" not in summary
    assert "at most 142 words" in summary and "Median 121 words" in summary
    line = _length_line(stats, None)
    assert "mean 142," in line and "141.9" not in line


def test_in_the_window_the_hint_follows_a_merge_made_in_the_report(qtbot, window, tmp_path):
    from PySide6.QtCore import Qt

    from tests.ui.helpers import wait_for_report
    from tests.ui.test_category_fixes_ui import _fix_button, _statements, _wait_for_new_report

    window.open_path(_statements(tmp_path / "statements.csv"))
    report = wait_for_report(qtbot, window)
    panel = window.data_page.mapping_panel
    assert len(report.categories) == 3 and "(3 different categories)" in panel.category_hint()
    qtbot.mouseClick(_fix_button(window.data_page.health_view, "Merge “Democratic␣” into “Democratic”"),
                     Qt.MouseButton.LeftButton)
    fixed = _wait_for_new_report(qtbot, window, report)
    assert len(fixed.categories) == 2
    assert "2 different categories after your fixes; 3 as written" in panel.category_hint()
