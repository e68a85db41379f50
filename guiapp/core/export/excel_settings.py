"""The *Settings* sheet: the study in readable form, so a workbook explains how it was made.

``settings_rows`` turns ``result.spec``, ``result.split`` and each model's chosen setting into
(label, value) lines grouped under section titles; ``write_settings_sheet`` lays them out in two
columns, top to bottom (``constant_memory`` safe).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from xlsxwriter.workbook import Workbook
from xlsxwriter.worksheet import Worksheet

from guiapp.core.experiment.results import ExperimentResult, ModelResult
from guiapp.core.export.excel_cells import text_width
from guiapp.core.export.excel_comparison import classifier_label, representation_label
from guiapp.core.export.excel_style import Styles
from guiapp.core.study.category_fixes import CategoryFixes, visible

SHEET = "Settings"
SPLITS = {
    "random": "Random hold-out",
    "random hold-out": "Random hold-out",
    "test file": "A separate test file",
    "split column": "A column that marks the test texts",
}


@dataclass(frozen=True)
class Line:
    """One line of the sheet: a section title (``value is None`` and ``section``) or a setting."""

    label: str
    value: Any = None
    section: bool = False


def readable(value: Any) -> Any:
    """Numbers stay numbers; lists and settings become short text such as ``C = 1, kernel = linear``."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int | float):
        return value
    if value is None or value == "":
        return "—"
    if isinstance(value, dict):
        return ", ".join(f"{key} = {readable_inline(item)}" for key, item in value.items()) or "—"
    if isinstance(value, list | tuple):
        return ", ".join(str(readable_inline(item)) for item in value) or "—"
    return str(value)


def readable_inline(value: Any) -> str:
    if isinstance(value, list | tuple):
        return "[" + ", ".join(readable_inline(item) for item in value) + "]"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, dict):
        return "{" + str(readable(value)) + "}"
    return str(value)


def _oversampling(evaluation: dict[str, Any]) -> str:
    how = evaluation.get("oversampling", "off")
    if how == "off":
        return "off"
    ratio = evaluation.get("oversampling_ratio")
    share = f" (smaller categories grow to {ratio:.0%} of the largest, training texts only)" if ratio else ""
    return f"{how}{share}"


def category_fix_lines(raw: Any) -> list[Line]:
    """The fixes of the category column the study applied (the data file itself is unchanged)."""
    fixes = CategoryFixes.from_dict(raw if isinstance(raw, dict) else None)
    if fixes.is_empty():
        return [Line("Fixes of the categories", "none (categories used as written in the data file)")]
    lines = [Line("Fixes of the categories", "applied by TextLab; the data file itself is unchanged")]
    if fixes.trim_spaces:
        lines.append(Line("Spaces trimmed", "yes: spaces at the start and end of categories removed"))
    for source, target in fixes.merge.items():
        lines.append(Line("Merged", f"“{visible(source)}” into “{visible(target)}”"))
    if fixes.leave_out:
        lines.append(Line("Left out", ", ".join(f"“{visible(label)}”" for label in fixes.leave_out)))
    return lines


def study_lines(result: ExperimentResult) -> list[Line]:
    spec = result.spec or {}
    data = spec.get("data", {})
    mapping = data.get("mapping", {})
    evaluation = spec.get("evaluation", {})
    split = result.split or {}
    lines = [Line("Study", section=True), Line("Name", readable(spec.get("name")))]
    lines += [Line("Data file", readable(data.get("source")))]
    if data.get("sheet"):
        lines.append(Line("Sheet", data["sheet"]))
    if data.get("test_source"):
        lines.append(Line("Test file", data["test_source"]))
    if data.get("sha256"):
        lines.append(Line("Data file fingerprint (SHA-256)", data["sha256"]))
    lines += [
        Line("Text column(s)", readable(mapping.get("text_columns"))),
        Line("Column with your coding", readable(mapping.get("category_column"))),
        Line("ID column", readable(mapping.get("id_column"))),
        Line("Categories", readable(result.categories)),
        *category_fix_lines(data.get("category_fixes")),
        Line("How the test texts were chosen", readable(SPLITS.get(str(split.get("how")), split.get("how")))),
        Line("Test texts", readable(split.get("description"))),
        Line("Number of training texts", readable(split.get("n_train"))),
        Line("Number of test texts", readable(split.get("n_test"))),
    ]
    if str(split.get("how")) in ("random", "random hold-out") and "test_share" in evaluation:
        lines.append(Line("Share held out for testing", f"{evaluation['test_share']:.0%}"))
    lines += [
        Line("Cross-validation folds", readable(evaluation.get("folds"))),
        Line("Oversampling", _oversampling(evaluation)),
        Line("Bootstrap samples for the interval", readable(evaluation.get("bootstrap_samples"))),
        Line("Random seed", readable(spec.get("seed"))),
        Line("Started", readable(result.started_at)),
        Line("Finished", readable(result.finished_at)),
    ]
    lines += [Line("Note" if i == 0 else "", note) for i, note in enumerate(result.notes)]
    environment = result.environment or {}
    for key, label in (("textlab", "TextLab version"), ("python", "Python"), ("platform", "Computer")):
        if environment.get(key):
            lines.append(Line(label, str(environment[key])))
    return lines


