"""The sentences above the Results step's chart: which study and data file a result belongs to,
the headline that names the recommended model, and whether the two best models' intervals overlap."""

from __future__ import annotations

import html
from datetime import datetime
from pathlib import Path

from guiapp.core.experiment import ExperimentResult


def study_line(result: ExperimentResult) -> str:
    """Which study and data file a result belongs to, and when it was run (the line above the headline):
    Study “name” · data file.xlsx (1,122 rows) · run on 23 Nov 2026 14:02."""
    study = result.study_source
    parts = [f"Study “{study.study_name or 'untitled'}”"]
    if study.source:
        rows = study.rows
        parts.append(Path(study.source).name + (f" ({rows:,} rows)" if rows is not None else ""))
    fixes = study.category_fixes.summary()
    if fixes:
        parts.append(f"category fixes: {fixes}")
    when = _local_time(result.finished_at or result.started_at)
    if when:
        parts.append(f"run on {when}")
    return "  ·  ".join(parts)


def _local_time(stamp: str) -> str:
    """An ISO time stamp as local time in words ("23 Nov 2026 14:02"); "" when there is none."""
    try:
        moment = datetime.fromisoformat(stamp)
    except (TypeError, ValueError):
        return ""
    if moment.tzinfo is not None:
        moment = moment.astimezone()
    return f"{moment.day} {moment:%b %Y %H:%M}"


def headline(result: ExperimentResult) -> tuple[str, str]:
    """The headline as (rich text, plain text)."""
    best = result.best()
    if best is None:
        text = "No model finished, so there is nothing to compare yet. See below for what went wrong."
        return html.escape(text), text
    test = best.test
    interval = ""
    if test.macro_f1_ci:
        low, high = test.macro_f1_ci
        interval = f" ({test.ci_level * 100:.0f} % interval {low:.2f}–{high:.2f})"
    n_test = result.n_test_texts
    on = f" on {n_test:,} test texts" if n_test else ""
    several = len(result.finished_models()) > 1
    lead = "Recommended: " if several else "Agreement with your coding: "
    rest = f", macro-F1 {test.macro_f1:.2f}{interval}{on}."
    recommendation = result.recommendation() if several else None
    why = f" {recommendation.reason}" if recommendation is not None else ""
    return (f"{html.escape(lead)}<b>{html.escape(best.name)}</b>{html.escape(rest)}"
            + (f"<br><span style='font-weight: normal'>{html.escape(why.strip())}</span>" if why else ""),
            f"{lead}{best.name}{rest}{why}")


def intervals_overlap(result: ExperimentResult) -> bool:
    """True when the two best models' intervals overlap (their difference may be chance)."""
    ranked = result.ranked()
    if len(ranked) < 2 or not ranked[0].test.macro_f1_ci or not ranked[1].test.macro_f1_ci:
        return False
    return ranked[0].test.macro_f1_ci[0] <= ranked[1].test.macro_f1_ci[1]
