"""``textlab coding-import PROJECT sheet.xlsx``: read a coding sheet a coder filled in (one written by
``textlab coding-sheet`` or "Export coding sheet…") back into the project
(``core/coding/sheet_exchange.py``).

Rows are matched by their hidden key, never by position; each new coding is recorded with the
sheet's coder, and importing the same sheet twice adds nothing. Refused rows (an unknown category,
a changed text, a text given twice) are listed in words with how to fix them; a sheet of another
project is refused whole. The project is written back safely: the new file replaces the old one only
once it is complete, and the old one is kept beside it as "NAME (before importing a coding sheet).textlab".
The coder's workbook is never changed. Exit status: 0 imported (or nothing new), 2 could not.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
from pathlib import Path

BACKUP = "{stem} (before importing a coding sheet){suffix}"


def add_coding_import_command(commands) -> None:  # noqa: ANN001 — argparse's subparsers
    sub = commands.add_parser("coding-import", help="read a filled-in coding sheet back into the project")
    sub.add_argument("project", help="the .textlab project the sheet was written from")
    sub.add_argument("sheet", help="the coding sheet (.xlsx) the coder filled in")


def coding_import_command(args: argparse.Namespace, progress) -> int:  # noqa: ANN001 — a ProgressPrinter
    from guiapp.cli.console import safe

    report, backup, saved = _import(args, progress)
    progress.clear()
    for line in report.lines():
        print(safe(line))
    if saved:
        print(safe(f"Saved {args.project} (the project as it was before: {backup.name})"))
    return 0


def backup_path(project: Path) -> Path:
    return project.with_name(BACKUP.format(stem=project.stem, suffix=project.suffix))


def _import(args: argparse.Namespace, progress):  # noqa: ANN001, ANN202 — (ImportReport, backup path, saved)
    from guiapp.core.coding.sheet_exchange import import_sheet
    from guiapp.core.errors import UserError
    from guiapp.core.project.opening import open_project
    from guiapp.core.project.saving import save_project

    path, sheet = Path(args.project), Path(args.sheet)
    if not sheet.is_file():
        raise UserError(f"There is no coding sheet at {sheet}.", "Name the .xlsx file the coder sent back.")
    if path.suffix.lower() != ".textlab":
        raise UserError(f"{path.name} is not a TextLab project.", "Name the .textlab project the sheet came from.")
    with tempfile.TemporaryDirectory(prefix="textlab-import-") as models:
        project = open_project(path, extract_models_to=models)  # its models travel into the saved file
        report = import_sheet(project.codings, sheet, project.table, project.spec.data.mapping, project.codebook,
                              project.coding_texts)
        backup = backup_path(path)
        saved = bool(report.added or report.coder_joined or report.team_created)
        if saved:
            try:
                shutil.copy2(path, backup)
            except OSError as error:
                raise UserError(f"TextLab cannot keep a copy of the project beside it ({backup.name}), so it "
                                "left the project as it was.", "Check that you may write to the project's folder.",
                                str(error)) from error
            save_project(path, project, on_event=progress)
    return report, backup, saved
