"""The checks of a study where a text can have several categories that the run and the data-health
report share: a category no coded text has, a category (almost) every training text has, and the
note on values between 0 and 1 (averaged coders) counted as the category from 0.5."""

from __future__ import annotations

import numpy as np

from guiapp.core.errors import DataError
from guiapp.core.study.category_fixes import visible


def thresholded_note(n: int) -> str:
    """The note on values between 0 and 1 in indicator columns."""
    value, were = ("value", "was") if n == 1 else ("values", "were")
    return f"{n:,} {value} between 0 and 1 (averaged coders) {were} counted as the category from 0.5."


def no_texts_error(names: list[str]) -> DataError:
    """Categories that no coded text has (an indicator column without a 1)."""
    listed = ", ".join(f"“{visible(name)}”" for name in names[:10]) + (f" and {len(names) - 10:,} more"
                                                                        if len(names) > 10 else "")
    one = len(names) == 1
    return DataError(
        f"No coded text has the categor{'y' if one else 'ies'} {listed}, so there is nothing to learn about "
        f"{'it' if one else 'them'}.",
        f"Untick {'its column' if one else 'their columns'} or leave {'it' if one else 'them'} out (the Data step's "
        "check offers it, or [data] category_fixes in the study file), or code texts that have "
        f"{'it' if one else 'them'}.",
    )


def common_categories(y_train: np.ndarray, n_folds: int, categories: list[str] | None = None) -> list[tuple[str, int]]:
    """Several categories per text: ``(category, training texts without it)`` of the categories
    that fewer training texts than folds do *not* have (a category every text has tells nothing
    apart), fewest first; categories no training text has are not counted here."""
    counts = y_train.sum(axis=0, dtype=np.int64)
    without = len(y_train) - counts
    names = categories if categories is not None else [str(k) for k in range(len(counts))]
    common = [int(k) for k in np.flatnonzero((counts > 0) & (without < n_folds))]
    return sorted(((names[k], int(without[k])) for k in common), key=lambda item: (item[1], item[0]))


def common_categories_error(common: list[tuple[str, int]], n_folds: int) -> DataError:
    """The run's words for categories (almost) every training text has."""
    names = [f"“{visible(label)}”" for label, _ in common]
    one = len(common) == 1
    if one and common[0][1] == 0:
        message = f"Every training text has the category {names[0]}, so there is nothing to tell apart for it."
    elif one:
        n = common[0][1]
        message = (f"Only {n:,} training text{' does' if n == 1 else 's do'} not have the category {names[0]}, fewer "
                   f"than the {n_folds} cross-validation folds, so some folds would have only texts with it.")
    else:
        listed = ", ".join(f"{name} ({n:,} without it)" for name, (_, n) in zip(names[:10], common[:10], strict=True))
        listed += f" and {len(common) - 10:,} more" if len(common) > 10 else ""
        message = (f"{len(common):,} categories are missing from fewer training texts than the {n_folds} "
                   f"cross-validation folds, so some folds would have only texts with them: {listed}.")
    it = "it" if one else "them"
    return DataError(
        message,
        f"Leave {it} out (the Data step's check offers it, or [data] category_fixes in the study file): a category "
        f"that (almost) every text has cannot be told apart; or code more texts without {it}.",
    )
