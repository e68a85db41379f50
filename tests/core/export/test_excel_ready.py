"""The results workbook is ready to use as it opens: every number has a format (no bare
16-digit fractions), the category fixes are recorded, each test text is listed with the coding
and every model's answer, and no export ever writes over the study's data file."""

from __future__ import annotations

import numpy as np
import openpyxl
import pandas as pd
import pytest
from python_calamine import CalamineWorkbook

from guiapp.core.errors import UserError
from guiapp.core.experiment.curves.learning_curve_results import CurvePoint, LearningCurveResult, ModelCurve
from guiapp.core.experiment.scores.subgroup_scores import subgroup_scores
from guiapp.core.export.appendix import write_appendix
from guiapp.core.export.excel import write_excel
from guiapp.core.export.excel_documents import (
    AGREEING_HEADER,
    CODING_HEADER,
    NO_TEXT_HEADER,
    ROW_HEADER,
    SHEET,
    cell_text,
    text_lines,
)
from guiapp.core.export.excel_style import P_VALUE, PERCENT, SCORE
from guiapp.core.export.prediction_files import write_predictions
from guiapp.core.predict.new_texts import NewTextPredictions
from tests.ui.sample_results import sample_result

FIXES = {"trim_spaces": True, "merge": {"Helth": "Health", "Economy ": "Economy"}, "leave_out": ["Other"]}


def study_result():
    """The sample study as a researcher's workbook gives it: a title row above the header (the first
    text is spreadsheet row 4), string IDs, fixed categories, probabilities for the best model."""
    result = sample_result()
    n = len(result.test_true)
    result.test_rows = [4 + 2 * i for i in range(n)]  # rows as the spreadsheet shows them, gaps included
    result.test_ids = [f"U-{i:04d}" for i in range(n)]
    result.spec["data"]["category_fixes"] = FIXES
    best = result.ranked()[0]
    rng = np.random.default_rng(4)
    probabilities = rng.dirichlet(np.ones(len(result.categories)), n)
    for i, predicted in enumerate(best.predictions):  # the answer is the most probable category
        row = probabilities[i]
        row[[predicted, row.argmax()]] = row[[row.argmax(), predicted]]
    best.probabilities = probabilities.tolist()
    return result


def hand_made_curve(categories: list[str]) -> LearningCurveResult:
    points = [CurvePoint(size, repeat, 0.5 + size / 10_000 + repeat / 97, [0.4 + repeat / 31] * len(categories))
              for size in (200, 400, 800) for repeat in (1, 2, 3)]
    model = ModelCurve("SVM · Basic BOW", "bow", "svm", {}, points=points)
    return LearningCurveResult({}, categories, [200, 400, 800], [1, 2, 3], 800, 300, "once", [model])


def hand_made_findings(categories: list[str]):
    """Shares per party of 400 texts, 120 of them coded (a random sample)."""
    from guiapp.core.findings import CodedSample, estimate_findings

    rng = np.random.default_rng(8)
    probabilities = rng.dirichlet(np.ones(len(categories)) * 2, 400)
    positions = np.arange(0, 400, 7)
    labels = [categories[int(np.argmax(p))] if rng.random() < 0.7 else categories[0] for p in probabilities[positions]]
    return estimate_findings(probabilities, categories, CodedSample(labels, probabilities[positions], positions),
                             groups=np.where(np.arange(400) % 2, "A", "B"), group_name="party")


@pytest.fixture(scope="module")
def result():
    return study_result()


@pytest.fixture(scope="module")
def book(tmp_path_factory, result):
    n = len(result.test_true)
    table = pd.DataFrame({"party": np.where(np.arange(n) % 3, "A", "B")})
    result_for_groups = sample_result()  # consecutive rows from 2: the table below is the study's table
    groups = subgroup_scores(result_for_groups, table, "party", min_texts=5)
    path = write_excel(tmp_path_factory.mktemp("xlsx") / "study – TextLab results.xlsx", result=result,
                       learning_curve=hand_made_curve(result.categories), subgroups=groups,
                       findings=hand_made_findings(list(result.categories)))
    return openpyxl.load_workbook(path)


