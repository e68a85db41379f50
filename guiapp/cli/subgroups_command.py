"""``textlab subgroups RESULTS|PROJECT --column NAME``: does a model make more mistakes on some
kinds of texts (a party, a year, an outlet)?

Prints, per model (best first, or only ``--model``), a table of the groups of test texts by the
column's value (``core/experiment/scores/subgroup_scores.py``), then the sentences that say which groups
stand out. The column is read from the study's table: a ``.textlab`` project keeps it; for a
results folder it is the file the study names (``[data] source``; a relative name is looked for
beside the results folder, in it, and in the current folder), or ``--table`` (and
``--test-table`` for a study with a separate test file). ``--out FILE.csv`` also writes one row
per model and group. Exit status: 0 shown, 2 could not (the message says why).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def add_subgroups_command(commands) -> None:
    sub = commands.add_parser("subgroups", help="does a model make more mistakes on some groups of texts?")
    sub.add_argument("results", help="the results folder written by `textlab run … --out FOLDER`, or a .textlab project")
    sub.add_argument("--column", required=True, help="the table's column to group the test texts by, e.g. party")
    sub.add_argument("--model", help="a model's name as in the results (default: every finished model)")
    sub.add_argument("--min-texts", type=int, default=30,
                     help="groups with fewer test texts are not judged (default 30)")
    sub.add_argument("--out", help="also write the table to this CSV file")
    sub.add_argument("--overwrite", action="store_true", help="replace the CSV file if it exists")
    sub.add_argument("--table", help="the study's table, when it is no longer where the study says")
    sub.add_argument("--test-table", help="the study's separate test file, when it is no longer where the study says")


def subgroups_command(args: argparse.Namespace, progress) -> int:
    text, written = _subgroups(args)
    progress.clear()
    print(text)
    if written is not None:
        print(f"Wrote {written}")
    return 0


def _find(name: str, results: Path, what: str, option: str) -> Path:
    from guiapp.core.errors import UserError

    path = Path(name).expanduser()
    places = [path] if path.is_absolute() else [results.parent / path, results / path, Path.cwd() / path]
    for place in places:
        if place.is_file():
            return place
    raise UserError(f"The study's {what} “{name}” is not where the study says (looked in "
                    + ", ".join(str(p.parent) for p in places) + ").",
                    f"Name it with {option} FILE.")


def study_tables(results: str, table: str | None = None, test_table: str | None = None):
    """(ExperimentResult, table, test table or None, its ColumnMapping) of a results folder
    or a ``.textlab`` project; ``table``/``test_table`` name the files instead of the study's."""
    from guiapp.core.errors import UserError
    from guiapp.core.predict.saved_results import read_results
    from guiapp.core.tables.reader import read_table

    path = Path(results)
    if path.suffix.lower() == ".textlab" and table is None:
        from guiapp.core import locations
        from guiapp.core.project.opening import open_project

        project = open_project(path, extract_models_to=locations.cache_dir() / "projects")
        if project.result is None:
            raise UserError("This project has no results yet, so there are no groups to compare.",
                            "Open it in TextLab, run the study, save the project, and try again.")
        return project.result, project.table, project.test_table, project.result.study_source.mapping
    result = read_results(results)
    folder = path.parent if path.suffix.lower() == ".json" else path
    data = result.study_source
    if table is None and not data.source:
        raise UserError("These results do not name the study's table.", "Name it with --table FILE.")
    main_path = Path(table) if table else _find(data.source, folder, "table", "--table")
    main = read_table(main_path, data.sheet if table is None else None)
    if table is None and data.sha256 and main.sha256 != data.sha256:
        print(f"Note: {main_path.name} has changed since the study was run.", file=sys.stderr)
    test = None
    if result.test_split.from_test_file:
        if test_table is None and not data.test_source:
            raise UserError("These results do not name the study's test file.", "Name it with --test-table FILE.")
        test_path = (Path(test_table) if test_table
                     else _find(data.test_source, folder, "test file", "--test-table"))
        test = read_table(test_path, data.test_sheet if test_table is None else None).frame
    return result, main.frame, test, data.mapping


def _subgroups(args: argparse.Namespace) -> tuple[str, Path | None]:
    from guiapp.core.errors import UserError
    from guiapp.core.experiment.scores.subgroup_scores import candidate_columns, subgroup_scores, subgroup_table

    if args.min_texts < 1:
        raise UserError("--min-texts must be at least 1.", "For example: --min-texts 30")
    result, table, test, mapping = study_tables(args.results, args.table, args.test_table)
    source = test if test is not None else table
    if args.column not in source.columns:
        offered = candidate_columns(source, mapping)
        raise UserError(f"The study's table has no column “{args.column}”.",
                        ("Columns that can group the texts: " + ", ".join(map(str, offered))) if offered
                        else "Choose one of: " + ", ".join(map(str, source.columns)))
    scores = subgroup_scores(result, table, args.column, args.model, test_table=test, min_texts=args.min_texts)
    written = None
    if args.out:
        from guiapp.core.export.target import writing_to

        written = Path(args.out)
        with writing_to(written, args.overwrite, ()) as temporary:
            subgroup_table(scores).to_csv(temporary, index=False, encoding="utf-8-sig")
    return format_scores(scores), written


def format_scores(scores) -> str:
    """The groups of every model as plain-text tables, then the headline sentences."""
    def percent(share) -> str:
        return "–" if share is None else f"{share:.1%}"

    width = max([len(scores.column), *(len(g.label) for m in scores.models for g in m.groups)])
    width = min(width, 30)
    lines = [(f"Test texts by “{scores.column}” ({scores.n_texts:,} test texts, {scores.level:.0%} intervals from "
              f"{scores.samples:,} resamples)"), ""]
    # macro-F1, or the share right for a group whose texts all carry one category in the coding
    score_head = {"macro-F1": "macro-F1", "share right": "right"}.get(scores.score_name, "F1/right")
    for m in scores.models:
        lines.append(m.model)
        header = (f"  {scores.column[:width]:{width}}  {'texts':>6}  {score_head:>8}  {'interval':>13}  "
                  f"{'wrong':>6}  {'interval':>13}  {'others':>6}  verdict")
        lines += [header, "  " + "-" * (len(header) - 2)]
        for g in m.groups:
            if g.macro_f1_meaningful:
                shown, low, high = f"{g.macro_f1:.3f}", f"{g.macro_f1_interval[0]:.2f}", f"{g.macro_f1_interval[1]:.2f}"
            else:
                shown = percent(g.share_right)
                low, high = (percent(value) for value in g.share_right_interval)
            wrong_interval = f"{percent(g.error_interval[0])}–{percent(g.error_interval[1])}"
            lines.append(
                f"  {g.label[:width]:{width}}  {g.n_texts:6,}  {shown:>8}  {f'{low}–{high}':>13}  "
                f"{percent(g.error_rate):>6}  {wrong_interval:>13}  {percent(g.rest_error_rate):>6}  "
                f"{g.verdict}{'  ◀' if g.flagged else ''}")
        lines.append("")
    lines += scores.headline  # ends with why macro-F1 is not shown for some groups, when it is not
    flagged = [f"{m.model}: {g.sentence}" for m in scores.models for g in m.flagged]
    if flagged:
        lines += ["", *flagged]
    return "\n".join(lines)
