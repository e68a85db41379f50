"""The progress panel of the Coding step: goal, pace, coded texts per category, stop sentence and the
chart of the rounds, as the researcher sees them."""

from __future__ import annotations

import numpy as np
import pytest

from guiapp.core.coding.codings import CodingLog
from guiapp.core.coding.stopping import Round, stop_reading
from guiapp.ui.steps.coding.coding_progress import DEFAULT_GOAL, NO_PACE, CodingProgress
from tests.ui.helpers import save_screenshot, settle_chart

CATEGORIES = np.array(["hate speech", "offensive language", "neither"], dtype=object)


def rounds_settling(f1s, changed_shares, seed=0, size=1000):
    """Rounds whose stop-set predictions change by the given shares, with the given out-of-fold F1."""
    rng = np.random.default_rng(seed)
    predictions = rng.integers(0, 3, size)
    rounds = []
    for number, (f1, share) in enumerate(zip(f1s, changed_shares, strict=True)):
        if share:
            flipped = rng.choice(size, round(share * size), replace=False)
            predictions = predictions.copy()
            predictions[flipped] = (predictions[flipped] + 1) % 3
        rounds.append(Round(20 + 10 * number, CATEGORIES[predictions], f1))
    return rounds


SETTLED = rounds_settling([0.31, 0.42, 0.50, 0.55, 0.58, 0.60, 0.604, 0.606, 0.607],
                          [0, 0.18, 0.09, 0.05, 0.025, 0.012, 0.006, 0.004, 0.003])


@pytest.fixture
def panel(qtbot):
    widget = CodingProgress()
    qtbot.addWidget(widget)
    widget.resize(460, 720)
    return widget


def test_counts_goal_and_pace_are_shown(panel):
    panel.set_counts({"offensive language": 71, "neither": 33, "hate speech": 4}, 86.4, coded=112)
    assert panel.count_rows() == [("offensive language", "71 · 66 %"), ("neither", "33 · 31 %"),
                                  ("hate speech", "4 · 4 %")]
    assert panel.few_categories() == ["hate speech"]  # too few codings to learn from: marked
    assert panel.goal() == DEFAULT_GOAL == 200
    assert panel.done_text() == "112 of 200 coded here"
    assert (panel.bar.minimum(), panel.bar.maximum(), panel.bar.value()) == (0, 200, 112)
    # 88 texts to go at 86.4 an hour: a little over an hour
    assert panel.pace_text() == "About 86 codings per hour; at this pace the goal is about 1 h 1 min away."


def test_the_goal_counts_all_coded_texts_unless_told_and_the_pace_waits_for_codings(panel):
    panel.set_counts({"Health": 3, "Energy": 2}, None)
    assert panel.done_text() == "5 of 200 coded here"
    assert panel.pace_text() == NO_PACE
    panel.set_counts({}, float("nan"))
    assert panel.count_rows() == []
    assert panel.done_text() == "0 of 200 coded here"
    assert panel.pace_text() == NO_PACE


def test_the_pace_of_a_real_record_of_codings(panel):
    log = CodingLog()
    for minute, (row, category) in enumerate([(1, "Health"), (2, "Energy"), (3, "Health"), (4, "Health")]):
        log.record(row, category, coder="Ana", chosen_by="random", at=f"2025-01-06T10:{minute:02d}:00+00:00")
    panel.set_counts(log.counts(), log.per_hour())  # three codings in three minutes: 60 an hour
    assert panel.count_rows() == [("Health", "3 · 75 %"), ("Energy", "1 · 25 %")]
    assert panel.pace_text().startswith("About 60 codings per hour; at this pace the goal is about 3 h 16 min away")


def test_setting_the_goal_signals_it_and_moves_the_bar(panel, qtbot):
    panel.set_counts({"Health": 150, "Energy": 60}, 120.0)
    assert panel.done_text() == "210 of 200 coded here"
    assert panel.bar.value() == 200
    assert panel.pace_text() == "About 120 codings per hour. Goal reached."
    with qtbot.waitSignal(panel.goalChanged) as signal:
        panel.goal_spin.setValue(300)
    assert signal.args == [300]
    assert panel.goal() == 300
    assert panel.done_text() == "210 of 300 coded here"
    assert (panel.bar.maximum(), panel.bar.value()) == (300, 210)
    assert "45 min" in panel.pace_text()  # 90 texts at 120 an hour


def test_the_stop_sentence_is_shown_and_emphasised_when_coding_more_changes_little(panel):
    reading = stop_reading(SETTLED)
    assert reading.should_stop
    panel.set_rounds(reading)
    assert panel.stop_sentence() == reading.sentence
    assert "coding more is unlikely to change your results much" in panel.stop_sentence()
    assert panel.stop_emphasised()

    early = stop_reading(SETTLED[:3])
    panel.set_rounds(early)
    assert panel.stop_sentence() == early.sentence
    assert panel.stop_sentence().startswith("Too early to say when to stop")
    assert not panel.stop_emphasised()

    panel.set_rounds(None)
    assert "has not been trained yet" in panel.stop_sentence()
    assert not panel.stop_emphasised()
    assert panel.chart.isHidden()


def test_the_chart_has_one_point_per_round(panel):
    reading = stop_reading(SETTLED)
    panel.set_rounds(reading)
    panel.show()
    settle_chart(panel.chart)
    assert not panel.chart.isHidden()
    n_coded = [r.n_coded for r in SETTLED]
    assert [n for n, _ in panel.chart.f1_points()] == n_coded
    assert [f1 for _, f1 in panel.chart.f1_points()] == pytest.approx([r.oof_macro_f1 for r in SETTLED])
    # the first round has no round before it to compare with
    assert [n for n, _ in panel.chart.changed_points()] == n_coded[1:]
    assert [s for _, s in panel.chart.changed_points()] == pytest.approx(
        [0.18, 0.09, 0.05, 0.025, 0.012, 0.006, 0.004, 0.003])
    assert panel.chart.drawn_counts() == (len(SETTLED), len(SETTLED) - 1)
    tip = panel.chart.round_tip(4)
    assert "Round 5: the model learned from 60 coded texts." in tip
    assert "out-of-fold macro-F1): 0.58 (+3.0 points since the round before)" in tip
    assert "2.5 % of the watched uncoded texts" in tip

    fewer = stop_reading(SETTLED[:2])
    panel.set_rounds(fewer)
    assert panel.chart.drawn_counts() == (2, 1)


def test_a_round_without_macro_f1_draws_no_f1_point(panel):
    rounds = rounds_settling([None, 0.4, 0.5], [0, 0.1, 0.05])
    panel.set_rounds(stop_reading(rounds))
    assert [n for n, _ in panel.chart.f1_points()] == [30, 40]
    assert panel.chart.drawn_counts() == (2, 2)


def test_progress_screenshot(panel, qtbot):
    panel.set_counts({"offensive language": 71, "neither": 33, "hate speech": 4}, 86.4, coded=112)
    panel.set_rounds(stop_reading(SETTLED))
    panel.show()
    qtbot.waitExposed(panel)
    settle_chart(panel.chart)
    save_screenshot(panel, "widget_coding_progress")
