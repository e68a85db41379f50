"""The data-health report fits its pane: long category names and many fix buttons wrap instead of
widening the report (no sideways scrolling, “Merge all” in view); a fix keeps the place the user
had scrolled to; and a report that names “Trim spaces” offers that button, which records the fix."""

from __future__ import annotations

import pandas as pd
import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtWidgets import QApplication, QLabel, QPushButton, QScrollArea

from tests.ui.helpers import save_screenshot, wait_for_report

LONG = "Moderator (neutral questions to both candidates)"


def debates(path, rows: int = 600):
    """Utterances coded by party, with three categories also spelled another way."""
    parties = ["Democratic", "Republican", LONG]
    words = {"Democratic": "jobs families healthcare climate", "Republican": "taxes border trade military",
             LONG: "question minutes answer topic"}
    labels = [parties[i % 3] for i in range(rows)]
    for i in range(0, 24, 3):
        labels[i] = "democratic "
        labels[i + 1] = "Republican."
        labels[i + 2] = LONG + " "
    written_as = {"democratic ": "Democratic", "Republican.": "Republican", LONG + " ": LONG}
    texts = [f"{words[written_as.get(label, label)]} said in turn {i}" for i, label in enumerate(labels)]
    frame = pd.DataFrame({"id": [f"U{i:04d}" for i in range(rows)], "text": texts, "party": labels})
    frame.to_csv(path, index=False)
    return path


def open_debates(qtbot, window, tmp_path, size):
    window.resize(*size)
    window.open_path(debates(tmp_path / "debates.csv"))
    report = wait_for_report(qtbot, window)
    assert window.data_page.mapping().category_column == "party"
    return report


def health_scroll(window) -> QScrollArea:
    return window.data_page.health_view.findChild(QScrollArea, "health_scroll")


def in_view(scroll: QScrollArea, widget) -> bool:
    viewport = scroll.viewport()
    return viewport.rect().contains(QRect(widget.mapTo(viewport, QPoint(0, 0)), widget.size()))


@pytest.mark.parametrize("size", [(1440, 900), (1024, 700)])
def test_the_report_wraps_to_its_pane_and_every_fix_button_can_be_seen(qtbot, window, tmp_path, size):
    open_debates(qtbot, window, tmp_path, size)
    view = window.data_page.health_view
    QApplication.sendPostedEvents()
    scroll = health_scroll(window)
    assert not scroll.horizontalScrollBar().isVisible()
    assert view.content_widget().width() <= scroll.viewport().width()
    buttons = view.fix_buttons()
    merge_all = [button for button in buttons if button.text() == "Merge all 3"]
    assert merge_all, [button.text() for button in buttons]
    for button in buttons:
        scroll.ensureWidgetVisible(button)
        assert in_view(scroll, button), button.text()  # nothing sticks out to the right
    long_merge = next(button for button in buttons if LONG in button.full_text())
    assert long_merge.toolTip().startswith(long_merge.full_text())  # the whole label, even when shortened
    save_screenshot(window, f"health_wrapped_{size[0]}x{size[1]}")


def test_a_fix_keeps_the_scroll_position(qtbot, window, tmp_path):
    report = open_debates(qtbot, window, tmp_path, (1024, 700))
    view = window.data_page.health_view
    scroll = health_scroll(window)
    button = next(button for button in view.fix_buttons() if button.text().startswith("Merge “Republican.”"))
    bar = scroll.verticalScrollBar()
    QApplication.sendPostedEvents()
    qtbot.waitUntil(lambda: bar.maximum() > 0 and button.mapTo(view.content_widget(), QPoint(0, 0)).y() > 100)
    bar.setValue(button.mapTo(view.content_widget(), QPoint(0, 0)).y() - 60)  # the fix in the middle of the view
    position = bar.value()
    assert position > 0 and in_view(scroll, button)
    window.activateWindow()
    button.setFocus()
    qtbot.waitUntil(button.hasFocus)
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.data_page.report is not None and window.data_page.report is not report
                    and not window.data_page.is_busy(), timeout=60_000)
    qtbot.wait(20)
    assert "“Republican.” merged into “Republican”" in view.findChild(QLabel, "applied_fixes_text").text()
    assert scroll.verticalScrollBar().value() == position

    position = scroll.verticalScrollBar().value()
    undo = view.findChild(QPushButton, "undo_fix_button")
    scroll.verticalScrollBar().setValue(0)
    undo.setFocus()
    qtbot.mouseClick(undo, Qt.MouseButton.LeftButton)  # Undo of the only fix hides the button itself
    fixed = window.data_page.report
    qtbot.waitUntil(lambda: window.data_page.report is not None and window.data_page.report is not fixed
                    and not window.data_page.is_busy(), timeout=60_000)
    qtbot.wait(20)
    assert scroll.verticalScrollBar().value() == 0


def test_trim_spaces_is_offered_where_the_report_names_it(qtbot, window, tmp_path):
    labels = ["Republican"] * 40 + ["Democratic"] * 40 + ["Democratic "] * 2
    texts = [f"statement number {i} about {'tax' if label == 'Republican' else 'health'}" for i, label in
             enumerate(labels)]
    path = tmp_path / "statements.csv"
    pd.DataFrame({"text": texts, "party": labels}).to_csv(path, index=False)
    window.open_path(path)
    report = wait_for_report(qtbot, window)
    view = window.data_page.health_view
    small = next(card for card in view.issue_cards() if card.issue.code == "small_categories")
    assert "“Trim spaces”" in small.issue.fix  # the hint names the button …
    trim = [button for button in small.fix_buttons if button.text() == "Trim spaces"]
    assert trim, [button.text() for button in small.fix_buttons]  # … and the card offers it
    qtbot.mouseClick(trim[0], Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.data_page.report is not None and window.data_page.report is not report
                    and not window.data_page.is_busy(), timeout=60_000)
    fixed = window.data_page.report
    assert [category.label for category in fixed.categories] == ["Democratic", "Republican"]
    assert window.study_spec().data.category_fixes.trim_spaces  # recorded in the study …
    assert pd.read_csv(path)["party"].tolist() == labels  # … the file is not changed
    for card in view.issue_cards():  # and no finding names a button the report does not have
        offered = {button.text() for button in card.fix_buttons}
        assert "“Trim spaces”" not in (card.issue.fix + card.issue.explanation) or "Trim spaces" in offered
