"""What the findings are computed from, checked: the corpus's predicted probabilities, the coded
texts (:class:`CodedSample`: their categories, cross-fitted probabilities and where they sit in
the corpus), the level of the intervals and the groups. Every problem is a :class:`DataError`
that says what is wrong and what to do."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from guiapp.core.errors import DataError

SUM_TOLERANCE = 1e-3  # rows of probabilities must sum to 1 within this
NO_VALUE = "(no value)"  # the group of texts whose group column is empty


@dataclass(frozen=True)
class CodedSample:
    """The coded texts: their categories, their **cross-fitted** (out-of-fold) probabilities —
    each from a model that never saw the text — and their positions in the corpus (None when the
    coded texts are not texts of the corpus). ``groups`` and ``metadata`` are only needed for
    coded texts outside the corpus: their group values, and their metadata columns for a
    regression."""

    labels: Sequence[str]
    probabilities: Any  # n_coded × K
    positions: Sequence[int] | None = None
    groups: Sequence | None = None
    metadata: pd.DataFrame | None = None

    @property
    def in_corpus(self) -> bool:
        return self.positions is not None


@dataclass(frozen=True)
class Checked:
    """The inputs as arrays: ``f`` the corpus's probabilities (N × K) with the coded texts' rows
    replaced by their cross-fitted ones where the coded texts are in the corpus; ``y`` the coded
    texts' categories as one-hot rows (n × K); ``f_coded`` their cross-fitted probabilities."""

    categories: tuple[str, ...]
    f: np.ndarray
    f_model: np.ndarray  # the corpus's probabilities as given
    y: np.ndarray
    f_coded: np.ndarray
    labels: np.ndarray  # category index of each coded text
    positions: np.ndarray | None

    @property
    def n_texts(self) -> int:
        return self.f.shape[0]

    @property
    def n_coded(self) -> int:
        return self.y.shape[0]


def check_level(level: float) -> float:
    try:
        level = float(level)
    except (TypeError, ValueError):
        level = float("nan")
    if not 0.5 <= level < 1:
        raise DataError(f"An interval at the level {level!r} cannot be given.",
                        "Give a level between 0.5 and 1, such as 0.95 for 95 % intervals.")
    return level


def check_categories(categories: Sequence[str]) -> tuple[str, ...]:
    names = tuple(str(c) for c in categories)
    if len(names) < 2:
        raise DataError("Shares need at least two categories.",
                        "Predict the corpus with a model trained on codings of two or more categories.")
    if len(set(names)) != len(names):
        raise DataError("A category is named twice.", "Name each category once.")
    return names


def check_probabilities(probabilities: Any, n_categories: int, what: str) -> np.ndarray:
    """A float64 matrix with one column per category, every row a probability distribution."""
    p = np.asarray(probabilities, dtype=np.float64)
    if p.ndim != 2 or p.shape[1] != n_categories:
        raise DataError(f"The probabilities of {what} have the shape {p.shape}, not one column for each of the "
                        f"{n_categories} categories.",
                        "Give one row per text and one column per category, in the categories' order.")
    if not np.all(np.isfinite(p)) or np.any(p < -1e-12):
        raise DataError(f"Some probabilities of {what} are missing or negative.",
                        "Predict these texts again; every probability must be a number between 0 and 1.")
    totals = p.sum(axis=1)
    off = np.abs(totals - 1) > SUM_TOLERANCE
    if off.any():
        first = int(np.flatnonzero(off)[0])
        raise DataError(f"The probabilities of {off.sum():,} of {what} do not sum to one "
                        f"(text {first + 1} sums to {totals[first]:.4f}).",
                        "Give each text's probabilities for all categories, so that they add up to 1.")
    return np.clip(p, 0.0, None) / totals[:, None]


def check_inputs(probabilities: Any, categories: Sequence[str], coded: CodedSample) -> Checked:
    names = check_categories(categories)
    f_model = check_probabilities(probabilities, len(names), "the corpus's texts")
    n = f_model.shape[0]
    if n == 0:
        raise DataError("The corpus has no texts.", "Predict the texts whose shares you want to know first.")
    labels = list(coded.labels)
    if len(labels) == 0:
        raise DataError("There are no coded texts, so the model's mistakes cannot be measured.",
                        "Code a random sample of the texts (a few hundred is usual) and predict again.")
    index = {name: i for i, name in enumerate(names)}
    unknown = sorted({str(label) for label in labels if str(label) not in index})
    if unknown:
        raise DataError("Coded texts use categories the model does not know: " + ", ".join(unknown[:5]) + ".",
                        "Predict with a model trained on all the coded categories.")
    codes = np.array([index[str(label)] for label in labels], dtype=np.intp)
    f_coded = check_probabilities(coded.probabilities, len(names), "the coded texts")
    if f_coded.shape[0] != len(labels):
        raise DataError(f"There are {len(labels):,} coded texts but cross-fitted probabilities for "
                        f"{f_coded.shape[0]:,}.", "Give one row of probabilities per coded text.")
    y = np.zeros((len(labels), len(names)))
    y[np.arange(len(labels)), codes] = 1.0
    f = f_model
    positions = None
    if coded.positions is not None:
        positions = np.asarray(coded.positions)
        if positions.shape != (len(labels),) or (positions.size and not np.issubdtype(positions.dtype, np.integer)):
            raise DataError("The positions of the coded texts are not one whole number per coded text.",
                            "Give, for each coded text, its position in the corpus (0 for the first text).")
        positions = positions.astype(np.intp)
        if positions.size and (positions.min() < 0 or positions.max() >= n):
            raise DataError(f"A coded text's position lies outside the corpus of {n:,} texts.",
                            "Give positions between 0 and the number of texts minus 1.")
        if len(np.unique(positions)) != len(positions):
            raise DataError("A text of the corpus is given as coded twice.", "Give each coded text once.")
        f = f_model.copy()
        f[positions] = f_coded
    return Checked(names, f, f_model, y, f_coded, codes, positions)


def group_labels(values: Sequence | None, n: int, what: str) -> tuple[np.ndarray, tuple[str, ...]] | None:
    """(group index of each text, group names in order) for the values of a column; empty values
    form the group ``NO_VALUE``. Numbers keep their order, texts are sorted."""
    if values is None:
        return None
    series = pd.Series(list(values) if not isinstance(values, pd.Series) else values.to_numpy(), dtype=object)
    if len(series) != n:
        raise DataError(f"There are {len(series):,} group values for {n:,} {what}.",
                        "Give one value of the group column for each text.")
    missing = series.isna() | series.map(lambda v: isinstance(v, str) and not v.strip())
    shown = series.map(_shown)
    shown[missing] = NO_VALUE
    present = [value for value in pd.unique(series[~missing])]
    order = _ordered(present)
    names = [_shown(value) for value in order]
    if missing.any():
        names.append(NO_VALUE)
    names = list(dict.fromkeys(names))
    index = {name: i for i, name in enumerate(names)}
    return np.array([index[name] for name in shown], dtype=np.intp), tuple(names)


def _shown(value: object) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _ordered(values: list) -> list:
    try:
        return sorted(values)
    except TypeError:
        return sorted(values, key=str)
