"""The few-shot examples: drawn from the fold's training texts only, k per category, with a seed."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from guiapp.core.errors import UserError
from guiapp.core.models.llm.codebook_prompt import FewShotExample
from guiapp.core.models.llm.prompt_examples import (
    ExampleAmongScoredTexts,
    check_examples_apart,
    draw_examples,
    examples_note,
)

CATEGORIES = ["Economy", "Health", "Other"]


def study(n=60):
    texts = [f"Text number {i} about {CATEGORIES[i % 3].lower()}." for i in range(n)]
    labels = [CATEGORIES[i % 3] for i in range(n)]
    return texts, labels


def folds(n, count=3):
    return [(np.array([i for i in range(n) if i % count != fold]), np.array([i for i in range(n) if i % count == fold]))
            for fold in range(count)]


def test_k_per_category_from_the_training_texts_with_their_rows():
    texts, labels = study()
    examples = draw_examples(texts, labels, CATEGORIES, 4, seed=1)
    assert Counter(e.categories[0] for e in examples) == {name: 4 for name in CATEGORIES}
    for example in examples:
        assert texts[example.position] == example.text and labels[example.position] == example.categories[0]


def test_no_fold_shows_the_model_a_text_it_is_scored_on():
    texts, labels = study(90)
    for train, test in folds(len(texts), 5):
        examples = draw_examples([texts[i] for i in train], [labels[i] for i in train], CATEGORIES, 5, seed=3,
                                 train_positions=train)
        assert {e.position for e in examples} <= set(train.tolist())
        assert not {e.position for e in examples} & set(test.tolist())
        check_examples_apart(examples, [texts[i] for i in test], test)  # does not raise


def test_same_seed_same_examples_and_another_seed_another_draw():
    texts, labels = study(300)
    first = draw_examples(texts, labels, CATEGORIES, 3, seed=7)
    assert first == draw_examples(texts, labels, CATEGORIES, 3, seed=7)
    assert first == draw_examples(texts, labels, CATEGORIES, 3, seed=np.int64(7))
    others = [draw_examples(texts, labels, CATEGORIES, 3, seed=s) for s in (8, 9, 10)]
    assert all({e.position for e in other} != {e.position for e in first} for other in others)


def test_k_larger_than_a_category_has_gives_all_it_has_never_more():
    texts = ["a", "b", "c", "d", "e", "f", "g"]
    labels = ["Economy", "Economy", "Economy", "Economy", "Economy", "Health", None]
    examples = draw_examples(texts, labels, CATEGORIES, 3, seed=0)
    counts = Counter(e.categories[0] for e in examples)
    assert counts == {"Economy": 3, "Health": 1}
    assert draw_examples(texts, labels, CATEGORIES, 0, seed=0) == []
    assert len(draw_examples(texts, labels, CATEGORIES, 50, seed=0)) == 6  # the uncoded text never


def test_several_categories_per_text_count_for_each_and_no_text_twice():
    texts = ["jobs in hospitals", "hospital beds", "wages", "prices", "flu", "nurses' pay"]
    labels = [{"Economy", "Health"}, ["Health"], ("Economy",), ["Economy"], ["Health"], ["Economy", "Health"]]
    examples = draw_examples(texts, labels, ["Economy", "Health"], 2, seed=5)
    assert len({e.position for e in examples}) == len(examples)
    for name in ("Economy", "Health"):
        assert sum(name in e.categories for e in examples) >= 2
    assert all(set(e.categories) == set(labels[e.position]) for e in examples)


def test_training_texts_identical_to_scored_texts_are_left_out():
    texts = ["Wages fell.", "Wages  fell.\n", "Prices rose.", "Clinics closed."]
    labels = ["Economy", "Economy", "Economy", "Health"]
    examples = draw_examples(texts, labels, CATEGORIES, 5, seed=2, scored_texts=["Wages fell."])
    assert {e.text for e in examples} == {"Prices rose.", "Clinics closed."}
    twice = draw_examples(texts, labels, CATEGORIES, 5, seed=2)
    assert sum(e.text.startswith("Wages") for e in twice) == 1  # the same text is shown once


def test_an_example_among_the_scored_texts_raises_by_row_and_by_text():
    example = FewShotExample("Wages fell.", ("Economy",), 12)
    with pytest.raises(ExampleAmongScoredTexts, match="row 13"):
        check_examples_apart([example], ["Something else."], [12, 13])
    with pytest.raises(ExampleAmongScoredTexts, match="also among"):
        check_examples_apart([example], ["Other text.", "  Wages   fell. "], [1, 2])
    check_examples_apart([example], ["Other text."], [1, 2])
    assert issubclass(ExampleAmongScoredTexts, UserError)


@pytest.mark.parametrize("k", [-1, 1.5, "3", True, 1000])
def test_a_bad_number_of_examples_is_refused(k):
    texts, labels = study(9)
    with pytest.raises(UserError, match="examples per category"):
        draw_examples(texts, labels, CATEGORIES, k, seed=0)


def test_mismatched_lengths_are_refused():
    with pytest.raises(UserError, match="codings"):
        draw_examples(["a", "b"], ["Economy"], CATEGORIES, 1, seed=0)
    with pytest.raises(UserError, match="rows"):
        draw_examples(["a"], ["Economy"], CATEGORIES, 1, seed=0, train_positions=[1, 2])


def test_the_note_says_how_examples_were_drawn():
    assert "zero-shot" in examples_note(0, 1)
    note = examples_note(3, 42)
    assert "3 coded examples" in note and "seed 42" in note and "training texts" in note
