"""``textlab coding-sheet PROJECT --coder NAME --out sheet.xlsx``: a coding sheet for one coder who
codes without TextLab, in Excel or LibreOffice (``core/coding/sheet_exchange.py``).

The sheet holds the texts the team's draw gave the coder that they have not coded yet, or, without a
draw, the texts no one has coded (``--texts N``: at most N); the codebook is on its own sheet and the
categories are a drop-down. ``--second-file`` takes the texts of the project's second file of texts.
The project is only read, never written. Read the filled-in sheet back with ``textlab
coding-import``. Exit status: 0 written, 2 could not (the message says why).
"""

from __future__ import annotations

import argparse
from pathlib import Path


def add_coding_sheet_command(commands) -> None:  # noqa: ANN001 — argparse's subparsers
    sub = commands.add_parser("coding-sheet", help="write a coding sheet (.xlsx) for a coder who codes in Excel")
    sub.add_argument("project", help="a .textlab project with a codebook")
    sub.add_argument("--coder", required=True, help="the coder the sheet is for, e.g. their name or initials")
    sub.add_argument("--out", required=True, help="the workbook to write, e.g. sheet.xlsx")
    sub.add_argument("--texts", type=int, metavar="N", help="at most N texts (default: all the coder's texts)")
    sub.add_argument("--second-file", action="store_true",
                     help="the texts of the project's second file of texts to code (default: the table's rows)")
    sub.add_argument("--overwrite", action="store_true", help="replace the output file if it exists")


def coding_sheet_command(args: argparse.Namespace, progress) -> int:  # noqa: ANN001 — a ProgressPrinter
    from guiapp.cli.console import safe

    written, chosen = _write(args)
    progress.clear()
    print(safe(f"The coding sheet holds {chosen.sentence()}"))
    print(safe(f"Wrote {written}"))
    return 0


def _write(args: argparse.Namespace):  # noqa: ANN202 — (path, SheetTexts)
    from guiapp.core.coding.sheet_exchange import SECOND_FILE, TABLE, write_sheet_for
    from guiapp.core.errors import UserError
    from guiapp.core.project.opening import open_project

    out = Path(args.out)
    if out.suffix.lower() != ".xlsx":
        raise UserError(f"A coding sheet is an Excel workbook, so its name ends in .xlsx, not “{out.suffix or out.name}”.",
                        f"For example: --out {out.stem or 'sheet'}.xlsx")
    path = Path(args.project)
    if out.exists() and not args.overwrite:
        raise UserError(f"{out} already exists.", "Choose another name, or add --overwrite to replace it.")
    if out.resolve() == path.resolve():
        raise UserError("The coding sheet cannot replace the project itself.", "Choose another name for the sheet.")
    project = open_project(path, extract_models_to=None)  # only read
    return write_sheet_for(out, project.codings, project.table, project.spec.data.mapping, project.codebook,
                           args.coder, project.coding_texts, source=SECOND_FILE if args.second_file else TABLE,
                           limit=args.texts)
