"""Every per-text output names the row a researcher sees in Excel or LibreOffice: title rows and
the header counted, the sheet where the workbook has several, the ID where one is mapped."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import xlsxwriter

from guiapp.core.explain.document_names import document_name, name_explained, names_of_test_documents
from guiapp.core.export.prediction_files import with_row_numbers, write_predictions
from guiapp.core.health.report import compute_health
from guiapp.core.health.text_report import format_health_text
from guiapp.core.predict.new_texts import NewTextPredictions, uncoded_rows
from guiapp.core.predict.stream import Predictions
from guiapp.core.study.mapping import ColumnMapping
from guiapp.core.study.spec import DataSpec, ExperimentSpec
from guiapp.core.study.study_data import load_study_data
from guiapp.core.tables.reader import read_table
from guiapp.core.tables.rows import RowOrigin, positions_of_rows, row_origin, spreadsheet_rows
from tests.core.tables.test_data_reading import write_ods

TITLE = "Presidential debates 2016, coded by party"
HEADER = ["text", "party", "speaker", "debate"]
PARTIES = ["Rep", "Dem"]


def _records(n: int = 24) -> list[list]:
    """Coded utterances; every sixth row is not coded yet."""
    rows = []
    for i in range(n):
        party = "" if i % 6 == 5 else PARTIES[i % 2]
        rows.append([f"utterance {i} on taxes and jobs and the economy", party, f"speaker {i % 4}", f"D{i % 3}"])
    return rows


def write_xlsx(path: Path, *, extra_sheet: bool = False, id_column: bool = False) -> Path:
    book = xlsxwriter.Workbook(str(path))
    sheet = book.add_worksheet("Utterances")
    sheet.write(0, 0, TITLE)  # row 1: a title; row 2: the header; data from row 3
    header = (["id"] if id_column else []) + HEADER
    sheet.write_row(1, 0, header)
    for i, record in enumerate(_records()):
        values = ([f"U-{i:03d}"] if id_column else []) + record
        sheet.write_row(2 + i, 0, [v for v in values])
    if extra_sheet:
        book.add_worksheet("Read me").write(0, 0, "Coded in 2024 by two coders.")
    book.close()
    return path


def write_csv(path: Path) -> Path:
    # a title cell above the table, as Excel saves it
    lines = [f'"{TITLE}",,,', ",".join(HEADER)] + [",".join(f'"{v}"' for v in record) for record in _records()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def write_title_ods(path: Path) -> Path:
    return write_ods(path, [[TITLE], HEADER, *[[v if v != "" else "" for v in r] for r in _records()]])


@pytest.fixture(params=["xlsx", "ods", "csv"])
def title_row_table(request, tmp_path) -> Path:
    writer = {"xlsx": write_xlsx, "ods": write_title_ods, "csv": write_csv}[request.param]
    return writer(tmp_path / f"debates.{request.param}")


def _mapping(**extra) -> ColumnMapping:
    return ColumnMapping(text_columns=["text"], category_column="party", **extra)


def test_a_title_row_moves_the_first_row_of_data_to_row_3(title_row_table):
    frame = read_table(title_row_table).frame
    assert row_origin(frame).first_row == 3
    rows = spreadsheet_rows(frame)
    assert rows[0] == 3 and rows[-1] == 3 + len(frame) - 1
    assert frame.iloc[0]["text"].startswith("utterance 0 ")  # spreadsheet row 3 holds utterance 0
    assert positions_of_rows(frame, [3, 10]).tolist() == [0, 7]


def test_without_title_rows_data_starts_in_row_2(tmp_path):
    path = tmp_path / "plain.csv"
    path.write_text("text,party\nhello there,Rep\nbye now,Dem\n", encoding="utf-8")
    assert spreadsheet_rows(read_table(path).frame).tolist() == [2, 3]


def test_the_sheet_is_named_only_when_the_workbook_has_several(tmp_path):
    one = read_table(write_xlsx(tmp_path / "one.xlsx")).frame
    several = read_table(write_xlsx(tmp_path / "two.xlsx", extra_sheet=True)).frame
    assert row_origin(one) == RowOrigin(3, None)
    assert row_origin(several) == RowOrigin(3, "Utterances")
    assert row_origin(several).column_name() == "Row in sheet “Utterances”"


def test_the_study_and_its_test_texts_carry_the_rows_excel_shows(title_row_table):
    spec = ExperimentSpec(data=DataSpec(source=str(title_row_table), mapping=_mapping()))
    data = load_study_data(spec)
    frame = read_table(title_row_table).frame
    for text, row in zip(data.texts, data.rows, strict=True):
        assert frame.iloc[row - 3]["text"] == text  # row r of the sheet is position r - 3 here
    assert 3 in data.rows and 2 not in data.rows
    uncoded = {3 + i for i in range(24) if i % 6 == 5}
    assert not uncoded & set(data.rows)


def test_the_health_report_names_spreadsheet_rows(tmp_path):
    path = write_xlsx(tmp_path / "debates.xlsx")
    report = compute_health(read_table(path).frame, _mapping())
    assert report.first_row == 3
    text = format_health_text(report)
    uncoded_rows_text = next(line for line in text.splitlines() if "Spreadsheet rows" in line)
    assert uncoded_rows_text.strip().startswith("Spreadsheet rows: 8, 14")  # utterances 5 and 11


def test_uncoded_rows_keep_their_own_rows_and_the_saved_predictions_name_them(tmp_path):
    frame = read_table(write_xlsx(tmp_path / "debates.xlsx")).frame
    uncoded = uncoded_rows(frame, _mapping())
    assert spreadsheet_rows(uncoded).tolist() == [8, 14, 20, 26]
    n = len(uncoded)
    found = NewTextPredictions(["SVM"], [Predictions(["Dem", "Rep"], np.zeros(n, dtype=np.int64),
                                                     np.full((n, 2), 0.5, dtype=np.float32), 0.1)])
    for suffix in (".csv", ".xlsx"):
        out = write_predictions(tmp_path / f"answers{suffix}", uncoded, found)
        saved = pd.read_csv(out) if suffix == ".csv" else pd.read_excel(out, sheet_name=0, engine="calamine")
        assert saved.columns[0] == "Row in your spreadsheet"
        assert saved.iloc[:, 0].tolist() == [8, 14, 20, 26]
        assert saved["text"].tolist() == uncoded["text"].tolist()


def test_a_row_column_never_replaces_a_column_of_the_same_name():
    table = pd.DataFrame({"Row in your spreadsheet": ["a"], "text": ["x"]})
    numbered = with_row_numbers(table)
    assert list(numbered.columns) == ["Row in your spreadsheet (TextLab)", "Row in your spreadsheet", "text"]
    assert list(table.columns) == ["Row in your spreadsheet", "text"]  # the user's table is not changed


def test_a_snapshot_keeps_its_rows(tmp_path):
    frame = read_table(write_xlsx(tmp_path / "debates.xlsx", extra_sheet=True)).frame
    buffer = io.BytesIO()
    frame.to_parquet(buffer, engine="pyarrow")
    (tmp_path / "snapshot.parquet").write_bytes(buffer.getvalue())
    assert row_origin(pd.read_parquet(io.BytesIO(buffer.getvalue()))) == RowOrigin(3, "Utterances")
    assert row_origin(read_table(tmp_path / "snapshot.parquet").frame) == RowOrigin(3, "Utterances")


def test_explained_documents_are_named_by_row_and_id():
    assert document_name(68) == "Row 68"
    assert document_name(68, "U-0412", "sheet “Utterances”") == "Row 68 of sheet “Utterances”, ID U-0412"
    assert document_name(5, 1234.0) == "Row 5, ID 1234"
    assert document_name(5, float("nan")) == "Row 5"
    named = name_explained([("a", 1, None), ("c", 3, None)], ["a", " ", "c"], ["Row 3", "Row 4", "Row 5"])
    assert [document[3] for document in named] == ["Row 3", "Row 5"]  # the empty text was not explained


def test_a_study_run_names_its_test_documents_by_their_rows(tmp_path):
    from guiapp.core.experiment.results.experiment_result import ExperimentResult

    path = write_xlsx(tmp_path / "debates.xlsx", extra_sheet=True, id_column=True)
    spec = ExperimentSpec(data=DataSpec(source=str(path), mapping=_mapping(id_column="id")))
    data = load_study_data(spec)
    assert data.test_rows_in == "sheet “Utterances”"
    test = data.split.test
    result = ExperimentResult(spec=spec.to_dict(), categories=data.categories, split={},
                              test_rows=[data.rows[i] for i in test], test_ids=[data.ids[i] for i in test],
                              test_texts=[data.texts[i] for i in test], test_true=[int(data.y[i]) for i in test],
                              test_rows_in=data.test_rows_in)
    names = names_of_test_documents(result)
    first = result.test_rows[0]
    assert names[0] == f"Row {first} of sheet “Utterances”, ID U-{first - 3:03d}"
    assert ExperimentResult.from_json(result.to_json()).test_rows_in == "sheet “Utterances”"
