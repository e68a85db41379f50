"""``textlab learning-curve SPEC --out DIR``: how a saved study's models do with more coded texts.

Trains every model of the study on nested random subsets of its training texts (default 500,
1,000, 2,000, 5,000 and 10,000, 5 draws each; ``core/experiment/curves/learning_curves.py``) and scores
each on the study's test texts. Prints a table (mean and min–max macro-F1 per model and size) and a
plain reading (is the curve still rising; which categories would gain most), and writes
``learning-curve.json`` and ``learning-curve.csv`` into DIR, which appears whole or not at all, like
``textlab run``'s folder (``core/experiment/results/output_folder.py``); a DIR holding an earlier curve
(or run) is replaced as a whole; one holding files TextLab did not write is refused. Exit status: 0 every curve was
drawn, 1 some model failed, 2 the curve could not be drawn or written, 130 interrupted.

A language model with your codebook learns nothing from the coded texts: its curve is over the
examples per category shown in its prompt (0 = none, 1, 2, 4, 8 …), printed as a table of its own
with those numbers as columns, never among the training-text sizes.
"""

from __future__ import annotations

import argparse


def add_learning_curve_command(commands) -> None:
    curve = commands.add_parser("learning-curve", help="how the study's models do with more or fewer coded texts")
    curve.add_argument("spec", help="the study file, e.g. study.toml (see docs/spec-format.md)")
    curve.add_argument("--out", required=True, help="a new folder for learning-curve.json and learning-curve.csv")
    curve.add_argument("--sizes", type=int, nargs="+", metavar="N",
                       help="numbers of training texts (default: 500 1000 2000 5000 10000 below the number of "
                       "training texts, plus all of them as the last point; with 2,200 training texts or fewer, "
                       "all of them and 3 or 4 halvings below, e.g. 80 160 320 639)")
    curve.add_argument("--repeats", type=int, default=5, help="random draws of the subsets per size (default: 5)")
    curve.add_argument("--tune-per-size", action="store_true",
                       help="choose the setting for each size on its own subset (default: once, on 1,000 texts)")
    curve.add_argument("--tune-on", type=int, metavar="N",
                       help="choose the setting once on N texts of the first draw (default: 1,000, as in the paper)")
    curve.add_argument("--jobs", type=int, help="worker processes for the fits (default: one per CPU core)")
    curve.add_argument("--quiet", action="store_true", help="print only warnings, errors and the summary")


def learning_curve_command(args: argparse.Namespace, progress) -> int:
    from guiapp.cli.console import log_printer, stopped
    from guiapp.core.events import Cancelled
    from guiapp.core.experiment.curves.learning_curve_files import CURVE_CSV_NAME, CURVE_JSON_NAME, write_learning_curve
    from guiapp.core.experiment.curves.learning_curves import LearningCurveOptions, run_learning_curve
    from guiapp.core.experiment.results.output_folder import OutputFolder, cannot_write
    from guiapp.core.study.spec import ExperimentSpec

    on_event = log_printer(progress, args.quiet)

    options = LearningCurveOptions(sizes=tuple(args.sizes) if args.sizes else None, repeats=args.repeats,
                                   tune_per_size=args.tune_per_size, tuning_size=args.tune_on)
    out = OutputFolder(args.out)
    try:
        spec = ExperimentSpec.load(args.spec)
        with out:  # checked and locked before the work starts; written whole or not at all
            result = run_learning_curve(spec, on_event, options=options, spec_file=args.spec, n_jobs=args.jobs)
            write_learning_curve(result, out.partial)
            out.commit()
    except OSError as error:
        error = cannot_write(out.parent, error)
        return stopped(progress, f"{error.message} Nothing was written.\n{error.hint}", 2)
    except (Cancelled, KeyboardInterrupt):
        kept = f"\nThe earlier curve in {out.target} is unchanged." if out.target.is_dir() and not out.committed else ""
        return stopped(progress, "Stopped; no learning curve was written." + kept, 130)
    progress.clear()
    print(curve_table(result))
    print()
    print(curve_reading(result))
    print(f"\nWrote {out.target} ({CURVE_JSON_NAME}, {CURVE_CSV_NAME})")
    return 0 if all(model.ok for model in result.models) else 1


WIDTH = 21  # a column of the table: "0.572 (0.564–0.579)"


def curve_table(result) -> str:
    """Mean test macro-F1 and its min–max over the draws, per model (rows) and size (columns); the
    curves over examples per category (a language model with your codebook) in a table of their own."""
    draws = f"{result.repeats} draw{'s' if result.repeats != 1 else ''}"
    lines: list[str] = []
    training = [model for model in result.models if not model.over_examples]
    examples = [model for model in result.models if model.over_examples]
    if training or not examples:
        title = f"Test macro-F1 on {result.n_test:,} test texts: mean (min–max over {draws}); settings chosen "
        lines += [title + f"{_tuning_words(result)}.", ""]
        lines += _rows(training, list(result.sizes), [f"{size:,} texts" for size in result.sizes])
    if examples:
        ks = sorted({point.size for model in examples for point in model.points})
        if lines:
            lines.append("")
        lines += [f"Language models with your codebook learn nothing from the coded texts; their test macro-F1 on the "
                  f"same {result.n_test:,} test texts per number of examples per category in the prompt (0 = none), "
                  f"mean (min–max over {draws} of the examples):", ""]
        lines += _rows(examples, ks, ["no examples" if k == 0 else f"{k:,} per category" for k in ks])
    return "\n".join(lines)


def _rows(models: list, sizes: list[int], headers: list[str]) -> list[str]:
    header = f"{'model':34}" + "".join(f"{title:>{WIDTH}}" for title in headers)
    lines = [header, "-" * len(header)]
    for model in models:
        if not model.ok:
            lines.append(f"{model.name[:34]:34} failed: {model.message}")
            continue
        cells = {row.size: (f"{row.mean:.3f}" if row.low == row.high and row.size == 0 else
                            f"{row.mean:.3f} ({row.low:.3f}–{row.high:.3f})") for row in model.summary()}
        lines.append(f"{model.name[:34]:34}" + "".join(f"{cells.get(size, '—'):>{WIDTH}}" for size in sizes))
    return lines


def curve_reading(result) -> str:
    from guiapp.core.experiment.curves.learning_curve_reading import read_curves

    return "\n".join(reading.words for reading in read_curves(result))


def _tuning_words(result) -> str:
    if result.tuning == "per size":
        return "for each size on its subset of the first draw"
    sizes = {choice.tuned_on_size for model in result.models for choice in model.tuning}
    return f"once on the {min(sizes):,}-text subset of the first draw" if sizes else "once"
