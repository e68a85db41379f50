"""``textlab coding-export PROJECT --out codings.xlsx``: the codings made in TextLab's Coding step,
written beside the study's table as an Excel workbook or a CSV file (by the ending of ``--out``;
``core/export/codings_export.py``).

The project keeps the table, the codebook and every coding; the file the texts came from is never
written to (nor the project itself). ``--only-coded`` writes only the texts coded or flagged in
TextLab. Prints how many texts were coded, by whom, and how many codings changed the file's.
Exit status: 0 written, 2 could not (the message says why).
"""

from __future__ import annotations

import argparse
from pathlib import Path


def add_coding_export_command(commands) -> None:
    sub = commands.add_parser("coding-export", help="write the texts coded in TextLab to an Excel or CSV file")
    sub.add_argument("project", help="a .textlab project that holds codings")
    sub.add_argument("--out", required=True, help="the file to write: codings.xlsx (Excel) or codings.csv")
    sub.add_argument("--only-coded", action="store_true",
                     help="only the texts coded or flagged in TextLab (default: every text of the table)")
    sub.add_argument("--overwrite", action="store_true", help="replace the output file if it exists")


def coding_export_command(args: argparse.Namespace, progress) -> int:
    from guiapp.cli.console import safe

    written, summary = _export(args, progress)
    progress.clear()
    print(safe(summary))
    print(safe(f"Wrote {written}"))
    return 0


def _export(args: argparse.Namespace, progress) -> tuple[Path, str]:
    from guiapp.core.errors import UserError
    from guiapp.core.export.codings_export import check_output_name, write_codings
    from guiapp.core.project.opening import open_project

    check_output_name(args.out)
    path = Path(args.project)
    project = open_project(path, extract_models_to=None)  # the models are not needed here
    log = project.codings
    if not len(log):
        raise UserError(f"The project {path.name} holds no codings made in TextLab.",
                        "Code texts in its Coding step, save the project, and try again.")
    written = write_codings(args.out, project.table, project.spec.data.mapping, log, codebook=project.codebook,
                            coding_texts=project.coding_texts, only_coded=args.only_coded,
                            overwrite=args.overwrite, protected=_protected(path, project), on_event=progress)
    return written, _summary(log)


def _protected(path: Path, project) -> list[Path]:
    """The project and the files its texts came from (where the study names them): never written to."""
    names = [project.spec.data.source, project.spec.data.test_source]
    places = [path]
    for name in filter(None, names):
        named = Path(name).expanduser()
        places += [named] if named.is_absolute() else [path.parent / named, Path.cwd() / named]
    return places


def _summary(log) -> str:
    coded = len(log.latest("table")) + len(log.latest("second file"))
    changed = len(log.changed("table")) + len(log.changed("second file"))
    flagged = len(log.flagged("table")) + len(log.flagged("second file"))
    skipped = len(log.skipped("table")) + len(log.skipped("second file"))
    coders = ", ".join(coder or "(no name)" for coder in log.coders())
    parts = [f"{coded:,} text{'s' if coded != 1 else ''} coded in TextLab by {coders}"]
    parts += [f"{n:,} {what}" for n, what in ((changed, "changed a coding the text had"), (flagged, "flagged"),
                                               (skipped, "skipped")) if n]
    counts = ", ".join(f"{category}: {n:,}" for category, n in log.counts().items())
    return "; ".join(parts) + "." + (f"\nPer category: {counts}." if counts else "")
