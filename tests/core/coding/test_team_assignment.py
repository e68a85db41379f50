"""A team's assignment: sizes, overlap, recorded probabilities against many seeded draws, and errors."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest

from guiapp.core.coding.coding_record import UnreadableCodings
from guiapp.core.coding.team_assignment import (
    TeamAssignment,
    TeamPlan,
    check_rows,
    coders_of,
    draw_assignment,
    overlap_size,
)
from guiapp.core.errors import UserError

CODERS = ("ana", "ben", "cem")


def test_each_coder_codes_the_texts_asked_and_overlap_texts_go_to_distinct_coders() -> None:
    plan = TeamPlan(CODERS, 40, overlap_share=0.2, coders_per_overlap=2, seed=3)
    assignment = draw_assignment(plan, range(500), second_rows=["a", "b", "c"] * 20)
    assert assignment.pool_size == 503
    for coder in CODERS:
        mine = assignment.for_coder(coder)
        assert len(mine) == 40 and len({(t.source, t.row) for t in mine}) == 40
    by_text = coders_of(assignment)
    overlap = assignment.overlap_texts()
    assert len(overlap) == overlap_size(plan) > 0
    assert all(len(by_text[text]) == 2 and len(set(by_text[text])) == 2 for text in overlap)
    assert all(len(coders) == 1 for text, coders in by_text.items() if text not in overlap)
    assert abs(len(overlap) / assignment.distinct_texts() - 0.2) < 0.02
    assert assignment.distinct_texts() == 3 * 40 - len(overlap)
    overlap_counts = Counter(t.coder for t in assignment.texts if t.overlap)
    assert max(overlap_counts.values()) - min(overlap_counts.values()) <= 1  # shared evenly
    assert "3 coders code 40 texts each" in assignment.sentence()


def test_the_draw_is_fixed_by_the_seed_not_by_the_order_of_the_rows() -> None:
    plan = TeamPlan(CODERS, 10, 0.3, seed=11)
    first = draw_assignment(plan, range(100))
    assert draw_assignment(plan, reversed(range(100))) == first
    assert draw_assignment(TeamPlan(CODERS, 10, 0.3, seed=12), range(100)) != first
    without_overlap = draw_assignment(TeamPlan(("ana",), 10), range(100))
    assert not any(t.overlap for t in without_overlap.texts) and len(without_overlap.texts) == 10


def test_recorded_probabilities_match_how_often_texts_are_drawn_over_many_seeds() -> None:
    n, draws = 12, 3000
    plan = TeamPlan(CODERS, 2, overlap_share=0.4, coders_per_overlap=2)
    overlap = np.zeros(n)
    per_coder = {coder: np.zeros(n) for coder in CODERS}
    shared_by_coder = Counter()
    recorded = None
    for seed in range(draws):
        assignment = draw_assignment(TeamPlan(CODERS, 2, 0.4, 2, seed=seed), range(n))
        for text in assignment.texts:
            per_coder[text.coder][text.row] += 1
            shared_by_coder[text.coder] += text.overlap
            recorded = (text.p_overlap, text.p_coder)
        for _, row in assignment.overlap_texts():
            overlap[row] += 1
    p_overlap, p_coder = recorded
    assert p_overlap == overlap_size(plan) / n and p_coder == 2 / n
    # each frequency within about four standard errors of the recorded probability
    for expected, counts in ((p_overlap, overlap), *((p_coder, c) for c in per_coder.values())):
        spread = 4 * np.sqrt(expected * (1 - expected) / draws)
        assert np.all(np.abs(counts / draws - expected) < spread), (expected, counts / draws)
    # the shared texts fall evenly on the coders (their order is drawn too): O·c/k per draw each
    share = overlap_size(plan) * 2 / 3
    assert all(abs(shared_by_coder[c] / draws - share) < 0.05 for c in CODERS), shared_by_coder


def test_plans_that_cannot_work_are_refused_in_words() -> None:
    with pytest.raises(UserError, match="needs 60 different texts, but only 50 uncoded texts are left"):
        draw_assignment(TeamPlan(CODERS, 20), range(50))
    with pytest.raises(UserError, match="between 0 and 1, not 20") as error:
        draw_assignment(TeamPlan(CODERS, 20, overlap_share=20), range(500))
    assert "enter 0.2" in error.value.hint
    with pytest.raises(UserError, match="One coder cannot share texts"):
        draw_assignment(TeamPlan(("ana",), 20, overlap_share=0.1), range(500))
    with pytest.raises(UserError, match="4 coders per shared text are more than the 3 coders"):
        draw_assignment(TeamPlan(CODERS, 20, 0.1, coders_per_overlap=4), range(500))
    with pytest.raises(UserError, match="names the coder “ana” twice"):
        draw_assignment(TeamPlan(("ana", "ana"), 20), range(500))
    with pytest.raises(UserError, match="at least one text"):
        draw_assignment(TeamPlan(CODERS, 0), range(500))
    with pytest.raises(UserError, match="less than one text"):
        draw_assignment(TeamPlan(CODERS, 1, overlap_share=0.01), range(500))


def test_a_full_overlap_shares_every_text() -> None:
    assignment = draw_assignment(TeamPlan(CODERS, 4, overlap_share=1.0, coders_per_overlap=3), range(10))
    assert len(assignment.overlap_texts()) == assignment.distinct_texts() == 4


def test_round_trip_and_damaged_dicts_refused_in_words() -> None:
    assignment = draw_assignment(TeamPlan(CODERS, 5, 0.25, seed=2), range(30), ["x", "y", "z"])
    data = json.loads(json.dumps(assignment.to_dict()))
    assert TeamAssignment.from_dict(data) == assignment

    def damaged(change) -> dict:
        copy = json.loads(json.dumps(assignment.to_dict()))
        change(copy)
        return copy

    for change, words in (
        (lambda d: d["texts"][0].update(coder="zoe"), "not one of the coders"),
        (lambda d: d["texts"][0].update(p_coder=1.5), "not between 0 and 1"),
        (lambda d: d["texts"][1].update(source="elsewhere"), "comes from 'elsewhere'"),
        (lambda d: d["texts"].append(dict(d["texts"][0])), "twice"),
        (lambda d: d["plan"].update(overlap_share=3), "between 0 and 1"),
        (lambda d: d.pop("texts"), "no list of texts"),
        (lambda d: d.update(format="something else"), "something other"),
    ):
        with pytest.raises(UnreadableCodings, match=words) as error:
            TeamAssignment.from_dict(damaged(change))
        assert error.value.message.startswith("The team's assignment cannot be read")
    with pytest.raises(UnreadableCodings):
        TeamAssignment.from_dict([1, 2])


def test_rows_the_table_lost_are_named() -> None:
    assignment = draw_assignment(TeamPlan(("ana",), 3, seed=1), range(5))
    check_rows(assignment, range(5))
    lost = assignment.rows_for("ana")[0]
    with pytest.raises(UserError, match=f"rows {lost}"):
        check_rows(assignment, [row for row in range(5) if row != lost])
