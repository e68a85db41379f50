"""The Findings step measures a table whose texts can have several categories: each category's
share of texts that have it, with its interval, in the window, in the saved workbook and in the
methods paragraph; the regression of one category works too."""

from __future__ import annotations

import pandas as pd
from PySide6.QtCore import Qt

from guiapp.ui.steps.findings.findings_page import FindingsPage
from tests.core.findings.test_label_set_findings import MAPPING, WORDS, several_table
from tests.ui.helpers import save_screenshot, session_with_table


def measured(widget) -> bool:
    return (widget.findings is not None and not widget.is_busy() and widget.inputs is not None
            and widget.inputs.source == "table")


def test_the_tables_texts_with_several_categories_each_category_on_its_own(qtbot, tmp_path):
    frame, truth, _ = several_table()
    session = session_with_table(frame, MAPPING)
    widget = FindingsPage(session=session)
    qtbot.addWidget(widget)
    widget.resize(1200, 800)
    widget.show()
    assert widget.sources() == ["table"]
    qtbot.waitUntil(lambda: measured(widget), timeout=60_000)
    found = widget.findings
    assert [share.category for share in found.overall()] == sorted(WORDS)
    assert widget.shares.rowCount() == len(WORDS)
    assert "share of texts that have it" in widget.assumption.text()
    assert "add up to more than 100 %" in widget.assumption.text() + widget.warnings.text()
    for share in found.overall():
        assert share.low <= truth[share.category] <= share.high
    assert "each category" in session.findings.methods_paragraph() or "share of texts that have it" in \
        session.findings.methods_paragraph()
    save_screenshot(widget, "findings_several_categories")

    widget.group_combo.setCurrentIndex(widget.group_combo.findData("party"))
    qtbot.waitUntil(lambda: widget.findings.group_name == "party" and not widget.is_busy(), timeout=30_000)
    assert widget.shares.rowCount() == len(WORDS) * 3

    widget.tabs.setCurrentIndex(2)
    form = widget.regression_form
    offered = [form.columns_list.item(i).text() for i in range(form.columns_list.count())]
    assert offered == ["party"]  # neither the texts nor the category columns
    form.columns_list.item(0).setCheckState(Qt.CheckState.Checked)
    errors = []
    session.errorRaised.connect(lambda error, doing: errors.append((doing, error)))
    form.fit_button.click()
    qtbot.waitUntil(lambda: widget.regression is not None or bool(errors), timeout=30_000)
    assert not errors, errors

    out = tmp_path / "findings.xlsx"
    widget.save_to(out)
    qtbot.waitUntil(lambda: (out.exists() and not widget.is_busy()) or bool(errors), timeout=30_000)
    assert not errors, errors
    sheets = pd.read_excel(out, sheet_name=None, engine="calamine")
    assert len(sheets["Shares"]) == len(WORDS) * 3
    how = " ".join(str(v) for v in sheets["How estimated"].to_numpy().ravel())
    assert "share of texts that have it" in how
    widget.cancel_jobs()
