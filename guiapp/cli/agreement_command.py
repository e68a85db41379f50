"""``textlab agreement RESULTS|PROJECT [--coder-columns CATEGORY=COLUMN …]``: for a project coded by a
team, how well its coders agree; how closely each model agrees with the human coding, and, when the table counts the coders per category (as Davidson et
al. 2017 do: hate_speech, offensive_language, neither), whether a model codes like another coder.

Prints per model (best first) the share of test texts it agrees on, Cohen's kappa and
Krippendorff's alpha with their intervals (``core/experiment/scores/comparisons.py``) — where a text can have
several categories, their means over the categories and each category's own below; then, with coder
columns (named, or found in the study's table: ``core/experiment/scores/coder_columns.py``), the model
against the coders' majority beside how often one coder agrees with the others. The table is found
as for ``textlab subgroups`` (``--table``, ``--test-table`` when it moved). Exit status: 0 shown,
2 could not (the message says why).

For a ``.textlab`` project coded by a team of two or more coders it first prints the team's agreement
(``core/coding/team_report.py``): Krippendorff's alpha with its interval (and per category), Fleiss'
kappa, Cohen's kappa of every pair of coders as a matrix, each coder against the adjudicated coding,
alpha per codebook version, and how many texts the coders disagreed on. A project with a team but no
results prints the team's agreement alone.
"""

from __future__ import annotations

import argparse


def add_agreement_command(commands) -> None:  # noqa: ANN001 — argparse's subparsers
    sub = commands.add_parser("agreement",
                              help="how closely each model agrees with the coding (and with each coder)")
    sub.add_argument("results",
                     help="the results folder written by `textlab run … --out FOLDER`, or a .textlab project")
    sub.add_argument("--coder-columns", nargs="+", metavar="CATEGORY=COLUMN",
                     help="the columns counting the coders who chose each category, e.g. hate=hate_speech "
                          "offensive=offensive_language neither=neither (default: found in the table)")
    sub.add_argument("--samples", type=int, help="bootstrap resamples (default: the study's)")
    sub.add_argument("--table", help="the study's table, when it is no longer where the study says")
    sub.add_argument("--test-table", help="the study's separate test file, when it is no longer where the study says")


def agreement_command(args: argparse.Namespace, progress) -> int:  # noqa: ANN001 — a ProgressPrinter
    from guiapp.cli.console import safe

    team, has_results = _team_part(args)
    text = _agreement(args) if has_results else ""
    progress.clear()
    print(safe("\n\n".join(part for part in (team, text) if part)))
    return 0


def _team_part(args: argparse.Namespace) -> tuple[str, bool]:
    """The team's agreement in words ("" where the project has no team, or it is not a project), and
    whether there are model results to hold against the coding."""
    from pathlib import Path

    path = Path(args.results)
    if path.suffix.lower() != ".textlab" or args.table is not None or not path.is_file():
        return "", True
    from guiapp.core.project.opening import open_project

    project = open_project(path, extract_models_to=None)
    log = project.codings
    if log.team is None or not log.team_mode:
        return "", True
    from guiapp.core.errors import UserError

    has_results = project.result is not None
    try:
        return team_agreement_text(log, project.codebook.names() or None, args.samples), has_results
    except UserError as error:
        if not has_results:
            raise
        return f"Agreement of the coding team: {error.message} {error.hint}".strip(), has_results


def team_agreement_text(log, categories: list | None, samples: int | None) -> str:  # noqa: ANN001 — a CodingLog
    """The team's agreement as the command prints it (a :class:`UserError` when too little is coded)."""
    from guiapp.core.coding.team_report import team_agreement_of_log
    from guiapp.core.errors import UserError

    if samples is not None and samples < 1:
        raise UserError("--samples must be at least 1.", "For example: --samples 1000")
    a = team_agreement_of_log(log, categories=categories, samples=samples or 1000)
    coders = ", ".join(map(str, a.coders))
    lines = [f"Agreement of the coding team ({len(a.coders)} coders: {coders}; {a.n_texts_compared:,} texts coded "
             f"by two or more of them, {a.n_codings:,} codings)", "",
             f"  Krippendorff's alpha: {_value(a.alpha, a.alpha_interval)}"]
    if a.fleiss is not None:
        f = a.fleiss
        lines.append(f"  Fleiss' kappa:        {_value(f.kappa, f.interval)}  ({f.n_texts:,} texts coded by "
                     f"{f.coders_per_text} coders each)")
    if a.per_category:
        size = min(30, max(len(str(c.category)) for c in a.per_category))
        lines += ["", "  Alpha per category (a text in it or not)"]
        lines += [f"    {str(c.category)[:size]:{size}}  {_value(c.alpha, c.interval)}" for c in a.per_category]
    names = [str(c)[:12] for c in a.coders]
    width = max(12, *map(len, names))
    if a.pairs:
        kappas, shared = a.kappa_matrix()
        lines += ["", "  Cohen's kappa of each pair of coders (texts both coded)"]
        lines.append("    " + " " * width + "".join(f"  {name:>14}" for name in names))
        for i, name in enumerate(names):
            cells = ["—" if i == j else (f"{kappas[i][j]:.3f} ({shared[i][j]})" if kappas[i][j] == kappas[i][j]
                                         else f"– ({shared[i][j]})") for j in range(len(names))]
            lines.append(f"    {name:{width}}" + "".join(f"  {cell:>14}" for cell in cells))
    if a.against_reference:
        lines += ["", "  Each coder against the adjudicated coding"]
        for r in a.against_reference:
            lines.append(f"    {str(r.coder)[:12]:{width}}  agrees {r.accuracy:6.1%} on {r.n_texts:,} "
                         f"texts, kappa {_value(r.kappa, r.kappa_interval)}")
    if len(a.by_label) > 1:
        lines += ["", "  Alpha per codebook version"]
        lines += [f"    {label.label}: {_value(label.alpha, label.interval)} over {label.n_texts:,} texts"
                  for label in a.by_label]
    lines += ["", f"  The coders disagreed on {len(a.disagreements):,} text{'s' if len(a.disagreements) != 1 else ''}."]
    lines += [f"  ({a.level:.0%} intervals from {a.samples:,} resamples of the texts)"]
    lines += [f"  Note: {note}" for note in a.notes]
    return "\n".join(lines)


