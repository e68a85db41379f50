"""Every step stays usable in a small window (the 900 × 600 minimum): nothing important is cut
off without a scroll bar to reach it. Also saves screenshots of every step at 900 × 600 and
1280 × 800 under screenshots/ (gitignored)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtWidgets import QAbstractScrollArea, QApplication, QWidget

from guiapp.ui.main_window import DATA_STEP, DOCUMENTS_STEP, MODELS_STEP, PREDICT_STEP, RESULTS_STEP, RUN_STEP
from tests.ui.helpers import finish_scripted_run, save_screenshot
from tests.ui.sample_results import sample_result

SIZES = [(900, 600), (1280, 800)]
STEP_NAMES = {DATA_STEP: "data", MODELS_STEP: "models", RUN_STEP: "run_finished", RESULTS_STEP: "results",
              DOCUMENTS_STEP: "documents", PREDICT_STEP: "predict"}


@pytest.fixture
def finished_window(qtbot, window):
    """The example opened, a (scripted, quick) run finished, the results shown."""
    return finish_scripted_run(qtbot, window, sample_result())


def show(qtbot, window, step: int, size: tuple[int, int]) -> QWidget:
    window.resize(*size)
    window.steps.setCurrentRow(step)
    QApplication.sendPostedEvents()
    qtbot.wait(30)
    QApplication.sendPostedEvents()
    return window.pages.currentWidget()


def unreachable(page: QWidget) -> list[str]:
    """Visible widgets of ``page`` that stick out of the page (or of the scroll area they are in)
    with no scroll bar able to bring them into view."""
    problems = []
    for child in page.findChildren(QWidget):
        if not child.isVisibleTo(page) or child.width() <= 1 or child.height() <= 1:
            continue
        if isinstance(child.parentWidget(), QAbstractScrollArea) or child.objectName().startswith("qt_"):
            continue
        clip, scroll = _clip_of(child, page)
        rect = QRect(child.mapTo(page, QPoint(0, 0)), child.size())
        if clip.contains(rect.adjusted(1, 1, -1, -1)):
            continue
        if scroll is not None:
            continue  # inside a scroll area: it can be scrolled to (checked below)
        if child.minimumSizeHint().width() > rect.width() + 1 or child.minimumSizeHint().height() > rect.height() + 1:
            problems.append(f"{type(child).__name__} {child.objectName()!r} squeezed: {rect} < {child.minimumSizeHint()}")
        elif not clip.intersects(rect) or clip.intersected(rect).height() < rect.height() - 2 \
                or clip.intersected(rect).width() < rect.width() - 2:
            problems.append(f"{type(child).__name__} {child.objectName()!r} cut off: {rect} outside {clip}")
    for area in page.findChildren(QAbstractScrollArea):
        if not area.isVisibleTo(page) or not hasattr(area, "widget") or area.widget() is None:
            continue
        content, viewport = area.widget(), area.viewport()
        for wide, policy in ((content.width() > viewport.width() + 1, area.horizontalScrollBarPolicy()),
                             (content.height() > viewport.height() + 1, area.verticalScrollBarPolicy())):
            if wide and policy == Qt.ScrollBarPolicy.ScrollBarAlwaysOff:
                problems.append(f"{type(area).__name__} {area.objectName()!r}: content {content.size()} cut off "
                                f"in {viewport.size()} with no scroll bar")
    return problems


def _clip_of(child: QWidget, page: QWidget):
    """The part of ``page`` where ``child`` can show (the nearest scroll area's viewport, else
    the page), and that scroll area."""
    widget = child.parentWidget()
    while widget is not None and widget is not page:
        parent = widget.parentWidget()
        if isinstance(parent, QAbstractScrollArea) and widget is parent.viewport():
            return QRect(widget.mapTo(page, QPoint(0, 0)), widget.size()), parent
        widget = parent
    return page.rect(), None


def squeezed(page: QWidget) -> list[str]:
    """Visible widgets of ``page`` given less room than they need (their minimum size hint): a
    layout squeezed below its minimum cuts off or overlaps what is inside."""
    problems = []
    for child in [page, *page.findChildren(QWidget)]:
        if not child.isVisibleTo(page) and child is not page:
            continue
        if isinstance(child.parentWidget(), QAbstractScrollArea) or child.objectName().startswith("qt_"):
            continue  # scroll bars, viewports, a spin box's editor: sized by Qt itself
        need = child.minimumSizeHint().expandedTo(child.minimumSize())
        if not need.isValid() or child.minimumSize() == child.maximumSize():
            continue  # no wish, or a fixed size chosen on purpose (a thin progress bar)
        if child.width() + 1 < need.width() or child.height() + 1 < need.height():
            problems.append(f"{type(child).__name__} {child.objectName()!r} in {type(child.parentWidget()).__name__}: "
                            f"{child.width()}×{child.height()} < {need.width()}×{need.height()}")
    return problems


def test_every_step_fits_the_smallest_window(qtbot, finished_window):
    window = finished_window
    report = {}
    for size in SIZES:
        for step, name in STEP_NAMES.items():
            page = show(qtbot, window, step, size)
            save_screenshot(window, f"small_{size[0]}x{size[1]}_{name}")
            if size == SIZES[0]:
                report[name] = squeezed(page) + unreachable(page)
    import json
    import os
    if os.environ.get('SMALL_REPORT'):
        open(os.environ['SMALL_REPORT'], 'w').write(json.dumps(report, indent=1))
    assert {name: problems for name, problems in report.items() if problems} == {}
