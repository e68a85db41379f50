"""``textlab replicate PACKAGE --out FOLDER``: rerun a study from its replication package and say, per
model and overall, whether the numbers came out the same.

Every file of the package is checked against its manifest before anything is opened; the data are
the package's own table, or the file given with ``--data`` (and ``--test-data``) when the texts were
not shared, checked by the SHA-256 of their content. The rerun's results are written to FOLDER as
``textlab run`` writes them. Prints a table per model (original and rerun macro-F1, the difference,
the share of test texts whose answer changed, the verdict) and an overall verdict in words.
Exit status: 0 identical or within the run-to-run spread, 1 different, 2 the package could not be
rerun (the message says why), 130 interrupted.
"""

from __future__ import annotations

import argparse
from pathlib import Path


def add_replicate_command(commands) -> None:
    replicate = commands.add_parser(
        "replicate", help="rerun a study from its replication package and compare the numbers")
    replicate.add_argument("package", help="the replication package: its folder, or the .zip file")
    replicate.add_argument("--out", required=True, help="folder for the rerun's results (results.json, "
                           "predictions.csv, models/); an older run's results there are replaced as a whole")
    replicate.add_argument("--data", help="the table of coded texts, when the package does not hold the texts "
                           "(any spreadsheet TextLab reads; its content must have the SHA-256 the package records)")
    replicate.add_argument("--test-data", help="the table of test texts, when the study had a separate one and the "
                           "package does not hold it")
    replicate.add_argument("--spread-seeds", type=int, default=2, metavar="N",
                           help="when a model's numbers moved, rerun it with N other seeds to measure how far "
                           "they move from run to run (default 2; 0 skips this)")
    replicate.add_argument("--jobs", type=int, help="worker processes for tuning (default: one per CPU core)")
    replicate.add_argument("--quiet", action="store_true", help="print only warnings, errors and the verdict")


def replicate_command(args: argparse.Namespace, progress) -> int:
    from guiapp.cli.console import log_printer, safe, stopped
    from guiapp.core.events import Cancelled
    from guiapp.core.replication.replicate import replicate

    on_event = log_printer(progress, args.quiet)

    try:
        replication = replicate(args.package, args.out, data=args.data, test_data=args.test_data,
                                spread_seeds=args.spread_seeds, n_jobs=args.jobs, on_event=on_event)
    except (Cancelled, KeyboardInterrupt):
        written = " (the rerun's results had been written to it)" if (Path(args.out) / "results.json").is_file() else ""
        return stopped(progress, f"Stopped before the verdict; see {args.out}{written}.", 130)
    progress.clear()
    print(safe(replication_table(replication)))
    return replication.exit_status


def replication_table(replication) -> str:
    """The table per model and the verdicts below it, as ``textlab replicate`` prints them."""
    lines = [f"Replication of “{replication.study_name or 'the study'}”: data {replication.data_from}; "
             f"the rerun's results are in {replication.out}.", ""]
    width = min(max([24, *(len(model.name) for model in replication.models)]), 50)
    header = f"{'model':{width}} {'original':>8} {'rerun':>8} {'difference':>10} {'answers changed':>15}  verdict"
    lines += [header, "-" * len(header)]
    for model in replication.models:
        name = model.name if len(model.name) <= width else model.name[:width - 1] + "…"
        lines.append(f"{name:{width}} {_number(model.original):>8} {_number(model.rerun):>8} "
                     f"{_signed(model.difference):>10} {_share(model):>15}  {model.verdict.kind}")
    lines.append("")
    for model in replication.models:
        lines.append(f"{model.name}: {model.verdict.sentence}")
    lines += [*replication.notes, "", replication.overall.sentence]
    return "\n".join(lines)


def _number(value) -> str:
    return "—" if value is None else f"{value:.3f}"


def _signed(value) -> str:
    return "—" if value is None else f"{value:+.3f}"


def _share(model) -> str:
    share = model.changed_share
    if share is None:
        return "—"
    return f"{share:.1%} ({model.answers_changed}/{model.answers_compared})"
