"""Adjudication: the study's coding per text from several coders, by rule, with counts and a sentence."""

from __future__ import annotations

import copy
import math

import pytest

from guiapp.core.coding.adjudication import (
    Adjudication,
    disagreements,
    study_codings,
)
from guiapp.core.errors import UserError

CODINGS = {
    1: {"ana": "support"},  # one coder
    2: {"ana": "support", "ben": "support"},  # agreed
    3: {"ana": "support", "ben": "oppose", "cem": "oppose"},  # majority oppose; first coder support
    4: {"ana": "support", "ben": "oppose"},  # tie under majority
    5: {"ana": "neutral", "ben": "oppose"},  # adjudicated
    6: {"ana": None, "ben": ""},  # nobody coded it
    7: {"ben": "oppose", "ana": None, "cem": math.nan},  # one coder (skips and NaN are not codings)
}
ADJUDICATIONS = {5: Adjudication("oppose", "dana", "sarcasm")}


def test_each_rule_and_its_counts_under_every_setting() -> None:
    leave = study_codings(CODINGS, ADJUDICATIONS)
    assert [(t.row, t.category, t.rule) for t in leave.texts] == [
        (1, "support", "one coder"), (2, "support", "agreed"), (3, None, "left out"), (4, None, "left out"),
        (5, "oppose", "adjudicated"), (6, None, "not coded"), (7, "oppose", "one coder")]
    assert leave.counts["one coder"] == 2 and leave.counts["left out"] == 2 and leave.counts["adjudicated"] == 1
    assert leave.categories() == {1: "support", 2: "support", 5: "oppose", 7: "oppose"}

    first = study_codings(CODINGS, ADJUDICATIONS, fallback="first coder")
    assert first.categories()[3] == "support" and first.categories()[4] == "support"
    assert first.rule_of(3) == "first coder"
    # the team's order decides who is first, not the order of a text's codings
    assert study_codings(CODINGS, fallback="first coder", coders=["ben", "ana"]).categories()[3] == "oppose"

    majority = study_codings(CODINGS, ADJUDICATIONS, fallback="majority")
    assert majority.categories()[3] == "oppose" and majority.rule_of(3) == "majority"
    assert 4 not in majority.categories() and majority.rule_of(4) == "tie"


def test_an_adjudication_wins_even_over_agreeing_coders_and_may_name_an_uncoded_row() -> None:
    result = study_codings({2: {"ana": "support", "ben": "support"}},
                           {2: Adjudication("neutral"), 9: Adjudication("oppose", "dana")})
    assert result.categories() == {2: "neutral", 9: "oppose"}
    assert result.counts["adjudicated"] == 2


def test_the_sentence_counts_texts_by_rule() -> None:
    codings = {**{i: {"a": "x"} for i in range(412)},
               **{1000 + i: {"a": "x", "b": "x"} for i in range(96)},
               **{2000 + i: {"a": "x", "b": "y"} for i in range(36)}}
    adjudications = {2000 + i: Adjudication("y") for i in range(31)}
    assert study_codings(codings, adjudications).sentence() == (
        "412 texts from one coder, 96 agreed by two or more, 31 adjudicated, "
        "5 left out: coders disagreed and no one adjudicated.")
    assert study_codings({1: {"a": "x", "b": "y"}}, fallback="majority").sentence() == (
        "1 text left out: coders were split evenly and no one adjudicated.")
    assert study_codings({}).sentence() == "No text has been coded yet."


def test_disagreements_list_every_coder_in_the_teams_order() -> None:
    found = disagreements(CODINGS, ADJUDICATIONS, coders=["cem", "ben", "ana"])
    assert [d.row for d in found] == [3, 4, 5]
    assert found[0].categories == (("cem", "oppose"), ("ben", "oppose"), ("ana", "support"))
    assert found[2].adjudication == ADJUDICATIONS[5]
    assert [d.row for d in disagreements(CODINGS, ADJUDICATIONS, include_adjudicated=False)] == [3, 4]


def test_numbers_are_read_as_the_labels_they_stand_for() -> None:
    result = study_codings({1: {"ana": 2.0, "ben": "2"}, 2: {"ana": 1, "ben": 3}}, fallback="first coder")
    assert result.categories() == {1: "2", 2: "1"} and result.rule_of(1) == "agreed"


def test_nothing_a_coder_entered_is_changed() -> None:
    codings, adjudications = copy.deepcopy(CODINGS), dict(ADJUDICATIONS)
    for fallback in ("first coder", "majority", "leave out"):
        study_codings(codings, adjudications, fallback=fallback)
        disagreements(codings, adjudications)
    assert codings == CODINGS and [list(c) for c in codings.values()] == [list(c) for c in CODINGS.values()]
    assert adjudications == ADJUDICATIONS


def test_a_wrong_setting_or_an_empty_adjudication_is_refused_in_words() -> None:
    with pytest.raises(UserError, match="not a way to settle") as error:
        study_codings(CODINGS, fallback="coin toss")
    assert "majority" in error.value.hint
    with pytest.raises(UserError, match="needs a category"):
        Adjudication("  ")
