"""``textlab findings RESULTS|PROJECT new.xlsx --out findings.xlsx``: the share of each category in a
corpus a study's model predicts — overall and ``--by`` a column, with the differences between its
groups — with intervals that carry the model's mistakes on the study's test texts; ``--regress
"economy ~ party + year"`` adds a regression of a category on columns. The same engine as the
window's Findings step.

``textlab findings PROJECT --out findings.xlsx`` (no corpus file) measures the project's own table,
its coded and uncoded texts, as the Findings step's "Your table" does: a quick model cross-fitted on
the codings (the file's and the Coding step's, those drawn weighted by their chance);
``--drawn-per-group`` with ``--by`` says the file's codings were drawn at random within each group.

The differences compare each group with the largest one; ``--compare-with 2015`` compares each with
that group instead, ``--all-pairs`` gives every pair of groups (11 years: 55 rows per category).

The study's table (for the test texts' other columns, which ``--by`` and ``--regress`` need) is the
project's own, or — for a results folder — the data file the study read, when it is still there.
Exit status: 0 written, 2 could not estimate (the message says why), 130 interrupted.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from guiapp.cli.console import ProgressPrinter, stopped


def add_findings_command(commands) -> None:  # noqa: ANN001
    findings = commands.add_parser(
        "findings", help="the share of each category in new texts, with intervals that carry the model's mistakes")
    findings.add_argument("results", help="the results folder written by `textlab run … --out FOLDER`, or a .textlab project")
    findings.add_argument("file", nargs="?", help="the corpus: a table of texts (.xlsx, .ods, .csv, .parquet …); "
                          "leave out with a project to measure its own table, coded and uncoded texts")
    findings.add_argument("--out", required=True, help="where to write the findings: .xlsx (every table) or .csv (the shares)")
    findings.add_argument("--model", help="a model's name as in the results (default: the best)")
    findings.add_argument("--by", help="a column to give the shares per value of (party, year, outlet …)")
    findings.add_argument("--compare-with", metavar="GROUP",
                          help="with --by: compare each group with this one (a value of the column, e.g. 2015); "
                               "default: the largest group")
    findings.add_argument("--all-pairs", action="store_true",
                          help="with --by: give the difference of every pair of groups instead of each group against "
                               "one (many rows: 11 groups give 55 per category)")
    findings.add_argument("--regress", help='a regression of a category on columns, e.g. "economy ~ party + year"')
    findings.add_argument("--linear", action="store_true", help="a linear regression (default: logistic)")
    findings.add_argument("--sheet", help="the sheet of a workbook (default: the first)")
    findings.add_argument("--text", action="append", help="the text column of the corpus (repeat to join several)")
    findings.add_argument("--drawn-per-group", action="store_true",
                          help="with --by, measuring a project's own table: the coded texts were drawn at random "
                               "within each group of that column")
    findings.add_argument("--overwrite", action="store_true", help="replace the output file if it exists")


def findings_command(args: argparse.Namespace, progress: ProgressPrinter) -> int:
    from guiapp.core.events import Cancelled

    try:
        written, findings = _findings(args, progress)
    except (Cancelled, KeyboardInterrupt):
        return stopped(progress, "Stopped; nothing was written.", 130)
    progress.clear()
    for share in findings.overall():
        print(f"{share.category}: {100 * share.estimate:.1f} % [{100 * share.low:.1f}, {100 * share.high:.1f}]"
              f"  (counting the model's answers: {100 * share.naive:.1f} %)")
    if findings.differences:
        print(f"Differences: {findings.comparison_words()}.")
    for difference in findings.differences:
        print(f"{difference.category} — {difference.sentence()}")
    print(findings.assumption, file=sys.stderr)
    for warning in findings.warnings:
        print(f"Warning: {warning}", file=sys.stderr)
    print(f"Wrote {written}")
    return 0


def _findings(args: argparse.Namespace, on_event):  # noqa: ANN001, ANN202
    from guiapp.core.errors import UserError
    from guiapp.core.events import sub_progress
    from guiapp.core.export.findings_export import FORMATS, write_findings
    from guiapp.core.export.prediction_files import check_output_name
    from guiapp.core.findings.from_study import findings_inputs
    from guiapp.core.predict.new_texts import predict_new_texts, texts_of
    from guiapp.core.study.mapping import ColumnMapping
    from guiapp.core.tables.reader import read_table

    out = Path(args.out)
    check_output_name(out, FORMATS, ".xlsx (Excel) or .csv")
    if out.exists() and not args.overwrite:
        raise UserError(f"{out} already exists.", "Choose another name, or add --overwrite to replace it.")
    compare = _comparison(args)
    if args.file is None:
        inputs = _own_table(args.results, on_event)
        findings = inputs.estimate(args.by, stratified=args.drawn_per_group, **compare,
                                   on_event=sub_progress(on_event, 0.8, 0.95))
        regression = inputs.regress(args.regress, "linear" if args.linear else "logistic") if args.regress else None
        return write_findings(out, findings, regression, overwrite=args.overwrite), findings
    if args.drawn_per_group:
        raise UserError("--drawn-per-group is for a project's own table.",
                        "Leave out the corpus file to measure the project's table, or leave out --drawn-per-group.")
    result, model, study_table, test_table = _study(args.results, args.model)
    corpus = read_table(args.file, sheet=args.sheet, on_event=sub_progress(on_event, 0.0, 0.1)).frame
    study_columns = list(result.study_source.mapping.text_columns)
    columns = args.text or [c for c in study_columns if c in corpus.columns]
    if not columns or any(c not in corpus.columns for c in columns):
        raise UserError(f"The corpus has none of the study's text columns ({', '.join(study_columns) or 'none'}).",
                        "Name its text column with --text COLUMN. Its columns: " + ", ".join(map(str, corpus.columns)))
    predictions = predict_new_texts([model], texts_of(corpus, ColumnMapping(text_columns=columns)),
                                    on_event=sub_progress(on_event, 0.1, 0.8))
    inputs = findings_inputs(result, model.name, predictions, corpus, study_table, test_table)
    findings = inputs.estimate(args.by, **compare, on_event=sub_progress(on_event, 0.8, 0.95))
    regression = inputs.regress(args.regress, "linear" if args.linear else "logistic") if args.regress else None
    written = write_findings(out, findings, regression, overwrite=args.overwrite, protected=[args.file])
    return written, findings


def _comparison(args: argparse.Namespace) -> dict:
    """``--compare-with`` and ``--all-pairs`` as ``estimate``'s options, checked."""
    from guiapp.core.errors import UserError

    if args.compare_with is not None and args.all_pairs:
        raise UserError("--compare-with and --all-pairs ask for two different comparisons.",
                        "Keep --compare-with GROUP to compare each group with one, or --all-pairs for every pair.")
    if (args.compare_with is not None or args.all_pairs) and not args.by:
        option = "--all-pairs" if args.all_pairs else "--compare-with"
        raise UserError(f"{option} compares groups, and no column of groups is named.",
                        f"Add --by COLUMN (party, year …) to give the shares per group, or leave out {option}.")
    if args.compare_with is not None and not args.compare_with.strip():
        raise UserError("--compare-with names no group.", "Name one of the column's values, e.g. --compare-with 2015.")
    return {"reference": args.compare_with, "all_pairs": args.all_pairs}


