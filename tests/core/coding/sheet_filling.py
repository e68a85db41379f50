"""Filling in a coding sheet as a coder would, with openpyxl standing in for Excel (shared by the
sheet tests)."""

from __future__ import annotations

import openpyxl

from guiapp.core.coding.coding_sheet import CODING_SHEET, key_token


def fill_sheet(path, codings: dict, edit=None) -> None:  # noqa: ANN001
    """Fill the Category and Comment cells as a coder would: ``codings`` maps key → (category,
    comment); ``edit(sheet, columns)`` changes the sheet further before it is saved."""
    workbook = openpyxl.load_workbook(path)
    sheet = workbook[CODING_SHEET]
    columns = {cell.value: cell.column for cell in sheet[1]}
    for row in range(2, sheet.max_row + 1):
        token = sheet.cell(row, columns["Key"]).value
        for key, (category, comment) in codings.items():
            if token == key_token(key):
                sheet.cell(row, columns["Category"]).value = category
                sheet.cell(row, columns["Comment"]).value = comment
    if edit:
        edit(sheet, columns)
    workbook.save(path)
