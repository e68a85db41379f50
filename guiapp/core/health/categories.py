"""Checks of the data-health report about the categories: how many, how large, how written.

Spelling variants ("Pro" / "pro ", "Pro-life" / "pro life") and spaces at the ends of categories
are reported with one-click fixes (merge, trim spaces) that the study records in
``[data] category_fixes``; categories with fewer training texts than folds make the data "not
ready" — in the run's own words (``study_data.fold_size_error``) — and offer "Leave out". Numbers
and dates as categories are pointed out because they often mean that the wrong column was chosen.
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
    rows_issue,
    rows_of,
)
from guiapp.core.health.findings import FixAction, HealthIssue
from guiapp.core.study.category_fixes import (
    UNMATCHED_HINT,
    CategoryFixes,
    has_hidden_characters,
    spelling_key,
    trim,
    unmatched_fixes,
    unmatched_fixes_note,
)
from guiapp.core.study.left_out_words import BRING_BACK, every_category_left_out
from guiapp.core.study.mapping import category_labels, cell_text
from guiapp.core.study.mapping_suggest import WRITTEN_DATE
from guiapp.core.study.study_data import fold_size_error

RARE_SHARE = 0.02
TRIM_SPACES = FixAction("Trim spaces", CategoryFixes(trim_spaces=True))
MAX_NUMERIC_CODES = 50
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)")


def _with_counts(data: CategoryData, indices: Sequence[int], counts: np.ndarray | None = None) -> list[str]:
    counts = data.counts if counts is None else counts
    ordered = sorted(indices, key=lambda i: (-int(counts[i]), data.labels[i]))
    return [f"{quoted(data.labels[i])} ({int(counts[i]):,})" for i in ordered]


def category_issues(data: CategoryData, n_rows: int, n_folds: int, split_chosen: bool,
                    held_out: str = "") -> list[HealthIssue]:
    """``held_out``: how the test texts are set aside ("" when none are taken from this table),
    said in the explanation of too-small categories."""
    column, n_coded, n_labels = data.column, data.n_coded, len(data.labels)
    if n_coded == 0 and data.left_out is not None and data.left_out.any():
        return [make_issue(
            "error", "every_category_left_out", "Every category is left out",
            every_category_left_out([], int(data.left_out.sum())), BRING_BACK,
        )]
    if n_coded == 0:
        return [make_issue(
            "error", "no_coded_texts", "None of the texts is coded",
            f"The column '{column}' has no category in any row, so there is nothing a model "
            "could learn from.",
            "Choose the column that holds your categories, or code some texts first.",
        )]
    issues: list[HealthIssue] = []
    uncoded = data.codes < 0
    if data.left_out is not None:
        uncoded &= ~data.left_out
    issues += rows_issue(
        "info", "uncoded_rows", uncoded, "no category",
        f"These rows are empty in '{column}'. They will not be used for training; later you "
        "can let the chosen model code them.",
        "Nothing to do, unless you meant to code them.",
    )
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
    free_text = n_coded >= 10 and n_labels > 0.5 * n_coded
    if free_text:
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
    else:  # spellings and spaces of what looks like free text would only bury the warning above
        issues += _spelling_issues(data)
        issues += _space_issues(data)
    small = [i for i in range(n_labels) if data.train_counts[i] < n_folds]
    if small:
        sizes = [(data.labels[i], int(data.train_counts[i])) for i in small]
        run_words = fold_size_error(sorted(sizes, key=lambda item: (item[1], item[0])), n_folds)
        names = _with_counts(data, small, data.train_counts)
        n = len(small)
        subject = quoted(data.labels[small[0]]) if n == 1 else plural(n, "category", "categories")
        where = f" ({held_out})" if held_out else ""
        leave = FixAction(
            f"Leave out {quoted(data.labels[small[0]])}" if n == 1 else f"Leave out these {n} categories",
            CategoryFixes(leave_out=[data.labels[i] for i in small]),
        )
        issues.append(make_issue(
            "error", "small_categories",
            f"{subject} {'has' if n == 1 else 'have'} fewer than {n_folds} coded training texts",
            f"TextLab tests each model by dividing the training texts{where} into {n_folds} parts "
            "(“folds”) and checking each part in turn, so every category needs at least "
            f"{n_folds} training texts; a run would stop. Training texts: {listing(names, 10)}.",
            run_words.hint,
            rows_of(data, small),
            # leaving out all but one leaves nothing to compare; the hint names “Trim spaces” when one has spaces
            actions=([leave] if n_labels - n >= 2 else []) + _trim_action([data.labels[i] for i in small]),
        ))
    rare = [i for i in range(n_labels)
            if not free_text and data.counts[i] < RARE_SHARE * n_coded and data.train_counts[i] >= n_folds]
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


def label_form_issues(data: CategoryData, values: bool = True) -> list[HealthIssue]:
    """How the categories are written: spelling variants and hidden spaces, and — with ``values``
    (categories read from cells, not from column names) — numbers or dates as categories."""
    return (_value_kind_issues(data) if values else []) + _spelling_issues(data) + _space_issues(data)


def unmatched_fix_issues(fixes: CategoryFixes, column: pd.Series) -> list[HealthIssue]:
    """A warning when the study's category fixes name categories the column does not have."""
    if not (fixes.merge or fixes.leave_out):
        return []
    labels = category_labels(column).dropna().unique()
    merge, leave_out = unmatched_fixes(fixes, labels)
    text = unmatched_fixes_note(fixes, labels)
    if text is None:
        return []
    n = len(merge) + len(leave_out)
    return [make_issue(
        "warning", "unmatched_fixes",
        f"{plural(n, 'category fix', 'category fixes')} {'matches' if n == 1 else 'match'} no category",
        text, UNMATCHED_HINT, count=n,
    )]