def test_no_sheet_shows_a_fraction_without_a_number_format(book):
    checked = 0
    for sheet in book.worksheets:
        for row in sheet.iter_rows():
            for cell in row:
                if isinstance(cell.value, float) and not cell.value.is_integer():
                    checked += 1
                    assert cell.number_format != "General", f"{sheet.title}!{cell.coordinate} = {cell.value}"
    assert checked > 100


def test_the_findings_sheets_give_shares_as_percentages_and_say_how_they_were_estimated(book, result):
    findings = book["Findings"]
    header = [cell.value for cell in findings[1]]
    assert header[:3] == ["group", "category", "share"] or "share" in header
    share_column = header.index("share") + 1
    rows = len(result.categories) * 3  # all texts, then each party
    assert all(findings.cell(row, share_column).number_format == PERCENT for row in range(2, rows + 2))
    assert findings.cell(rows + 3, 1).value == "How the shares were estimated"
    assert "random sample" in findings.cell(rows + 4, 1).value
    differences = book["Findings differences"]
    assert differences.max_row == len(result.categories) + 1  # one pair of parties, every category


def test_scores_have_three_decimals_shares_percent_and_p_values_a_floor(book):
    comparison = book["Model comparison"]
    assert [comparison.cell(2, col).number_format for col in range(4, 9)] == [SCORE] * 5  # macro-F1 … CV mean
    assert comparison.cell(2, 9).number_format == "#,##0.0"  # seconds
    paired = book["Is the best really better"]
    formats = {cell.number_format for row in paired.iter_rows() for cell in row if isinstance(cell.value, float)}
    assert {P_VALUE, PERCENT, SCORE} <= formats
    curve = book["Learning curve"]
    header = next(row[0].row for row in curve.iter_rows() if row[0].value == "Model")
    assert curve.cell(header + 1, 2).number_format == "#,##0"  # training texts, a count
    assert curve.cell(header + 1, 3).number_format == SCORE
    assert curve.freeze_panes == f"B{header + 1}" and curve.auto_filter.ref
    groups = book["Groups of texts"]
    header_row = next(row for row in groups.iter_rows() if row[0].value == "model")
    names = [cell.value for cell in header_row]
    first = header_row[0].row + 1
    assert groups.cell(first, names.index("share wrong") + 1).number_format == PERCENT
    assert groups.cell(first, names.index("test texts") + 1).number_format == "#,##0"


def test_settings_record_the_fixes_of_the_categories(book):
    rows = [row for row in book["Settings"].iter_rows(values_only=True) if row[0]]
    values = {}
    for label, value in rows:
        values.setdefault(label, []).append(value)
    assert values["Fixes of the categories"] == ["applied by TextLab; the data file itself is unchanged"]
    assert values["Spaces trimmed"][0].startswith("yes")
    assert values["Merged"] == ["“Helth” into “Health”", "“Economy␣” into “Economy”"]  # a hidden space shown
    assert values["Left out"] == ["“Other”"]


def test_settings_say_when_nothing_was_fixed(tmp_path):
    path = write_excel(tmp_path / "r.xlsx", result=sample_result())
    settings = {row[0]: row[1] for row in openpyxl.load_workbook(path)["Settings"].iter_rows(values_only=True)}
    assert settings["Fixes of the categories"].startswith("none")
    assert "Merged" not in settings


