"""The *Model comparison* sheet: one row per model, the per-category scores below, and a bar
chart of each model's macro-F1 on the test texts with its bootstrap interval as error bars.

Rows are written top to bottom only, so the sheet also works in ``constant_memory`` mode.
"""

from __future__ import annotations

from xlsxwriter.format import Format
from xlsxwriter.utility import quote_sheetname
from xlsxwriter.workbook import Workbook
from xlsxwriter.worksheet import Worksheet

from guiapp.core.experiment.results import ExperimentResult, ModelResult
from guiapp.core.export.excel_cells import text_width, write_cells
from guiapp.core.export.excel_style import BLUE, Styles
from guiapp.core.models.conventional import CLASSIFIERS
from guiapp.core.study.sections import REPRESENTATION_LABELS

SHEET = "Model comparison"


def ci_label(result: ExperimentResult) -> str:
    levels = {model.test.ci_level for model in result.finished_models() if model.test}
    level = levels.pop() if len(levels) == 1 else 0.95
    return f"{level:.0%}".replace("%", " %")


def summary_headers(result: ExperimentResult) -> list[str]:
    ci = ci_label(result)
    return [
        "Model",
        "Representation",
        "Classifier",
        "Macro-F1 (test texts)",
        f"{ci} interval: low",
        f"{ci} interval: high",
        "Accuracy (test texts)",
        "Macro-F1 (cross-validation mean)",
        "Time in total (s)",
        "Status",
    ]


CATEGORY_HEADERS = ["Model", "Category", "Precision", "Recall", "F1", "Support (test texts)"]


COMBINED_CLASSIFIERS = {"weighted_vote": "Weighted vote", "stacking": "Stacking"}


def classifier_label(classifier: str) -> str:
    if classifier in CLASSIFIERS:
        return CLASSIFIERS[classifier].label
    return "Fine-tuning" if classifier == "fine_tune" else COMBINED_CLASSIFIERS.get(classifier, classifier)


def representation_label(representation: str) -> str:
    if representation == "combined":
        return "Combined model"
    return REPRESENTATION_LABELS.get(representation, representation)


def ordered(result: ExperimentResult) -> list[ModelResult]:
    """Finished models in the study's order, then the others (so the chart's rows are adjacent)."""
    return [m for m in result.models if m.ok] + [m for m in result.models if not m.ok]


def _status(model: ModelResult) -> str:
    if model.ok:
        return "done"
    return f"{model.status}: {model.message}" if model.message else model.status


def _summary_row(model: ModelResult) -> list[object]:
    test = model.test if model.ok else None
    ci = test.macro_f1_ci if test else None
    return [
        model.name,
        representation_label(model.representation),
        classifier_label(model.classifier),
        test.macro_f1 if test else None,
        ci[0] if ci else None,
        ci[1] if ci else None,
        test.accuracy if test else None,
        model.cv_mean,
        model.total_seconds,
        _status(model),
    ]


def _summary_formats(styles: Styles) -> list[Format | None]:
    """Scores with three decimals, the time with one, counts as whole numbers."""
    return [None, None, None, styles.score, styles.score, styles.score, styles.score, styles.score, styles.seconds,
            None]


def _category_formats(styles: Styles) -> list[Format | None]:
    return [None, None, styles.score, styles.score, styles.score, styles.count]


def _chart(workbook: Workbook, result: ExperimentResult, rows: list[int]):
    """Macro-F1 per finished model (values from the summary rows ``rows``), CI as error bars."""
    chart = workbook.add_chart({"type": "column"})
    name = quote_sheetname(SHEET)
    first, last = rows[0], rows[-1]
    models = [model for model in result.models if model.ok]
    series = {
        "name": "Macro-F1 (test texts)",
        "categories": f"={name}!$A${first + 1}:$A${last + 1}",
        "values": f"={name}!$D${first + 1}:$D${last + 1}",
        "fill": {"color": BLUE},
        "data_labels": {"value": True, "num_format": "0.00"},
    }
    if all(model.test and model.test.macro_f1_ci for model in models):
        series["y_error_bars"] = {
            "type": "custom",
            "plus_values": [round(m.test.macro_f1_ci[1] - m.test.macro_f1, 6) for m in models],  # type: ignore[index,union-attr]
            "minus_values": [round(m.test.macro_f1 - m.test.macro_f1_ci[0], 6) for m in models],  # type: ignore[index,union-attr]
            "end_style": 1,
        }
    chart.add_series(series)
    chart.set_title({"name": f"How often each model agrees with your coding (macro-F1, {ci_label(result)} interval)"})
    chart.set_y_axis({"min": 0, "max": 1, "num_format": "0.0", "major_gridlines": {"visible": True}})
    chart.set_legend({"none": True})
    chart.set_size({"width": 640, "height": 360})
    return chart


def write_comparison_sheet(workbook: Workbook, styles: Styles, result: ExperimentResult) -> Worksheet:
    sheet = workbook.add_worksheet(SHEET)
    headers = summary_headers(result)
    models = ordered(result)
    rows = [_summary_row(model) for model in models]
    summary = _summary_formats(styles)
    names = [model.name for model in models] or [""]
    categories = result.categories or [""]
    widths = [max(text_width(name) for name in names), 22, 20, 14, 14, 14, 14, 18, 12, 40]
    for col, width in enumerate(widths):
        sheet.set_column(col, col, min(max(width, 12), 50))
    sheet.set_column(1, 1, max(min(max(text_width(c) for c in categories), 40), 22))
    sheet.set_row(0, 45)
    sheet.freeze_panes(1, 1)
    for col, header in enumerate(headers):
        sheet.write_string(0, col, header, styles.header)
    chart_rows = []
    for offset, values in enumerate(rows):
        row = 1 + offset
        write_cells(sheet, row, values, summary)
        if models[offset].ok:
            chart_rows.append(row)
    row = len(rows) + 2
    sheet.write_string(row, 0, "Scores per category on the test texts", styles.title)
    row += 1
    per_category = _category_formats(styles)
    for col, header in enumerate(CATEGORY_HEADERS):
        sheet.write_string(row, col, header, styles.header)
    for model in result.finished_models():
        for scores in model.test.per_category:  # type: ignore[union-attr]
            row += 1
            values = ([model.name, scores.category, scores.precision, scores.recall, scores.f1, int(scores.support)]
                      if scores.counted else [model.name, scores.category, None, None, None, 0])  # not in the macro-F1
            write_cells(sheet, row, values, per_category)
    if chart_rows:
        sheet.insert_chart(1, len(headers) + 1, _chart(workbook, result, chart_rows))
    return sheet

