"""``textlab run SPEC --out DIR``: run a saved study without the app.

Prints what happens (log lines, and a progress line on a terminal), writes ``DIR/results.json``
and ``DIR/predictions.csv`` only when the whole study has finished, and ends with a table of the
models, best first. Exit status: 0 all models ran, 1 some failed, 2 the study could not run,
130 interrupted.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def add_run_command(commands) -> None:
    run = commands.add_parser("run", help="run a saved study (.toml/.json spec) and write its results")
    run.add_argument("spec", help="the study file, e.g. study.toml (see docs/spec-format.md)")
    run.add_argument("--out", required=True, help="folder for results.json and predictions.csv")
    run.add_argument("--jobs", type=int, help="worker processes for tuning (default: one per CPU core)")
    run.add_argument("--quiet", action="store_true", help="print only warnings, errors and the summary")


def run_command(args: argparse.Namespace, progress) -> int:
    from guiapp.cli.console import stopped
    from guiapp.core.errors import UserError
    from guiapp.core.events import Cancelled, Log
    from guiapp.core.experiment.result_files import write_results
    from guiapp.core.experiment.runner import run_experiment
    from guiapp.core.study.spec import ExperimentSpec

    def on_event(event) -> None:
        if isinstance(event, Log) and event.level == "info" and not args.quiet:
            progress.clear()
            print(event.message, file=sys.stderr)
        else:
            progress(event)

    try:
        spec = ExperimentSpec.load(args.spec)
        result = run_experiment(
            spec, on_event, spec_file=args.spec, n_jobs=args.jobs, artefacts_dir=Path(args.out) / "models"
        )
        paths = write_results(result, args.out)
    except UserError as error:
        return stopped(progress, f"{error.message}\n{error.hint}", 2)
    except (Cancelled, KeyboardInterrupt):
        return stopped(progress, "Stopped; no results were written.", 130)
    progress.clear()
    print(summary_table(result))
    print("Wrote " + " and ".join(str(path) for path in paths))
    return 0 if all(model.ok for model in result.models) else 1


def summary_table(result) -> str:
    from guiapp.core.models.conventional import describe_params

    lines = [f"{result.split['description']}; {len(result.categories)} categories", ""]
    header = f"{'model':34} {'macro-F1':>8}  {'95 % interval':>13}  {'CV mean':>7}  {'time':>7}  chosen setting"
    lines += [header, "-" * len(header)]
    for model in result.ranked():
        low, high = model.test.macro_f1_ci or (float("nan"), float("nan"))
        lines.append(
            f"{model.name[:34]:34} {model.test.macro_f1:8.3f}  {low:6.3f}–{high:6.3f}  {model.cv_mean:7.3f}  "
            f"{model.seconds.get('total', 0):6.1f}s  {describe_params(model.classifier, model.chosen_params)}"
        )
    for model in result.models:
        if not model.ok:
            lines.append(f"{model.name[:34]:34} failed: {model.message}")
    return "\n".join(lines)
