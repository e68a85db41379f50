"""First guesses at the roles of a table's columns, from their names and values.

Works on a seeded random sample of at most 20,000 rows (uniqueness of an ID and the values of
a split column are confirmed on the whole column). See :func:`guiapp.core.study.mapping.suggest_mapping`.
"""

from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from guiapp.core.tables.cell_values import (
    SPLIT_TEST,
    SPLIT_TRAIN,
    category_label,
    category_labels,
    map_unique,
    split_kind,
)

if TYPE_CHECKING:  # pandas and pyarrow load on first use, not when the window opens
    import pandas as pd
    import pyarrow as pa

SAMPLE_ROWS = 20_000
MAX_CATEGORY_VALUES = 50
_NUMBER_TEXT = re.compile(r"\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*")
_WHOLE_NUMBER_TEXT = re.compile(r"([+-]?\d+)\.0+")  # as in cell_values: "3.0" is the label "3"
_CATEGORY_NAMES = (
    "label", "categor", "class", "code", "topic", "stance", "major", "minor", "sentiment",
    "annotation", "coding", "target", "frame", "polarity", "tag", "type",
)
_TEXT_NAMES = ("text", "tweet", "comment", "body", "content", "sentence", "title", "message",
               "abstract", "speech", "post", "answer", "response", "description")
_ID_NAMES = ("id", "docid", "documentid", "textid", "itemid", "uid", "uuid", "key", "rowid")
_SPLIT_NAMES = ("split", "set", "partition", "subset", "sample", "fold")


def _name_tokens(name: object) -> list[str]:
    text = re.sub(r"([a-z])([A-Z])", r"\1 \2", str(name))
    return [token for token in re.split(r"[^0-9a-zA-Z]+", text.casefold()) if token]


def _name_like(name: object, words: tuple[str, ...], *, prefix: bool = True) -> bool:
    tokens = _name_tokens(name)
    joined = "".join(tokens)
    if joined in words:
        return True
    if prefix:
        return any(token.startswith(word) for token in tokens for word in words)
    return any(token in words for token in tokens)


@dataclass
class _Profile:
    name: str
    position: int
    coverage: float  # share of sampled rows with a value
    n_values: int  # sampled rows with a value
    n_distinct: int  # distinct category labels among them
    mean_len: float  # characters per value, free-text values only
    mean_words: float
    text_share: float  # share of values that are non-numeric strings
    numeric: bool  # every value is a number or a number written as text
    fractional: bool  # some numbers have a fractional part
    dates: bool


def _arrow_strings(column: pd.Series) -> pa.Array | None:
    """A text column (pyarrow-backed str dtype) as one Arrow array; None for other columns."""
    import pandas as pd
    import pyarrow as pa
    if not isinstance(column.dtype, pd.StringDtype) or not hasattr(column.array, "__arrow_array__"):
        return None
    array = pa.array(column.array)
    return array.combine_chunks() if isinstance(array, pa.ChunkedArray) else array


def _profile_strings(name: str, position: int, array: pa.Array) -> _Profile:
    """:func:`_profile` for a text column, with Arrow's vectorised string functions: the same
    numbers at a small fixed cost per column, so that a table of 1,000 columns stays quick."""
    import pandas as pd
    import pyarrow as pa
    import pyarrow.compute as pc
    n_rows = len(array)
    blank = pc.fill_null(pc.equal(pc.utf8_trim_whitespace(array), ""), True)
    values = pc.filter(array, pc.invert(blank))
    n_values = len(values)
    numeric = pc.match_substring_regex(values, f"^(?:{_NUMBER_TEXT.pattern})$")
    n_numeric = int(pc.sum(numeric).as_py() or 0)
    free = pc.filter(values, pc.invert(numeric))
    fractional, labels = False, values
    if n_numeric:
        number_texts = pc.filter(values, numeric)
        try:
            numbers = pc.cast(pc.utf8_trim_whitespace(number_texts), pa.float64())
            fractional = bool(pc.any(pc.not_equal(pc.floor(numbers), numbers)).as_py())
        except pa.ArrowInvalid:  # e.g. a number too long for Arrow: as in _profile
            numbers = pd.to_numeric(pd.Series(number_texts.to_pylist()), errors="coerce")
            fractional = bool((numbers % 1 != 0).any())
        whole = pc.match_substring_regex(values, f"^(?:{_WHOLE_NUMBER_TEXT.pattern})$")
        if pc.any(whole).as_py():
            labels = pa.array([category_label(v) for v in values.to_pylist()], type=values.type)
    return _Profile(
        name=name,
        position=position,
        coverage=n_values / n_rows if n_rows else 0.0,
        n_values=n_values,
        n_distinct=int(pc.count_distinct(labels).as_py()),
        mean_len=float(pc.mean(pc.utf8_length(free)).as_py()) if len(free) else 0.0,
        mean_words=float(pc.mean(pc.count_substring_regex(free, r"\S+")).as_py()) if len(free) else 0.0,
        text_share=len(free) / n_values if n_values else 0.0,
        numeric=bool(n_values) and n_numeric == n_values,
        fractional=fractional,
        dates=False,
    )


