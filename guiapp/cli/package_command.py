"""``textlab package PROJECT --out FOLDER [--no-texts] [--zip]``: write a project's replication
package — the study file, the data (or with ``--no-texts`` only its fingerprint, rows and columns),
the codebook and codings, the results and their exports, the trained models, the environment, the
report card and a README for the reviewer — as a folder, or with ``--zip`` as FOLDER.zip.
PDFs (the methods appendix, the report card) are printed with Qt without a window where Qt is
installed; otherwise the package holds their web pages only, and the command says so.
Exit status: 0 written, 2 could not write it (the message says why), 130 interrupted.
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

from guiapp.cli.console import ProgressPrinter, safe, stopped


def add_package_command(commands) -> None:  # noqa: ANN001 — argparse's sub-parsers
    package = commands.add_parser("package", help="write a project's replication package for a reviewer")
    package.add_argument("project", help="the .textlab project of a study that was run")
    package.add_argument("--out", required=True, help="the package's folder (made; it must be new or empty)")
    package.add_argument("--no-texts", action="store_true",
                         help="the texts may not be shared: leave the data out and record only its SHA-256, rows "
                              "and columns")
    package.add_argument("--zip", action="store_true", help="write one .zip file instead of a folder")
    package.add_argument("--replace", action="store_true", help="replace an earlier replication package at --out")


def package_command(args: argparse.Namespace, progress: ProgressPrinter) -> int:
    from guiapp.core.events import Cancelled, Progress
    from guiapp.core.project.opening import open_project
    from guiapp.core.replication.package import write_package

    progress(Progress(None, f"Opening {args.project}"))
    printer, why_not = pdf_printer()
    try:
        with tempfile.TemporaryDirectory(prefix="textlab-package-models-") as models:
            project = open_project(args.project, extract_models_to=models)
            written = write_package(project, Path(args.out), share_texts=not args.no_texts, as_zip=args.zip,
                                    pdf_printer=printer, on_event=progress, replace=args.replace)
    except (Cancelled, KeyboardInterrupt):
        return stopped(progress, "Stopped; no package was written.", 130)
    progress.clear()
    print(safe(f"Wrote the replication package {written}"))
    if why_not:
        print(safe(f"No PDFs: {why_not} The package holds the web pages (HTML) instead."))
    print("A reviewer runs, in the package's folder:  textlab verify .   and   textlab replicate . --out rerun")
    return 0


def pdf_printer():  # noqa: ANN201 — (the printer or None, why there is none)
    """Qt's PDF printer, running without a window; (None, the reason) where Qt cannot be loaded."""
    try:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # printing needs no screen
        from PySide6.QtWidgets import QApplication

        from guiapp.ui.steps.results.results_export import print_pdf
    except ImportError as error:
        return None, f"Qt could not be loaded ({error})."
    if QApplication.instance() is None:  # a widgets application, so that a window can still be made in this process
        try:
            pdf_printer.application = QApplication(["textlab"])  # kept alive while printing
        except RuntimeError as error:
            return None, f"Qt could not start ({error})."
    return print_pdf, ""
