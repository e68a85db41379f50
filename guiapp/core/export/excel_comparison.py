"""The *Model comparison* sheet: one row per model, the per-category scores below, and a bar
chart of each model's macro-F1 on the test texts with its bootstrap interval as error bars.

Where a text can have several categories, the row of a model also has micro-F1, the exact match
(subset accuracy: all categories of a text right) and the Hamming loss; the scores per category
add each F1's interval, the texts the model put in the category and the threshold it used; and a
few lines at the bottom say what these measures mean.

Rows are written top to bottom only, so the sheet also works in ``constant_memory`` mode.
"""

from __future__ import annotations

from xlsxwriter.format import Format
from xlsxwriter.utility import quote_sheetname
from xlsxwriter.workbook import Workbook
from xlsxwriter.worksheet import Worksheet

from guiapp.core.experiment.results.experiment_result import ExperimentResult, ModelResult
from guiapp.core.export.codebook_facts import PromptSensitivity
from guiapp.core.export.excel_cells import text_width, write_cells
from guiapp.core.export.excel_style import BLUE, Styles
from guiapp.core.export.multi_label_facts import (
    OVERALL_MEASURES,
    measure_label,
    measure_meaning,
    model_thresholds,
    threshold_rule,
)
from guiapp.core.models.conventional import CLASSIFIERS
from guiapp.core.study.schema import CODEBOOK_LLM_CLASSIFIER_LABELS, FEW_SHOT_CLASSIFIER_LABELS
from guiapp.core.study.sections import REPRESENTATION_LABELS

SHEET = "Model comparison"


def ci_label(result: ExperimentResult) -> str:
    levels = {model.test.ci_level for model in result.finished_models() if model.test}
    level = levels.pop() if len(levels) == 1 else 0.95
    return f"{level:.0%}".replace("%", " %")


def summary_headers(result: ExperimentResult) -> list[str]:
    ci = ci_label(result)
    scores = (MULTI_LABEL_SCORE_HEADERS if result.multi_label else ["Accuracy (test texts)"])
    return [
        "Model",
        "Representation",
        "Classifier",
        "Macro-F1 (test texts)",
        f"{ci} interval: low",
        f"{ci} interval: high",
        *scores,
        "Macro-F1 (cross-validation mean)",
        "Time in total (s)",
        "Status",
        *(SENSITIVITY_HEADERS if has_sensitivity(result) else []),
    ]


# a language model with your codebook: how much its answers depend on the instruction's wording
SENSITIVITY_HEADERS = ["Prompt sensitivity: Krippendorff's α between the instruction's wordings",
                       "Prompt sensitivity: macro-F1 lowest", "Prompt sensitivity: macro-F1 highest",
                       "Prompt sensitivity in words"]


def has_sensitivity(result: ExperimentResult) -> bool:
    return any(PromptSensitivity.from_spec(model.spec) is not None for model in result.models)


def sensitivity_cells(model: ModelResult) -> list[object]:
    report = PromptSensitivity.from_spec(model.spec)
    if report is None:
        return [None] * len(SENSITIVITY_HEADERS)
    return [report.alpha, report.macro_f1_min, report.macro_f1_max, report.words()]


CATEGORY_HEADERS = ["Model", "Category", "Precision", "Recall", "F1", "Support (test texts)"]
# a study where a text can have several categories
MULTI_LABEL_SCORE_HEADERS = [
    "Micro-F1 (test texts)",
    "Exact match: all categories of a text right (subset accuracy)",
    "Hamming loss (share of yes/no decisions wrong)",
]
MULTI_LABEL_CATEGORY_HEADERS = ["Model", "Category", "Precision", "Recall", "F1", "F1 interval: low",
                                "F1 interval: high", "Coded (test texts)", "Predicted (test texts)", "Threshold"]
MEANINGS_TITLE = "What the measures mean"


def category_headers(result: ExperimentResult) -> list[str]:
    return MULTI_LABEL_CATEGORY_HEADERS if result.multi_label else CATEGORY_HEADERS


COMBINED_CLASSIFIERS = {"weighted_vote": "Weighted vote", "stacking": "Stacking"}


def classifier_label(classifier: str) -> str:
    if classifier in CLASSIFIERS:
        return CLASSIFIERS[classifier].label
    if classifier in FEW_SHOT_CLASSIFIER_LABELS:  # zero-shot and SetFit
        return FEW_SHOT_CLASSIFIER_LABELS[classifier]
    if classifier in CODEBOOK_LLM_CLASSIFIER_LABELS:  # a language model with your codebook: where it runs
        return CODEBOOK_LLM_CLASSIFIER_LABELS[classifier]
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