def _profile(name: str, position: int, column: pd.Series) -> _Profile:
    import pandas as pd
    array = _arrow_strings(column)
    if array is not None:
        return _profile_strings(name, position, array)
    n_rows = len(column)
    labels = category_labels(column)
    present = labels.notna()
    n_values = int(present.sum())
    values = column[present.to_numpy()]
    strings = values[values.map(lambda v: isinstance(v, str)).to_numpy(dtype=bool)].astype("str")
    numeric_strings = strings.str.fullmatch(_NUMBER_TEXT.pattern)
    free = strings[~numeric_strings.to_numpy(dtype=bool)]
    numbers = values[values.map(
        lambda v: isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)
    ).to_numpy(dtype=bool)]
    n_numeric = len(numbers) + int(numeric_strings.sum())
    fractional = bool(
        (pd.to_numeric(strings[numeric_strings.to_numpy(dtype=bool)], errors="coerce") % 1 != 0).any()
        or (pd.to_numeric(numbers, errors="coerce") % 1 != 0).any()
    )
    dates = pd.api.types.is_datetime64_any_dtype(column.dtype) or bool(
        n_values and values.map(lambda v: isinstance(v, (_dt.date, _dt.datetime))).all()
    )
    return _Profile(
        name=name,
        position=position,
        coverage=n_values / n_rows if n_rows else 0.0,
        n_values=n_values,
        n_distinct=int(labels[present].nunique()),
        mean_len=float(free.str.len().mean()) if len(free) else 0.0,
        mean_words=float(free.str.count(r"\S+").mean()) if len(free) else 0.0,
        text_share=len(free) / n_values if n_values else 0.0,
        numeric=bool(n_values) and n_numeric == n_values,
        fractional=fractional,
        dates=dates,
    )


def _is_split_column(column: pd.Series) -> bool:
    import pyarrow.compute as pc
    array = _arrow_strings(column)
    if array is not None:  # quick: most columns fail on their first distinct value
        kinds = set()
        for value in pc.unique(array).to_pylist():
            kinds.add("missing" if value is None else split_kind(value))
            if "unknown" in kinds:
                return False
        return bool(kinds & {SPLIT_TRAIN, SPLIT_TEST})
    kinds = set(map_unique(column.drop_duplicates(), split_kind, "missing"))
    return "unknown" not in kinds and bool(kinds & {SPLIT_TRAIN, SPLIT_TEST})


def _suggest_text(profiles: list[_Profile]) -> str | None:
    candidates = [
        p for p in profiles
        if not p.dates and p.text_share >= 0.8 and p.n_values > 0
        and (p.mean_words >= 2.5 or _name_like(p.name, _TEXT_NAMES))
        and (p.n_distinct >= 0.3 * p.n_values or p.n_distinct > MAX_CATEGORY_VALUES
             or _name_like(p.name, _TEXT_NAMES))
    ]
    if not candidates:
        return None
    best = max(candidates, key=lambda p: (p.mean_len * p.coverage, _name_like(p.name, _TEXT_NAMES)))
    return best.name


def _suggest_category(profiles: list[_Profile]) -> str | None:
    def repeats(p: _Profile) -> bool:
        if p.n_values >= 10:
            return p.n_distinct <= 0.5 * p.n_values
        return p.n_distinct < p.n_values

    candidates = [
        p for p in profiles
        if not p.dates and not p.fractional
        and 2 <= p.n_distinct <= MAX_CATEGORY_VALUES and repeats(p)
    ]
    if not candidates:
        return None
    # Named like a category first; between two such columns (e.g. "Topic code" and "Topic"),
    # the one with words reads better than the one with numeric codes; then the leftmost.
    best = max(candidates, key=lambda p: (_name_like(p.name, _CATEGORY_NAMES), not p.numeric, -p.position))
    return best.name


def _suggest_id(frame: pd.DataFrame, profiles: list[_Profile]) -> str | None:
    def unique(name: str) -> bool:
        column = frame[name]
        return bool(column.notna().all() and column.is_unique)

    named = [p for p in profiles if _name_like(p.name, _ID_NAMES, prefix=False)]
    named.sort(key=lambda p: ("".join(_name_tokens(p.name)) != "id", p.position))
    for p in named:
        if p.coverage == 1.0 and p.n_distinct == p.n_values and unique(p.name):
            return p.name
    for p in profiles:
        if (p.numeric and not p.fractional and p.coverage == 1.0
                and p.n_distinct == p.n_values and unique(p.name)):
            return p.name
    return None


@dataclass
class SuggestedRoles:
    text: str | None = None
    category: str | None = None
    id: str | None = None
    split: str | None = None