def hold_out_like_the_run(data: CategoryData, has_text: np.ndarray, test_share: float, seed: int) -> str:
    """Set ``data.train_counts`` to the training texts per category after the run's own seeded,
    stratified hold-out (``load_study_data``: usable rows in table order, categories in the
    run's order); returns how the test texts are chosen, in words."""
    from guiapp.core.errors import DataError
    from guiapp.core.study.split import random_holdout
    from guiapp.core.study.study_data import category_order

    usable = np.flatnonzero((data.codes >= 0) & has_text)
    if len(usable) == 0:
        return ""
    order = category_order(set(data.labels))
    position = {label: index for index, label in enumerate(order)}
    rank = np.array([position[label] for label in data.labels], dtype=np.int64)
    y = rank[data.codes[usable]]
    train = np.zeros(len(data.codes), dtype=bool)
    if (np.bincount(y)[np.unique(y)] < 2).any():
        train[usable] = True  # the run stops before the hold-out; a single text counts as one
        data.train_counts = np.bincount(data.codes[train], minlength=len(data.labels))
        return f"after {test_share:.0%} of the coded texts are kept aside for the final test"
    try:
        split = random_holdout(y, test_share, seed)
        train[usable[split.train]] = True
    except DataError:  # a test share too small to hold every category: the run will say so
        train[usable] = True
    data.train_counts = np.bincount(data.codes[train], minlength=len(data.labels))
    return f"after {test_share:.0%} of the coded texts are kept aside for the final test"


def _spelling_issues(data: CategoryData) -> list[HealthIssue]:
    groups: dict[str, list[int]] = {}
    for i, label in enumerate(data.labels):
        groups.setdefault(spelling_key(label), []).append(i)
    variants = [sorted(g, key=lambda i: (-int(data.counts[i]), data.labels[i]))
                for g in groups.values() if len(g) > 1]
    if not variants:
        return []
    variants.sort(key=lambda g: -int(data.counts[g].sum()))
    described = "; ".join(", ".join(_with_counts(data, g)) for g in variants[:10])
    minority = [i for g in variants for i in g[1:]]
    merges = [_merge_of(data, g) for g in variants]
    actions = [FixAction(_merge_words(fixes), fixes) for fixes in merges[:3]]
    if len(merges) > 1:
        everything = CategoryFixes(merge={k: v for fixes in merges for k, v in fixes.merge.items()})
        actions.append(FixAction(f"Merge all {len(merges)}", everything))
    n = len(variants)
    return [make_issue(
        "warning", "category_spelling",
        f"{plural(n, 'category', 'categories')} {'is' if n == 1 else 'are'} spelled in more "
        "than one way",
        "These look like the same category, written with different capitals, spaces or punctuation, "
        f"and would count as different categories: {described}"
        f"{' …' if n > 10 else ''} (coded texts in brackets; ␣ marks a space at the start or end).",
        "Merge them here: TextLab records the merge in the study and leaves your spreadsheet as it is. "
        "Or make the spellings identical in your spreadsheet and load it again.",
        rows_of(data, minority),
        actions=actions,
    )]


def _merge_of(data: CategoryData, group: list[int]) -> CategoryFixes:
    """Every spelling of a group into the most frequent one, without spaces at its ends."""
    target = trim(data.labels[group[0]])
    return CategoryFixes(merge={data.labels[i]: target for i in group if data.labels[i] != target})


def _merge_words(fixes: CategoryFixes) -> str:
    sources, target = list(fixes.merge), next(iter(fixes.merge.values()))
    if len(sources) == 1:
        return f"Merge {quoted(sources[0])} into {quoted(target)}"
    return f"Merge {len(sources)} spellings into {quoted(target)}"


def _trim_action(labels: list[str]) -> list[FixAction]:
    """"Trim spaces", when one of ``labels`` has spaces you cannot see (the run's hint then names it)."""
    return [TRIM_SPACES] if any(has_hidden_characters(label) for label in labels) else []


def _space_issues(data: CategoryData) -> list[HealthIssue]:
    """Categories with spaces (or tabs, non-breaking, zero-width spaces) at their ends or doubled
    inside that are not already spelling variants of another category."""
    keys: dict[str, int] = {}
    for label in data.labels:
        keys[spelling_key(label)] = keys.get(spelling_key(label), 0) + 1
    spaced = [i for i, label in enumerate(data.labels) if trim(label) != label and keys[spelling_key(label)] == 1]
    if not spaced:
        return []
    n = len(spaced)
    return [make_issue(
        "warning", "category_spaces",
        f"{plural(n, 'category', 'categories')} {'has' if n == 1 else 'have'} spaces you cannot see",
        f"{listing(_with_counts(data, spaced), 10)}: ␣ marks a space at the start or end; tabs, non-breaking "
        "and zero-width spaces are named. Such a category does not match the same category typed without "
        "them, for example in a test file or a later coding round.",
        "Trim the spaces here (TextLab records it in the study; your spreadsheet stays as it is), or remove "
        "them in your spreadsheet.",
        rows_of(data, spaced),
        actions=[TRIM_SPACES],
    )]


def _value_kind_issues(data: CategoryData) -> list[HealthIssue]:
    labels = pd.Series(data.labels, dtype="str")
    column = data.column
    dates = labels.str.fullmatch(WRITTEN_DATE.pattern).to_numpy(dtype=bool)
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
