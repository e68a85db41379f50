"""A second file of texts to code: made to fit the study, and its codings added to the study's table."""

from __future__ import annotations

import pandas as pd
import pytest

from guiapp.core.coding.codings import CodingLog, with_codings
from guiapp.core.coding.second_file import texts_to_code, with_second_file_codings
from guiapp.core.errors import DataError
from guiapp.core.study.mapping import ColumnMapping
from guiapp.core.tables.rows import RowOrigin, set_row_origin, spreadsheet_rows

MAPPING = ColumnMapping(text_columns=["speech"], category_column="topic")


def table() -> pd.DataFrame:
    return pd.DataFrame({"speech": ["taxes rise", "schools open", "no category yet"],
                         "party": ["A", "B", "A"], "topic": ["economy", "education", None]})


def test_a_file_with_other_column_names_has_its_text_column_renamed_and_keeps_its_row_numbers() -> None:
    other = set_row_origin(pd.DataFrame({"id": [7, 8], "Tweet text": ["the budget is a disgrace today",
                                                                       "our teachers deserve better pay now"]}),
                           RowOrigin(first_row=3))
    fitted = texts_to_code(other, MAPPING, "tweets.xlsx")
    assert list(fitted.columns) == ["id", "speech"]
    assert list(spreadsheet_rows(fitted)) == [3, 4]
    assert list(other.columns) == ["id", "Tweet text"]  # the file as read is not changed
    same = texts_to_code(table(), MAPPING)
    assert list(same.columns) == ["speech", "party", "topic"]


def test_files_that_cannot_fit_are_refused_in_words() -> None:
    with pytest.raises(DataError, match="no rows"):
        texts_to_code(pd.DataFrame({"speech": []}), MAPPING, "empty.csv")
    two = ColumnMapping(text_columns=["title", "body"], category_column="topic")
    with pytest.raises(DataError, match="lacks the columns “title”, “body”"):
        texts_to_code(pd.DataFrame({"text": ["a long text about the economy and taxes"]}), two, "new.csv")
    with pytest.raises(DataError, match="no column marked"):
        texts_to_code(table(), ColumnMapping())
    with pytest.raises(DataError, match="holds no text"):
        texts_to_code(pd.DataFrame({"speech": ["", "  "]}), MAPPING)


def test_coded_texts_of_the_second_file_join_the_study_after_the_table_rows() -> None:
    frame = table()
    other = texts_to_code(pd.DataFrame({"speech": ["bridges and roads", "hospitals wait", "skipped"],
                                        "party": ["B", "A", "B"], "outlet": ["x", "y", "z"]}), MAPPING)
    log = CodingLog()
    log.record(2, "economy", coder="me", chosen_by="random", probability=0.5)
    log.record(1, "health", coder="me", chosen_by="random", probability=0.5, source="second file")
    log.record(0, "economy", coder="me", chosen_by="random", probability=0.5, source="second file")
    log.record(2, None, coder="me", chosen_by="random", probability=0.5, source="second file")
    study = with_second_file_codings(with_codings(frame, MAPPING, log), MAPPING, log, other)
    assert list(study.columns) == ["speech", "party", "topic"]
    assert study["speech"].tolist() == ["taxes rise", "schools open", "no category yet", "hospitals wait",
                                        "bridges and roads"]
    assert study["topic"].tolist() == ["economy", "education", "economy", "health", "economy"]
    assert study["party"].tolist()[3:] == ["A", "B"] and study.index.is_unique
    assert pd.isna(frame.at[2, "topic"]) and len(other) == 3  # neither file is changed
    assert with_second_file_codings(frame, MAPPING, CodingLog(), other) is frame
    gone = CodingLog()
    gone.record(9, "health", coder="me", chosen_by="random", source="second file")
    with pytest.raises(DataError, match="not in the second file"):
        with_second_file_codings(frame, MAPPING, gone, other)


def test_a_second_file_is_read_without_being_changed_and_keeps_its_name(tmp_path) -> None:
    import hashlib

    from guiapp.core.coding.second_file import file_name, read_texts_to_code

    path = tmp_path / "more speeches.csv"
    path.write_text("Text,party\nthe budget is a disgrace today,A\nour teachers deserve better pay now,B\n",
                    encoding="utf-8")
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    fitted = read_texts_to_code(path, MAPPING)
    assert list(fitted.columns) == ["speech", "party"] and file_name(fitted) == "more speeches.csv"
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before
    restored = pd.read_parquet(_parquet(fitted, tmp_path))
    assert file_name(restored) == "more speeches.csv" and file_name(restored.iloc[0:0]) == "more speeches.csv"
    assert file_name(pd.DataFrame()) == "the second file"


def _parquet(frame: pd.DataFrame, folder) -> str:
    path = folder / "texts.parquet"
    frame.to_parquet(path)
    return str(path)
