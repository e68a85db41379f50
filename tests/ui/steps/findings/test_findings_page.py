"""The Findings step: the shares of the categories in the texts a model predicted, with intervals
from its mistakes on the study's test texts, per group, the differences, a regression, and the file."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from PySide6.QtCore import Qt

from guiapp.core.predict.new_texts import open_models, predict_new_texts
from guiapp.ui.steps.findings.findings_page import FindingsPage
from tests.core.synthetic_texts import coded_texts
from tests.ui.helpers import save_screenshot, session_with_table


@pytest.fixture
def page(qtbot, project):
    session = session_with_table(project.table, project.spec.data.mapping)
    widget = FindingsPage(session=session)
    qtbot.addWidget(widget)
    widget.resize(1200, 800)
    widget.show()
    yield widget, session
    widget.cancel_jobs()


def predicted(project, session, n: int = 300):
    corpus = coded_texts(n, seed=21).assign(year=np.arange(n) % 7 + 2000)
    truth = corpus.pop("label")
    best = project.result.best().name
    models = open_models([(best, project.model_folder(best))])
    session.set_result(project.result, project.model_folders)
    session.set_predictions(predict_new_texts(models, corpus["text"].tolist()), corpus)
    return corpus, truth, best


def test_shares_with_intervals_per_group_differences_regression_and_the_file(qtbot, page, project, tmp_path):
    widget, session = page
    corpus, truth, best = predicted(project, session)
    qtbot.waitUntil(lambda: measured(widget, "predicted"), timeout=30_000)
    categories = list(project.result.categories)
    assert widget.model_combo.currentText() == best and widget.source_combo.count() == 2
    assert not widget.stratified_box.isVisibleTo(widget) and not widget.progress.isVisibleTo(widget)
    assert widget.shares.rowCount() == len(categories)
    assert "random sample" in widget.assumption.text()
    for share in widget.findings.overall():  # the interval holds the true share of this corpus
        assert share.low <= (truth == share.category).mean() <= share.high
        assert share.n_coded == len(project.result.test_true)
    save_screenshot(widget, "findings_shares")

    widget.group_combo.setCurrentIndex(widget.group_combo.findData("year"))
    qtbot.waitUntil(lambda: widget.findings.group_name == "year" and not widget.is_busy(), timeout=30_000)
    assert widget.shares.rowCount() == len(categories) * (1 + 7)
    assert widget.differences.rowCount() > 0 and "points" in widget.differences.item(0, 1).text()
    assert widget.shares.cell_text(0, 0) == "all texts" and widget.shares.cell_text(len(categories), 0) == "2000"
    save_screenshot(widget, "findings_by_group")

    widget.elsewhere_box.setChecked(True)  # a corpus from another time: adjusted for prior shift
    qtbot.waitUntil(lambda: "quantification" in widget.findings.method_key and not widget.is_busy(), timeout=60_000)
    assert "wording" in widget.assumption.text() or "written" in widget.assumption.text()
    widget.elsewhere_box.setChecked(False)
    qtbot.waitUntil(lambda: "quantification" not in widget.findings.method_key and not widget.is_busy(),
                    timeout=30_000)

    widget.tabs.setCurrentIndex(2)
    form = widget.regression_form
    offered = [form.columns_list.item(i).text() for i in range(form.columns_list.count())]
    assert offered == ["year"]  # the text column is not offered
    form.fit_button.click()
    assert "Tick at least one column" in form.note.text()
    form.columns_list.item(0).setCheckState(Qt.CheckState.Checked)
    errors = []
    session.errorRaised.connect(lambda error, doing: errors.append((doing, error)))
    form.fit_button.click()
    qtbot.waitUntil(lambda: widget.regression is not None or bool(errors), timeout=30_000)
    assert not errors, errors
    assert form.coefficients.rowCount() == 2 and "year" in form.coefficients.item(1, 0).text()
    assert form.coefficients.columnCount() == 6 and " to " in form.coefficients.item(1, 5).text()  # odds ratio
    save_screenshot(widget, "findings_regression")

    out = tmp_path / "findings.xlsx"
    widget.save_to(out)
    qtbot.waitUntil(lambda: (out.exists() and not widget.is_busy()) or bool(errors), timeout=30_000)
    assert not errors, errors
    sheets = pd.read_excel(out, sheet_name=None, engine="calamine")
    assert {"Shares", "Differences", "Regression", "How estimated"} <= set(sheets)
    assert len(sheets["Shares"]) == len(categories) * 8


def test_the_methods_appendix_gets_a_paragraph_on_the_findings(qtbot, page, project, tmp_path):
    from guiapp.core.export.appendix import write_appendix

    widget, session = page
    predicted(project, session)
    qtbot.waitUntil(lambda: session.findings is not None and not widget.is_busy(), timeout=30_000)
    paragraph = session.findings.methods_paragraph()
    html, _json = write_appendix(project.result, tmp_path / "methods.html",
                                 extra={"findings": {"paragraph": paragraph}})
    assert paragraph.split(".")[0] in html.read_text(encoding="utf-8").replace("&#x27;", "'")
    session.set_predictions(None, None)  # the table is left to measure
    assert session.findings is None or session.findings.n_texts == len(project.table.frame)
    assert [widget.source_combo.itemData(i) for i in range(widget.source_combo.count())] == ["table"]
    qtbot.waitUntil(lambda: measured(widget, "table"), timeout=60_000)


def measured(widget, source: str) -> bool:
    return (widget.findings is not None and not widget.is_busy() and widget.inputs is not None
            and widget.inputs.source == source)


def test_the_tables_own_texts_weighted_by_how_the_coding_step_drew_them(qtbot):
    from guiapp.core.coding.codings import Coding, CodingLog
    from guiapp.core.study.mapping import ColumnMapping

    frame = coded_texts(600, seed=5).assign(party=lambda f: np.where(np.arange(len(f)) % 4 == 0, "red", "blue"))
    truth = frame["label"].copy()
    frame.loc[frame.index[150:], "label"] = None  # half the table uncoded, a quarter coded by the file
    mapping = ColumnMapping(text_columns=["text"], category_column="label")
    session = session_with_table(frame, mapping)
    widget = FindingsPage(session=session)
    qtbot.addWidget(widget)
    widget.resize(1200, 800)
    widget.show()
    assert widget.progress.isVisibleTo(widget)  # the quick model learns, with progress and Cancel
    qtbot.waitUntil(lambda: measured(widget, "table"), timeout=60_000)
    assert widget.findings.method_key.startswith("ppi") and "random sample" in widget.assumption.text()
    assert not widget.model_combo.isVisibleTo(widget) and not widget.elsewhere_box.isVisibleTo(widget)
    widget.group_combo.setCurrentIndex(widget.group_combo.findData("party"))
    qtbot.waitUntil(lambda: widget.findings.group_name == "party" and not widget.is_busy(), timeout=30_000)
    assert widget.stratified_box.isVisibleTo(widget)
    widget.stratified_box.setChecked(True)  # drawn per party: each party weighted by its size
    qtbot.waitUntil(lambda: "each group" in widget.assumption.text() and not widget.is_busy(), timeout=30_000)

    open_rows = list(frame.index[150:])
    session.set_codings(CodingLog([Coding(row, truth[row], "ana", "2026-01-05T10:00:00.000+00:00", "uncertainty",
                                          1.5 / (len(open_rows) - i)) for i, row in enumerate(open_rows[:60])]))
    # coded on the Coding step: measured again, the drawn texts weighted by their chance
    qtbot.waitUntil(lambda: measured(widget, "table") and widget.inputs.chosen_by_coding_step, timeout=60_000)
    qtbot.waitUntil(lambda: widget.findings.method_key == "sequential" and not widget.is_busy(), timeout=30_000)
    assert "chance" in widget.assumption.text() and not widget.stratified_box.isVisibleTo(widget)
    assert widget.findings.n_texts == 600 and widget.findings.n_coded == 210
    for share in widget.findings.overall():
        assert share.low <= (truth == share.category).mean() <= share.high
    save_screenshot(widget, "findings_table")