def _names(pairs: list[str]) -> dict[str, str]:
    from guiapp.core.errors import UserError

    names = {}
    for pair in pairs:
        category, sep, column = pair.partition("=")
        if not sep or not category.strip() or not column.strip():
            raise UserError(f"“{pair}” is not CATEGORY=COLUMN.", "For example: --coder-columns hate=hate_speech "
                            "offensive=offensive_language neither=neither")
        names[category.strip()] = column.strip()
    return names


def _agreement(args: argparse.Namespace) -> str:
    from guiapp.cli.subgroups_command import study_tables
    from guiapp.core.errors import UserError
    from guiapp.core.experiment.scores.coder_agreement import models_versus_coders, test_text_rows, why_not_against_coders
    from guiapp.core.experiment.scores.coder_columns import coder_count_columns, find_coder_columns
    from guiapp.core.experiment.scores.comparisons import agreement_with_coding
    from guiapp.core.experiment.results.tested_texts import table_of_test_texts

    names = _names(args.coder_columns) if args.coder_columns else None
    result, table, test, mapping = study_tables(args.results, args.table, args.test_table)
    if args.samples is not None and args.samples < 1:
        raise UserError("--samples must be at least 1.", "For example: --samples 1000")
    lines = [f"Agreement with your coding ({len(result.test_true):,} test texts)", ""]
    rows = agreement_with_coding(result, args.samples)
    width = min(40, max([5, *(len(a.model) for a in rows)]))
    lines.append(f"  {'model':{width}}  {'agrees':>6}  {'Cohen kappa':>22}  {'Krippendorff alpha':>22}")
    lines.append("  " + "-" * (width + 58))
    for a in rows:
        lines.append(f"  {a.model[:width]:{width}}  {a.share_agreeing:6.1%}  {_value(a.kappa, a.kappa_interval):>22}  "
                     f"{_value(a.alpha, a.alpha_interval):>22}")
    if rows:
        lines.append(f"  ({rows[0].level:.0%} intervals from {rows[0].samples:,} resamples of the test texts)")
    if result.multi_label:  # a text can have several categories: agreement per category, no coder counts
        lines += _per_category(rows, width)
        lines += ["", why_not_against_coders(result) or ""]
        return "\n".join(lines).rstrip() + "\n"
    source = table_of_test_texts(result, table, test)
    if names is not None:
        missing = [c for c in result.categories if c not in names]
        if missing:
            raise UserError(f"--coder-columns names no column for {', '.join(missing)}.",
                            "Name one column per category: " + " ".join(f"{c}=COLUMN" for c in result.categories))
        columns = find_coder_columns(source, result.categories, names)
        if columns is None:
            raise UserError("Those columns do not count coders: they need whole numbers of 0 or more on every row "
                            "and at least two coders on most rows.",
                            "Columns of the table: " + ", ".join(map(str, source.columns)))
    else:
        columns = coder_count_columns(source, result.categories, mapping)
    lines.append("")
    if not columns:
        lines.append("The table does not count coders per category, so the models cannot be held against single "
                     "coders (name such columns with --coder-columns CATEGORY=COLUMN …).")
        return "\n".join(lines)
    found = models_versus_coders(result, test_text_rows(result, table, test), columns, samples=args.samples)
    pairs = ", ".join(f"{c}={col}" for c, col in zip(result.categories, columns, strict=True))
    lines.append(f"Against your coders (columns {pairs})")
    lines.append(f"  {'model':{width}}  {'agrees with majority':>20}  {'one coder vs others':>19}  {'kappa':>6}")
    lines.append("  " + "-" * (width + 53))
    for m in found:
        a = m.agreement
        lines.append(f"  {m.model[:width]:{width}}  {a.model_agrees_with_majority:20.1%}  "
                     f"{a.coder_agrees_with_other_coders:19.1%}  {a.kappa_model_vs_majority:6.3f}")
    if found:
        a = found[0].agreement
        among = _value(a.alpha_between_coders, a.alpha_between_coders_interval)
        lines.append(f"  Krippendorff's alpha among the coders: {among}"
                     + (f"; {a.n_without_majority:,} test texts have no majority" if a.n_without_majority else ""))
        lines += ["", *(f"{m.model}: {m.agreement.sentence}" for m in found)]
    return "\n".join(lines)


def _per_category(rows, width: int) -> list[str]:  # noqa: ANN001 — ModelAgreement rows
    """Each model's agreement per category where a text can have several ("agrees": the share of
    texts with exactly the coded categories above; here per category: in it or not)."""
    lines = ["", "Per category (a text in it or not)"]
    for a in rows:
        lines.append(f"  {a.model[:width]}")
        for c in a.per_category:
            lines.append(f"    {c.category[:width]:{width - 2}}  {c.share_agreeing:6.1%}  {_value(c.kappa, c.kappa_interval):>22}  "
                         f"{_value(c.alpha, c.alpha_interval):>22}")
    return lines


def _value(value: float, interval) -> str:  # noqa: ANN001 — (low, high)
    from guiapp.core.stats.wording import with_interval

    return with_interval(value, interval, 3, "{value} ({low}–{high})")
