"""``textlab run SPEC --out DIR``: run a saved study without the app.

Where the pieces of work run: this computer by default, or as the study's ``[cluster]`` section or
``--scheduler ADDRESS`` / ``--cluster slurm --workers N …`` say (``core/compute/where.py``); SLURM
worker jobs started for the run are released when it ends, also on Ctrl-C.

Prints what happens (log lines, and a progress line on a terminal) and ends with a table of the
models, best first. DIR (``results.json``, ``predictions.csv``, ``models/``, the manifest) appears
whole when the whole study has finished, replacing an older run's results as a whole, or not at
all (``core/experiment/results/output_folder.py``, ``docs/results-folder.md``); whether it can be written
(writable, free space, no other run writing there) is checked before the study starts. Exit
status: 0 all models ran, 1 some failed, 2 the study could not run or its results could not be
written, 130 interrupted.
"""

from __future__ import annotations

import argparse
import math

from guiapp.cli.cluster_options import add_cluster_options


def add_run_command(commands) -> None:
    run = commands.add_parser("run", help="run a saved study (.toml/.json spec) and write its results")
    run.add_argument("spec", help="the study file, e.g. study.toml (see docs/spec-format.md)")
    run.add_argument("--out", required=True, help="folder for the results (results.json, predictions.csv, models/); "
                     "an older run's results there are replaced as a whole")
    run.add_argument("--jobs", type=int, help="worker processes for tuning (default: one per CPU core)")
    run.add_argument("--quiet", action="store_true", help="print only warnings, errors and the summary")
    add_cluster_options(run)


def run_command(args: argparse.Namespace, progress) -> int:
    from guiapp.cli.cluster_options import apply_cluster_options
    from guiapp.cli.console import log_printer, safe, stopped
    from guiapp.core.events import Cancelled
    from guiapp.core.experiment.results.output_folder import OutputFolder, cannot_write, space_needed
    from guiapp.core.experiment.results.result_files import write_results
    from guiapp.core.experiment import run_experiment
    from guiapp.core.study.spec import ExperimentSpec

    on_event = log_printer(progress, args.quiet)

    out = OutputFolder(args.out)
    try:
        spec = ExperimentSpec.load(args.spec)
        apply_cluster_options(spec, args)
        out.need_bytes = space_needed(spec)
        with out:  # checked and locked before the study starts; written whole or not at all
            result = run_experiment(spec, on_event, spec_file=args.spec, n_jobs=args.jobs,
                                    artefacts_dir=out.partial / "models")
            write_results(result, out.partial, moved_to=out.target)
            out.commit()
    except OSError as error:  # the drive filled up or went away while the results were written
        error = cannot_write(out.parent, error)
        return stopped(progress, f"{error.message} No results were written.\n{error.hint}", 2)
    except (Cancelled, KeyboardInterrupt):
        if out.committed:
            return stopped(progress, f"Stopped; the results had been written to {out.target}.", 130)
        kept = f"\nThe earlier results in {out.target} are unchanged." if out.target.is_dir() else ""
        return stopped(progress, "Stopped; no results were written." + kept, 130)
    progress.clear()
    print(safe(summary_table(result)))
    print(safe(f"Wrote {out.target} (results.json, predictions.csv, models/)"))
    unsaved = [model.name for model in result.models if model.ok and not model.artefact]
    if unsaved:  # never claim a model was kept when its folder could not be written
        print(safe(f"Not saved, so they cannot be applied to new texts: {'; '.join(unsaved)}."))
    return 0 if all(model.ok for model in result.models) else 1


def summary_table(result) -> str:
    lines = [f"{result.test_split.description}; {len(result.categories)} categories", ""]
    # wide enough for a language model's name ("Codebook language model (Qwen2.5-0.5B-Instruct)")
    width = min(max([34, *(len(model.name) for model in result.models)]), MAX_NAME_WIDTH)
    header = f"{'model':{width}} {'macro-F1':>8}  {'95 % interval':>13}  {'CV mean':>7}  {'time':>7}  chosen setting"
    lines += [header, "-" * len(header)]
    for model in result.ranked():
        # no interval when the study draws no bootstrap resamples ([evaluation] bootstrap_samples = 0)
        interval = _interval(model.test.macro_f1_ci)
        cv_mean = f"{model.cv_mean:7.3f}" if _finite(model.cv_mean) else f"{'—':>7}"
        lines.append(
            f"{_shortened(model.name, width):{width}} {model.test.macro_f1:8.3f}  {interval:>13}  {cv_mean}  "
            f"{model.total_seconds or 0:6.1f}s  {_chosen(model)}"
        )
    for model in result.models:
        if not model.ok:
            lines.append(f"{_shortened(model.name, width):{width}} failed: {model.message}")
    lines += _language_model_lines(result)
    if result.protocol.bootstrap_samples == 0:
        lines.append("No 95 % intervals: the study draws no bootstrap resamples ([evaluation] bootstrap_samples = 0).")
    return "\n".join(lines)


MAX_NAME_WIDTH = 60


def _shortened(name: str, width: int) -> str:
    return name if len(name) <= width else name[:width - 1] + "…"


def _chosen(model) -> str:
    """The chosen setting in words; a language model with your codebook: its examples and instruction."""
    from guiapp.core.experiment.results.describe import describe_chosen

    return describe_chosen(model)


def _language_model_lines(result) -> list[str]:
    """Below the table, for each language model with your codebook: what it is, where it ran, and how
    much its answers depend on the instruction's wording."""
    lines = []
    for model in result.ranked():
        if model.representation != "codebook_llm" or not isinstance(model.spec, dict):
            continue
        record = model.spec.get("record") if isinstance(model.spec.get("record"), dict) else {}
        where = "on a language-model server" if model.classifier == "server" else "inside TextLab"
        said = [f"{model.name}: a language model with your codebook, run {where}"]
        if record.get("texts_leave_computer"):
            said.append("the texts were sent to a server that is not this computer")
        sensitivity = model.spec.get("sensitivity")
        if isinstance(sensitivity, dict) and isinstance(sensitivity.get("sentence"), str):
            said.append(f"prompt sensitivity: {sensitivity['sentence']}")
        lines.append("; ".join(said) + ("" if said[-1].endswith(".") else "."))
    return [""] + lines if lines else []


def _finite(value) -> bool:
    return value is not None and math.isfinite(value)


def _interval(interval) -> str:
    """"0.712–0.801", or "none" when there is no interval (or no finite one)."""
    if not interval or not all(_finite(bound) for bound in interval):
        return "none"
    low, high = interval
    return f"{low:6.3f}–{high:6.3f}"
