"""Reading a language model's answers: a category only when named, shares and log-probabilities as
probabilities over exactly the categories, the answers outside them counted."""

from __future__ import annotations

import math

import pytest

from guiapp.core.models.llm.category_answers import (
    OutsideTally,
    TokenChoice,
    answer_shares,
    probabilities_from_logprobs,
    read_answer,
    token_choices,
)
from guiapp.core.models.llm.codebook_prompt import NO, YES

CATEGORIES = ["Economy", "Health care", "Other"]


@pytest.mark.parametrize("raw, expected", [
    ("Economy", "Economy"),
    ("  economy.\n", "Economy"),
    ("HEALTH-CARE", "Health care"),
    ("healthcare", "Health care"),
    ('"Other"', "Other"),
    ('{"category": "health care"}', "Health care"),
    ('```json\n{"category": "Economy"}\n```', "Economy"),
    ("Economic", None),
    ("Economy and health care", None),
    ("The category is Economy.", None),
    ("Sports", None),
    ("", None),
    ('{"category": "Sports"}', None),
    ('{"label": "Economy"}', None),
    ('{"category": ["Economy"]}', None),
    ("{not json", None),
    (None, None),
])
def test_an_answer_is_a_category_only_when_it_names_one(raw, expected):
    assert read_answer(raw, CATEGORIES) == expected


def test_yes_no_answers():
    assert read_answer("Yes.", [YES, NO]) == YES
    assert read_answer('{"answer": "no"}', [YES, NO]) == NO
    assert read_answer("Probably yes", [YES, NO]) is None


def test_shares_are_probabilities_over_exactly_the_categories_with_outside_counted():
    shares = answer_shares(["Economy", "economy", "Other", "Sports", "I cannot tell", "Health care"], CATEGORIES)
    assert list(shares.probabilities) == CATEGORIES
    assert math.isclose(sum(shares.probabilities.values()), 1.0)
    assert shares.probabilities == {"Economy": 0.5, "Health care": 0.25, "Other": 0.25}
    assert shares.n == 6 and shares.outside == 2
    assert shares.outside_answers == ("Sports", "I cannot tell")
    assert shares.counts == {"Economy": 2, "Health care": 1, "Other": 1}


def test_answers_all_outside_give_no_probabilities_rather_than_a_guess():
    shares = answer_shares(["Sports", "Weather"], CATEGORIES)
    assert shares.probabilities is None and shares.outside == 2


def test_the_tally_counts_outside_answers_over_a_run():
    tally = OutsideTally()
    tally.add(answer_shares(["Sports", "Economy"], CATEGORIES))
    tally.add(answer_shares(["Sports", "Other", "n/a", "Other"], CATEGORIES))
    assert tally.asked == 6 and tally.outside == 3
    note = tally.note()
    assert "3 of 6 answers (50.0 %)" in note and "“Sports” (2)" in note
    empty = OutsideTally()
    empty.add(answer_shares(["Other"], CATEGORIES))
    assert empty.note() == "All 1 answers named one of the categories."


def openai_entry(token, logprob, top):
    return {"token": token, "logprob": logprob, "top_logprobs": [{"token": t, "logprob": lp} for t, lp in top]}


def test_logprobs_of_the_first_token_give_probabilities_over_the_categories():
    first = [("Economy", math.log(0.5)), ("Health", math.log(0.2)), ("Other", math.log(0.1)),
             ("Sports", math.log(0.15)), ("E", math.log(0.05))]
    choices = token_choices([openai_entry("Economy", math.log(0.5), first)])
    answer = probabilities_from_logprobs(choices, CATEGORIES)
    assert list(answer.probabilities) == CATEGORIES
    assert math.isclose(sum(answer.probabilities.values()), 1.0)
    assert math.isclose(answer.probabilities["Economy"], 0.55 / 0.85)  # "E" begins Economy only
    assert math.isclose(answer.probabilities["Health care"], 0.2 / 0.85)
    assert math.isclose(answer.covered, 0.85)  # "Sports" begins no category


def test_categories_that_begin_alike_are_split_by_the_next_token():
    categories = ["Health", "Health care", "Economy"]
    entries = [openai_entry(" Health", math.log(0.8), [(" Health", math.log(0.8)), (" Economy", math.log(0.2))]),
               openai_entry(" care", math.log(0.75), [(" care", math.log(0.75)), (".", math.log(0.25))])]
    answer = probabilities_from_logprobs(token_choices(entries), categories)
    assert math.isclose(answer.probabilities["Health care"], 0.6)
    assert math.isclose(answer.probabilities["Health"], 0.2)
    assert math.isclose(answer.probabilities["Economy"], 0.2)


def test_a_json_wrapper_and_leading_space_are_passed_over():
    entries = [openai_entry('{"', -0.01, []), openai_entry("category", -0.01, []), openai_entry('":', -0.01, []),
               openai_entry(' "', -0.01, []),
               openai_entry("Other", math.log(0.7), [("Other", math.log(0.7)), ("Economy", math.log(0.3))]),
               openai_entry('"}', -0.01, [])]
    answer = probabilities_from_logprobs(token_choices(entries), CATEGORIES)
    assert math.isclose(answer.probabilities["Other"], 0.7)
    assert math.isclose(answer.probabilities["Economy"], 0.3)
    straddling = [openai_entry('{"category": "Eco', math.log(0.9), [('{"category": "Eco', math.log(0.9)),
                                                                     ('{"category": "Oth', math.log(0.1))])]
    answer = probabilities_from_logprobs(token_choices(straddling), CATEGORIES)
    assert math.isclose(answer.probabilities["Economy"], 0.9)


def test_yes_no_logprobs_and_tokens_outside_the_answers():
    choices = [TokenChoice("yes", (("yes", math.log(0.6)), ("Yes", math.log(0.2)), ("no", math.log(0.1)),
                                   ("maybe", math.log(0.1))))]
    answer = probabilities_from_logprobs(choices, [YES, NO])
    assert math.isclose(answer.probabilities[YES], 0.8 / 0.9)
    assert math.isclose(answer.probabilities[NO], 0.1 / 0.9)
    nothing = [TokenChoice("Sports", (("Sports", -0.1), ("Weather", -2.0)))]
    assert probabilities_from_logprobs(nothing, CATEGORIES).probabilities is None
    assert probabilities_from_logprobs([], CATEGORIES).probabilities is None


def test_a_longer_word_is_not_taken_for_a_category():
    choices = [TokenChoice("Others", (("Others", math.log(0.9)), ("Other", math.log(0.1))))]
    answer = probabilities_from_logprobs(choices, CATEGORIES)
    assert answer.probabilities == {"Economy": 0.0, "Health care": 0.0, "Other": 1.0}
    assert math.isclose(answer.covered, 0.1)
