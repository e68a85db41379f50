"""A zero-shot model knows a category by its description or its name: numbers and codes as names
mean nothing to it, and the notes say that descriptions are needed."""

from __future__ import annotations

from guiapp.core.models.few_shot_options import category_descriptions
from guiapp.core.models.zero_shot.category_names import is_code


def test_numbers_and_short_codes_count_as_codes_and_words_do_not() -> None:
    assert all(is_code(name) for name in ["1", "12", "A", "C-3", "2.1", " 7 "])
    assert not any(is_code(name) for name in ["sports", "EU", "Health care", "agriculture 2"])


def test_numeric_category_names_are_said_to_carry_no_meaning_and_to_need_descriptions() -> None:
    _, notes = category_descriptions(["1", "12", "20"], None)
    text = " ".join(notes)
    assert "carry no meaning to a zero-shot model" in text
    assert "“1”, “12” and “20”" in text and "Describe each in a sentence" in text
    assert "Every category was described by its name" not in text


def test_only_the_undescribed_codes_are_named_and_word_names_keep_their_note() -> None:
    descriptions, notes = category_descriptions(["1", "12", "sports"], {"1": "Macroeconomics and taxes."})
    assert descriptions == {"1": "Macroeconomics and taxes."}
    assert notes[0].startswith("The category “12” has no description, and its name is a number or code")
    assert notes[1] == "“sports” had no description and was described by its name."
