"""The *Settings* sheet: the study in readable form, so a workbook explains how it was made.

``settings_rows`` turns the study's data, split and protocol and each model's chosen setting into
(label, value) lines grouped under section titles; ``write_settings_sheet`` lays them out in two
columns, top to bottom (``constant_memory`` safe).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from xlsxwriter.workbook import Workbook
from xlsxwriter.worksheet import Worksheet

from guiapp.core.experiment.results.result_parts import StudyProtocol
from guiapp.core.experiment.results.experiment_result import ExperimentResult, ModelResult
from guiapp.core.export.codebook_facts import is_codebook_model, record_lines, setting_words
from guiapp.core.export.excel_cells import text_width
from guiapp.core.export.excel_comparison import classifier_label, representation_label
from guiapp.core.export.excel_style import Styles
from guiapp.core.export.multi_label_facts import threshold_rule, thresholds_tuned
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


def _oversampling(protocol: StudyProtocol) -> str:
    how = protocol.oversampling or "off"
    if how == "off":
        return "off"
    ratio = protocol.oversampling_ratio
    share = f" (smaller categories grow to {ratio:.0%} of the largest, training texts only)" if ratio else ""
    return f"{how}{share}"


def category_fix_lines(fixes: CategoryFixes) -> list[Line]:
    """The fixes of the category column the study applied (the data file itself is unchanged)."""
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


def coding_lines(result: ExperimentResult) -> list[Line]:
    """Where the coding is, and for a study where a text can have several categories, how they were decided."""
    mapping = result.study_source.mapping
    if not result.multi_label:
        return [Line("Column with your coding", readable(mapping.category_column))]
    if mapping.category_column:
        where = Line("Column with your coding", f"{mapping.category_column} (categories separated by "
                                                f"“{mapping.label_separator}”)")
    else:
        where = Line("Columns with your coding (one 0/1 column per category)", readable(mapping.category_columns))
    return [
        where,
        Line("Several categories per text", "yes: a text can have several categories, or none"),
        Line("How a text's categories are decided", threshold_rule(result)),
        Line("Thresholds tuned", "yes, on the training texts' out-of-fold probabilities" if thresholds_tuned(result)
             else "no (0.5 for every category)"),
    ]


def study_lines(result: ExperimentResult) -> list[Line]:
    data, split, protocol = result.study_source, result.test_split, result.protocol
    mapping = data.mapping
    lines = [Line("Study", section=True), Line("Name", readable(data.study_name))]
    lines += [Line("Data file", readable(data.source))]
    if data.sheet:
        lines.append(Line("Sheet", data.sheet))
    if data.test_source:
        lines.append(Line("Test file", data.test_source))
    if data.sha256:
        lines.append(Line("Data file fingerprint (SHA-256)", data.sha256))
    lines += [
        Line("Text column(s)", readable(mapping.text_columns)),
        *coding_lines(result),
        Line("ID column", readable(mapping.id_column)),
        Line("Categories", readable(result.categories)),
        *category_fix_lines(data.category_fixes),
        Line("How the test texts were chosen", readable(SPLITS.get(split.how, split.how))),
        Line("Test texts", readable(split.description)),
        Line("Number of training texts", readable(split.n_train)),
        Line("Number of test texts", readable(split.n_test)),
    ]
    if split.at_random and protocol.test_share is not None:
        lines.append(Line("Share held out for testing", f"{protocol.test_share:.0%}"))
    lines += [
        Line("Cross-validation folds", readable(protocol.folds)),
        Line("Oversampling", _oversampling(protocol)),
        Line("Bootstrap samples for the interval", readable(protocol.bootstrap_samples)),
        Line("Random seed", readable(protocol.seed)),
        Line("Started", readable(result.started_at)),
        Line("Finished", readable(result.finished_at)),
    ]
    lines += [Line("Note" if i == 0 else "", note) for i, note in enumerate(result.notes)]
    environment = result.environment or {}
    for key, label in (("textlab", "TextLab version"), ("python", "Python"), ("platform", "Computer")):
        if environment.get(key):
            lines.append(Line(label, str(environment[key])))
    return lines


def model_lines(position: int, model: ModelResult, categories: list[str] | None = None) -> list[Line]:
    lines = [
        Line(f"Model {position}: {model.name}", section=True),
        Line("Representation of the texts", representation_label(model.representation)),
        Line("Classifier", classifier_label(model.classifier)),
    ]
    combination = model.combination
    if combination is not None and combination.parts:
        combined = readable(combination.weights or combination.parts)
        lines.append(Line("Combines (weight or share of influence)", combined))
        if combination.learnt_on:
            lines.append(Line("Combination learnt on", combination.learnt_on))
    if model.representation_options:
        lines.append(Line("Representation settings", readable(model.representation_options)))
    if model.settings_tried:
        lines.append(Line("Settings tried", readable(model.settings_tried)))
    if model.grid:
        lines.append(Line("Number of settings tried", len(model.grid)))
    if model.tuning:
        lines.append(Line("How the setting was chosen", model.tuning))
    if model.chosen_params:
        lines.append(Line("Chosen setting", setting_words(model) if is_codebook_model(model)
                          else readable(model.chosen_params)))
    if model.cv_scores:
        lines.append(Line("Macro-F1 per fold (chosen setting)", readable([round(s, 4) for s in model.cv_scores])))
    if model.thresholds and categories and len(model.thresholds) == len(categories):
        lines.append(Line("Threshold per category", ", ".join(
            f"{category} {threshold:.2f}" for category, threshold in zip(categories, model.thresholds, strict=True))))
    device = model.device
    if device is not None and device.name:
        lines.append(Line("Trained on", device.name))
    if is_codebook_model(model):  # the language model, its prompt and hashes, the prompt sensitivity
        lines += [Line(label, _fits(readable(value))) for label, value in record_lines(model)]
    lines += [Line("Note", note) for note in model.notes]
    lines.append(Line("Status", "done" if model.ok else f"{model.status}: {model.message}".rstrip(": ")))
    return lines


CELL_LIMIT = 32_000  # Excel holds at most 32,767 characters in a cell


def _fits(value: Any) -> Any:
    """A very long text (a prompt with many examples) cut to what a cell holds, saying where the rest is."""
    if isinstance(value, str) and len(value) > CELL_LIMIT:
        return value[:CELL_LIMIT] + " … (cut here: the whole text is in the results folder's results.json)"
    return value


def settings_rows(result: ExperimentResult) -> list[Line]:
    lines = study_lines(result)
    for position, model in enumerate(result.models, start=1):
        lines.append(Line(""))
        lines += model_lines(position, model, result.categories)
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