def test_test_documents_list_row_id_text_coding_and_every_answer(book, result):
    sheet = book[SHEET]
    rows = list(sheet.iter_rows(values_only=True))
    header = rows[0]
    ranked = result.ranked()
    expected = [ROW_HEADER, "ID", "Text", CODING_HEADER]
    for position, model in enumerate(ranked):
        expected += [f"{model.name}: answer"]
        expected += [f"{model.name}: confidence"] if position == 0 else []  # only the best has probabilities
        expected += [f"{model.name}: agrees with you"]
    assert list(header) == [*expected, AGREEING_HEADER]
    assert len(rows) == 1 + len(result.test_true)
    categories = result.categories
    for index in (0, 1, 57, len(result.test_true) - 1):
        line = dict(zip(header, rows[index + 1], strict=True))
        assert line[ROW_HEADER] == result.test_rows[index]  # the spreadsheet's own row, title row counted
        assert line["ID"] == result.test_ids[index]
        assert line["Text"] == result.test_texts[index]
        assert line[CODING_HEADER] == categories[result.test_true[index]]
        agreeing = 0
        for model in ranked:
            predicted = model.predictions[index]
            assert line[f"{model.name}: answer"] == categories[predicted]
            right = predicted == result.test_true[index]
            assert line[f"{model.name}: agrees with you"] == ("✓" if right else "✗")
            agreeing += right
        assert line[AGREEING_HEADER] == agreeing
        assert line[f"{ranked[0].name}: confidence"] == pytest.approx(max(ranked[0].probabilities[index]), abs=1e-6)
    assert sheet.cell(2, 1).number_format == "0"
    assert sheet.cell(2, header.index(f"{ranked[0].name}: confidence") + 1).number_format == PERCENT
    assert sheet.freeze_panes == "C2"  # header row, row and ID stay in view
    assert sheet.auto_filter.ref == f"A1:{sheet.cell(1, len(header)).column_letter}{len(rows)}"
    assert sheet.column_dimensions["C"].width >= 60  # the text column is wide and wraps
    assert sheet.cell(2, 3).alignment.wrap_text
    colours = [rule.dxf.fill.fgColor.rgb if rule.dxf.fill.fgColor.rgb else rule.dxf.fill.bgColor.rgb
               for ranges in sheet.conditional_formatting for rule in ranges.rules]
    assert len(colours) == 2 * len(ranked)  # green for ✓ and red for ✗ in every model's column


def test_test_documents_without_texts_or_ids_and_rows_counted_in_another_sheet(tmp_path):
    result = sample_result()
    result.test_texts, result.test_ids = [], [None] * len(result.test_true)
    result.test_rows_in = "sheet “Utterances”"
    path = write_excel(tmp_path / "r.xlsx", result=result)
    header = next(openpyxl.load_workbook(path, read_only=True)[SHEET].iter_rows(values_only=True))
    assert header[:3] == (f"{ROW_HEADER} (sheet “Utterances”)", NO_TEXT_HEADER, CODING_HEADER)


def test_test_documents_are_the_same_in_constant_memory(tmp_path, result):
    small = write_excel(tmp_path / "small.xlsx", result=result, constant_memory=False)
    large = write_excel(tmp_path / "large.xlsx", result=result, constant_memory=True)
    read = [CalamineWorkbook.from_path(str(p)).get_sheet_by_name(SHEET).to_python() for p in (small, large)]
    assert read[0] == read[1] and len(read[0]) == len(result.test_true) + 1


def test_long_texts_fit_a_cell_and_rows_grow_only_so_far():
    assert len(cell_text("x" * 40_000)) == 32_767 and cell_text("short") == "short"
    assert text_lines("") == 1 and text_lines("a\nb") == 2 and text_lines("word " * 200) > 8


def _no_predictions() -> NewTextPredictions:
    return NewTextPredictions(models=[], predictions=[])


@pytest.mark.parametrize("ending", [".csv", ".xlsx", ".parquet"])
def test_predictions_never_write_over_the_study_data_file(tmp_path, ending):
    data = tmp_path / f"coded{ending}"
    data.write_bytes(b"the researcher's data")
    result = sample_result()
    result.spec["data"]["source"] = str(data)
    with pytest.raises(UserError, match="never changes it"):
        write_predictions(data, pd.DataFrame({"text": ["a"]}), _no_predictions(), result=result, overwrite=True)
    assert data.read_bytes() == b"the researcher's data"


def test_the_appendix_never_writes_over_a_data_file_beside_it(tmp_path):
    data = tmp_path / "debates.json"  # one JSON object per line: a table TextLab reads
    data.write_text('{"text": "a", "party": "A"}\n')
    result = sample_result()
    result.spec["data"]["source"] = str(data)
    with pytest.raises(UserError, match="never changes it"):
        write_appendix(result, tmp_path / "debates.html", overwrite=True)  # would write debates.json
    assert data.read_text() == '{"text": "a", "party": "A"}\n'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["debates.json"]
