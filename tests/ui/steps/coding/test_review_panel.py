"""The panel of codings the models doubt: the doubts in the core's order, and Keep / Change."""

from __future__ import annotations

import numpy as np
import pytest

from guiapp.core.coding.review import Doubt, Review, review_codings
from guiapp.ui.steps.coding.review_panel import SHOWN_CHARACTERS, ReviewPanel
from tests.ui.helpers import save_screenshot

TEXTS = {
    "t10": "RT @user: these people should all be sent back where they came from, every last one of them",
    "t11": "I love how my little brother thinks he can beat me at fifa lmao",
    "t25": "Congress must act now on the bill that funds the border wall and immigration enforcement. " * 8,
    "t42": "that game last night was trash, refs were blind the whole time",
}
ROWS = ["t11", "t42", "t10", "t25"]  # position in the reviewed codings -> row
DOUBTS = [  # most doubtful first, as the core ranks them
    Doubt(2, "neither", "hate speech", 0.91, 0.04, 0.05),
    Doubt(0, "offensive language", "neither", 0.84, 0.07, 0.12),
    Doubt(3, "neither", "offensive language", 0.63, 0.30, 0.33),
]
SENTENCE = "The models doubt 3 of 412 codings: models that did not see these texts while learning put them …"


@pytest.fixture
def panel(qtbot):
    widget = ReviewPanel()
    qtbot.addWidget(widget)
    widget.resize(1000, 480)
    widget.set_review(Review(DOUBTS, SENTENCE, 412), TEXTS, ROWS, row_names={"t10": 12, "t11": 13, "t25": 27})
    return widget


def test_the_doubts_are_listed_most_doubtful_first(panel):
    assert panel.sentence() == SENTENCE
    assert panel.rows() == ["t10", "t11", "t25"]
    assert panel.cell_texts(0) == ["12", TEXTS["t10"], "neither", "hate speech", "91 %", ""]
    assert panel.cell_texts(1)[2:5] == ["offensive language", "neither", "84 %"]
    assert panel.cell_texts(2)[4] == "63 %"
    assert panel.change_button(0).full_text() == "Change to “hate speech”"
    assert panel.count_label.text() == "0 of 3 decided; 3 to go."
    assert "your coding “neither” 5 %" in panel.table.item(0, 4).toolTip()


def test_a_long_text_is_shortened_in_its_cell_and_whole_in_its_tooltip(panel):
    shown = panel.cell_texts(2)[1]
    assert len(shown) <= SHOWN_CHARACTERS + 2 and shown.endswith("…")
    assert TEXTS["t25"].strip() in panel.table.item(2, 1).toolTip()


def test_keep_emits_the_row_and_shows_it_as_decided(panel, qtbot):
    with qtbot.waitSignal(panel.keep) as signal:
        panel.keep_button(1).click()
    assert signal.args == ["t11"]
    assert panel.decision("t11") == "offensive language"
    assert panel.decision_text(1) == "✓ Kept “offensive language”"
    assert panel.keep_button(1) is None and panel.change_button(1) is None
    assert panel.keep_button(0) is not None  # the others stay undecided
    assert panel.count_label.text() == "1 of 3 decided; 2 to go."


def test_change_emits_the_row_and_the_suggested_category(panel, qtbot):
    with qtbot.waitSignal(panel.change) as signal:
        panel.change_button(2).click()
    assert signal.args == ["t25", "offensive language"]
    assert panel.decision_text(2) == "✓ Changed to “offensive language”"
    with qtbot.assertNotEmitted(panel.keep), qtbot.waitSignal(panel.change) as signal:
        panel.change_button(0).click()
    assert signal.args == ["t10", "hate speech"]
    assert panel.count_label.text() == "2 of 3 decided; 1 to go."


def test_decisions_made_earlier_are_shown_as_decided(qtbot):
    panel = ReviewPanel()
    qtbot.addWidget(panel)
    decided = {"t10": "neither", "t25": "offensive language"}
    panel.set_review(Review(DOUBTS, SENTENCE, 412), TEXTS, ROWS, decided=decided)
    assert panel.decision_text(0) == "✓ Kept “neither”"
    assert panel.decision_text(2) == "✓ Changed to “offensive language”"
    assert panel.keep_button(1) is not None
    assert panel.cell_texts(0)[0] == "t10"  # no spreadsheet numbers given: the row itself
    assert panel.count_label.text() == "2 of 3 decided; 1 to go."


def test_no_review_and_no_doubts_show_a_sentence_only(qtbot):
    panel = ReviewPanel()
    qtbot.addWidget(panel)
    assert panel.rows() == [] and panel.table.isHidden()
    assert "at least two categories" in panel.sentence()
    panel.set_review(Review([], "The models do not doubt any of the 40 codings they checked.", 40), {}, [])
    assert panel.rows() == [] and panel.table.isHidden()
    assert panel.sentence() == "The models do not doubt any of the 40 codings they checked."


