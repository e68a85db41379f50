"""The learning-curve panel proposes sizes that fit the study (at least four points) until the
researcher types their own, and its one-line verdict says when the curve cannot tell."""

from __future__ import annotations

from guiapp.ui.steps.results.learning_curve_views import DEFAULT_SIZES_TEXT, default_sizes_text, verdict
from tests.core.synthetic_texts import coded_texts
from tests.ui.steps.results.test_learning_curve_panel import panel, set_study, study  # noqa: F401 - the panel fixture


def test_the_proposed_sizes_fit_the_training_texts(qtbot, panel):  # noqa: F811
    assert panel.sizes_edit.text() == DEFAULT_SIZES_TEXT
    set_study(qtbot, panel, study(), coded_texts(300))
    assert panel.training_texts() == 210
    assert panel.sizes_edit.text() == default_sizes_text(210) == "26, 53, 105"
    assert "Curve at 26, 53, 105 and all 210 texts." in panel.sizes_note.text()
    panel.sizes_edit.setText("50, 100")  # the researcher's own sizes stay
    set_study(qtbot, panel, study(), coded_texts(400))
    assert panel.sizes_edit.text() == "50, 100"


def test_a_study_with_setfit_is_proposed_sizes_from_8_coded_texts_per_category():
    assert default_sizes_text(639, 2) == "16, 32, 64, 128, 320"  # doubling up to all 639
    assert default_sizes_text(3_114, 20) == "160, 320, 640, 1280"
    assert default_sizes_text(100, 20) == default_sizes_text(100)  # too few texts for 8 per category: the usual


def test_the_proposal_follows_setfit_in_the_study(qtbot, panel):  # noqa: F811
    from guiapp.core.study.sections import ModelSpec

    set_study(qtbot, panel, study(models=(ModelSpec("bow", "naive_bayes"), ModelSpec("setfit", "setfit"))),
              coded_texts(300))
    assert panel.sizes_edit.text() == default_sizes_text(210, 3)


def test_the_default_text_and_the_verdict_line():
    assert default_sizes_text(639) == "80, 160, 320"
    assert default_sizes_text(50_000) == DEFAULT_SIZES_TEXT
    assert "too much to tell" in verdict([("SVM", "unclear")])
    assert verdict([("SVM", "rising"), ("NB", "unclear")]) == ("SVM still improves with more coded texts; for NB "
                                                               "the curve cannot tell yet.")
