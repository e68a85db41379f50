"""The command line: ``textlab`` with no command (or ``textlab gui [FILE]``, or a file alone, as a
file manager runs it on a double-click) starts the app; every other command runs headless.

Each headless command lives in its own module, ``<name>_command.py``: ``add_<name>_command`` declares
its options and help text, ``<name>_command(args, progress)`` runs it and gives the exit status its
module's docstring lists. ``COMMANDS`` is the one table that names them, in the order
``textlab --help`` shows them. What every command shares is here, once: a progress line on a
terminal, a ``UserError`` (a problem with the input, said in plain words) printed with its hint as
exit status 2, output piped into ``head`` ending quietly, and Ctrl-C stopping with status 130.

The command line and the GUI share one engine (``guiapp.core``): whatever the GUI shows about a
table, ``textlab health`` prints from the same functions.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from typing import NamedTuple

from guiapp import APP_NAME, __version__
from guiapp.cli.agreement_command import add_agreement_command, agreement_command
from guiapp.cli.cluster_script_command import add_cluster_script_command, cluster_script_command
from guiapp.cli.coding_export_command import add_coding_export_command, coding_export_command
from guiapp.cli.coding_import_command import add_coding_import_command, coding_import_command
from guiapp.cli.coding_sheet_command import add_coding_sheet_command, coding_sheet_command
from guiapp.cli.console import ProgressPrinter, stopped
from guiapp.cli.download_model_command import add_download_model_command, download_model_command
from guiapp.cli.explain_command import add_explain_command, explain_command
from guiapp.cli.findings_command import add_findings_command, findings_command
from guiapp.cli.health_command import add_health_command, health_command
from guiapp.cli.learning_curve_command import add_learning_curve_command, learning_curve_command
from guiapp.cli.package_command import add_package_command, package_command
from guiapp.cli.predict_command import add_predict_command, predict_command
from guiapp.cli.replicate_command import add_replicate_command, replicate_command
from guiapp.cli.run_command import add_run_command, run_command
from guiapp.cli.self_test_command import add_self_test_command, self_test_command
from guiapp.cli.subgroups_command import add_subgroups_command, subgroups_command
from guiapp.cli.verify_command import add_verify_command, verify_command


class Command(NamedTuple):
    """A headless command: how its options are declared, and how it runs (to an exit status)."""

    add: Callable[[argparse._SubParsersAction], None]
    run: Callable[[argparse.Namespace, ProgressPrinter], int]


COMMANDS: dict[str, Command] = {
    "health": Command(add_health_command, health_command),
    "run": Command(add_run_command, run_command),
    "predict": Command(add_predict_command, predict_command),
    "explain": Command(add_explain_command, explain_command),
    "findings": Command(add_findings_command, findings_command),
    "self-test": Command(add_self_test_command, self_test_command),
    "learning-curve": Command(add_learning_curve_command, learning_curve_command),
    "subgroups": Command(add_subgroups_command, subgroups_command),
    "agreement": Command(add_agreement_command, agreement_command),
    "coding-export": Command(add_coding_export_command, coding_export_command),
    "coding-sheet": Command(add_coding_sheet_command, coding_sheet_command),
    "coding-import": Command(add_coding_import_command, coding_import_command),
    "cluster-script": Command(add_cluster_script_command, cluster_script_command),
    "download-model": Command(add_download_model_command, download_model_command),
    "package": Command(add_package_command, package_command),
    "replicate": Command(add_replicate_command, replicate_command),
    "verify": Command(add_verify_command, verify_command),
}

STOPPED = 130  # the exit status of a command stopped with Ctrl-C, as shells report it
COULD_NOT = 2  # the exit status of a command whose input is wrong (the message says why)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="textlab",
        description=f"{APP_NAME}: compare machine-learning models against your own coding of texts.",
    )
    parser.add_argument("--version", action="version", version=f"{APP_NAME} {__version__}")
    commands = parser.add_subparsers(dest="command")

    gui = commands.add_parser("gui", help="start the app (the default)")
    gui.add_argument("file", nargs="?", help="a table to open right away")
    gui.add_argument("--example", action="store_true", help="open the example study")
    for command in COMMANDS.values():
        command.add(commands)
    return parser


def _with_gui_for_a_file(argv: list[str]) -> list[str]:
    """``textlab study.textlab`` (what a file manager runs on a double-click) means ``textlab gui
    study.textlab``: a first argument that is an existing file, not a command, opens it in the app."""
    if argv and argv[0] not in ("gui", *COMMANDS) and not argv[0].startswith("-") and os.path.isfile(argv[0]):
        return ["gui", *argv]
    return argv


def main(argv: list[str] | None = None) -> int:
    """Run the command of ``argv`` (default: the command line). Ctrl-C at any moment, also while
    the libraries of a command are still being loaded, stops with one line and status 130."""
    try:
        return _main(argv)
    except KeyboardInterrupt:
        print("\nStopped." if sys.stderr.isatty() else "Stopped.", file=sys.stderr)
        return STOPPED


def _main(argv: list[str] | None) -> int:
    args = _parser().parse_args(_with_gui_for_a_file(list(sys.argv[1:] if argv is None else argv)))
    if args.command in (None, "gui"):
        from guiapp.ui.app import run_app

        return run_app(getattr(args, "file", None), example=getattr(args, "example", False))
    return _run_headless(COMMANDS[args.command], args)


def _run_headless(command: Command, args: argparse.Namespace) -> int:
    from guiapp.core.errors import UserError

    progress = ProgressPrinter()
    try:
        return command.run(args, progress)
    except UserError as error:
        return stopped(progress, f"{error.message}\n{error.hint}", COULD_NOT)
    except BrokenPipeError:  # output piped into `head` and the like: stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def main_gui() -> int:
    from guiapp.ui.app import run_app

    files = [arg for arg in sys.argv[1:] if os.path.isfile(arg)]
    return run_app(files[0] if files else None)