def model_lines(position: int, model: ModelResult) -> list[Line]:
    spec = model.spec or {}
    lines = [
        Line(f"Model {position}: {model.name}", section=True),
        Line("Representation of the texts", representation_label(model.representation)),
        Line("Classifier", classifier_label(model.classifier)),
    ]
    if spec.get("parts"):
        lines.append(Line("Combines (weight or share of influence)", readable(spec.get("weights") or spec["parts"])))
        if spec.get("learnt_on"):
            lines.append(Line("Combination learnt on", str(spec["learnt_on"])))
    if spec.get("representation_options"):
        lines.append(Line("Representation settings", readable(spec["representation_options"])))
    if spec.get("grid"):
        lines.append(Line("Settings tried", readable(spec["grid"])))
    if model.grid:
        lines.append(Line("Number of settings tried", len(model.grid)))
    if spec.get("tuning"):
        lines.append(Line("How the setting was chosen", str(spec["tuning"])))
    if model.chosen_params:
        lines.append(Line("Chosen setting", readable(model.chosen_params)))
    if model.cv_scores:
        lines.append(Line("Macro-F1 per fold (chosen setting)", readable([round(s, 4) for s in model.cv_scores])))
    device = spec.get("device")
    if isinstance(device, dict) and device.get("name"):
        lines.append(Line("Trained on", str(device["name"])))
    lines += [Line("Note", str(note)) for note in spec.get("notes", []) or []]
    lines.append(Line("Status", "done" if model.ok else f"{model.status}: {model.message}".rstrip(": ")))
    return lines


def settings_rows(result: ExperimentResult) -> list[Line]:
    lines = study_lines(result)
    for position, model in enumerate(result.models, start=1):
        lines.append(Line(""))
        lines += model_lines(position, model)
    return lines


def write_settings_sheet(workbook: Workbook, styles: Styles, result: ExperimentResult) -> Worksheet:
    sheet = workbook.add_worksheet(SHEET)
    lines = settings_rows(result)
    label_width = max(text_width(line.label) for line in lines if not line.section)
    value_width = max((text_width(str(line.value)) for line in lines if line.value is not None), default=20)
    sheet.set_column(0, 0, min(max(label_width, 20), 45))
    sheet.set_column(1, 1, min(max(value_width, 30), 90), styles.wrap)
    sheet.freeze_panes(1, 0)
    sheet.write_string(0, 0, "Setting", styles.header)
    sheet.write_string(0, 1, "Value", styles.header)
    for row, line in enumerate(lines, start=1):
        if line.section:
            sheet.write_string(row, 0, line.label, styles.section)
            sheet.write_blank(row, 1, None, styles.section)
            continue
        if line.label:
            sheet.write_string(row, 0, line.label, styles.label)
        if isinstance(line.value, int | float) and not isinstance(line.value, bool) and math.isfinite(line.value):
            whole = isinstance(line.value, int) or float(line.value).is_integer()
            sheet.write_number(row, 1, line.value, styles.wrap_integer if whole else styles.wrap_number)
        elif line.value is not None:
            sheet.write_string(row, 1, str(line.value), styles.wrap)
    return sheet
