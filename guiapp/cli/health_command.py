"""``textlab health FILE`` or ``textlab health --spec STUDY``: the data-health report of a table.

With ``--spec`` the table, sheet, columns and folds come from the study file, and the study's
data-side checks run as well — the very ones ``textlab run`` makes before it fits anything
(``load_study_data``: the tables exist, the test file has the study's columns, there are two
categories or more, and every category has enough training texts for the study's folds) — and
the study's models are checked for what would stop them at once (``core/study/model_sources.py``:
no models, missing or unreadable word vectors, a language model's folder that is missing or
incomplete, a hub model not on this computer while offline). So "Ready" here means that ``run``
will not refuse the data and every model can start.

Exit status (``EXIT_CODES``, printed by ``textlab health --help``): 0 ready, perhaps with points
worth a look; 1 not ready (with --spec: ``run`` would refuse the data); 2 the table or the study
file cannot be read, or a named column is not in the table; 3 the table was read, but no text or
no category column could be guessed (it says why for each column: empty, one value, dates, numbers,
a different value in every row …; name them with --text and --category); 130 stopped. Names from
the table or the study file reach the terminal with control characters escaped (``console.safe``).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path

from guiapp.cli.console import ProgressPrinter, safe, stopped

READY, NOT_READY, UNREADABLE, NO_COLUMNS, STOPPED = 0, 1, 2, 3, 130
EXIT_CODES = """exit status:
  0    ready, perhaps with points worth a look
  1    not ready: problems to fix first (with --spec: `textlab run` would refuse the data)
  2    the table or the study file cannot be read, or a named column is not in the table
  3    the table was read, but no text or category column could be guessed (use --text, --category)
  130  stopped"""


def add_health_command(commands) -> None:
    health = commands.add_parser(
        "health", help="print the data-health report of a table",
        description="Print the data-health report of a table of coded texts, or of a saved study's table.",
        epilog=EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    health.add_argument("file", nargs="?", help="the table (.xlsx, .ods, .csv, .parquet …)")
    health.add_argument("--spec", help="read file, sheet, columns and folds from a saved study (.toml/.json) and make "
                                       "the same data checks as `textlab run`")
    health.add_argument("--sheet", help="the sheet of a workbook (default: the first)")
    health.add_argument("--text", action="append", help="text column (repeat to join several)")
    health.add_argument("--category", help="the column with your categories")
    health.add_argument("--id", dest="id_column", help="an ID column")
    health.add_argument("--split", help="a column with train/test values")
    health.add_argument("--folds", type=int, help="cross-validation folds (default: the study's with --spec, else 5)")
    health.add_argument("--json", action="store_true", help="print the report as JSON")
    health.add_argument("--save-spec", help="write the data part of a spec to this .toml/.json file")


def health_command(args: argparse.Namespace, progress: ProgressPrinter) -> int:
    from guiapp.core.events import Cancelled
    from guiapp.core.health.report import compute_health
    from guiapp.core.health.text_report import format_health_text
    from guiapp.core.study.mapping import suggest_mapping
    from guiapp.core.study.spec import DataSpec, ExperimentSpec
    from guiapp.core.study.study_data import read_study_table
    from guiapp.core.tables.reader import read_table

    try:
        notes: list[str] = []
        spec = None
        if args.spec:
            spec = ExperimentSpec.load(args.spec)
            mapping, folds = spec.data.mapping, args.folds or spec.evaluation.folds
        elif args.file:
            path, sheet, mapping, folds = Path(args.file), args.sheet, None, args.folds or 5
            if not path.exists():
                return stopped(progress, f"The file {path} does not exist.\nCheck the name and the folder.", UNREADABLE)
        else:
            print("Name a table to check, e.g.: textlab health data.xlsx", file=sys.stderr)
            return UNREADABLE
        if folds < 2:
            return stopped(progress, f"--folds must be 2 or more, not {folds}.", UNREADABLE)
        if spec is not None:  # the very reading `textlab run` does: path, sheet, checksum
            table = read_study_table(spec, args.spec, notes, on_event=progress)
            path = table.path
        else:
            table = read_table(path, sheet=sheet, on_event=progress)
        if mapping is None:
            mapping = suggest_mapping(table.frame)
            if args.text:
                mapping.text_columns = list(args.text)
            if args.category:
                mapping.category_column = args.category
            if args.id_column:
                mapping.id_column = args.id_column
            if args.split:
                mapping.split_column = args.split
            if not mapping.text_columns or mapping.category_column is None:
                progress.clear()
                print(safe(_mapping_text(table, mapping)), file=sys.stderr)
                return stopped(progress, _no_columns_text(table, mapping), NO_COLUMNS)
        study = {} if spec is None else {"fixes": spec.data.category_fixes, "seed": spec.seed, "test_share": (
            None if spec.data.test_source else spec.evaluation.test_share)}
        report = compute_health(table.frame, mapping, n_folds=folds, on_event=progress, **study)
        if spec is not None:
            report = _with_run_checks(report, spec, args.spec, table.frame, notes)
        progress.clear()
        if args.save_spec:
            ExperimentSpec(data=DataSpec(str(Path(path).resolve()), table.sheet, table.sha256, mapping)).save(args.save_spec)
        if args.json:
            payload = {"file": str(path), "sheet": table.sheet, "sha256": table.sha256,
                       "mapping": mapping.to_dict(), "notices": table.notices, "notes": notes,
                       "report": report.to_dict()}
            print(json.dumps(payload, indent=2, ensure_ascii=False, default=str))
        else:
            print(safe(_mapping_text(table, mapping) + "".join(f"  note: {note}\n" for note in notes)))
            print(safe(format_health_text(report)))
        return NOT_READY if report.verdict == "not_ready" else READY
    except (Cancelled, KeyboardInterrupt):
        return stopped(progress, "Stopped.", STOPPED)


def _with_run_checks(report, spec, spec_file: str, frame, notes: list[str]):
    """The report with the study's data-side checks (``textlab run``'s own) added as an error."""
    from guiapp.core.errors import DataError
    from guiapp.core.health.findings import HealthIssue
    from guiapp.core.study.model_sources import model_problems
    from guiapp.core.study.study_data import load_study_data

    problems, model_notes = model_problems(spec)
    notes += [note for note in model_notes if note not in notes]
    stops = [HealthIssue("error", "study_cannot_run", "The study cannot run as it is",
                         f"`textlab run` would stop here: {problem.message}", problem.hint)
             for problem in problems if not problem.model]
    fails = [HealthIssue("error", "model_cannot_run", f"{problem.model} cannot run",
                         f"`textlab run` would fail this model at once: {problem.message}", problem.hint)
             for problem in problems if problem.model]
    try:
        data = load_study_data(spec, spec_file, table=frame)
    except DataError as error:
        issue = HealthIssue("error", "study_cannot_run", "The study cannot run as it is",
                            f"`textlab run` would stop here: {error.message}", error.hint)
        return dataclasses.replace(report, issues=(*stops, issue, *fails, *report.issues))
    if stops or fails:
        report = dataclasses.replace(report, issues=(*stops, *fails, *report.issues))
    # a note the report already holds as a finding (category fixes that match nothing) is not repeated
    found = [issue.explanation for issue in report.issues if issue.code == "unmatched_fixes"]
    notes += [note for note in data.notes if note not in notes and not any(text in note for text in found)]
    return report


def _no_columns_text(table, mapping) -> str:
    """Which roles could not be guessed, and for each column why not (empty, one value, dates …)."""
    from guiapp.core.study.mapping_suggest import why_not

    missing = [role for role, chosen in (("text", mapping.text_columns), ("category", mapping.category_column))
               if not chosen]
    words = {"text": "texts", "category": "categories"}
    chosen = {column: "text" for column in mapping.text_columns}
    chosen.update({column: role for role, column in (("category", mapping.category_column), ("id", mapping.id_column),
                                                      ("split", mapping.split_column)) if column})
    lines = [f"TextLab read {table.path.name} but could not tell which column holds the "
             f"{' and the '.join(words[role] for role in missing)}."]
    for role in missing:
        lines.append(f"Why no column looks like the {words[role]}:")
        lines += [f"  '{column}': {reason}" for column, reason in why_not(table.frame, role, chosen)]
        if table.frame.shape[1] > 20:
            lines.append(f"  … and {table.frame.shape[1] - 20:,} more columns")
    lines.append(f"Name it: textlab health {table.path.name} --text COLUMN --category COLUMN")
    return "\n".join(lines)


def _mapping_text(table, mapping) -> str:
    where = f"{table.path.name}" + (f", sheet “{table.sheet}”" if table.sheet else "")
    lines = [f"{where}: {len(table.frame):,} rows, {table.frame.shape[1]} columns"]
    lines += [f"  note: {notice}" for notice in table.notices]
    if mapping.multi_label and mapping.category_columns:  # several categories per text, a column each
        category = "categories (several per text): " + ", ".join(mapping.category_columns)
    elif mapping.multi_label:
        category = f"categories (several per text): {mapping.category_column or '—'}, separated by “{mapping.label_separator}”"
    else:
        category = f"category: {mapping.category_column or '—'}"
    lines.append(f"  text: {', '.join(mapping.text_columns) or '—'}   {category}"
                 f"   ID: {mapping.id_column or '—'}   split: {mapping.split_column or '—'}")
    return "\n".join(lines) + "\n"
