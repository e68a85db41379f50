"""The learning curve of a study that just ran counts the texts coded on the Coding step (as the run
did), proposes sizes below its training texts, and a study it cannot draw says so in words, never
with a traceback on the console (Python prints a warning's traceback there when no log is set up)."""

from __future__ import annotations

import dataclasses
import logging

from guiapp.ui.common.step_order import CODING_STEP
from tests.core.synthetic_texts import coded_texts
from tests.ui.helpers import wait_for_report


def test_the_curve_counts_the_codings_made_here_and_fits_its_sizes(qtbot, window, project, tmp_path, caplog):
    frame = coded_texts(300, seed=6)
    truth = frame["label"].copy()
    energy = list(truth.index[truth.eq("energy")])
    frame.loc[150:, "label"] = None
    frame.loc[[row for row in energy if row < 150][4:], "label"] = None  # the file codes “energy” 4 times
    path = tmp_path / "texts.csv"
    frame.to_csv(path, index=False)
    window.open_path(path)
    wait_for_report(qtbot, window)
    window.go_to_step(CODING_STEP)
    session = window.session
    for row in [row for row in energy if row >= 150][:20]:  # coded here, as the keys would
        session.codings.record(int(row), "energy", coder="Ana", chosen_by="random", probability=0.01)
    session.codings_changed()
    spec = dataclasses.replace(project.result.study_spec())
    spec.evaluation.folds = 5
    result = dataclasses.replace(project.result, spec=spec.to_dict())
    session.set_result(result, {})
    panel = window.results_page.learning
    qtbot.waitUntil(lambda: panel.training_texts() is not None or "fewer" in panel.sizes_note.text(), timeout=30_000)
    n_train = panel.training_texts()
    assert n_train is not None, panel.sizes_note.text()
    coded = int(frame["label"].notna().sum()) + 20
    assert n_train >= coded * 0.6  # the codings made here count (the rest are test texts)
    sizes = [int(size) for size in panel.sizes_edit.text().replace(",", " ").split()]
    assert sizes and max(sizes) < n_train
    assert not [record for record in caplog.records if record.exc_info and record.levelno >= logging.WARNING]


def test_a_study_the_curve_cannot_draw_says_why_without_a_traceback(qtbot, caplog):
    from guiapp.core.study.mapping import ColumnMapping
    from guiapp.ui.steps.results.learning_curve_panel import LearningCurvePanel
    from tests.ui.steps.results.test_learning_curve_panel import study

    panel = LearningCurvePanel(n_jobs=1)
    qtbot.addWidget(panel)
    spec = study(folds=5)
    spec.data.mapping = ColumnMapping(text_columns=["text"], category_column="label")
    table = coded_texts(60)
    table.loc[table["label"].eq("energy").to_numpy().nonzero()[0][4:], "label"] = None  # “energy” 4 times
    panel.set_study(spec, table)
    qtbot.waitUntil(lambda: not panel.start_button.isEnabled() and "energy" in panel.sizes_note.text(),
                    timeout=10_000)
    assert not [record for record in caplog.records if record.exc_info and record.levelno >= logging.WARNING]
    assert "10000" not in panel.sizes_edit.text().replace(",", "")