def test_a_review_from_the_core_is_shown_in_its_order():
    """Texts coded one way that out-of-fold probabilities put confidently in the other category."""
    rng = np.random.default_rng(0)
    labels = ["yes"] * 30 + ["no"] * 30
    probabilities = np.where(np.array(labels)[:, None] == np.array(["yes", "no"]), 0.85, 0.15)
    probabilities += rng.uniform(-0.05, 0.05, probabilities.shape)
    flipped = [3, 17, 44]
    probabilities[flipped] = probabilities[flipped][:, ::-1]
    review = review_codings(labels, probabilities, ["yes", "no"])
    rows = [f"r{i}" for i in range(60)]
    panel = ReviewPanel()
    try:
        panel.set_review(review, {row: f"text of {row}" for row in rows}, rows)
        assert set(panel.rows()) == {"r3", "r17", "r44"}
        assert panel.rows() == [rows[d.position] for d in review.doubts]
        first = review.doubts[0]
        assert panel.cell_texts(0)[1:4] == [f"text of {rows[first.position]}", first.coded, first.suggested]
        assert panel.sentence() == review.sentence
    finally:
        panel.deleteLater()


def test_the_coding_loops_review_names_its_rows_and_texts_itself(qtbot):
    from guiapp.core.coding.coding_loop import CodingReview, DoubtedCoding

    review = CodingReview((DoubtedCoding(7, "table", "a text the file coded", "yes", "no", 0.88, 0.05, 0.1, True),
                           DoubtedCoding(3, "table", "a text coded here", "no", "yes", 0.7, 0.2, 0.25, False)),
                          "The models doubt 2 of 50 codings.", 50)
    panel = ReviewPanel()
    qtbot.addWidget(panel)
    panel.set_review(review)  # as the page's worker delivers it
    assert panel.rows() == [7, 3]
    assert panel.cell_texts(0)[:5] == ["7", "a text the file coded", "yes", "no", "88 %"]
    assert panel.table.item(0, 2).toolTip().endswith("The coding comes from your spreadsheet.")
    assert panel.table.item(1, 2).toolTip().endswith("You coded it in TextLab.")
    with qtbot.waitSignal(panel.change) as signal:
        panel.change_button(1).click()
    assert signal.args == [3, "yes"]


def test_review_screenshot(panel, qtbot):
    panel.show()
    qtbot.waitExposed(panel)
    panel.change_button(0).click()
    save_screenshot(panel, "widget_review_panel")


LONG = [  # topics named as in a newspaper codebook: long names, 27 of them
    Doubt(0, "Banking, finance, and domestic commerce", "Macroeconomics", 0.31, 0.04, 0.05),
    Doubt(1, "Civil rights, minority issues, civil liberties", "Law, crime, and family issues", 0.06, 0.07, 0.02),
    Doubt(2, "Health", "Space, science, technology and communications", 0.22, 0.30, 0.2),
]


def test_keep_and_change_are_whole_and_visible_in_a_narrow_panel(qtbot):
    """At 1024 x 700 the panel is about 760 pixels wide: no sideways scrolling, every button inside the
    table and its label readable from its start (a long category is shortened at its end)."""
    panel = ReviewPanel()
    qtbot.addWidget(panel)
    panel.resize(760, 520)
    panel.show()
    qtbot.waitExposed(panel)
    rows = ["a", "b", "c"]
    panel.set_review(Review(LONG, SENTENCE, 300), {row: f"Headline of {row} " * 6 for row in rows}, rows)
    qtbot.wait(10)
    table = panel.table
    assert table.horizontalScrollBar().maximum() == 0  # nothing scrolled off to the side
    viewport = table.viewport()
    for index in range(len(LONG)):
        for button in (panel.keep_button(index), panel.change_button(index)):
            corner = button.mapTo(viewport, button.rect().topLeft())
            assert corner.x() >= 0 and corner.x() + button.width() <= viewport.width()
            assert corner.y() >= 0 and corner.y() + button.height() <= table.rowViewportPosition(index) + \
                table.rowHeight(index)  # the whole button inside its row
            needed = button.fontMetrics().horizontalAdvance(button.text())
            assert button.contentsRect().width() >= needed  # the shown label is not clipped
        assert panel.keep_button(index).text() == "Keep"
        assert panel.change_button(index).text().startswith("Change to “")
    assert panel.change_button(0).text() == "Change to “Macroeconomics”"
    assert table.columnWidth(1) >= 150  # the text keeps room to be read
    save_screenshot(panel, "widget_review_panel_narrow")


def test_the_buttons_stand_side_by_side_again_when_the_panel_grows(qtbot):
    """Narrow, Keep and Change stand one above the other; wide again, side by side with whole labels."""
    panel = ReviewPanel()
    qtbot.addWidget(panel)
    panel.resize(600, 520)
    panel.show()
    qtbot.waitExposed(panel)
    rows = ["a", "b", "c"]
    panel.set_review(Review(LONG, SENTENCE, 300), {row: f"Headline of {row} " * 6 for row in rows}, rows)
    keep, change = panel.keep_button(0), panel.change_button(0)
    qtbot.waitUntil(lambda: change.y() > keep.y())  # stacked
    panel.resize(1400, 520)
    qtbot.waitUntil(lambda: change.y() == keep.y())
    for index in (0, 1):  # the third's category is longer than the widest decision column: shortened at its end
        assert panel.change_button(index).text() == panel.change_button(index).full_text()