def suggest_roles(frame: pd.DataFrame) -> SuggestedRoles:
    """The guessed roles; raises nothing on any frame (what cannot be guessed stays None)."""
    roles = SuggestedRoles()
    try:
        if len(frame) == 0 or len(frame.columns) == 0:
            return roles
        sample = frame
        if len(frame) > SAMPLE_ROWS:
            rng = np.random.default_rng(0)
            sample = frame.iloc[np.sort(rng.choice(len(frame), SAMPLE_ROWS, replace=False))]
        split_names = []
        for name in frame.columns:
            try:
                if _is_split_column(sample[name]) and _is_split_column(frame[name]):
                    split_names.append(name)
            except Exception:  # a column we cannot read is simply not suggested
                continue
        if split_names:
            split_names.sort(key=lambda n: not _name_like(n, _SPLIT_NAMES))
            roles.split = split_names[0]
        profiles: list[_Profile] = []
        for position, name in enumerate(frame.columns):
            if name == roles.split:
                continue
            try:
                profiles.append(_profile(name, position, sample[name]))
            except Exception:
                continue
        roles.text = _suggest_text(profiles)
        profiles = [p for p in profiles if p.name != roles.text]
        roles.id = _suggest_id(frame, profiles)
        profiles = [p for p in profiles if p.name != roles.id]
        roles.category = _suggest_category(profiles)
    except Exception:  # a suggestion must never stop the user; they can choose by hand
        return roles
    return roles


_ROLE_NAMES = {"text": "the texts", "category": "the categories", "id": "the IDs", "split": "the train/test split"}


def why_not(frame: pd.DataFrame, role: str, chosen: dict[str, str] | None = None,
            limit: int = 20) -> list[tuple[str, str]]:
    """Why each column (at most ``limit``) was not guessed to hold ``role`` ("text" or
    "category"): ``(column, reason)`` in a researcher's words — empty, one value, dates, numbers,
    a different value in every row … ``chosen``: columns that already play a role (column → role)."""
    chosen = chosen or {}
    sample = frame
    if len(frame) > SAMPLE_ROWS:
        rng = np.random.default_rng(0)
        sample = frame.iloc[np.sort(rng.choice(len(frame), SAMPLE_ROWS, replace=False))]
    reasons = []
    for position, name in enumerate(list(frame.columns)[:limit]):
        if name in chosen:
            reasons.append((str(name), f"chosen for {_ROLE_NAMES.get(chosen[name], chosen[name])}"))
            continue
        try:
            profile = _profile(name, position, sample[name])
            reason = _reason(profile, role, sample[name])
        except Exception:  # an explanation must never stop the report
            reason = "could not be read as text or categories"
        reasons.append((str(name), reason))
    return reasons


def _reason(p: _Profile, role: str, column: pd.Series) -> str:
    if p.n_values == 0:
        return "empty in every row"
    if p.n_distinct == 1:
        value = next(iter(category_labels(column).dropna()), "")
        return f"the same value in every row (“{value[:40]}”)"
    if p.dates or _written_dates(column):
        return "dates"
    if role == "text":
        if p.numeric:
            return "numbers with decimals" if p.fractional else "numbers"
        if p.text_share < 0.8:
            return f"mostly numbers ({1 - p.text_share:.0%} of its filled cells)"
        if p.mean_words < 2.5:
            return f"short values ({p.mean_words:.1f} words on average), not texts"
        return f"only {p.n_distinct:,} different values that repeat, more like categories than texts"
    if p.fractional:
        return "numbers with decimals, like a measurement rather than categories"
    numbers = "numbers, " if p.numeric else ""
    if p.n_distinct == p.n_values:
        return f"{numbers}a different value in every row" + (" (like IDs)" if p.numeric else "")
    if p.n_distinct > MAX_CATEGORY_VALUES:
        return f"{numbers}{p.n_distinct:,} different values, too many for categories (at most {MAX_CATEGORY_VALUES})"
    if p.n_distinct <= 0.5 * p.n_values if p.n_values >= 10 else p.n_distinct < p.n_values:  # as _suggest_category
        return f"{numbers}{p.n_distinct:,} different values: it could be the categories"
    return f"{numbers}{p.n_distinct:,} different values among {p.n_values:,} rows: most occur only once or twice"


# a date written as text: 2021-03-04 (with a time, perhaps), 4.3.2021, 4/3/21 (also the data check's rule)
WRITTEN_DATE = re.compile(r"\d{4}-\d{1,2}-\d{1,2}([ T]\d{1,2}:\d{2}(:\d{2}(\.\d+)?)?)?|\d{1,2}[./]\d{1,2}[./](\d{2}|\d{4})")
_DATE_TEXT = re.compile(rf"\s*({WRITTEN_DATE.pattern})\s*")


def _written_dates(column: pd.Series) -> bool:
    """Whether 80% or more of a column's filled cells are dates written as text (2021-03-04, 4.3.2021)."""
    values = column.dropna()
    values = values[values.map(lambda v: isinstance(v, str)).to_numpy(dtype=bool)]
    if len(values) == 0 or len(values) < 0.8 * column.notna().sum():
        return False
    return bool(values.astype("str").str.fullmatch(_DATE_TEXT.pattern).mean() >= 0.8)
