"""The learning-curve panel: a real (tiny) curve drawn in the background by pressing Start, shown
as chart, table and plain reading; Cancel mid-run; sizes typed wrongly; the chart's two views."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt

from guiapp.core.experiment.curves.learning_curve_results import CurvePoint, LearningCurveResult, ModelCurve
from guiapp.core.study.mapping import ColumnMapping
from guiapp.core.study.sections import EvaluationSpec, ModelSpec
from guiapp.core.study.spec import DataSpec, ExperimentSpec
from guiapp.ui.steps.results.learning_curve_chart import LearningCurveChart
from guiapp.ui.steps.results.learning_curve_panel import LearningCurvePanel
from guiapp.ui.steps.results.learning_curve_views import parse_sizes
from tests.core.synthetic_texts import coded_texts
from tests.ui.helpers import save_screenshot, settle_chart

NB = ModelSpec("bow", "naive_bayes", grid={"alpha": [1.0]})
LR = ModelSpec("bow", "logistic_regression", grid={"C": [10.0]})


def study(models=(NB, LR), folds: int = 3) -> ExperimentSpec:
    return ExperimentSpec(
        name="Synthetic bills",
        data=DataSpec(mapping=ColumnMapping(text_columns=["text"], category_column="label")),
        evaluation=EvaluationSpec(folds=folds, bootstrap_samples=0),
        models=list(models),
        seed=3,
    )


@pytest.fixture
def panel(qtbot):
    widget = LearningCurvePanel(n_jobs=1)  # in this process: no worker processes to start in a test
    qtbot.addWidget(widget)
    widget.resize(1100, 700)
    widget.show()
    qtbot.waitExposed(widget)
    yield widget
    widget.cancel()
    qtbot.waitUntil(lambda: not widget.is_busy(), timeout=10_000)


def set_study(qtbot, panel, spec, table) -> None:
    panel.set_study(spec, table)
    qtbot.waitUntil(lambda: panel.training_texts() is not None, timeout=10_000)


def test_start_draws_the_curve_in_the_background_and_shows_chart_table_and_reading(qtbot, panel, tmp_path):
    set_study(qtbot, panel, study(), coded_texts(300))
    assert panel.training_texts() == 210  # 30 % set aside for the test
    panel.sizes_edit.setText("50, 100, 150")
    panel.repeats_spin.setValue(2)
    assert "Curve at 50, 100, 150 and all 210 texts." in panel.sizes_note.text()
    assert panel.start_button.isEnabled() and not panel.results.isVisible()
    with qtbot.waitSignal(panel.curveReady, timeout=15_000) as ready:
        qtbot.mouseClick(panel.start_button, Qt.MouseButton.LeftButton)
        assert panel.is_busy() and panel.progress.isVisible()
        assert not panel.start_button.isEnabled() and not panel.sizes_edit.isEnabled()
    result = ready.args[0]
    assert isinstance(result, LearningCurveResult) and panel.curve() is result
    assert result.sizes == [50, 100, 150, 210] and result.repeats == 2 and result.tuning == "once"
    qtbot.waitUntil(lambda: not panel.is_busy() and panel.start_button.isEnabled(), timeout=5_000)
    assert not panel.progress.isVisible() and panel.results.isVisible() and panel.status_text() == ""

    chart = panel.chart
    settle_chart(chart)
    names = ["Naive Bayes · Basic BOW", "Logistic regression · Basic BOW"]
    assert chart.mode() == "models" and chart.line_names() == names and chart.legend_names() == names
    assert len(chart.mean_items()) == 2 and len(chart.band_items()) == 2  # a mean line and a band per model
    assert chart.x_labels() == ["50", "100", "150", "210"]
    for line, model in zip(chart.lines(), result.models, strict=True):
        rows = model.summary()
        assert line.means == [row.mean for row in rows] and line.lows == [row.low for row in rows]
        x, y = chart.mean_items()[result.models.index(model)].getData()
        assert list(y) == line.means and len(x) == 4
    assert "mean of 2 random draws" in chart.title_text()

    table = panel.table
    assert table.row_titles() == names and table.column_titles() == ["50 texts", "100 texts", "150 texts",
                                                                      "all 210 texts"]
    first = result.models[0].summary()[0]
    assert table.cell_text(0, 0) == f"{first.mean:.3f} ({first.low:.3f}–{first.high:.3f})"
    last = result.models[1].summary()[-1]
    assert last.low == last.high and table.cell_text(1, 3) == f"{last.mean:.3f}"  # all texts: the same in every draw
    assert any(words in panel.reading.verdict_text() for words in ("Every model", "levelled off", "cannot tell"))

    sentences = panel.reading_sentences()
    assert len(sentences) == 2 and sentences[0].startswith("Naive Bayes · Basic BOW ")
    assert all(any(word in s for word in ("still rising", "levelling off", "fell", "may still be rising"))
               for s in sentences)

    panel.show_categories(names[1])  # the per-category chart of one model
    assert chart.mode() == "categories" and chart.model_name() == names[1]
    assert sorted(chart.line_names()) == sorted(result.categories) and not chart.band_items()

    written = panel.save_files(tmp_path / "curve")
    assert sorted(path.name for path in written) == ["learning-curve.csv", "learning-curve.json"]
    assert json.loads((tmp_path / "curve" / "learning-curve.json").read_text())["sizes"] == [50, 100, 150, 210]


def test_cancel_mid_run_leaves_the_panel_usable(qtbot, panel):
    grid = ModelSpec("bow", "logistic_regression", grid={"C": [0.1, 1.0, 10.0]})
    set_study(qtbot, panel, study((grid, NB), folds=5), coded_texts(600))
    panel.sizes_edit.setText("50, 100, 200, 300")
    panel.tune_each.setChecked(True)  # choose the settings at every size: plenty of work to stop
    with qtbot.waitSignal(panel.progress.bar.valueChanged, timeout=10_000):
        qtbot.mouseClick(panel.start_button, Qt.MouseButton.LeftButton)
    assert panel.is_busy()
    qtbot.mouseClick(panel.progress.cancel_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not panel.is_busy(), timeout=10_000)
    qtbot.waitUntil(lambda: panel.start_button.isEnabled(), timeout=2_000)
    assert panel.status_text().startswith("Stopped")
    assert not panel.progress.isVisible() and panel.sizes_edit.isEnabled()
    assert panel.curve() is None or panel.curve().status == "cancelled"

    panel.set_study(study(), coded_texts(120))  # and it still draws a curve afterwards
    qtbot.waitUntil(lambda: panel.training_texts() == 84, timeout=10_000)
    panel.sizes_edit.setText("40")
    panel.repeats_spin.setValue(1)
    with qtbot.waitSignal(panel.curveReady, timeout=15_000):
        qtbot.mouseClick(panel.start_button, Qt.MouseButton.LeftButton)
    assert panel.status_text() == "" and panel.curve().sizes == [40, 84]


def test_sizes_that_cannot_be_read_give_a_plain_message_and_disable_start(qtbot, panel):
    set_study(qtbot, panel, study(), coded_texts(200))
    for text, message in [("500, lots", "“lots” is not a number of texts"),
                          ("5, 100", "A model cannot learn from 5 coded texts"),
                          ("", "Type the numbers of coded texts"),
                          ("100.5", "“100.5” is not a number of texts")]:
        panel.sizes_edit.setText(text)
        assert message in panel.sizes_note.text() and not panel.start_button.isEnabled(), text
    panel.sizes_edit.setText("50, 100, 5000")
    assert panel.start_button.isEnabled()
    assert "5,000 is more than your 140 training texts, so the curve ends with all of them" in panel.sizes_note.text()


def test_the_sizes_field_reads_commas_spaces_and_thousands_separators():
    assert parse_sizes("500, 1000, 2000").sizes == (500, 1000, 2000)
    assert parse_sizes("1,000 2,000; 10,000").sizes == (1000, 2000, 10000)
    assert parse_sizes("500,1000,2000").sizes == (500, 1000, 2000)
    assert parse_sizes("50,100,150").sizes == (50, 100, 150)
    assert parse_sizes("2000, 500, 500").sizes == (500, 2000)
    assert not parse_sizes("1000-2000").ok


def test_without_a_study_start_is_disabled_and_a_failure_reads_plainly(qtbot, panel):
    assert not panel.start_button.isEnabled() and "Set up a study" in panel.study_label.text()
    spec = study()
    spec.data.mapping = ColumnMapping(text_columns=["text"], category_column="topic")  # no such column
    panel.set_study(spec, coded_texts(100))
    qtbot.waitUntil(lambda: not panel.start_button.isEnabled() and "topic" in panel.sizes_note.text(), timeout=10_000)
    assert "Traceback" not in panel.sizes_note.text()


def hand_made_curve() -> LearningCurveResult:
    categories = ["Health", "Defence", "Energy"]
    models = []
    for name, base in (("SVM · Basic BOW", 0.55), ("Naive Bayes · Basic BOW", 0.5)):
        points = [CurvePoint(size, repeat, base + 0.05 * step + 0.01 * repeat,
                             [base + 0.08 * step, base + 0.03 * step, base - 0.1 + 0.06 * step])
                  for step, size in enumerate((500, 1000, 2000, 2200)) for repeat in (1, 2, 3)]
        models.append(ModelCurve(name, "bow", "svm", {}, points=points))
    return LearningCurveResult({}, categories, [500, 1000, 2000, 2200], [1, 2, 3], 2200, 900, "once", models)


def test_the_chart_keeps_tick_labels_apart_and_saves(qtbot, tmp_path):
    chart = LearningCurveChart()
    qtbot.addWidget(chart)
    chart.resize(700, 420)
    chart.show()
    qtbot.waitExposed(chart)
    assert chart.mode() == "empty" and chart.message()
    result = hand_made_curve()
    chart.show_models(result)
    settle_chart(chart)
    assert chart.x_labels() == ["500", "1,000", "2,200"]  # 2,000 would touch the last label (all texts)
    assert chart.point_tip(chart.lines()[0], 1).endswith("macro-F1 0.620 (0.610 to 0.630 over 3 random draws)")
    assert chart.export(tmp_path / "curve.png").stat().st_size > 5_000
    chart.clear_curve()
    assert chart.mode() == "empty" and chart.legend_names() == []


def test_learning_curve_panel_screenshot(qtbot, panel):
    panel.set_curve(hand_made_curve())
    settle_chart(panel.chart)
    save_screenshot(panel, "learning_curve_panel_test")
    assert panel.results.isVisible() and len(panel.reading_sentences()) == 2


def test_a_run_that_fails_says_what_to_do_without_a_traceback(qtbot, panel, monkeypatch):
    from guiapp.core.errors import DataError
    from guiapp.ui.steps.results import learning_curve_panel
    def fails(*args, on_event):
        raise DataError("Among the 50 texts the settings are chosen on, “energy” has only 2 texts.",
                        "Choose the settings on a larger subset, or use fewer folds.")

    set_study(qtbot, panel, study(), coded_texts(200))
    monkeypatch.setattr(learning_curve_panel, "draw_curve", fails)
    qtbot.mouseClick(panel.start_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not panel.is_busy() and panel.status_text() != "", timeout=10_000)
    assert panel.status_text() == ("Among the 50 texts the settings are chosen on, “energy” has only 2 texts. "
                                   "Choose the settings on a larger subset, or use fewer folds.")
    assert panel.start_button.isEnabled() and not panel.progress.isVisible() and panel.curve() is None
