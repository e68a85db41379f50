"""Findings' Differences tab: "Compared with:" the largest group by default, a group the researcher
picks, or every other group (all pairs) — shown in the table and the note, kept across save and reopen."""

from __future__ import annotations

import numpy as np
import pandas as pd

from guiapp.core.project.saving import save_project
from guiapp.core.study.mapping import ColumnMapping
from guiapp.ui.steps.findings.findings_page import FindingsPage
from guiapp.ui.common.step_order import FINDINGS_STEP
from tests.core.synthetic_texts import coded_texts
from tests.ui.helpers import save_screenshot, session_with_table, wait_for_report

YEARS = [str(y) for y in range(2010, 2016)]


def measured(page, group: str = "") -> bool:
    return (page.findings is not None and not page.is_busy() and page.inputs is not None
            and (page.findings.group_name or "") == group)


def differences(page) -> list[str]:
    return [page.differences.item(row, 1).text() for row in range(page.differences.rowCount())]


def test_compared_with_a_chosen_year_or_every_pair(qtbot, tmp_path):
    rng = np.random.default_rng(3)
    frame = coded_texts(420, seed=9).assign(year=rng.choice(np.arange(2010, 2016), 420,
                                                            p=[0.12, 0.12, 0.3, 0.12, 0.12, 0.22]))
    frame.loc[frame.index[240:], "label"] = None
    session = session_with_table(frame, ColumnMapping(text_columns=["text"], category_column="label"))
    page = FindingsPage(session=session)
    qtbot.addWidget(page)
    page.resize(1024, 700)
    page.show()
    qtbot.waitUntil(lambda: measured(page), timeout=60_000)
    page.tabs.setCurrentIndex(1)  # Differences between groups
    assert not page.compare_combo.isVisibleTo(page)  # the whole corpus: nothing to compare
    page.group_combo.setCurrentIndex(page.group_combo.findData("year"))
    qtbot.waitUntil(lambda: measured(page, "year"), timeout=30_000)
    categories = len(page.findings.categories)

    combo = page.compare_combo
    assert combo.isVisibleTo(page)
    assert [combo.itemText(i) for i in range(combo.count())] == [
        "the largest group (2012)", *YEARS, "every other group (all pairs)"]
    assert page.differences.rowCount() == 5 * categories
    assert all(text.endswith("compared with 2012") for text in differences(page))
    assert "compared with the largest group, “2012”" in page.differences_note.text()

    combo.setCurrentIndex(combo.findText("2015"))
    qtbot.waitUntil(lambda: measured(page, "year") and page.findings.comparison == "2015", timeout=30_000)
    assert page.differences.rowCount() == 5 * categories
    assert all(text.endswith("compared with 2015") for text in differences(page))
    assert not any(text.startswith("2015:") for text in differences(page))
    assert "compared with “2015”" in page.differences_note.text()
    assert session.findings_choice["compare_with"] == "2015" and combo.currentText() == "2015"

    combo.setCurrentIndex(combo.findText("every other group (all pairs)"))
    qtbot.waitUntil(lambda: measured(page, "year") and page.findings.comparison == "all pairs", timeout=30_000)
    assert page.differences.rowCount() == len(YEARS) * (len(YEARS) - 1) // 2 * categories
    assert "every pair" in page.differences_note.text()
    assert session.findings_choice["compare_with"] == "all pairs"

    combo.setCurrentIndex(0)  # back to the largest
    qtbot.waitUntil(lambda: measured(page, "year") and page.findings.comparison == "", timeout=30_000)
    assert page.differences.rowCount() == 5 * categories and session.findings_choice["compare_with"] == ""
    combo.setCurrentIndex(combo.findText("2015"))
    qtbot.waitUntil(lambda: measured(page, "year") and page.findings.comparison == "2015", timeout=30_000)
    save_screenshot(page, "findings_differences_compared")
    out = tmp_path / "findings.xlsx"  # "Save findings…" writes the comparison shown
    page.save_to(out)
    qtbot.waitUntil(lambda: out.exists() and not page.is_busy(), timeout=30_000)
    sheet = pd.read_excel(out, sheet_name="Differences", engine="calamine")
    assert len(sheet) == 5 * categories and set(sheet["compared with"].astype(str)) == {"2015"}


def test_the_year_compared_with_comes_back_after_reopening(qtbot, window, project, tmp_path, isolated_settings):
    first = tmp_path / "table.textlab"
    save_project(first, type(project)(spec=project.spec, table=project.table, source_name="bills.xlsx"))
    window.open_path(first)
    qtbot.waitUntil(lambda: window.session.table is not None and not window.project.is_busy(), timeout=60_000)
    wait_for_report(qtbot, window)
    window.go_to_step(FINDINGS_STEP)
    findings = window.findings_page
    qtbot.waitUntil(lambda: measured(findings) and findings.inputs.source == "table", timeout=120_000)
    findings.group_combo.setCurrentIndex(findings.group_combo.findData("year"))
    qtbot.waitUntil(lambda: measured(findings, "year"), timeout=60_000)
    findings.compare_combo.setCurrentIndex(findings.compare_combo.findText("2003"))
    qtbot.waitUntil(lambda: measured(findings, "year") and findings.findings.comparison == "2003", timeout=60_000)
    shown = differences(findings)
    saved = tmp_path / "compared.textlab"
    assert window.project.save_and_wait(saved)

    from guiapp.ui.main_window import MainWindow

    again = MainWindow()
    again.files.ask_before_closing = False
    qtbot.addWidget(again)
    again.resize(1280, 860)
    again.show()
    again.open_path(saved)
    qtbot.waitUntil(lambda: again.session.table is not None and not again.project.is_busy(), timeout=60_000)
    wait_for_report(qtbot, again)
    again.go_to_step(FINDINGS_STEP)
    findings = again.findings_page
    assert findings.compare_combo.currentText() == "2003" and differences(findings) == shown  # kept, at once
    qtbot.waitUntil(lambda: measured(findings, "year") and findings.inputs is not None, timeout=120_000)
    assert findings.compare_combo.currentText() == "2003"  # measured again, compared as before
    assert all(text.endswith("compared with 2003") for text in differences(findings))
    assert "compared with “2003”" in findings.differences_note.text()
    findings.tabs.setCurrentIndex(1)
    save_screenshot(findings, "findings_compared_reopened")
