"""The data-health report as plain text, as ``textlab health`` prints it on the command line."""

from __future__ import annotations

from guiapp.core.health.findings import HealthReport, LengthStats

_MARKS = {"error": "PROBLEM", "warning": "CHECK", "info": "NOTE"}


def format_health_text(report: HealthReport, max_rows_listed: int = 10) -> str:
    lines = [report.verdict_text, ""]
    lines.append(
        f"Rows: {report.n_rows:,}   coded: {report.n_coded:,}   not yet coded: {report.n_uncoded:,}   "
        f"empty texts: {report.n_empty_texts:,}   categories: {len(report.categories)}"
    )
    if report.issues:
        lines.append("")
    for issue in report.issues:
        lines.append(f"[{_MARKS[issue.severity]}] {issue.title}")
        lines.append(f"    {issue.explanation}")
        if issue.fix:
            lines.append(f"    What to do: {issue.fix}")
        if issue.rows:
            shown = ", ".join(str(report.spreadsheet_row(r)) for r in issue.rows[:max_rows_listed])
            more = f" and {issue.count - max_rows_listed:,} more" if issue.count > max_rows_listed else ""
            lines.append(f"    Spreadsheet rows: {shown}{more}")
    if report.categories:
        lines += ["", "Categories (coded texts, share):"]
        width = max(len(c.label) for c in report.categories)
        for category in report.categories:
            flag = f"  too few for {report.n_folds}-fold cross-validation" if category.too_small else ""
            lines.append(f"  {category.label:<{width}}  {category.count:>7,}  {category.share:6.1%}{flag}")
    for stats in (report.words, report.tokens):
        if stats is not None:
            lines += ["", _length_line(stats, report.tokenizer_name)]
    return "\n".join(lines) + "\n"


def _length_line(stats: LengthStats, tokenizer_name: str | None) -> str:
    unit = "words" if stats.unit == "words" else f"subword tokens ({tokenizer_name})"
    line = (
        f"Text length in {unit}: median {stats.median:,.0f}, mean {stats.mean:,.0f}, "
        f"90% at most {stats.p90:,.0f}, longest {stats.max:,}"
    )
    if stats.limit is not None and stats.share_over_limit is not None:
        line += f"; {stats.share_over_limit:.1%} ({stats.n_over_limit or 0:,}) longer than {stats.limit}"
    if stats.sampled:
        line += f" (estimated from a random sample of {stats.n:,} texts)"
    return line
