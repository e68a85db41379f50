"""Excel's row limit: a workbook with more rows than a sheet holds is refused when opened, with advice
to save it as CSV or Parquet; an export that would put more rows into a sheet than Excel holds says so
in words and writes nothing. A small limit stands in for Excel's 1,048,576 rows."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
import xlsxwriter

from guiapp.core.errors import DataError, UserError
from guiapp.core.export import excel
from guiapp.core.export.excel import write_excel
from guiapp.core.tables import workbooks
from guiapp.core.tables.reader import read_table
from tests.core.tables.test_data_reading import write_ods

LIMIT = 10


def _workbook(path: Path, data_rows: int) -> Path:
    book = xlsxwriter.Workbook(str(path))
    sheet = book.add_worksheet("Speeches")
    sheet.write_row(0, 0, ["text", "party"])
    for i in range(data_rows):
        sheet.write_row(i + 1, 0, [f"speech {i} on taxes", "Rep" if i % 2 else "Dem"])
    book.close()
    return path


@pytest.fixture
def small_limit(monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr(workbooks, "EXCEL_ROW_LIMIT", LIMIT)
    monkeypatch.setattr(excel, "EXCEL_MAX_ROWS", LIMIT)
    return LIMIT


def test_a_workbook_at_the_limit_opens(tmp_path: Path, small_limit: int) -> None:
    loaded = read_table(_workbook(tmp_path / "full.xlsx", small_limit - 1))
    assert len(loaded.frame) == small_limit - 1


def test_a_workbook_over_the_limit_is_refused_with_advice(tmp_path: Path, small_limit: int) -> None:
    with pytest.raises(DataError) as caught:
        read_table(_workbook(tmp_path / "too long.xlsx", small_limit + 5))
    error = caught.value
    text = str(error)
    assert "too long.xlsx" in text and "Speeches" in text
    assert f"{small_limit + 6:,} rows" in text
    assert "CSV" in error.hint and "Parquet" in error.hint


def test_an_opendocument_sheet_over_the_limit_is_refused(tmp_path: Path, small_limit: int) -> None:
    rows = [["text", "party"]] + [[f"speech {i}", "Dem"] for i in range(small_limit + 2)]
    with pytest.raises(DataError, match="more than the"):
        read_table(write_ods(tmp_path / "long.ods", rows))


def test_the_real_limit_is_excels() -> None:
    assert workbooks.EXCEL_ROW_LIMIT == 1_048_576 == excel.EXCEL_MAX_ROWS


def test_an_export_over_the_limit_says_so_and_writes_nothing(tmp_path: Path, small_limit: int) -> None:
    table = pd.DataFrame({"text": [f"speech {i}" for i in range(small_limit)], "party": "Dem"})
    target = tmp_path / "predictions.xlsx"
    with pytest.raises(UserError) as caught:
        write_excel(target, table=table)
    assert "Excel cannot hold that many rows" in str(caught.value)
    assert "CSV or Parquet" in caught.value.hint
    assert not target.exists()
    write_excel(target, table=table.iloc[: small_limit - 1])
    assert len(pd.read_excel(target, engine="calamine")) == small_limit - 1
