"""Command line: ``textlab`` starts the app; ``textlab health FILE`` prints the data-health report;
``textlab run SPEC --out DIR`` runs a saved study headless (``run_command.py``); ``textlab predict
RESULTS NEW --out FILE`` applies its trained models to new texts (``predict_command.py``); ``textlab
self-test`` checks the installation (``self_test_command.py``); ``textlab learning-curve SPEC --out DIR``
draws the study's learning curves (``learning_curve_command.py``); ``textlab subgroups RESULTS --column
NAME`` says whether a model makes more mistakes on some groups of texts (``subgroups_command.py``);
``textlab agreement RESULTS`` holds each model against the coding and the coders (``agreement_command.py``);
``textlab cluster-script SPEC --out FOLDER`` writes a folder that runs the study on a SLURM cluster
(``cluster_script_command.py``).

The command line and the GUI share one engine (``guiapp.core``): whatever the GUI shows about a
table, ``textlab health`` prints from the same functions.
"""

from __future__ import annotations

import argparse
import os
import sys

from guiapp import APP_NAME, __version__
from guiapp.cli.agreement_command import add_agreement_command, agreement_command
from guiapp.cli.cluster_script_command import add_cluster_script_command, cluster_script_command
from guiapp.cli.console import ProgressPrinter
from guiapp.cli.explain_command import add_explain_command, explain_command
from guiapp.cli.health_command import add_health_command, health_command
from guiapp.cli.learning_curve_command import add_learning_curve_command, learning_curve_command
from guiapp.cli.predict_command import add_predict_command, predict_command
from guiapp.cli.run_command import add_run_command, run_command
from guiapp.cli.self_test_command import add_self_test_command, self_test_command
from guiapp.cli.subgroups_command import add_subgroups_command, subgroups_command


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

    add_health_command(commands)
    add_run_command(commands)
    add_predict_command(commands)
    add_explain_command(commands)
    add_self_test_command(commands)
    add_learning_curve_command(commands)
    add_subgroups_command(commands)
    add_agreement_command(commands)
    add_cluster_script_command(commands)
    return parser


COMMANDS = ("gui", "health", "run", "predict", "explain", "self-test", "learning-curve", "subgroups", "agreement",
            "cluster-script")


def _with_gui_for_a_file(argv: list[str]) -> list[str]:
    """``textlab study.textlab`` (what a file manager runs on a double-click) means ``textlab gui
    study.textlab``: a first argument that is an existing file, not a command, opens it in the app."""
    if argv and argv[0] not in COMMANDS and not argv[0].startswith("-") and os.path.isfile(argv[0]):
        return ["gui", *argv]
    return argv


STOPPED = 130  # the exit status of a command stopped with Ctrl-C, as shells report it


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
    if args.command in ("health", "run", "predict", "explain", "self-test", "learning-curve", "subgroups", "agreement",
                        "cluster-script"):
        try:
            if args.command == "run":
                return run_command(args, ProgressPrinter())
            if args.command == "predict":
                return predict_command(args, ProgressPrinter())
            if args.command == "explain":
                return explain_command(args, ProgressPrinter())
            if args.command == "self-test":
                return self_test_command(args, ProgressPrinter())
            if args.command == "learning-curve":
                return learning_curve_command(args, ProgressPrinter())
            if args.command == "subgroups":
                return subgroups_command(args, ProgressPrinter())
            if args.command == "agreement":
                return agreement_command(args, ProgressPrinter())
            if args.command == "cluster-script":
                return cluster_script_command(args, ProgressPrinter())
            return health_command(args, ProgressPrinter())
        except BrokenPipeError:  # output piped into `head` and the like: stop quietly
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 0
    return 2


def main_gui() -> int:
    from guiapp.ui.app import run_app

    files = [arg for arg in sys.argv[1:] if os.path.isfile(arg)]
    return run_app(files[0] if files else None)
