"""The agreement of two coders: κ and α with intervals in plain words, and their disagreements."""

from __future__ import annotations

import math

import pytest

from guiapp.core.coding.second_coder import compare_coders
from guiapp.ui.steps.coding.coder_agreement_view import (
    UNDEFINED,
    AgreementFigures,
    CoderAgreementView,
    DisagreedText,
)
from tests.ui.helpers import save_screenshot

NAN = float("nan")


@pytest.fixture
def view(qtbot):
    widget = CoderAgreementView()
    qtbot.addWidget(widget)
    widget.resize(980, 640)
    return widget


def figures(**changes):
    values = {"kappa": 0.712, "kappa_interval": (0.581, 0.83), "alpha": 0.709, "alpha_interval": (0.575, 0.828),
              "n": 120, "share_agreeing": 0.8333, "first_coder": "Anna", "second_coder": "Ben",
              "disagreements": (DisagreedText(104, "they keep saying it", "hate speech", "offensive language"),
                                DisagreedText(150, "what a game", "neither", "offensive language"))}
    values.update(changes)
    return AgreementFigures(**values)


def test_the_numbers_are_shown_with_their_intervals(view):
    view.set_agreement(figures(), row_names={104: 106, 150: 152})
    shown = view.figures_shown()
    assert shown["alike"] == ("83 %", "of the 120 texts both coders coded")
    assert shown["alpha"] == ("0.71", "95 % interval: 0.57 to 0.83")
    assert shown["kappa"] == ("0.71", "95 % interval: 0.58 to 0.83")
    assert view.headline_text() == "The two coders coded 83 % of the 120 texts both coded alike."
    assert view.alpha_card.strip.value == pytest.approx(0.709)
    assert view.alpha_card.strip.interval == (0.575, 0.828)


def test_technical_terms_are_explained(view):
    view.set_agreement(figures())
    assert view.alpha_card.title.explained_terms() == ["Krippendorff's alpha"]
    assert view.kappa_card.title.explained_terms() == ["Cohen's kappa"]
    assert "text-decoration: underline" in view.kappa_card.title.text()  # the apostrophe does not hide the term
    assert "reliable coding" in view.alpha_card.title.toolTip()
    assert view.alpha_card.detail.explained_terms() == ["confidence interval"]


def test_the_disagreements_are_listed_under_the_coders_names(view, qtbot):
    view.set_agreement(figures(), row_names={104: 106, 150: 152})
    assert view.column_titles() == ["Row", "Text", "Anna", "Ben"]
    assert view.disagreement_rows() == [["106", "they keep saying it", "hate speech", "offensive language"],
                                        ["152", "what a game", "neither", "offensive language"]]
    assert view.disagreements_title.text() == "Disagreements to discuss (2)"
    with qtbot.waitSignal(view.disagreementChosen) as signal:
        view.table.cellDoubleClicked.emit(1, 1)
    assert signal.args == [150]


def test_coefficients_that_cannot_be_measured_say_why(view):
    view.set_agreement(figures(kappa=NAN, kappa_interval=(NAN, NAN), alpha=NAN, alpha_interval=(NAN, NAN),
                               disagreements=(), share_agreeing=1.0, first_coder="", second_coder=""))
    assert view.figures_shown()["alpha"] == ("–", UNDEFINED)
    assert view.figures_shown()["kappa"] == ("–", UNDEFINED)
    assert view.alpha_card.strip.isHidden()
    assert view.table.isHidden()
    assert view.disagreements_note.text() == "The two coders coded all 120 texts alike."
    assert view.column_titles()[2:] == ["First coder", "Second coder"]


def test_nothing_to_show_before_a_second_coder_has_coded(view):
    view.set_agreement(figures())
    view.set_agreement(None)
    assert "once a second coder has coded" in view.headline_text()
    assert view.alpha_card.isHidden() and view.table.isHidden()


def test_the_core_comparison_converts_into_the_figures_shown(view):
    rows = list(range(1, 21))
    first = {row: ("a" if row % 2 else "b") for row in rows}
    second = dict(first)
    second[3], second[8] = "b", "a"
    agreement = compare_coders(first, second, samples=200)
    texts = {row: f"text {row}" for row in rows}
    shown = AgreementFigures.from_comparison(agreement, texts, first_coder="Anna", second_coder="Ben")
    assert shown.n == 20 and shown.share_agreeing == pytest.approx(0.9)
    assert shown.kappa == pytest.approx(agreement.kappa) and shown.alpha == pytest.approx(agreement.alpha)
    assert shown.sentence == agreement.sentence()
    assert list(shown.disagreements) == [DisagreedText(3, "text 3", "a", "b"), DisagreedText(8, "text 8", "b", "a")]
    view.set_agreement(shown)
    assert view.headline_text() == agreement.sentence()
    assert view.figures_shown()["alpha"][0] == f"{agreement.alpha:.2f}"
    low, high = agreement.alpha_interval
    assert math.isfinite(low)
    assert view.figures_shown()["alpha"][1] == f"95 % interval: {low:.2f} to {high:.2f}"
    assert [line[0] for line in view.disagreement_rows()] == ["3", "8"]


def test_agreement_screenshot(view, qtbot):
    view.set_agreement(figures(sentence="The two coders coded 83% of 120 texts alike. Krippendorff's alpha is 0.71 "
                                        "(95% interval 0.57 to 0.83): enough only for tentative conclusions."))
    view.show()
    qtbot.waitExposed(view)
    save_screenshot(view, "widget_coder_agreement")
