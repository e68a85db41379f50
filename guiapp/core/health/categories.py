"""Checks of the data-health report about the categories: how many, how large, how written.

Spelling variants ("Pro" / "pro ") are reported, never merged; numbers and dates as categories
are pointed out because they often mean that the wrong column was chosen.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import pandas as pd

from guiapp.core.health.checks import (
    CategoryData,
    listing,
    make_issue,
    plural,
    quoted,
    rows_of,
)
from guiapp.core.health.findings import HealthIssue
from guiapp.core.study.mapping import cell_text

RARE_SHARE = 0.02
MAX_NUMERIC_CODES = 50
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)")
_DATE = re.compile(
    r"\d{4}-\d{1,2}-\d{1,2}([ T]\d{1,2}:\d{2}(:\d{2}(\.\d+)?)?)?"
    r"|\d{1,2}[./]\d{1,2}[./](\d{2}|\d{4})"
)


def _with_counts(data: CategoryData, indices: Sequence[int], counts: np.ndarray | None = None) -> list[str]:
    counts = data.counts if counts is None else counts
    ordered = sorted(indices, key=lambda i: (-int(counts[i]), data.labels[i]))
    return [f"{quoted(data.labels[i])} ({int(counts[i]):,})" for i in ordered]


def category_issues(data: CategoryData, n_rows: int, n_folds: int, split_chosen: bool) -> list[HealthIssue]:
    column, n_coded, n_labels = data.column, data.n_coded, len(data.labels)
    if n_coded == 0:
        return [make_issue(
            "error", "no_coded_texts", "None of the texts is coded",
            f"The column '{column}' has no category in any row, so there is nothing a model "
            "could learn from.",
            "Choose the column that holds your categories, or code some texts first.",
        )]
    issues: list[HealthIssue] = []
    uncoded = data.codes < 0
    if uncoded.any():
        n = int(uncoded.sum())
        issues.append(make_issue(
            "info", "uncoded_rows",
            f"{plural(n, 'row')} {'has' if n == 1 else 'have'} no category",
            f"These rows are empty in '{column}'. They will not be used for training; later you "
            "can let the chosen model code them.",
            "Nothing to do, unless you meant to code them.",
            uncoded,
        ))
    if n_labels == 1:
        issues.append(make_issue(
            "error", "one_category",
            f"All coded texts have the same category ({quoted(data.labels[0])})",
            "A model needs at least two categories to tell apart.",
            "Check that you chose the right column for the categories, or code texts of other "
            "categories too.",
            count=1,
        ))
        return issues
    issues += _value_kind_issues(data)
    if n_coded >= 10 and n_labels > 0.5 * n_coded:
        issues.append(make_issue(
            "warning", "too_many_categories",
            f"The column '{column}' looks like free text, not categories",
            f"It has {n_labels:,} different values among {plural(n_coded, 'coded text')}, so "
            "most categories occur only once or twice. A model learns a category from many "
            "examples of it.",
            "Choose the column that holds your categories; if these are categories, group them "
            "into fewer, larger ones.",
            count=n_labels,
        ))
        return issues
    issues += _spelling_issues(data)
    small = [i for i in range(n_labels) if data.train_counts[i] < n_folds]
    if small:
        where = " coded training texts" if split_chosen else " coded texts"
        issues.append(make_issue(
            "warning", "small_categories",
            f"{plural(len(small), 'category', 'categories')} "
            f"{'has' if len(small) == 1 else 'have'} fewer than {n_folds}{where}",
            f"TextLab tests each model by dividing the coded texts into {n_folds} parts "
            "(“folds”) and checking each part in turn, so every category needs at least "
            f"{n_folds} examples. Too few: "
            f"{listing(_with_counts(data, small, data.train_counts), 10)}.",
            "Merge it with a related category, code more examples, or use fewer folds.",
            rows_of(data, small),
        ))
    rare = [i for i in range(n_labels)
            if data.counts[i] < RARE_SHARE * n_coded and data.train_counts[i] >= n_folds]
    if rare:
        issues.append(make_issue(
            "info", "rare_categories",
            f"{plural(len(rare), 'category', 'categories')} "
            f"{'is' if len(rare) == 1 else 'are'} rare (less than 2% of the coded texts)",
            f"Models tend to overlook rare categories: {listing(_with_counts(data, rare), 10)}. "
            "TextLab can give rare categories more weight by repeating their texts during "
            "training (“oversampling”).",
            "Code more examples if you can, or switch on oversampling when you compare models.",
            rows_of(data, rare),
        ))
    return issues


def _spelling_issues(data: CategoryData) -> list[HealthIssue]:
    groups: dict[str, list[int]] = {}
    for i, label in enumerate(data.labels):
        groups.setdefault(" ".join(label.split()).casefold(), []).append(i)
    variants = [sorted(g, key=lambda i: (-int(data.counts[i]), data.labels[i]))
                for g in groups.values() if len(g) > 1]
    if not variants:
        return []
    variants.sort(key=lambda g: -int(data.counts[g].sum()))
    described = ["; ".join([", ".join(_with_counts(data, g)) for g in variants[:10]])]
    minority = [i for g in variants for i in g[1:]]
    n = len(variants)
    return [make_issue(
        "warning", "category_spelling",
        f"{plural(n, 'category', 'categories')} {'is' if n == 1 else 'are'} spelled in more "
        "than one way",
        "These look like the same category, written with different capitals or spaces, and "
        f"would count as different categories: {described[0]}"
        f"{' …' if n > 10 else ''} (rows in brackets).",
        "Make the spellings identical in your spreadsheet, then load it again.",
        rows_of(data, minority),
    )]


def _value_kind_issues(data: CategoryData) -> list[HealthIssue]:
    labels = pd.Series(data.labels, dtype="str")
    column = data.column
    dates = labels.str.fullmatch(_DATE.pattern).to_numpy(dtype=bool)
    if data.source_is_datetime or dates.mean() >= 0.8:
        examples = listing([str(v) for v in labels[dates].iloc[:3]] or data.labels[:3], 3)
        return [make_issue(
            "warning", "date_categories", "Your categories look like dates",
            f"The column '{column}' holds dates such as {examples}. Dates are rarely categories; "
            "perhaps the wrong column was chosen.",
            "Choose the column that holds your categories.",
            count=len(data.labels),
        )]
    if not labels.str.fullmatch(_NUMBER.pattern).all():
        return []
    numbers = pd.to_numeric(labels, errors="coerce")
    ordered = [cell_text(v) or "" for v in sorted(numbers.unique())]
    if len(ordered) > MAX_NUMERIC_CODES or (numbers % 1 != 0).any():
        return [make_issue(
            "warning", "numeric_measurement",
            f"Your categories are {len(ordered):,} different numbers",
            f"The column '{column}' holds numbers such as {listing(ordered, 3)}. This looks like "
            "a measurement (a score, a count, a year), not codes; a model comparison needs "
            "categories.",
            "Check that you chose the right column; to use a score, group it into a few "
            "categories first.",
            count=len(ordered),
        )]
    return [make_issue(
        "info", "numeric_categories",
        f"Your categories are numbers ({', '.join(ordered[:3])}{' …' if len(ordered) > 3 else ''})",
        "That is fine, but make sure they are codes, not measurements: TextLab treats each "
        "number as a category of its own, not as more or less than another.",
        "Nothing to do if they are codes. Names instead of numbers make the results easier to read.",
        count=len(ordered),
    )]
