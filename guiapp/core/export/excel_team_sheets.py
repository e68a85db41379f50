"""The sheets the codings export adds for a codebook with versions and for a coding team.

- *Codebook versions* (once the codebook has versions): each version's number, date, note and what
  changed, then every version's definitions and examples, category by category, so that a reader
  sees what the codebook said when each text was coded (the *Codebook version* column of the
  codings).
- *Team agreement* (two or more coders): Krippendorff's α with its interval, Fleiss' κ, α per
  category, the matrix of Cohen's κ of every pair of coders (and the texts each pair shares), each
  coder against the adjudicated coding, and α per codebook version — the numbers of
  ``team_report.team_agreement_of_log``. When the team has not yet coded enough texts in common,
  the sheet says so in words instead.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from guiapp.core.errors import UserError
from guiapp.core.export.excel_cells import write_cells

if TYPE_CHECKING:
    from xlsxwriter.workbook import Workbook
    from xlsxwriter.worksheet import Worksheet

    from guiapp.core.coding.codebook import Codebook
    from guiapp.core.coding.codebook_versions import CodebookHistory
    from guiapp.core.coding.codings import CodingLog
    from guiapp.core.export.excel_style import Styles
    from guiapp.core.stats.team_agreement import TeamAgreement

__all__ = ["TEAM_SHEET", "VERSIONS_SHEET", "team_sheets", "version_label"]

VERSIONS_SHEET, TEAM_SHEET = "Codebook versions", "Team agreement"


def version_label(label: object) -> str:
    """How a codebook version is named in the sheet: "Version 2", or for codings made before the
    codebook had versions, "Before versions"."""
    return f"Version {label}" if label else "Before versions"


def team_sheets(workbook: Workbook, styles: Styles, log: CodingLog, codebook: Codebook) -> None:
    """Add the *Codebook versions* sheet when ``log`` has versions and the *Team agreement* sheet
    when it has a coding team."""
    if log.history is not None:
        versions_sheet(workbook, styles, log.history)
    if log.team_mode:
        from guiapp.core.coding.team_report import team_agreement_of_log
        try:
            agreement = team_agreement_of_log(log, categories=codebook.names() or None)
        except UserError as error:
            agreement_sheet(workbook, styles, None, str(error))
        else:
            agreement_sheet(workbook, styles, agreement, "")


def versions_sheet(workbook: Workbook, styles: Styles, history: CodebookHistory) -> None:
    sheet = workbook.add_worksheet(VERSIONS_SHEET)
    for col, width in enumerate((12, 14, 40, 60, 60)):
        sheet.set_column(col, col, width, styles.wrap if col >= 2 else None)
    sheet.write_string(0, 0, "The codebook's versions", styles.title)
    for col, header in enumerate(("Version", "Date", "Note", "What changed")):
        sheet.write_string(1, col, header, styles.header)
    row = 2
    for version in history.versions:
        changes = "\n".join(change.sentence().removesuffix(f" (version {version.number}).")
                            for change in version.changes) or "First version"
        write_cells(sheet, row, [version.number, version.date, version.note or None, changes], [styles.integer])
        row += 1
    row += 1
    sheet.write_string(row, 0, "Each version's definitions", styles.title)
    row += 1
    for col, header in enumerate(("Version", "Category", "Definition", "Examples")):
        sheet.write_string(row, col, header, styles.header)
    row += 1
    for version in history.versions:
        for category in version.codebook.categories:
            write_cells(sheet, row, [version.number, category.name, category.definition or None,
                                     "\n".join(category.examples) or None], [styles.integer])
            row += 1
    sheet.freeze_panes(2, 0)


def _interval(interval: tuple[float, float]) -> list[float | None]:
    return [None if math.isnan(value) else value for value in interval]


def agreement_sheet(workbook: Workbook, styles: Styles, agreement: TeamAgreement | None, problem: str) -> None:
    sheet = workbook.add_worksheet(TEAM_SHEET)
    sheet.set_column(0, 0, 30)
    sheet.set_column(1, 12, 14)
    sheet.write_string(0, 0, "Agreement of the coding team", styles.title)
    if agreement is None:
        sheet.write_string(2, 0, problem, styles.muted)
        return
    level = f"{agreement.level:.0%}"
    row = _measures(sheet, styles, agreement, level, 2)
    row = _per_category(sheet, styles, agreement, level, row + 1)
    row = _matrix(sheet, styles, agreement, row + 1)
    row = _reference(sheet, styles, agreement, level, row + 1)
    row = _versions(sheet, styles, agreement, level, row + 1)
    if agreement.notes:
        sheet.write_string(row + 1, 0, "Notes", styles.section)
        for offset, note in enumerate(agreement.notes, start=2):
            sheet.write_string(row + offset, 0, note)


def _measures(sheet: Worksheet, styles: Styles, agreement: TeamAgreement, level: str, row: int) -> int:
    headers = ("Measure", "Value", f"{level} interval from", "to", "Texts", "Codings")
    for col, header in enumerate(headers):
        sheet.write_string(row, col, header, styles.header)
    fmt = [None, styles.score, styles.score, styles.score, styles.count, styles.count]
    write_cells(sheet, row + 1, ["Krippendorff's α (nominal)", agreement.alpha, *_interval(agreement.alpha_interval),
                                 agreement.n_texts_compared, agreement.n_codings], fmt)
    row += 2
    if agreement.fleiss is not None:
        fleiss = agreement.fleiss
        write_cells(sheet, row, [f"Fleiss' κ ({fleiss.coders_per_text} coders per text)", fleiss.kappa,
                                 *_interval(fleiss.interval), fleiss.n_texts, None], fmt)
        if fleiss.note:
            sheet.write_string(row, 6, fleiss.note, styles.muted)
        row += 1
    write_cells(sheet, row, ["Coders", len(agreement.coders)], [None, styles.count])
    write_cells(sheet, row + 1, ["Texts coded", agreement.n_texts], [None, styles.count])
    return row + 2


def _per_category(sheet: Worksheet, styles: Styles, agreement: TeamAgreement, level: str, row: int) -> int:
    if not agreement.per_category:
        return row
    sheet.write_string(row, 0, "α per category (each as its own yes/no question)", styles.section)
    for col, header in enumerate(("Category", "α", f"{level} interval from", "to", "Codings")):
        sheet.write_string(row + 1, col, header, styles.header)
    row += 2
    for found in agreement.per_category:
        write_cells(sheet, row, [str(found.category), found.alpha, *_interval(found.interval), found.n_codings],
                    [None, styles.score, styles.score, styles.score, styles.count])
        row += 1
    return row


def _matrix(sheet: Worksheet, styles: Styles, agreement: TeamAgreement, row: int) -> int:
    kappas, shared = agreement.kappa_matrix()
    coders = [str(coder) for coder in agreement.coders]
    for title, values, fmt in (("Cohen's κ of each pair of coders", kappas, styles.score),
                               ("Texts each pair of coders shares (a coder's own texts on the diagonal)", shared,
                                styles.count)):
        sheet.write_string(row, 0, title, styles.section)
        sheet.write_string(row + 1, 0, "Coder", styles.header)
        for col, coder in enumerate(coders, start=1):
            sheet.write_string(row + 1, col, coder, styles.header)
        for offset, (coder, line) in enumerate(zip(coders, values, strict=True), start=2):
            write_cells(sheet, row + offset, [coder, *line], [None, *([fmt] * len(line))])
        row += len(coders) + 3
    return row - 1


def _reference(sheet: Worksheet, styles: Styles, agreement: TeamAgreement, level: str, row: int) -> int:
    sheet.write_string(row, 0, "Each coder against the adjudicated coding", styles.section)
    if not agreement.against_reference:
        sheet.write_string(row + 1, 0, "No text has been adjudicated yet.", styles.muted)
        return row + 2
    headers = ("Coder", "Texts", "Share agreeing", f"{level} interval from", "to", "Cohen's κ",
               f"{level} interval from", "to")
    for col, header in enumerate(headers):
        sheet.write_string(row + 1, col, header, styles.header)
    row += 2
    for found in agreement.against_reference:
        write_cells(sheet, row, [str(found.coder), found.n_texts, found.accuracy, *_interval(found.accuracy_interval),
                                 found.kappa, *_interval(found.kappa_interval)],
                    [None, styles.count, styles.percent, styles.percent, styles.percent, styles.score, styles.score,
                     styles.score])
        row += 1
    return row


def _versions(sheet: Worksheet, styles: Styles, agreement: TeamAgreement, level: str, row: int) -> int:
    if not agreement.by_label:
        return row
    sheet.write_string(row, 0, "α per codebook version the codings were made under", styles.section)
    for col, header in enumerate(("Codebook version", "Texts", "Codings", "α", f"{level} interval from", "to")):
        sheet.write_string(row + 1, col, header, styles.header)
    row += 2
    for found in agreement.by_label:
        write_cells(sheet, row, [version_label(found.label), found.n_texts, found.n_codings, found.alpha,
                                 *_interval(found.interval)],
                    [None, styles.count, styles.count, styles.score, styles.score, styles.score])
        row += 1
    return row