def _own_table(project_path: str, on_event):  # noqa: ANN001, ANN202 — TableFindingsInputs
    """The project's table with its codings, cross-fitted by the quick model."""
    from guiapp.core.errors import UserError
    from guiapp.core.events import sub_progress
    from guiapp.core.findings.from_table import table_findings_inputs
    from guiapp.core.project.opening import open_project

    if Path(project_path).suffix.lower() != ".textlab":
        raise UserError("Without a corpus file, TextLab measures a project's own table, and this is no project.",
                        "Name a .textlab project, or add the table of texts to measure after the results folder.")
    project = open_project(project_path, extract_models_to=None)
    data = project.spec.data
    return table_findings_inputs(project.table, data.mapping, project.codings, categories=project.codebook.names(),
                                 fixes=data.category_fixes, on_event=sub_progress(on_event, 0.05, 0.8))


def _study(results: str, name: str | None):  # noqa: ANN202
    """(result, the opened model, the study's table or None, its test table or None)."""
    from guiapp.core.errors import UserError
    from guiapp.core.predict.saved_results import (
        choose_models,
        open_models,
        read_results,
    )

    if Path(results).suffix.lower() == ".textlab":
        from guiapp.core import locations
        from guiapp.core.project.opening import open_project

        project = open_project(results, extract_models_to=locations.cache_dir() / "projects")
        if project.result is None:
            raise UserError("This project has no results yet, so there are no findings to give.",
                            "Open it in TextLab, run the study, save the project, and try again.")
        models = open_models(lambda model: project.model_folder(model.name),
                             choose_models(project.result, [name] if name else None))
        return project.result, models[0], project.table, project.test_table
    result = read_results(results)
    models = open_models(results, choose_models(result, [name] if name else None))
    return result, models[0], _read_if_there(result.study_source.source, result.study_source.sheet), \
        _read_if_there(result.study_source.test_source, result.study_source.test_sheet)


def _read_if_there(path: str, sheet: str | None):  # noqa: ANN202
    from guiapp.core.tables.reader import read_table

    if not path or not Path(path).is_file():
        return None
    return read_table(path, sheet=sheet).frame
