"""Texts that appear more than once, and how they are coded.

One definition, used by the key figure, the finding and the table of identical texts: two rows
hold the same text when their texts are equal once runs of spaces, tabs and line breaks count as
one space and capitals are ignored; the number of duplicates is the rows that repeat the text of
another row — the extra copies (a text in 3 rows counts 2), ``Duplicates.n_repeated``.

Vectorised: the normalised texts are factorised once (exact comparison, no hashing shortcuts),
then groups come from ``bincount``/``argsort`` on the integer codes. At most
:data:`MAX_GROUPS` groups (conflicting ones first, then the largest) are kept as
:class:`~guiapp.core.health.report.DuplicateGroup`, each with at most :data:`MAX_GROUP_ROWS` rows;
the issues count all of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from guiapp.core.events import EventCallback, Progress, ignore_events
from guiapp.core.health.checks import make_issue, plural
from guiapp.core.health.findings import DuplicateGroup, HealthIssue

if TYPE_CHECKING:  # pandas and pyarrow load on first use, not when the window opens
    import pandas as pd

MAX_GROUPS = 1_000
MAX_GROUP_ROWS = 1_000
PREVIEW_CHARS = 120


@dataclass
class Duplicates:
    groups: tuple[DuplicateGroup, ...]
    issues: list[HealthIssue]
    n_repeated: int = 0  # rows that repeat another row's text (all groups, not only those kept)


def repeated_words(n: int) -> str:
    """The one wording of the count: "33 rows repeat the text of another row"."""
    return f"{plural(n, 'row')} repeat{'s' if n == 1 else ''} the text of another row"


def normalised_codes(trimmed: pd.Series) -> np.ndarray:
    """One integer per distinct text as compared for duplicates — runs of whitespace as one space,
    lower case — and -1 for a missing one (pyarrow's C++ kernels, no Python loop per text)."""
    import pandas as pd
    import pyarrow as pa
    import pyarrow.compute as pc
    array = pa.chunked_array([pa.array(trimmed.array, from_pandas=True)]) if not isinstance(
        trimmed.array, pd.arrays.ArrowStringArray) else pa.chunked_array(pa.array(trimmed.array))
    array = pc.utf8_lower(pc.replace_substring_regex(array, pattern=r"\s+", replacement=" "))
    encoded = pc.dictionary_encode(array).combine_chunks()
    return encoded.indices.fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int64)


def find_duplicates(trimmed: pd.Series, empty: np.ndarray, category_codes: np.ndarray,
                    labels: list[str], on_event: EventCallback = ignore_events) -> Duplicates:
    """Groups of rows with the same non-empty text; ``category_codes`` index ``labels``
    (-1 = uncoded)."""
    on_event(Progress(0.0, "Looking for texts that appear more than once"))
    codes = normalised_codes(trimmed)
    on_event(Progress(0.6, "Looking for texts that appear more than once"))
    codes = np.where(empty, -1, np.asarray(codes, dtype=np.int64))
    valid = codes >= 0
    sizes = np.bincount(codes[valid]) if valid.any() else np.zeros(0, dtype=np.int64)
    in_group = valid.copy()
    in_group[valid] = sizes[codes[valid]] > 1
    rows = np.flatnonzero(in_group)
    if len(rows) == 0:
        return Duplicates((), [])
    text_codes = codes[rows]
    order = np.argsort(text_codes, kind="stable")
    rows, text_codes = rows[order], text_codes[order]
    starts = np.flatnonzero(np.r_[True, text_codes[1:] != text_codes[:-1]])
    group_of_row = np.cumsum(np.r_[True, text_codes[1:] != text_codes[:-1]]) - 1
    n_groups = len(starts)
    group_sizes = np.diff(np.r_[starts, len(rows)])

    cats = category_codes[rows]
    coded = cats >= 0
    lowest = np.minimum.reduceat(np.where(coded, cats, np.iinfo(np.int64).max), starts)
    highest = np.maximum.reduceat(np.where(coded, cats, -1), starts)
    conflicting = highest > lowest  # uncoded rows take no part; all-uncoded groups never conflict
    on_event(Progress(0.9, "Looking for texts that appear more than once"))

    issues: list[HealthIssue] = []
    n_repeated = len(rows) - n_groups
    conflict_rows = rows[conflicting[group_of_row]]
    n_conflicting = int(conflicting.sum())
    if n_conflicting:
        issues.append(make_issue(
            "warning", "conflicting_duplicates",
            f"{plural(n_conflicting, 'text')} {'is' if n_conflicting == 1 else 'are'} coded with different "
            "categories in different rows",
            "The same text is coded with one category in one row and another category in "
            f"another ({plural(len(conflict_rows), 'row')} in all). A model cannot learn both; "
            "such texts often point to coding slips or to categories that overlap.",
            "Look at these rows and make the coding consistent, or keep one copy of each text.",
            np.sort(conflict_rows),
        ))
    issues.append(make_issue(
        "warning", "duplicate_texts",
        repeated_words(n_repeated),
        f"{plural(n_groups, 'text')} appear{'s' if n_groups == 1 else ''} in more than one row "
        f"({plural(len(rows), 'row')} in all; spaces and capitals are ignored). The same text can then end up "
        "both among the texts a model learns from and among the texts it is tested on, which makes the "
        "model look better than it is.",
        "Keep one copy of each text, unless the repetition is real (for example the same "
        "short answer given by several people).",
        np.sort(rows),
    ))

    ranking = np.lexsort((rows[starts], -group_sizes, ~conflicting))[:MAX_GROUPS]
    groups = []
    for g in ranking:
        members = rows[starts[g]:starts[g] + group_sizes[g]]
        member_cats = np.unique(category_codes[members])
        groups.append(DuplicateGroup(
            text_preview=str(trimmed.iloc[int(members[0])])[:PREVIEW_CHARS],
            rows=tuple(int(r) for r in members[:MAX_GROUP_ROWS]),
            categories=tuple(sorted(labels[c] for c in member_cats if c >= 0)),
            conflicting=bool(conflicting[g]),
        ))
    return Duplicates(tuple(groups), issues, n_repeated)
