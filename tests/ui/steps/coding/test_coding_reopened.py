"""A project reopened goes on coding where it stopped: no text coded in TextLab is drawn again, the
chances of the draws stay those of the texts still open, and a left-out category is no key."""

from __future__ import annotations

import pytest

from guiapp.ui.common.step_order import CODING_STEP
from tests.core.synthetic_texts import coded_texts
from tests.ui.helpers import wait_for_report


def fresh_window(qtbot):
    from guiapp.ui.main_window import MainWindow

    window = MainWindow()
    window.files.ask_before_closing = False
    qtbot.addWidget(window)
    window.resize(1280, 860)
    window.show()
    window.go_to_step(CODING_STEP)
    return window


@pytest.fixture
def coded_then_reopened(qtbot, window, tmp_path):
    frame = coded_texts(160, seed=3)
    frame.loc[40:, "label"] = None  # 40 coded texts in the file, 120 to code
    path = tmp_path / "texts.csv"
    frame.to_csv(path, index=False)
    window.coding_page.bar.coder_edit.setText("Ana")
    window.open_path(path)
    wait_for_report(qtbot, window)
    window.go_to_step(CODING_STEP)
    page, session = window.coding_page, window.session
    for _ in range(12):
        shown = page.current
        qtbot.keyClick(page.text_view, "1")
        qtbot.waitUntil(lambda shown=shown: page.current is None or page.current.row != shown.row, timeout=5000)
    first = {row: entry for row, entry in session.codings.latest().items()}
    project = tmp_path / "coded.textlab"
    assert window.project.save_and_wait(project)
    window.coding_page.cancel_jobs()
    window = fresh_window(qtbot)  # a new start of TextLab
    page, session = window.coding_page, window.session
    window.coding_page.bar.coder_edit.setText("Ana")
    window.project.open(project)
    qtbot.waitUntil(lambda: not window.project.is_busy() and len(session.codings) == 12, timeout=60_000)
    wait_for_report(qtbot, window)  # the reopened table checked: the Coding step's draws rest on it
    qtbot.waitUntil(lambda: page.loop is not None and page.current is not None, timeout=10_000)
    yield window, first
    page.cancel_jobs()


def test_a_reopened_project_never_draws_a_text_coded_in_textlab(qtbot, coded_then_reopened):
    window, first = coded_then_reopened
    page, session = window.coding_page, window.session
    for _ in range(15):
        shown = page.current
        assert shown.row not in first, f"row {shown.row} was coded before the project was saved"
        if shown.choice.strategy == "random":
            assert shown.choice.probability == pytest.approx(1 / (120 - len(session.codings.latest())))
        qtbot.keyClick(page.text_view, "2")
        qtbot.waitUntil(lambda shown=shown: page.current is None or page.current.row != shown.row, timeout=5000)
    for row, entry in first.items():  # the first records are as they were
        assert session.codings.first_entries()[row] == entry
    assert len(session.codings.latest()) == 27


def test_a_category_left_out_on_the_data_step_is_no_key_before_or_after_reopening(qtbot, window, tmp_path):
    from guiapp.core.health.findings import FixAction
    from guiapp.core.study.category_fixes import CategoryFixes

    frame = coded_texts(160, seed=3)
    frame.loc[60:, "label"] = None
    frame.loc[[0, 1, 2], "label"] = "odd ones"  # a category the researcher leaves out of the study
    path = tmp_path / "texts.csv"
    frame.to_csv(path, index=False)
    window.coding_page.bar.coder_edit.setText("Ana")
    window.open_path(path)
    old = wait_for_report(qtbot, window)
    window.data_page.health_view.apply_fix(FixAction("Leave out", CategoryFixes(leave_out=["odd ones"])))
    qtbot.waitUntil(lambda: window.data_page.report is not old and not window.data_page.is_busy(), timeout=60_000)
    window.go_to_step(CODING_STEP)
    page = window.coding_page

    def keys() -> list[str]:
        return [button.text().split(" ", 1)[1] for button in page.text_view.category_buttons()]

    # the pool built from the table with the category left out (one built before the fix arrived is replaced)
    qtbot.waitUntil(lambda: page.current is not None and page.loop.pool.fixes is not None
                    and "odd ones" in page.loop.pool.fixes.leave_out, timeout=10_000)
    assert "odd ones" not in keys() and len(keys()) >= 2
    assert "odd ones" not in page.loop.pool.coded_counts(window.session.codings, page._file_categories)
    qtbot.keyClick(page.text_view, "1")
    project = tmp_path / "left out.textlab"
    assert window.project.save_and_wait(project)
    page.cancel_jobs()
    again = fresh_window(qtbot)
    again.project.open(project)
    qtbot.waitUntil(lambda: not again.project.is_busy() and len(again.session.codings) == 1, timeout=60_000)
    qtbot.waitUntil(lambda: again.coding_page.current is not None and again.coding_page.loop.pool.fixes is not None
                    and "odd ones" in again.coding_page.loop.pool.fixes.leave_out, timeout=30_000)
    page = again.coding_page
    assert "odd ones" not in keys()
    page.cancel_jobs()


def test_predict_offers_the_rows_nobody_coded_as_the_data_step_counts_them(qtbot, coded_then_reopened):
    from guiapp.ui.common.step_order import PREDICT_STEP

    window, first = coded_then_reopened
    qtbot.keyClick(window.coding_page.text_view, "1")  # one more, after reopening
    qtbot.waitUntil(lambda: len(window.session.codings.latest()) == 13, timeout=10_000)
    qtbot.waitUntil(lambda: window.data_page.report is not None and not window.data_page.is_busy()
                    and window.data_page.report.n_coded == 40 + 13, timeout=60_000)
    assert window.data_page.health_view.figures()["uncoded"] == "107"
    window.go_to_step(PREDICT_STEP)
    button = window.predict_page.source.own_button
    qtbot.waitUntil(lambda: button.text() == "Use the 107 uncoded rows of your table", timeout=5000)
    button.click()
    rows = set(window.predict_page.source.frame.index)
    assert len(rows) == 107 and not rows & set(window.session.codings.latest())
