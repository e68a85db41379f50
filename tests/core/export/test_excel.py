"""The Excel export, read back with openpyxl: sheets, headers, values, formats, chart, limits."""

from __future__ import annotations

import datetime as dt
import zipfile

import numpy as np
import openpyxl
import pandas as pd
import pytest
from python_calamine import CalamineWorkbook

from guiapp.core.errors import UserError
from guiapp.core.events import Cancelled, Progress
from guiapp.core.export.excel import write_excel
from guiapp.core.export.predictions import ModelPredictions
from tests.core.export.export_samples import CATEGORIES, new_texts, two_models
from tests.ui.sample_results import sample_result


@pytest.fixture(scope="module")
def result():
    return sample_result()


def _rows(sheet) -> list[tuple]:
    return list(sheet.iter_rows(values_only=True))


def test_workbook_has_all_sheets_with_values_and_formats(tmp_path, result):
    table = new_texts(40)
    before = table.copy()
    models = two_models(40)
    events = []
    path = write_excel(tmp_path / "out.xlsx", table=table, predictions=models, result=result, on_event=events.append)
    pd.testing.assert_frame_equal(table, before)  # the user's table is untouched
    book = openpyxl.load_workbook(path)
    assert book.sheetnames == ["Predictions", "Model comparison", "Is the best really better", "Confusion matrices",
                               "Test documents", "Settings"]

    sheet = book["Predictions"]
    rows = _rows(sheet)
    assert rows[0][:6] == ("ID", "Text", "Score", "Date", "Checked", "Mixed")
    assert rows[0][6:] == (
        "SVM · Basic BOW: predicted category",
        *(f"SVM · Basic BOW: probability {c}" for c in CATEGORIES),
        "SVM · Basic BOW: top words",
        "Logistic regression · Sentence embeddings: predicted category",
        *(f"Logistic regression · Sentence embeddings: probability {c}" for c in CATEGORIES),
    )
    assert len(rows) == 41
    assert rows[1][:6] == (100, "Text 0 über Steuern", None, dt.datetime(2021, 1, 1), table["Checked"].iloc[0], 1)
    assert rows[2][5] == "a" and rows[3][5] is None and rows[4][5] == 2.5
    assert rows[2][2] == pytest.approx(table["Score"].iloc[1])
    assert rows[1][6] == CATEGORIES[models[0].predicted[0]]
    assert rows[1][7:10] == pytest.approx(models[0].probabilities[0].tolist(), abs=1e-6)
    assert rows[1][10] == "tax (+0.01), cut (+0.22)"
    assert sheet.freeze_panes == "A2"
    assert sheet["A1"].font.b and sheet["H1"].font.b
    assert sheet["H2"].number_format == "0.0%" and sheet["M2"].number_format == "0.0%"
    assert sheet["D2"].number_format == "yyyy-mm-dd"
    assert 8 <= sheet.column_dimensions["B"].width <= 50
    scales = [rule.colorScale for ranges in sheet.conditional_formatting for rule in ranges.rules]
    assert len(scales) == 2 and all(scale is not None for scale in scales)

    comparison = book["Model comparison"]
    rows = _rows(comparison)
    assert rows[0][:7] == (
        "Model", "Representation", "Classifier", "Macro-F1 (test texts)",
        "95 % interval: low", "95 % interval: high", "Accuracy (test texts)",
    )
    best = result.models[0]
    assert rows[1][0] == best.name
    assert rows[1][3] == pytest.approx(best.test.macro_f1)
    assert rows[1][4:6] == pytest.approx(best.test.macro_f1_ci)
    assert rows[1][6] == pytest.approx(best.test.accuracy)
    assert rows[1][8] == pytest.approx(best.seconds["total"])
    assert rows[5][0] == result.models[4].name and rows[5][9].startswith("failed: XGBoost ran out")
    assert comparison["D2"].number_format == "0.000" and comparison["A1"].font.b
    assert comparison.freeze_panes == "B2"
    per_category = [row for row in rows if row[0] == best.name and row[1] in CATEGORIES]
    assert [row[1] for row in per_category] == CATEGORIES
    economy = best.test.per_category[0]
    assert per_category[0][2:6] == pytest.approx((economy.precision, economy.recall, economy.f1, economy.support))
    assert len(comparison._charts) == 1

    confusion = _rows(book["Confusion matrices"])
    assert confusion[0][0] == best.name
    assert confusion[1][1:] == (*CATEGORIES, "Total")
    for position, line in enumerate(best.test.confusion):
        assert confusion[2 + position] == (CATEGORIES[position], *line, sum(line))
    assert sum(1 for row in confusion if row[0] in {m.name for m in result.finished_models()}) == 4

    lines = [row for row in _rows(book["Settings"]) if row[0]]
    settings = {label: value for label, value in reversed(lines)}  # the first one of each label
    assert settings["Data file"] == "/home/user/manifestos.xlsx"
    assert settings["Cross-validation folds"] == 5 and settings["Oversampling"] == "off"
    assert settings["Chosen setting"].startswith("kernel = ")
    assert book["Settings"].freeze_panes == "A2"
    assert any(isinstance(e, Progress) and e.fraction == 1.0 for e in events)


