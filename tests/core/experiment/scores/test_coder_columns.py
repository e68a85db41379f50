"""Finding the columns that count the coders per category, and refusing columns that do not."""

from __future__ import annotations

import pandas as pd

from guiapp.core.experiment.scores.coder_columns import coder_count_columns, find_coder_columns, names_match


def davidson_like() -> pd.DataFrame:
    return pd.DataFrame({
        "Unnamed: 0": range(6),
        "count": [3, 3, 3, 6, 3, 3],
        "hate_speech": [0, 2, 0, 1, 3, 0],
        "offensive_language": [3, 1, 0, 5, 0, 1],
        "neither": [0, 0, 3, 0, 0, 2],
        "class": [1, 0, 2, 1, 0, 2],
        "tweet": ["a", "b", "c", "d", "e", "f"],
    })


def test_loose_names_match_the_categories() -> None:
    assert names_match("hate", "hate_speech") and names_match("Offensive", "offensive_language")
    assert names_match("neither", "Neither") and not names_match("hate", "whatever")
    found = find_coder_columns(davidson_like(), ["hate", "offensive", "neither"])
    assert found == ["hate_speech", "offensive_language", "neither"]


def test_numbered_categories_are_matched_by_the_coding() -> None:
    found = coder_count_columns(davidson_like(), ["0", "1", "2"], {"category_column": "class"})
    assert found == ["hate_speech", "offensive_language", "neither"]
    assert coder_count_columns(davidson_like(), ["0", "1", "2"], None) is None  # no coding to go by


def test_explicit_names_are_case_insensitive_and_checked() -> None:
    table = davidson_like()
    names = {"a": "HATE_SPEECH", "b": "Offensive_Language", "c": "neither"}
    assert find_coder_columns(table, ["a", "b", "c"], names) == ["hate_speech", "offensive_language", "neither"]
    assert find_coder_columns(table, ["a", "b", "c"], names | {"b": "tweet"}) is None  # text, not counts
    assert find_coder_columns(table, ["a", "b", "c"], {"a": "hate_speech", "b": "neither"}) is None  # one missing


def test_columns_that_are_not_counts_are_refused() -> None:
    table = davidson_like()
    table["hate_speech"] = [0.5, 2, 0, 1, 3, 0]  # not whole
    assert find_coder_columns(table, ["hate", "offensive", "neither"]) is None
    table = davidson_like()
    table["neither"] = [0, 0, -1, 0, 0, 2]  # negative
    assert find_coder_columns(table, ["hate", "offensive", "neither"]) is None
    table = davidson_like()
    table["neither"] = [0, 0, None, 0, 0, 2]  # a gap
    assert find_coder_columns(table, ["hate", "offensive", "neither"]) is None


def test_one_coder_per_text_is_not_enough() -> None:
    table = pd.DataFrame({"yes": [1, 0, 1, 0], "no": [0, 1, 0, 1]})
    assert find_coder_columns(table, ["yes", "no"]) is None
    table = pd.DataFrame({"yes": [2, 0, 1, 0], "no": [0, 2, 1, 2]})
    assert find_coder_columns(table, ["yes", "no"]) == ["yes", "no"]
