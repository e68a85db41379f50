"""A language model with your codebook has a learning curve over the examples per category in its
prompt (0, 1, 2, 4 …), not over training texts: the Results step's Learning curve tab draws it on a
linear axis of its own (0 allowed), in a chart and a table of its own, never on the logarithmic
training-texts axis — and a study of only such models still shows its curve."""

from __future__ import annotations

import pytest

from guiapp.core.experiment.curves.learning_curve_results import (
    EXAMPLES_AXIS,
    CurvePoint,
    LearningCurveResult,
    ModelCurve,
)
from guiapp.ui.steps.results.learning_curve_chart import EXAMPLES_X_LABEL, X_LABEL, LearningCurveChart
from guiapp.ui.steps.results.learning_curve_panel import LearningCurvePanel
from tests.ui.helpers import save_screenshot, settle_chart

CATEGORIES = ["economy", "health", "other"]
CODEBOOK = "Codebook language model (tiny-gpt2)"


def codebook_curve(name: str = CODEBOOK) -> ModelCurve:
    points = [CurvePoint(0, repeat, 0.41, [0.5, 0.4, 0.33]) for repeat in (1, 2, 3)]
    points += [CurvePoint(k, repeat, 0.45 + 0.04 * step + 0.01 * repeat, [0.55, 0.45 + 0.02 * step, 0.4])
               for step, k in enumerate((1, 2, 4, 8)) for repeat in (1, 2, 3)]
    return ModelCurve(name, "codebook_llm", "in_textlab", {}, points=points, axis=EXAMPLES_AXIS)


def training_curve(name: str, base: float) -> ModelCurve:
    points = [CurvePoint(size, repeat, base + 0.05 * step + 0.01 * repeat, [base, base + 0.05 * step, base])
              for step, size in enumerate((80, 160, 320, 639)) for repeat in (1, 2, 3)]
    return ModelCurve(name, "bow", "svm", {}, points=points)


def mixed_curve(*models: ModelCurve) -> LearningCurveResult:
    models = models or (training_curve("SVM · Basic BOW", 0.5), codebook_curve(), training_curve("Naive Bayes · Basic BOW", 0.45))
    return LearningCurveResult({}, CATEGORIES, [80, 160, 320, 639], [1, 2, 3], 639, 160, "once", list(models))


@pytest.fixture
def panel(qtbot):
    widget = LearningCurvePanel(n_jobs=1)
    qtbot.addWidget(widget)
    widget.resize(1100, 900)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def test_the_chart_draws_a_curve_over_examples_on_a_linear_axis_from_zero(qtbot, tmp_path):
    chart = LearningCurveChart()
    qtbot.addWidget(chart)
    chart.resize(700, 420)
    chart.show()
    result = mixed_curve()
    chart.show_models(result)  # over training texts: the codebook model is left out, nothing raises
    settle_chart(chart)
    assert chart.line_names() == ["SVM · Basic BOW", "Naive Bayes · Basic BOW"] and not chart.over_examples()
    assert chart.getPlotItem().getAxis("bottom").labelText == X_LABEL
    chart.show_models(result, over_examples=True)
    settle_chart(chart)
    assert chart.over_examples() and chart.line_names() == [CODEBOOK]
    assert chart.getPlotItem().getAxis("bottom").labelText == EXAMPLES_X_LABEL
    assert chart.x_labels() == ["0", "1", "2", "4", "8"]
    x, y = chart.mean_items()[0].getData()
    assert list(x) == [0, 1, 2, 4, 8]  # the numbers themselves: a linear axis that holds 0
    assert chart.point_tip(chart.lines()[0], 0).startswith(f"{CODEBOOK} with no examples (zero-shot): macro-F1 0.410")
    assert "with 2 examples per category" in chart.point_tip(chart.lines()[0], 2)
    assert "examples per category" in chart.title_text()
    chart.show_categories(result, CODEBOOK)  # its categories on its own axis too
    settle_chart(chart)
    assert chart.over_examples() and chart.line_names()[0] == "economy"
    chart.show_categories(result, "SVM · Basic BOW")
    settle_chart(chart)
    assert not chart.over_examples() and chart.x_labels()[-1] == "639"
    assert chart.export(tmp_path / "curve.png").stat().st_size > 5_000