def test_chart_has_one_bar_per_finished_model_with_error_bars(tmp_path, result):
    path = write_excel(tmp_path / "results.xlsx", result=result)
    with zipfile.ZipFile(path) as archive:
        chart = archive.read("xl/charts/chart1.xml").decode()
    assert "<c:barChart>" in chart and "<c:errBars>" in chart and "<c:errValType val=\"cust\"/>" in chart
    assert "'Model comparison'!$D$2:$D$5" in chart
    assert openpyxl.load_workbook(path).sheetnames == ["Model comparison", "Is the best really better", "Confusion matrices",
                                                       "Test documents", "Settings"]


def test_predictions_without_result(tmp_path):
    path = write_excel(tmp_path / "p.xlsx", table=new_texts(5), predictions=two_models(5, top_words=False))
    book = openpyxl.load_workbook(path)
    assert book.sheetnames == ["Predictions"]
    assert book["Predictions"].max_column == 6 + 4 + 4


def test_large_table_in_constant_memory_gives_the_same_cells(tmp_path):
    rows = 60_000
    rng = np.random.default_rng(3)
    table = pd.DataFrame({"id": np.arange(rows), "text": [f"t{i}" for i in range(rows)], "x": rng.random(rows)})
    probabilities = rng.dirichlet(np.ones(3), rows).astype(np.float32)
    models = [ModelPredictions("M", CATEGORIES, probabilities.argmax(axis=1), probabilities)]
    large = write_excel(tmp_path / "large.xlsx", table=table, predictions=models)  # constant memory by size
    small = write_excel(tmp_path / "small.xlsx", table=table, predictions=models, constant_memory=False)
    read = [CalamineWorkbook.from_path(p).get_sheet_by_name("Predictions").to_python() for p in (large, small)]
    assert read[0] == read[1]
    assert len(read[0]) == rows + 1 and read[0][-1][:2] == [rows - 1, f"t{rows - 1}"]
    with zipfile.ZipFile(large) as archive:  # written row by row, strings inline: constant memory
        assert 't="inlineStr"' in archive.read("xl/worksheets/sheet1.xml")[:5000].decode()
    book = openpyxl.load_workbook(large, read_only=True)
    assert book["Predictions"]["E2"].number_format == "0.0%"


def test_too_many_rows_for_excel(tmp_path):
    rows = 1_048_576  # plus the header row: one too many
    table = pd.DataFrame({"id": np.zeros(rows, dtype=np.int32)})
    model = ModelPredictions("M", ["a", "b"], np.zeros(rows, dtype=np.int8), np.zeros((rows, 2), np.float32))
    with pytest.raises(UserError, match="Excel cannot hold that many rows") as caught:
        write_excel(tmp_path / "big.xlsx", table=table, predictions=[model])
    assert "CSV or Parquet" in caught.value.hint
    assert list(tmp_path.iterdir()) == []


def test_never_overwrites_unless_asked(tmp_path, result):
    target = tmp_path / "out.xlsx"
    target.write_bytes(b"keep me")
    with pytest.raises(UserError, match="already exists"):
        write_excel(target, result=result)
    assert target.read_bytes() == b"keep me"
    write_excel(target, result=result, overwrite=True)
    assert openpyxl.load_workbook(target).sheetnames[0] == "Model comparison"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.xlsx"]


def test_never_writes_over_the_studys_data_file(tmp_path):
    data = tmp_path / "coded.xlsx"
    data.write_bytes(b"the user's data")
    result = sample_result()
    result.spec["data"]["source"] = str(data)
    with pytest.raises(UserError, match="never changes it"):
        write_excel(data, result=result, overwrite=True)
    assert data.read_bytes() == b"the user's data"


@pytest.mark.parametrize("constant_memory", [False, True])
def test_cancel_leaves_no_file(tmp_path, result, constant_memory):
    def cancel(event):
        if isinstance(event, Progress) and event.done:
            raise Cancelled

    rows = 12_000
    with pytest.raises(Cancelled):
        write_excel(
            tmp_path / "out.xlsx", table=new_texts(rows), predictions=two_models(rows), result=result,
            on_event=cancel, constant_memory=constant_memory,
        )
    assert list(tmp_path.iterdir()) == []
