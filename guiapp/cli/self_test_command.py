"""``textlab self-test``: check that every bundled file loads and that a tiny study runs.

Prints one line per check as it finishes ("✓ … — 0.8 s" or "✗ …: why") and a verdict. Exit
status: 0 every check passed; 1 something is broken (named on the last line); 130 stopped.
``--quick`` checks the bundled files only; ``--json`` prints the whole report as JSON instead.
"""

from __future__ import annotations

import argparse
import json
import sys

from guiapp.cli.console import ProgressPrinter, stopped

PASSED, BROKEN, STOPPED = 0, 1, 130
EXIT_CODES = """exit status:
  0    every check passed
  1    something is broken: the failed checks are named
  130  stopped"""


def add_self_test_command(commands) -> None:
    command = commands.add_parser(
        "self-test", help="check that the bundled files load and a tiny study runs",
        description="Check this installation: load the bundled Transformer, word vectors and example data, "
                    "then run a tiny study (naive Bayes, and two fine-tuning steps).",
        epilog=EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    command.add_argument("--quick", action="store_true", help="check the bundled files only, run no study")
    command.add_argument("--json", action="store_true", help="print the report as JSON")


def self_test_command(args: argparse.Namespace, progress: ProgressPrinter) -> int:
    import os

    from guiapp.core.events import Cancelled
    from guiapp.core.self_test import run_self_test

    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # the self-test never downloads anything
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

    def show(check) -> None:
        if not args.json:
            progress.clear()
            print(check.line(), flush=True)

    try:
        report = run_self_test(quick=args.quick, on_event=_quiet(progress), on_check=show)
    except (Cancelled, KeyboardInterrupt):
        return stopped(progress, "Self-test stopped.", STOPPED)
    progress.clear()
    if args.json:
        json.dump(report.to_dict(), sys.stdout, ensure_ascii=False, indent=2)
        print()
    else:
        print(report.verdict())
    return PASSED if report.ok else BROKEN


def _quiet(progress: ProgressPrinter):
    """Progress on the terminal's status line; the engine's log lines are not the self-test's output."""
    from guiapp.core.events import Progress

    def on_event(event) -> None:
        if isinstance(event, Progress):
            progress(event)

    return on_event