def summary_row(model: ModelResult, multi_label: bool = False, sensitivity: bool = False) -> list[object]:
    test = model.test if model.ok else None
    ci = test.macro_f1_ci if test else None
    scores = ([test.micro_f1, test.accuracy, test.hamming_loss] if test else [None] * 3) if multi_label else [
        test.accuracy if test else None]
    return [
        model.name,
        representation_label(model.representation),
        classifier_label(model.classifier),
        test.macro_f1 if test else None,
        ci[0] if ci else None,
        ci[1] if ci else None,
        *scores,
        model.cv_mean,
        model.total_seconds,
        _status(model),
        *(sensitivity_cells(model) if sensitivity else []),
    ]


def _summary_formats(styles: Styles, multi_label: bool = False, sensitivity: bool = False) -> list[Format | None]:
    """Scores with three decimals, the time with one, counts as whole numbers."""
    scores = [styles.score] * (3 if multi_label else 1)
    extra = [styles.score, styles.score, styles.score, None] if sensitivity else []
    return [None, None, None, styles.score, styles.score, styles.score, *scores, styles.score, styles.seconds, None,
            *extra]


def _category_formats(styles: Styles, multi_label: bool = False) -> list[Format | None]:
    if multi_label:
        return [None, None, *[styles.score] * 5, styles.count, styles.count, styles.score]
    return [None, None, styles.score, styles.score, styles.score, styles.count]


def category_rows(result: ExperimentResult, model: ModelResult) -> list[list[object]]:
    """The rows of one model under "Scores per category" (a category neither coded nor predicted in the
    test texts has no scores: it does not count in the macro-F1)."""
    if not result.multi_label:
        return [[model.name, s.category, s.precision, s.recall, s.f1, int(s.support)] if s.counted
                else [model.name, s.category, None, None, None, 0] for s in model.test.per_category]  # type: ignore[union-attr]
    thresholds = model_thresholds(model, len(model.test.per_category))  # type: ignore[union-attr]
    rows = []
    for scores, threshold in zip(model.test.per_category, thresholds, strict=True):  # type: ignore[union-attr]
        ci = scores.f1_ci if scores.counted else None
        measured = [scores.precision, scores.recall, scores.f1] if scores.counted else [None] * 3
        rows.append([model.name, scores.category, *measured, ci[0] if ci else None, ci[1] if ci else None,
                     int(scores.support), max(int(scores.predicted), 0), threshold])
    return rows


def meaning_lines(result: ExperimentResult) -> list[tuple[str, str]]:
    """(measure, what it means) for the lines under the tables of a multi-label study."""
    lines = [(measure_label(name), measure_meaning(name)) for name in OVERALL_MEASURES]
    lines += [(measure_label(name), measure_meaning(name)) for name in ("f1_ci", "predicted")]
    lines.append(("Threshold", threshold_rule(result)))
    return lines


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
    multi = result.multi_label
    models = ordered(result)
    sensitivity = has_sensitivity(result)
    rows = [summary_row(model, multi, sensitivity) for model in models]
    summary = _summary_formats(styles, multi, sensitivity)
    names = [model.name for model in models] or [""]
    categories = result.categories or [""]
    widths = [max(text_width(name) for name in names), 22, 20, 14, 14, 14, *([16] * 3 if multi else [14]), 18, 12, 40,
              *([18, 14, 14, 60] if sensitivity else [])]
    for col, width in enumerate(widths):
        sheet.set_column(col, col, min(max(width, 12), 50))
    sheet.set_column(1, 1, max(min(max(text_width(c) for c in categories), 40), 22))
    sheet.set_row(0, 60 if multi else 45)
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
    per_category = _category_formats(styles, multi)
    if multi:
        sheet.set_row(row, 30)
    for col, header in enumerate(category_headers(result)):
        sheet.write_string(row, col, header, styles.header)
    for model in result.finished_models():
        for values in category_rows(result, model):
            row += 1
            write_cells(sheet, row, values, per_category)
    if multi:
        row += 2
        sheet.write_string(row, 0, MEANINGS_TITLE, styles.title)
        for label, meaning in meaning_lines(result):
            row += 1
            sheet.write_string(row, 0, label, styles.label)
            sheet.write_string(row, 1, meaning)
    if chart_rows:
        sheet.insert_chart(1, len(headers) + 1, _chart(workbook, result, chart_rows))
    return sheet

