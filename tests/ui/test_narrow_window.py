"""At 1024 × 700 the Results tabs and the Documents step (its filters and its reading pane with the
explanation) fit their width: nothing scrolls sideways, nothing is cut off on the right."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QRect
from PySide6.QtWidgets import QAbstractScrollArea, QApplication, QScrollArea, QWidget

from guiapp.ui.main_window import DOCUMENTS_STEP, RESULTS_STEP
from tests.ui.helpers import finish_scripted_run, save_screenshot
from tests.ui.sample_results import policy_result

SIZE = (1024, 700)


@pytest.fixture
def narrow_window(qtbot, window):
    """The example, a (scripted) run with its 20 policy topics finished, in a 1024 × 700 window."""
    finish_scripted_run(qtbot, window, policy_result())
    window.resize(*SIZE)
    settle(qtbot)
    return window


def settle(qtbot) -> None:
    QApplication.sendPostedEvents()
    qtbot.wait(20)
    QApplication.sendPostedEvents()


def sideways(widget: QWidget) -> list[str]:
    """Scroll areas inside ``widget`` that show a horizontal scroll bar, or that cut their content
    off on the right (their bar switched off)."""
    found = []
    for area in widget.findChildren(QAbstractScrollArea):
        if not area.isVisibleTo(widget):
            continue
        name = f"{type(area).__name__} {area.objectName()!r}"
        if area.horizontalScrollBar().isVisible():
            found.append(f"{name} scrolls sideways by {area.horizontalScrollBar().maximum()} px")
        content = area.widget() if isinstance(area, QScrollArea) else None
        if content is not None and content.width() > area.viewport().width() + 1:
            found.append(f"{name}: content {content.width()} px wide in {area.viewport().width()} px")
    return found


def right_edge_inside(widget: QWidget, container: QWidget) -> bool:
    rect = QRect(widget.mapTo(container, QPoint(0, 0)), widget.size())
    return rect.right() <= container.rect().right() + 1


def test_every_results_tab_fits_the_width(qtbot, narrow_window):
    window = narrow_window
    page = window.results_page
    window.steps.setCurrentRow(RESULTS_STEP)
    problems = {}
    for tab in range(page.tabs.count()):
        page.tabs.setCurrentIndex(tab)
        settle(qtbot)
        found = sideways(page)
        if found:
            problems[page.tabs.tabText(tab)] = found
    assert problems == {}
    page.tabs.setCurrentIndex(1)  # the confusion matrix of 20 categories: the widest tab
    settle(qtbot)
    assert page.heatmap.width() <= page.heatmap_scroll.viewport().width()
    save_screenshot(window, "narrow_1024x700_results_confusion")


def test_the_documents_filters_and_reading_pane_fit_the_width(qtbot, narrow_window):
    window = narrow_window
    window.steps.setCurrentRow(DOCUMENTS_STEP)
    page = window.documents_page
    settle(qtbot)
    filters = page.filters
    for control in (filters.model_combo, filters.mistakes_box, filters.human_combo, filters.predicted_combo,
                    filters.high_spin, filters.search_edit, filters.clear_button, filters.count_label):
        assert control.isVisible() and right_edge_inside(control, page), control.objectName()
    assert page.select_document(page.shown_documents()[0])
    settle(qtbot)
    reader = page.reader
    assert page.reader_stack.currentWidget() is reader
    assert sideways(page.reader_stack) == []
    for label in (page.heading_label, page.details_label):  # the heading wraps instead of running off
        assert right_edge_inside(label, reader.viewport()), label.text()
    explanation = window.documents_page.explanations
    for tab in range(explanation.tabs.count()):
        explanation.tabs.setCurrentIndex(tab)
        settle(qtbot)
        panes = [page.reader, explanation.tabs.currentWidget()]  # the reading pane, and the tab in it
        found = [problem for pane in panes for problem in sideways(pane.parentWidget()) if
                 any(problem.startswith(f"{type(p).__name__} {p.objectName()!r}") for p in panes)]
        assert found == [], explanation.tabs.tabText(tab)
    assert page.view.width() >= page.TABLE_FLOOR  # the words of all documents took room from the table …
    explanation.tabs.setCurrentIndex(0)
    settle(qtbot)
    browser = explanation.words.browser()
    assert not browser.horizontalScrollBar().isVisible()  # the explanation text wraps
    save_screenshot(window, "narrow_1024x700_documents")


STEP_NAMES = ("data", "models", "run", "results", "documents", "predict")


@pytest.mark.parametrize("size", [(1440, 900), SIZE])
def test_screenshots_of_every_step(qtbot, narrow_window, size):
    """Every step rendered to screenshots/steps_WxH_<step>.png (gitignored), to look at; the
    Documents and Results steps never scroll sideways at either size."""
    window = narrow_window
    window.resize(*size)
    window.documents_page.select_document(window.documents_page.shown_documents()[0])
    for step, name in enumerate(STEP_NAMES):
        window.steps.setCurrentRow(step)
        settle(qtbot)
        save_screenshot(window, f"steps_{size[0]}x{size[1]}_{name}")
        if step in (RESULTS_STEP, DOCUMENTS_STEP):
            page = window.pages.currentWidget()
            wide = [found for found in sideways(page) if "documentsTable" not in found]  # many columns: may scroll
            assert wide == [], name
