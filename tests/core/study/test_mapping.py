"""Column mapping: suggesting, checking and applying the roles of the columns."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pandas as pd
import pytest

from guiapp.core.errors import DataError
from guiapp.core.study.mapping import (
    CodedTexts,
    ColumnMapping,
    apply_mapping,
    category_label,
    category_labels,
    cell_text,
    check_mapping,
    split_label,
    split_labels,
    suggest_mapping,
)

SENTENCES = [
    "The committee discussed the new budget for schools in great detail.",
    "Farmers asked for more support after the long drought this summer.",
    "A bill to amend the tax code for small businesses and families.",
    "The minister promised faster trains between the two largest cities.",
    "Hospitals need more nurses, said the union at its annual meeting.",
    "Voters in the north were unhappy with the new rules on housing.",
]


def realistic_frame(n: int = 60) -> pd.DataFrame:
    """Like a CSV read by read_table: every cell a string, gaps are missing."""
    rng = np.random.default_rng(1)
    texts = [f"{SENTENCES[i % 6]} Case {i} of the sample, row {i * 7}." for i in range(n)]
    return pd.DataFrame(
        {
            "doc_id": [f"d{i:04d}" for i in range(n)],
            "date": [f"2021-03-{1 + i % 28:02d}" for i in range(n)],
            "party": rng.choice(["left", "right", "centre"], n).tolist(),
            "speech": texts,
            "topic": rng.choice(["economy", "health", "education", "transport"], n).tolist(),
            "set": ["train" if i % 5 else "test" for i in range(n)],
        },
        dtype="str",
    )


def congress_like_frame(n: int = 200) -> pd.DataFrame:
    """Columns as in USCongress.csv.gz (ID;cong;billnum;h_or_sen;major;text), all strings."""
    rng = np.random.default_rng(2)
    return pd.DataFrame(
        {
            "ID": [str(i + 1) for i in range(n)],
            "cong": ["107"] * n,
            "billnum": [str(4000 + i) for i in range(n)],
            "h_or_sen": rng.choice(["HR", "S"], n).tolist(),
            "major": rng.choice([str(c) for c in (1, 2, 3, 5, 18, 21)], n).tolist(),
            "text": [f"To suspend temporarily the duty on chemical number {i} and others." for i in range(n)],
        },
        dtype="str",
    )


# --------------------------------------------------------------------------- cell values


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, None),
        (np.nan, None),
        (pd.NA, None),
        (pd.NaT, None),
        ("", None),
        ("  \t", None),
        ("Pro ", "Pro "),
        ("pro", "pro"),
        ("1.0", "1"),
        ("-2.00", "-2"),
        ("01", "01"),
        ("1.5", "1.5"),
        (1, "1"),
        (1.0, "1"),
        (np.int64(3), "3"),
        (np.float64(4.0), "4"),
        (2.5, "2.5"),
        (True, "True"),
        (dt.datetime(2021, 3, 4), "2021-03-04"),
        (pd.Timestamp("2021-03-04"), "2021-03-04"),
        (pd.Timestamp("2021-03-04 10:30"), "2021-03-04 10:30:00"),
        (dt.date(2020, 1, 2), "2020-01-02"),
    ],
)
def test_category_label(value, expected):
    assert category_label(value) == expected


@pytest.mark.parametrize("dtype", ["str", "string", object])
def test_category_labels_vectorised_matches_scalar(dtype):
    values = ["a", " a", "1.0", "", "   ", None, "B", "2"]
    series = pd.Series(values, dtype=dtype)
    assert category_labels(series).tolist() == [category_label(v) for v in values]
    assert category_labels(series).tolist() == ["a", " a", "1", None, None, None, "B", "2"]


def test_category_labels_workbook_values():
    series = pd.Series([1, 1.0, 2.0, None, np.nan, "3", dt.datetime(2020, 5, 6)], dtype=object)
    assert category_labels(series).tolist() == ["1", "1", "2", None, None, "3", "2020-05-06"]


def test_cell_text_keeps_strings_exactly():
    assert cell_text("  spaced  ") == "  spaced  "
    assert cell_text(12.0) == "12"
    assert cell_text(None) is None


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("train", "train"),
        (" Training ", "train"),
        ("TRAIN_SET", "train"),
        ("dev", "train"),
        ("Validation", "train"),
        ("valid", "train"),
        ("test", "test"),
        ("Testing", "test"),
        ("hold-out", "test"),
        ("holdout", "test"),
        ("", None),
        (None, None),
        ("maybe", None),
        (1, None),
    ],
)
def test_split_label(value, expected):
    assert split_label(value) == expected


@pytest.mark.parametrize("dtype", ["str", object])
def test_split_labels_marks_unknown_values(dtype):
    series = pd.Series(["train", "TEST", None, "", "later", "dev"], dtype=dtype)
    labels, unknown = split_labels(series)
    assert labels.tolist() == ["train", "test", None, None, None, "train"]
    assert unknown.tolist() == [False, False, False, False, True, False]


# --------------------------------------------------------------------------- suggesting


def test_suggest_realistic_frame():
    mapping = suggest_mapping(realistic_frame())
    assert mapping.text_columns == ["speech"]
    assert mapping.category_column == "topic"
    assert mapping.id_column == "doc_id"
    assert mapping.split_column == "set"
    assert mapping.metadata_columns == []


def test_suggest_congress_like_frame():
    mapping = suggest_mapping(congress_like_frame())
    assert mapping.text_columns == ["text"]
    assert mapping.category_column == "major"
    assert mapping.id_column == "ID"
    assert mapping.split_column is None


def test_suggest_workbook_values():
    """Workbooks give native values: ints for codes, floats for IDs, None for gaps."""
    n = 40
    frame = pd.DataFrame(
        {
            "Nr": [float(i) for i in range(n)],
            "Kommentar": [f"{SENTENCES[i % 6]} ({i})" for i in range(n)],
            "Code": [i % 3 + 1 if i % 10 else None for i in range(n)],
        }
    )
    mapping = suggest_mapping(frame)
    assert mapping.text_columns == ["Kommentar"]
    assert mapping.category_column == "Code"
    assert mapping.id_column == "Nr"


def test_suggest_prefers_category_names():
    frame = congress_like_frame()
    frame = frame.rename(columns={"major": "stance"})[["h_or_sen", "stance", "text", "ID"]]
    assert suggest_mapping(frame).category_column == "stance"


def test_suggest_without_names_takes_repeating_column():
    frame = congress_like_frame().rename(columns={"major": "v5", "h_or_sen": "v4", "ID": "v1"})
    frame = frame[["v1", "v5", "text"]]
    mapping = suggest_mapping(frame)
    assert mapping.category_column == "v5"
    assert mapping.id_column == "v1"  # unique integers


@pytest.mark.parametrize(
    "frame",
    [
        pd.DataFrame(),
        pd.DataFrame({"a": [], "b": []}),
        pd.DataFrame({"only": ["x"]}),
        pd.DataFrame({"only": [None, None]}),
        pd.DataFrame({"n": [1.5, 2.5, np.nan]}),
        pd.DataFrame({"when": pd.to_datetime(["2020-01-01", "2020-02-01"]), "b": [True, False]}),
        pd.DataFrame({"weird": [[1, 2], {"a": 1}]}),
        pd.DataFrame({"mixed": [1, "a", None, dt.date(2020, 1, 1), 2.5]}),
    ],
)
def test_suggest_never_raises(frame):
    mapping = suggest_mapping(frame)
    assert isinstance(mapping, ColumnMapping)
    assert mapping.category_column is None or mapping.category_column in frame.columns


def test_suggest_empty_frames_give_empty_mapping():
    assert suggest_mapping(pd.DataFrame()) == ColumnMapping()
    assert suggest_mapping(pd.DataFrame({"text": pd.Series([], dtype="str")})) == ColumnMapping()


def test_suggest_single_text_column():
    frame = pd.DataFrame({"answers": SENTENCES}, dtype="str")
    mapping = suggest_mapping(frame)
    assert mapping.text_columns == ["answers"]
    assert mapping.category_column is None and mapping.id_column is None


def test_suggest_skips_measurement_columns():
    frame = pd.DataFrame(
        {"text": [f"{SENTENCES[i % 6]} {i}" for i in range(30)],
         "score": [f"{0.1 * i:.2f}" for i in range(30)]},
        dtype="str",
    )
    mapping = suggest_mapping(frame)
    assert mapping.text_columns == ["text"]
    assert mapping.category_column is None


# --------------------------------------------------------------------------- checking


def good_mapping() -> ColumnMapping:
    return ColumnMapping(
        text_columns=["speech"], category_column="topic", id_column="doc_id", split_column="set"
    )


def test_check_accepts_good_mapping():
    check_mapping(realistic_frame(), good_mapping())


def test_check_no_text_column():
    with pytest.raises(DataError) as info:
        check_mapping(realistic_frame(), ColumnMapping(category_column="topic"))
    assert info.value.message == "No text column is chosen."
    assert "texts" in info.value.hint


def test_check_unknown_column():
    mapping = good_mapping()
    mapping.category_column = "label"
    with pytest.raises(DataError) as info:
        check_mapping(realistic_frame(), mapping)
    assert info.value.message == "The column 'label' is not in the table."
    assert "'topic'" in info.value.hint


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"category_column": "speech"}, "The column 'speech' is chosen both as text and as category."),
        ({"id_column": "topic"}, "The column 'topic' is chosen both as category and as ID."),
        ({"metadata_columns": ["set"]}, "The column 'set' is chosen both as split and as extra information."),
        ({"text_columns": ["speech", "speech"]}, "The column 'speech' is chosen twice as text."),
    ],
)
def test_check_same_column_in_two_roles(change, message):
    mapping = good_mapping()
    for key, value in change.items():
        setattr(mapping, key, value)
    with pytest.raises(DataError) as info:
        check_mapping(realistic_frame(), mapping)
    assert info.value.message == message
    assert info.value.hint


def test_check_empty_category_column():
    frame = realistic_frame()
    frame["label"] = pd.Series([None] * len(frame), dtype="str")
    frame.loc[3, "label"] = "   "
    mapping = good_mapping()
    mapping.category_column = "label"
    with pytest.raises(DataError) as info:
        check_mapping(frame, mapping)
    assert info.value.message.startswith("The column 'label' has no coded values")
    assert "choose the column that holds your categories, or code some texts first" in info.value.hint.lower()


def test_check_no_category_column_is_allowed():
    check_mapping(realistic_frame(), ColumnMapping(text_columns=["speech"]))


def test_check_split_values_lists_up_to_five():
    frame = realistic_frame()
    bad = ["a", "b", "c", "d", "e", "f"]
    for i, value in enumerate(bad):
        frame.loc[i, "set"] = value
    frame.loc[10, "set"] = "a"
    with pytest.raises(DataError) as info:
        check_mapping(frame, good_mapping())
    message = info.value.message
    assert "'a' (2 rows)" in message
    assert sum(f"'{v}'" in message for v in bad) == 5
    assert "and 1 other values" in message
    assert "train or test" in info.value.hint


def test_check_empty_split_cells_are_fine():
    frame = realistic_frame()
    frame.loc[0, "set"] = None
    check_mapping(frame, good_mapping())


# --------------------------------------------------------------------------- applying


def test_apply_mapping_columns_and_positions():
    frame = realistic_frame(10)
    frame.loc[2, "topic"] = "  "
    frame.loc[4, "topic"] = None
    frame.loc[5, "speech"] = None
    frame.loc[6, "set"] = "Dev"
    mapping = good_mapping()
    mapping.metadata_columns = ["party"]
    coded = apply_mapping(frame, mapping)
    assert isinstance(coded, CodedTexts) and coded.mapping is mapping
    out = coded.frame
    assert list(out.columns) == ["text", "category", "id", "split", "party"]
    assert isinstance(out.index, pd.RangeIndex) and len(out) == 10
    assert out.loc[5, "text"] == ""
    assert out.loc[0, "text"] == frame.loc[0, "speech"]
    assert out.loc[2, "category"] is None and out.loc[4, "category"] is None
    assert out["category"].isna().sum() == 2
    assert out.loc[0, "id"] == "d0000"
    assert out["split"].tolist()[:7] == ["test", "train", "train", "train", "train", "test", "train"]
    assert out["party"].tolist() == frame["party"].tolist()


def test_apply_mapping_joins_text_columns_skipping_empty_parts():
    frame = pd.DataFrame(
        {"title": ["Budget", None, "", "Rail"], "body": ["More money.", "Only body.", None, ""]},
        dtype="str",
    )
    coded = apply_mapping(frame, ColumnMapping(text_columns=["title", "body"], text_separator=" | "))
    assert coded.frame["text"].tolist() == ["Budget | More money.", "Only body.", "", "Rail"]
    assert coded.frame["category"].tolist() == [None] * 4
    assert coded.frame["split"].tolist() == [None] * 4


def test_apply_mapping_workbook_values():
    frame = pd.DataFrame(
        {"id": [1.0, 2.0, 3.0], "text": ["first", 42, None], "code": [1, 2.0, None]}
    )
    out = apply_mapping(frame, ColumnMapping(["text"], "code", "id")).frame
    assert out["text"].tolist() == ["first", "42", ""]
    assert out["category"].tolist() == ["1", "2", None]
    assert out["id"].tolist() == ["1", "2", "3"]


def test_apply_mapping_rejects_unknown_column():
    with pytest.raises(DataError):
        apply_mapping(realistic_frame(), ColumnMapping(["nope"]))


def test_mapping_round_trip():
    mapping = good_mapping()
    mapping.metadata_columns = ["party"]
    assert ColumnMapping.from_dict(mapping.to_dict()) == mapping
