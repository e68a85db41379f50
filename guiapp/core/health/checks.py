"""Building blocks of the data-health report, and its checks of the split and ID columns.

Each check takes arrays prepared by :func:`guiapp.core.health.report.compute_health` and returns
:class:`~guiapp.core.health.report.HealthIssue` objects in plain words. ``HealthIssue.count`` is the
total number of affected rows (``rows`` holds at most :data:`MAX_ISSUE_ROWS` of them); for an
issue without rows it counts the items named in its title.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from guiapp.core.health.findings import CategoryCount, FixAction, HealthIssue, Severity
from guiapp.core.study.category_fixes import visible
from guiapp.core.study.mapping import cell_text

if TYPE_CHECKING:  # pandas loads on first use, not when the window opens
    import pandas as pd

MAX_ISSUE_ROWS = 10_000
MAX_CATEGORIES_LISTED = 10_000


def plural(n: int, word: str, words: str | None = None) -> str:
    """"1 text", "1,234 texts"."""
    return f"{n:,} {word if n == 1 else (words or word + 's')}"


def quoted(label: str) -> str:
    """“label”, with hidden characters shown (“Democratic␣”, “Other[tab]”)."""
    return f"“{visible(label)}”"


def listing(items: Sequence[str], limit: int = 5) -> str:
    shown = ", ".join(items[:limit])
    return shown + (f" and {len(items) - limit:,} more" if len(items) > limit else "")


def make_issue(
    severity: Severity,
    code: str,
    title: str,
    explanation: str,
    fix: str,
    rows: np.ndarray | Iterable[int] | None = None,
    count: int | None = None,
    actions: Sequence[FixAction] = (),
) -> HealthIssue:
    """A HealthIssue with its rows capped at MAX_ISSUE_ROWS; ``count`` defaults to all rows."""
    positions = np.asarray([] if rows is None else rows)
    positions = np.flatnonzero(positions) if positions.dtype == bool else positions.astype(np.int64)
    total = len(positions) if count is None else count
    return HealthIssue(
        severity=severity,
        code=code,
        title=title,
        explanation=explanation,
        fix=fix,
        rows=tuple(int(p) for p in positions[:MAX_ISSUE_ROWS]),
        count=int(total),
        actions=tuple(actions),
    )


def rows_issue(severity: Severity, code: str, rows: np.ndarray, what: str, explanation: str, fix: str,
               verbs: tuple[str, str] = ("has", "have")) -> list[HealthIssue]:
    """The issue of the rows marked in ``rows`` (a mask), titled "1 row has …" / "3 rows have …"
    (``what`` follows the verb; ``verbs`` gives it for one row and for several), or no issue when
    no row is marked."""
    if not rows.any():
        return []
    n = int(rows.sum())
    title = f"{plural(n, 'row')} {verbs[0] if n == 1 else verbs[1]} {what}"
    return [make_issue(severity, code, title, explanation, fix, rows)]


@dataclass
class CategoryData:
    """The coded categories in array form. Several categories per text: ``matrix`` holds them
    (rows × labels, 0/1) and ``codes`` only tells coded rows (0) from uncoded ones (-1)."""

    column: str
    codes: np.ndarray  # per row: index into labels, -1 = uncoded
    labels: list[str]
    counts: np.ndarray  # coded rows per label
    train_counts: np.ndarray  # coded rows per label that can be used for training
    source_is_datetime: bool
    left_out: np.ndarray | None = None  # rows whose category the study leaves out
    matrix: np.ndarray | None = None  # several categories per text: (rows, labels) 0/1

    @property
    def n_coded(self) -> int:
        if self.matrix is not None:
            return int((self.codes >= 0).sum())
        return int(self.counts.sum())


def category_data(category: pd.Series, train_mask: np.ndarray, column: str,
                  source_dtype: object) -> CategoryData:
    import pandas as pd
    codes, uniques = pd.factorize(category, use_na_sentinel=True)
    codes = np.asarray(codes, dtype=np.int64)
    coded = codes >= 0
    counts = np.bincount(codes[coded], minlength=len(uniques))
    train_counts = np.bincount(codes[coded & train_mask], minlength=len(uniques))
    return CategoryData(
        column=column,
        codes=codes,
        labels=[str(u) for u in uniques],
        counts=counts,
        train_counts=train_counts,
        source_is_datetime=pd.api.types.is_datetime64_any_dtype(source_dtype),
    )


def category_counts(data: CategoryData, n_folds: int) -> tuple[CategoryCount, ...]:
    """Largest first (ties by label); at most MAX_CATEGORIES_LISTED."""
    n_coded = data.n_coded
    order = sorted(range(len(data.labels)), key=lambda i: (-int(data.counts[i]), data.labels[i]))
    return tuple(
        CategoryCount(
            label=data.labels[i],
            count=int(data.counts[i]),
            share=float(data.counts[i]) / n_coded if n_coded else 0.0,
            too_small=bool(data.train_counts[i] < n_folds),
        )
        for i in order[:MAX_CATEGORIES_LISTED]
    )


def rows_of(data: CategoryData, label_indices: Iterable[int]) -> np.ndarray:
    if data.matrix is not None:  # several categories per text: the rows that have any of them
        return np.flatnonzero(data.matrix[:, list(label_indices)].any(axis=1))
    chosen = np.zeros(len(data.labels) + 1, dtype=bool)
    chosen[list(label_indices)] = True
    return np.flatnonzero(chosen[data.codes])  # code -1 indexes the last (False) slot

def split_issues(column: str, labels: pd.Series, unknown: np.ndarray, source: pd.Series,
                 data: CategoryData | None) -> list[HealthIssue]:
    issues: list[HealthIssue] = []
    if unknown.any():
        counts = source[unknown].map(cell_text).value_counts()
        shown = [f"{quoted(str(v))} ({c:,})" for v, c in counts.items()]
        issues += rows_issue(
            "error", "split_values", unknown, "a split value that is not train or test",
            f"The column '{column}' should say for every text whether it is for training or "
            f"for the final test. Other values: {listing(shown)}.",
            "Write train or test in these rows (dev and validation count as train), or choose "
            "no split column and let TextLab set texts aside at random.",
        )
    issues += rows_issue(
        "warning", "split_missing", labels.isna().to_numpy() & ~unknown, "no value in the split column",
        f"The column '{column}' is empty in these rows, so TextLab cannot tell whether they "
        "are for training or for the final test.",
        "Write train or test in these rows.",
    )
    if data is None or data.n_coded == 0:
        return issues
    coded = data.codes >= 0
    values = labels.to_numpy()
    train, test = coded & (values == "train"), coded & (values == "test")
    if not train.any():
        issues.append(make_issue(
            "error", "split_no_train", "No coded text is marked train",
            f"The column '{column}' sets every coded text aside for the final test, so no model "
            "could learn anything.",
            "Mark most coded texts as train, or choose no split column.",
        ))
    elif not test.any():
        issues.append(make_issue(
            "warning", "split_no_test", "No coded text is marked test",
            "The final test shows how well the chosen model codes texts it has never seen; "
            f"the column '{column}' marks no coded text for it.",
            "Mark some coded texts as test, or choose no split column and let TextLab set "
            "texts aside at random.",
        ))
    else:
        only_test = _only_test(data, train, test)
        if only_test:
            issues.append(make_issue(
                "warning", "test_only_categories",
                f"{plural(len(only_test), 'category', 'categories')} "
                f"{'occurs' if len(only_test) == 1 else 'occur'} only among the test texts",
                "A model never sees these categories during training and so can never predict "
                f"them: {listing([quoted(data.labels[i]) for i in only_test], 10)}.",
                "Mark some texts of these categories as train.",
                rows_of(data, only_test),
            ))
    return issues


def _only_test(data: CategoryData, train: np.ndarray, test: np.ndarray) -> list[int]:
    """Labels that some test texts have and no training text."""
    if data.matrix is not None:  # several categories per text
        in_train, in_test = data.matrix[train].any(axis=0), data.matrix[test].any(axis=0)
        return np.flatnonzero(in_test & ~in_train).tolist()
    in_train = np.zeros(len(data.labels), dtype=bool)
    in_train[data.codes[train]] = True
    return sorted(set(np.unique(data.codes[test]).tolist()) - set(np.flatnonzero(in_train).tolist()))


def repeated_values(values: pd.Series, chunk: int = 100_000) -> np.ndarray:
    """Mask of values that occur more than once (missing values excluded).

    Values are hashed in slices so that no single call holds the GIL for long (the window stays
    responsive on a million IDs); candidates are then confirmed by exact comparison, so a hash
    collision can never report a false duplicate.
    """
    import pandas as pd
    array = values.to_numpy(dtype=object)
    missing = values.isna().to_numpy()
    hashes = np.empty(len(array), dtype=np.uint64)
    for start in range(0, len(array), chunk):
        hashes[start:start + chunk] = pd.util.hash_array(array[start:start + chunk])
    _, inverse, counts = np.unique(hashes, return_inverse=True, return_counts=True)
    candidates = (counts[inverse] > 1) & ~missing
    repeated = np.zeros(len(array), dtype=bool)
    if candidates.any():
        rows = np.flatnonzero(candidates)
        repeated[rows] = pd.Series(array[rows]).duplicated(keep=False).to_numpy()
    return repeated


def id_issues(column: str, ids: pd.Series) -> list[HealthIssue]:
    duplicate = rows_issue(
        "warning", "duplicate_ids", repeated_values(ids), "an ID with another row",
        f"IDs in '{column}' should be unique: they are used to match the model's codes to "
        "your texts in the exported files.",
        "Give each row its own ID, or choose no ID column (TextLab then uses row numbers).",
        verbs=("shares", "share"),
    )
    return duplicate + rows_issue(
        "info", "missing_ids", ids.isna().to_numpy(), "no ID",
        f"The column '{column}' is empty in these rows; exported files will show their row "
        "numbers instead.",
        "Fill in the IDs if you need them.",
    )
