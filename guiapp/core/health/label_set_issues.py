"""The data-health report's findings about the categories when a text can have several.

The report (``report.py``) calls :func:`label_set_findings` in place of the checks of a single
category column. Training texts are counted as the run counts them: the split column's non-test
rows, or the rows left after the run's own seeded hold-out (iterative stratification). The
findings speak per category, in the run's words where a run would stop
(``study_data.fold_size_error`` and ``common_categories_error``), and offer the same one-click
fixes as for one category per text ("Leave out" drops a category, never a text).

Codes (severity): errors category_values (indicator cells that are not 1/0), no_coded_texts,
one_category, empty_categories, small_categories, common_categories (a category almost every
training text has); warnings unmatched_fixes and the spelling checks of ``categories.py``; info
uncoded_rows, left_out_categories, rare_categories, no_category_texts, averaged_values.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from guiapp.core.errors import DataError
from guiapp.core.health.categories import RARE_SHARE, label_form_issues
from guiapp.core.health.checks import CategoryData, listing, make_issue, plural, quoted, rows_issue
from guiapp.core.health.findings import FixAction, HealthIssue
from guiapp.core.health.label_sets import LabelHealth, label_health
from guiapp.core.study.category_fixes import (
    UNMATCHED_HINT,
    CategoryFixes,
    has_hidden_characters,
    unmatched_fixes,
    unmatched_fixes_note,
)
from guiapp.core.study.label_sets import LabelSets, LabelValueError
from guiapp.core.study.label_set_checks import common_categories_error, thresholded_note
from guiapp.core.study.study_data import fold_size_error

if TYPE_CHECKING:  # pandas loads on first use, not when the window opens
    import pandas as pd

    from guiapp.core.study.mapping import ColumnMapping

NO_CATEGORY = "none of the categories"


@dataclass
class LabelSetFindings:
    """What the report needs from the categories of a study where a text can have several."""

    issues: list[HealthIssue]
    data: CategoryData | None = None
    health: LabelHealth | None = None
    # per row its combination of categories (index into set_labels), -1 uncoded: for identical texts
    set_codes: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    set_labels: list[str] = field(default_factory=list)


def label_set_findings(sets: LabelSets | None, error: LabelValueError | None, mapping: ColumnMapping,
                       frame: pd.DataFrame, train_mask: np.ndarray, has_text: np.ndarray,
                       fixes: CategoryFixes, n_folds: int, test_share: float | None, seed: int) -> LabelSetFindings:
    """The findings, per category counts and combinations (see the module docstring). ``error``:
    the indicator columns could not be read (``sets`` is then None)."""
    n_rows = len(train_mask)
    if error is not None or sets is None:
        issues = [] if error is None else [make_issue(
            "error", "category_values", "A category column has values that are not 1 or 0",
            error.message, error.hint, count=1,
        )]
        return LabelSetFindings(issues, set_codes=np.full(n_rows, -1, dtype=np.int64))
    indicator = sets.layout == "indicator"
    column = "" if indicator else str(mapping.category_column)
    train = sets.coded & train_mask
    held_out = ""
    if not mapping.split_column and test_share is not None:
        train, held_out = _hold_out_like_the_run(sets, has_text, test_share, seed)
    import pandas as pd
    data = CategoryData(
        column=column,
        codes=np.where(sets.coded, 0, -1).astype(np.int64),
        labels=list(sets.categories),
        counts=sets.counts,
        train_counts=sets.matrix[train].sum(axis=0, dtype=np.int64),
        source_is_datetime=not indicator and pd.api.types.is_datetime64_any_dtype(frame[column].dtype),
        matrix=sets.matrix,
    )
    codes, labels = _combination_codes(sets)
    return LabelSetFindings(
        issues=_issues(sets, data, train, n_folds, held_out, fixes, where=(
            "the category columns" if indicator else f"the column '{column}'"), separator=mapping.label_separator),
        data=data,
        health=label_health(sets, n_folds=n_folds, test_share=None if mapping.split_column else test_share,
                            train_counts=data.train_counts),
        set_codes=codes,
        set_labels=labels,
    )


def _hold_out_like_the_run(sets: LabelSets, has_text: np.ndarray, test_share: float,
                           seed: int) -> tuple[np.ndarray, str]:
    """The training rows after the run's seeded hold-out (``load_study_data``: usable rows in table
    order, the categories they have in the run's order); every usable row where the run would stop
    before the hold-out."""
    from guiapp.core.study.split import random_holdout

    train = np.zeros(len(sets.coded), dtype=bool)
    usable = np.flatnonzero(sets.coded & has_text)
    if len(usable) == 0:
        return train, ""
    y = sets.matrix[usable]
    if sets.layout == "delimited":  # the run knows only the categories its usable texts have
        y = y[:, y.any(axis=0)]
    counts = y.sum(axis=0)
    train[usable] = True
    if y.shape[1] >= 2 and (counts >= 2).all():
        try:
            split = random_holdout(y, test_share, seed)
            train[:] = False
            train[usable[split.train]] = True
        except DataError:  # a test share the run refuses: it will say so
            pass
    return train, f"after {test_share:.0%} of the coded texts are kept aside for the final test"


def _combination_codes(sets: LabelSets) -> tuple[np.ndarray, list[str]]:
    """Per row the index of its set of categories ("economy + health"), -1 where uncoded."""
    if len(sets.coded) == 0 or sets.matrix.shape[1] == 0:
        return np.where(sets.coded, 0, -1).astype(np.int64), [NO_CATEGORY]
    combos, inverse = np.unique(sets.matrix, axis=0, return_inverse=True)
    labels = [" + ".join(sets.categories[k] for k in np.flatnonzero(combo)) or NO_CATEGORY for combo in combos]
    codes = np.asarray(inverse, dtype=np.int64).ravel()
    return np.where(sets.coded, codes, -1), labels


def _with_counts(data: CategoryData, indices, counts: np.ndarray) -> list[str]:
    ordered = sorted(indices, key=lambda k: (-int(counts[k]), data.labels[k]))
    return [f"{quoted(data.labels[k])} ({int(counts[k]):,})" for k in ordered]


def _leave_out(data: CategoryData, indices: list[int]) -> list[FixAction]:
    """"Leave out" for these categories, when at least two others remain; "Trim spaces" when one
    of them has spaces you cannot see."""
    names = [data.labels[k] for k in indices]
    actions = []
    if len(data.labels) - len(indices) >= 2:
        words = f"Leave out {quoted(names[0])}" if len(names) == 1 else f"Leave out these {len(names)} categories"
        actions.append(FixAction(words, CategoryFixes(leave_out=names)))
    if any(has_hidden_characters(name) for name in names):
        actions.append(FixAction("Trim spaces", CategoryFixes(trim_spaces=True)))
    return actions


def _subject(data: CategoryData, indices: list[int]) -> str:
    return quoted(data.labels[indices[0]]) if len(indices) == 1 else plural(len(indices), "category", "categories")


def _issues(sets: LabelSets, data: CategoryData, train: np.ndarray, n_folds: int, held_out: str,
            fixes: CategoryFixes, where: str, separator: str) -> list[HealthIssue]:
    issues: list[HealthIssue] = []
    if sets.n_coded == 0:
        return [make_issue(
            "error", "no_coded_texts", "None of the texts is coded",
            f"{where[0].upper()}{where[1:]} {'have' if sets.layout == 'indicator' else 'has'} no value in any row, "
            "so there is nothing a model could learn from.",
            "Choose the columns that hold your categories, or code some texts first.",
        )]
    issues += rows_issue(
        "info", "uncoded_rows", ~sets.coded, "not been coded yet",
        f"These rows are empty in {'every category column' if sets.layout == 'indicator' else where}. They will "
        "not be used for training; later you can let the chosen model code them.",
        "Nothing to do, unless you meant to code them.",
    )
    if sets.left_out_texts:
        n = sets.left_out_texts
        issues.append(make_issue(
            "info", "left_out_categories",
            f"{plural(n, 'coded text')} {'has' if n == 1 else 'have'} a category you left out",
            f"You chose to leave out {listing([quoted(name) for name in fixes.leave_out], 10)}. These texts are still "
            "used with their other categories; the categories left out are not studied. Your spreadsheet is unchanged.",
            "Undo the fix above the findings to study them again.",
            count=n,
        ))
    n_labels = len(data.labels)
    if n_labels < 2:
        issues.append(make_issue(
            "error", "one_category",
            f"There is only one category ({quoted(data.labels[0])})" if n_labels else "There are no categories left",
            "A model needs at least two categories to tell apart.",
            "Choose the columns of at least two categories, or undo a fix that left categories out.",
            count=n_labels,
        ))
        return issues
    if sets.layout == "delimited" and sets.n_coded >= 10 and n_labels > 0.5 * sets.n_coded:
        issues.append(make_issue(
            "warning", "too_many_categories", f"The column '{data.column}' looks like free text, not categories",
            f"Split at “{separator}”, it gives {n_labels:,} different categories among "
            f"{plural(sets.n_coded, 'coded text')}, so most categories occur only once or twice. A model learns a "
            "category from many examples of it.",
            "Choose the column that lists your categories, or the separator between them; if these are categories, "
            "group them into fewer, larger ones.",
            count=n_labels,
        ))
    else:  # spellings of what looks like free text would only bury the warning above
        issues += label_form_issues(data, values=sets.layout == "delimited")
    counts, trained = data.counts, data.train_counts
    empty = [int(k) for k in np.flatnonzero(counts == 0)]
    if empty:
        issues.append(make_issue(
            "error", "empty_categories",
            f"{_subject(data, empty)} {'is' if len(empty) == 1 else 'are'} not given to any coded text",
            f"No coded text has {listing([quoted(data.labels[k]) for k in empty], 10)}, so there is nothing to learn "
            "about it; a run would stop.",
            "Untick the column or leave the category out (the button here; your spreadsheet stays as it is), "
            "or code texts that have it.",
            count=len(empty),
            actions=_leave_out(data, empty),
        ))
    small = [int(k) for k in np.flatnonzero((counts > 0) & (trained < n_folds))]
    if small:
        sizes = sorted(((data.labels[k], int(trained[k])) for k in small), key=lambda item: (item[1], item[0]))
        during = f" ({held_out})" if held_out else ""
        issues.append(make_issue(
            "error", "small_categories",
            f"{_subject(data, small)} {'is' if len(small) == 1 else 'are'} in fewer than {n_folds} coded "
            "training texts",
            f"TextLab tests each model by dividing the training texts{during} into {n_folds} parts (“folds”) and "
            f"checking each part in turn, so every category needs at least {n_folds} training texts that have it; "
            f"a run would stop. Training texts with each: {listing(_with_counts(data, small, trained), 10)}.",
            fold_size_error(sizes, n_folds, multi_label=True).hint,
            np.flatnonzero(data.matrix[:, small].any(axis=1) & sets.coded) if data.matrix is not None else None,
            actions=_leave_out(data, small),
        ))
    n_train = int(train.sum())
    without = n_train - trained
    common = [int(k) for k in np.flatnonzero((trained > 0) & (without < n_folds))]
    if common and data.matrix is not None:
        sizes = sorted(((data.labels[k], int(without[k])) for k in common), key=lambda item: (item[1], item[0]))
        run_words = common_categories_error(sizes, n_folds)
        issues.append(make_issue(
            "error", "common_categories",
            f"{_subject(data, common)} {'is' if len(common) == 1 else 'are'} in (almost) every coded training text",
            f"{run_words.message} A model learns a category from texts with it and texts without it; a run would stop.",
            run_words.hint,
            np.flatnonzero(sets.coded & ~data.matrix[:, common].all(axis=1)),
            actions=_leave_out(data, common),
        ))
    flagged = set(empty) | set(small) | set(common)
    rare = [k for k in range(n_labels) if k not in flagged and counts[k] < RARE_SHARE * sets.n_coded]
    if rare and data.matrix is not None:
        issues.append(make_issue(
            "info", "rare_categories",
            f"{plural(len(rare), 'category', 'categories')} {'is' if len(rare) == 1 else 'are'} rare "
            "(in less than 2% of the coded texts)",
            f"Models tend to overlook rare categories: {listing(_with_counts(data, rare, counts), 10)}.",
            "Code more examples if you can, or let TextLab tune each category's threshold when you compare models.",
            np.flatnonzero(data.matrix[:, rare].any(axis=1)),
        ))
    issues += rows_issue(
        "info", "no_category_texts", sets.no_category, "none of the categories",
        "That is allowed: these coded texts show the models what a text without any of the categories looks like. "
        + ("If these rows are not coded yet, leave all their category cells empty, so that they count as uncoded."
           if sets.layout == "indicator" else "If these rows are not coded yet, leave their cell empty."),
        "Nothing to do if none of the categories fits these texts.",
    )
    if sets.thresholded:
        n = sets.thresholded
        issues.append(make_issue(
            "info", "averaged_values",
            f"{plural(n, 'value')} between 0 and 1 {'was' if n == 1 else 'were'} counted from 0.5",
            f"{thresholded_note(n)} A text has a category when the value is 0.5 or more, for example when at least "
            "half of the coders gave it; below 0.5 it has not.",
            "Nothing to do if these are averages of several coders; otherwise write 1 or 0.",
            count=n,
        ))
    issues += _unmatched_fix_issues(fixes, sets.written)
    return issues


def _unmatched_fix_issues(fixes: CategoryFixes, written: tuple[str, ...]) -> list[HealthIssue]:
    if not (fixes.merge or fixes.leave_out):
        return []
    text = unmatched_fixes_note(fixes, written)
    if text is None:
        return []
    merge, leave_out = unmatched_fixes(fixes, written)
    n = len(merge) + len(leave_out)
    return [make_issue(
        "warning", "unmatched_fixes",
        f"{plural(n, 'category fix', 'category fixes')} {'matches' if n == 1 else 'match'} no category",
        text, UNMATCHED_HINT, count=n,
    )]
