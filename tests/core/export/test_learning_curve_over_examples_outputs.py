"""A language model with your codebook's learning curve is over the examples per category in its
prompt, not over training texts: the Excel sheet, the command line's table and the methods appendix
each say so and never put its numbers among the training-text sizes."""

from __future__ import annotations

import pandas as pd
from xlsxwriter.workbook import Workbook

from guiapp.cli.learning_curve_command import curve_table
from guiapp.core.experiment.curves.learning_curve_results import EXAMPLES_AXIS, CurvePoint, LearningCurveResult, ModelCurve
from guiapp.core.export.excel_learning_curve import EXAMPLES_HEADER, SHEET, write_learning_curve_sheet
from guiapp.core.export.excel_style import Styles

CODEBOOK = "Codebook language model (tiny-gpt2)"


def mixed_curve() -> LearningCurveResult:
    svm = ModelCurve("SVM · Basic BOW", "bow", "svm", {}, points=[
        CurvePoint(size, repeat, 0.5 + 0.05 * step + 0.01 * repeat, [0.5, 0.6]) for step, size in enumerate((40, 80, 140))
        for repeat in (1, 2)])
    codebook = ModelCurve(CODEBOOK, "codebook_llm", "server", {}, axis=EXAMPLES_AXIS, points=[
        CurvePoint(k, repeat, (0.4 if k == 0 else 0.45 + 0.03 * k + 0.01 * repeat), [0.4, 0.5])
        for k in (0, 1, 2, 4, 8) for repeat in (1, 2)])
    return LearningCurveResult({}, ["economy", "health"], [40, 80, 140], [1, 2], 140, 60, "once", [svm, codebook])


def test_the_excel_sheet_gives_examples_per_category_a_column_of_their_own(tmp_path):
    path = tmp_path / "curve.xlsx"
    workbook = Workbook(str(path))
    write_learning_curve_sheet(workbook, Styles(workbook), mixed_curve())
    workbook.close()
    sheet = pd.read_excel(path, sheet_name=SHEET, engine="calamine", header=None)
    header = sheet.index[sheet[0] == "Model"][0]
    assert list(sheet.iloc[header, :4]) == ["Model", "Coded training texts", EXAMPLES_HEADER, "Mean test macro-F1"]
    rows = sheet.iloc[header + 1:]
    svm, codebook = rows[rows[0] == "SVM · Basic BOW"], rows[rows[0] == CODEBOOK]
    assert list(svm[1].astype(int)) == [40, 80, 140] and svm[2].isna().all()
    assert list(codebook[2].astype(int)) == [0, 1, 2, 4, 8] and codebook[1].isna().all()
    assert abs(float(codebook[3].iloc[0]) - 0.4) < 1e-9
    assert any("examples per category" in str(text) for text in sheet[0].iloc[:header])  # its reading in words


def test_the_command_line_prints_the_curve_over_examples_as_a_table_of_its_own():
    text = curve_table(mixed_curve())
    training, examples = text.split("Language models with your codebook")
    assert "140 texts" in training and CODEBOOK not in training and "SVM · Basic BOW" in training
    assert "no examples" in examples and "8 per category" in examples and "texts" not in examples.splitlines()[2]
    row = next(line for line in examples.splitlines() if line.startswith(CODEBOOK[:34]))
    assert row.split()[4:6] == ["0.400", "0.495"]  # zero-shot: one score; then 1 per category, mean (min–max)


def test_a_study_of_only_a_codebook_model_prints_only_its_table():
    result = mixed_curve()
    result.models = result.models[1:]
    text = curve_table(result)
    assert text.startswith("Language models with your codebook") and "140 texts" not in text


def test_the_methods_appendix_speaks_of_examples_per_category_for_such_a_curve():
    from guiapp.core.events import ignore_events
    from guiapp.core.experiment.run.runner import run_experiment
    from guiapp.core.export.appendix_data import build_appendix
    from guiapp.core.export.appendix_text import appendix_paragraph
    from guiapp.core.study.sections import ModelSpec
    from tests.core.experiment.curves.test_learning_curves import study
    from tests.core.synthetic_texts import coded_texts

    result = run_experiment(study([ModelSpec("bow", "naive_bayes", grid={"alpha": [1.0]})]), ignore_events,
                            table=coded_texts(200), n_jobs=1)
    appendix = build_appendix(result, learning_curve=mixed_curve())
    facts = {model["name"]: model for model in appendix["learning_curve"]["models"]}
    assert facts[CODEBOOK]["axis"] == EXAMPLES_AXIS and "axis" not in facts["SVM · Basic BOW"]
    text = appendix_paragraph(appendix)
    assert "A learning curve trained the other model on nested random subsets of 40, 80, and 140 coded training texts" in text
    assert f"{CODEBOOK}, which learns nothing from the coded texts, was instead shown 0, 1, 2, 4, and 8 coded " \
           "examples per category" in text
    assert "with 0 examples per category to" in text and "(4 to 8 examples per category)" in text