def test_the_panel_shows_both_kinds_apart_with_words_and_tables(qtbot, panel):
    panel.set_curve(mixed_curve())
    settle_chart(panel.chart)
    settle_chart(panel.examples_chart)
    assert panel.chart.line_names() == ["SVM · Basic BOW", "Naive Bayes · Basic BOW"]
    assert not panel.chart.over_examples()
    assert panel.examples_box.isVisible() and panel.examples_chart_shown()
    assert panel.examples_chart.line_names() == [CODEBOOK] and panel.examples_chart.over_examples()
    assert "learns nothing from your coded texts" in panel.examples_note.plain_text()
    assert panel.table.row_titles() == ["SVM · Basic BOW", "Naive Bayes · Basic BOW"]
    assert panel.examples_table.row_titles() == [CODEBOOK]
    assert panel.examples_table.column_titles() == ["none (zero-shot)", "1 per category", "2 per category",
                                                    "4 per category", "8 per category"]
    assert panel.examples_table.cell_text(0, 0) == "0.410"
    assert panel.examples_table.cell_text(0, 4) == "0.590 (0.580–0.600)"
    assert any("examples per category" in sentence for sentence in panel.reading_sentences())
    assert panel.reading.verdict_text().startswith("Every model that learns from the coded texts still improves")
    path = save_screenshot(panel.scroll.widget(), "learning_curve_examples_axis")
    assert path.exists()

    panel.show_categories(CODEBOOK)  # one model's categories: on its own axis, no second chart
    settle_chart(panel.chart)
    assert panel.chart.over_examples() and not panel.examples_chart_shown()
    assert panel.examples_note.isVisible()  # the words still say what the axis counts
    panel.show_categories("SVM · Basic BOW")
    assert not panel.chart.over_examples() and not panel.examples_box.isVisible()


def test_a_study_of_only_a_codebook_model_draws_its_curve_on_the_main_chart(qtbot, panel):
    panel.set_curve(mixed_curve(codebook_curve()))
    settle_chart(panel.chart)
    assert panel.chart.line_names() == [CODEBOOK] and panel.chart.over_examples()
    assert panel.examples_note.isVisible() and not panel.examples_chart_shown()
    assert not panel.table.isVisible() and panel.examples_table.isVisible()
    panel.set_curve(mixed_curve(training_curve("SVM · Basic BOW", 0.5)))  # no codebook model: as before
    assert not panel.examples_box.isVisible() and not panel.examples_table.isVisible() and panel.table.isVisible()


def test_the_verdict_on_coding_more_texts_speaks_of_the_models_that_learn_from_them(qtbot, panel):
    flat = training_curve("SVM · Basic BOW", 0.5)
    for point in flat.points:
        point.macro_f1 = 0.6
    panel.set_curve(mixed_curve(flat, codebook_curve()))
    assert panel.reading.verdict_text().startswith("SVM · Basic BOW has levelled off")
    panel.set_curve(mixed_curve(codebook_curve()))
    assert panel.reading.verdict_text().startswith(f"{CODEBOOK} still improves with more examples per category")
    panel.set_curve(mixed_curve(training_curve("SVM · Basic BOW", 0.5), codebook_curve()))
    assert panel.examples_chart.lines()[0].colour != panel.chart.lines()[0].colour  # each model its own colour


def test_a_curve_kept_in_a_project_is_shown_apart_again_after_reopening(qtbot, panel):
    reopened = LearningCurveResult.from_json(mixed_curve().to_json())  # as a project keeps and reopens it
    panel.set_curve(reopened)
    settle_chart(panel.chart)
    assert panel.examples_chart_shown() and panel.examples_chart.line_names() == [CODEBOOK]
    assert panel.examples_chart.x_labels() == ["0", "1", "2", "4", "8"]
    assert CODEBOOK not in panel.chart.line_names() and panel.examples_table.row_titles() == [CODEBOOK]


def test_the_work_note_counts_a_codebook_models_answers_apart_from_the_trainings(qtbot, panel):
    from guiapp.core.study.sections import ModelSpec
    from tests.core.synthetic_texts import coded_texts
    from tests.ui.steps.results.test_learning_curve_panel import NB, study

    codebook = ModelSpec("codebook_llm", "server", representation_options={
        "address": "http://127.0.0.1:11434", "model": "tiny"}, grid={"k": [0, 2, 16]})
    panel.set_study(study(models=(NB, codebook)), coded_texts(300))
    qtbot.waitUntil(lambda: panel.training_texts() is not None, timeout=10_000)
    panel.sizes_edit.setText("50, 100")
    panel.repeats_spin.setValue(3)
    text = panel.work_note.text()
    assert text.startswith("1 model × 3 sizes × 3 draws: about 9 trainings")
    assert ("answers the test texts 16 times: with 1, 2, 4, 8 and 16 examples per category, each drawn 3 times, and "
            "once without examples.") in text
