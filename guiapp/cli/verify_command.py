"""``textlab verify PACKAGE``: check a replication package (a folder or a .zip) without rerunning it —
every file there and unchanged by its SHA-256, nothing added, every file its README names present,
its manifest whole. Prints what it found in words.
Exit status: 0 the package is whole, 1 problems found (listed), 2 could not check (not a package,
unreadable; the message says why).
"""

from __future__ import annotations

import argparse

from guiapp.cli.console import ProgressPrinter, safe

PROBLEMS_FOUND = 1


def add_verify_command(commands) -> None:  # noqa: ANN001 — argparse's sub-parsers
    verify = commands.add_parser("verify", help="check a replication package's files without rerunning it")
    verify.add_argument("package", help="the replication package: its folder, or the .zip file")


def verify_command(args: argparse.Namespace, progress: ProgressPrinter) -> int:
    from guiapp.core.events import Progress
    from guiapp.core.replication.verify import verify_package

    progress(Progress(None, f"Checking {args.package}"))
    report = verify_package(args.package)  # a UserError: exit status 2, printed by the entry point
    progress.clear()
    print(safe(report.text()))
    return 0 if report.ok else PROBLEMS_FOUND
