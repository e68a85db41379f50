"""What a spreadsheet cell stands for: its text, its category label, its train/test split.

Scalar functions (``cell_text``, ``category_label``, ``split_label``) define the rules; the
vectorised ones (``category_labels``, ``split_labels``, ``text_values``, ``id_values``) give the
same results for whole columns, with fast paths for text columns (pyarrow-backed strings) so
that a million rows take a fraction of a second.

Split values (case and surrounding spaces ignored; ``_``/``-`` count as spaces):
train, training, training set, trainset, and also dev, development, valid, validation,
val (development/validation texts are used for training, since TextLab makes its own validation
folds) → ``"train"``; test, testing, test set, testset, holdout, hold out, held out → ``"test"``.
"""

from __future__ import annotations

import datetime as _dt
import decimal
import math
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pandas loads on first use, not when the window opens
    import pandas as pd

SPLIT_TRAIN = "train"
SPLIT_TEST = "test"

TRAIN_WORDS = frozenset(
    {"train", "training", "training set", "train set", "trainset", "trainingset",
     "dev", "development", "dev set", "devset", "valid", "validation", "validation set", "val"}
)
TEST_WORDS = frozenset(
    {"test", "testing", "test set", "testset", "holdout", "hold out", "heldout", "held out"}
)
_WHOLE_NUMBER_TEXT = re.compile(r"([+-]?\d+)\.0+")


def _is_missing(value: object) -> bool:
    import pandas as pd
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    try:
        result = pd.isna(value)
    except (TypeError, ValueError):
        return False
    return bool(result) if isinstance(result, (bool, np.bool_)) else False


def cell_text(value: object) -> str | None:
    """A cell as the text a user sees in the spreadsheet; None when missing.

    Strings are kept exactly; whole numbers lose their ``.0``; dates become ISO dates.
    """
    import pandas as pd
    if isinstance(value, str):
        return value
    if _is_missing(value):
        return None
    if isinstance(value, (bool, np.bool_)):
        return "True" if value else "False"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        number = float(value)
        if math.isinf(number):
            return "inf" if number > 0 else "-inf"
        return str(int(number)) if number.is_integer() else repr(number)
    if isinstance(value, decimal.Decimal):
        return str(int(value)) if value == value.to_integral_value() else str(value)
    if isinstance(value, np.datetime64):
        value = pd.Timestamp(value)
    if isinstance(value, _dt.datetime):
        if value.tzinfo is None and value.time() == _dt.time(0):
            return value.date().isoformat()
        return value.isoformat(sep=" ")
    if isinstance(value, (_dt.date, _dt.time)):
        return value.isoformat()
    return str(value)


def category_label(value: object) -> str | None:
    """The category label a cell stands for (see the module docstring); None = uncoded."""
    text = cell_text(value)
    if text is None or not text.strip():
        return None
    if isinstance(value, str):
        whole = _WHOLE_NUMBER_TEXT.fullmatch(value)
        if whole:
            return str(int(whole.group(1)))
    return text


def map_unique(series: pd.Series, function: Callable[[object], object], missing: object) -> np.ndarray:
    """Apply ``function`` once per distinct value; an object array aligned with ``series``."""
    import pandas as pd
    codes, uniques = pd.factorize(series, use_na_sentinel=True)
    mapped = np.empty(len(uniques) + 1, dtype=object)
    mapped[:-1] = [function(value) for value in uniques]
    mapped[-1] = missing
    return mapped[codes]


def _as_strings(series: pd.Series) -> pd.Series:
    """Object columns that hold only strings (and gaps) become str columns, for fast paths."""
    import pandas as pd
    if series.dtype == object and pd.api.types.infer_dtype(series, skipna=True) in ("string", "empty"):
        return series.astype("str")
    return series


def _string_cells(series: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """A text column as an object array (None where missing) and a mask of blank cells."""
    values = series.to_numpy(dtype=object, na_value=None)
    blank = (series.isna() | series.str.strip().eq("").fillna(True)).to_numpy(dtype=bool)
    return values, blank


def category_labels(series: pd.Series) -> pd.Series:
    """Vectorised :func:`category_label`: an object Series of str labels or None (uncoded)."""
    import pandas as pd
    series = _as_strings(series)
    if not isinstance(series.dtype, pd.StringDtype):
        return pd.Series(map_unique(series, category_label, None), index=series.index, dtype=object)
    values, blank = _string_cells(series)
    whole = series.str.fullmatch(_WHOLE_NUMBER_TEXT.pattern).fillna(False).to_numpy(dtype=bool)
    if whole.any():
        values[whole] = [category_label(value) for value in values[whole]]
    values[blank] = None
    return pd.Series(values, index=series.index, dtype=object)


def split_kind(value: object) -> str:
    """"train", "test", "missing" or "unknown" for one split cell."""
    text = cell_text(value)
    if text is None or not text.strip():
        return "missing"
    if not isinstance(value, str):
        return "unknown"
    key = re.sub(r"[\s_\-]+", " ", text.strip().casefold())
    if key in TRAIN_WORDS:
        return SPLIT_TRAIN
    if key in TEST_WORDS:
        return SPLIT_TEST
    return "unknown"


def split_label(value: object) -> str | None:
    """``"train"`` or ``"test"`` for a train/test-like cell, else None (missing or unknown)."""
    kind = split_kind(value)
    return kind if kind in (SPLIT_TRAIN, SPLIT_TEST) else None


def split_labels(series: pd.Series) -> tuple[pd.Series, np.ndarray]:
    """Per row ``"train"``/``"test"``/None, and a boolean mask of the rows whose value is
    present but not train/test-like."""
    import pandas as pd
    series = _as_strings(series)
    if isinstance(series.dtype, pd.StringDtype):
        key = series.str.strip().str.casefold().str.replace(r"[\s_\-]+", " ", regex=True)
        kinds = np.full(len(series), "unknown", dtype=object)
        kinds[key.isin(TRAIN_WORDS).to_numpy(dtype=bool)] = SPLIT_TRAIN
        kinds[key.isin(TEST_WORDS).to_numpy(dtype=bool)] = SPLIT_TEST
        kinds[(series.isna() | key.eq("").fillna(True)).to_numpy(dtype=bool)] = "missing"
    else:
        kinds = map_unique(series, split_kind, "missing")
    unknown = kinds == "unknown"
    labels = kinds.copy()
    labels[unknown | (kinds == "missing")] = None
    return pd.Series(labels, index=series.index, dtype=object), unknown


def text_values(series: pd.Series) -> pd.Series:
    """A column as str values, "" where missing."""
    import pandas as pd
    series = _as_strings(series)
    if isinstance(series.dtype, pd.StringDtype):
        result = series.fillna("")
    else:
        result = pd.Series(map_unique(series, cell_text, ""), index=series.index)
        result = result.fillna("")
    return result.astype("str")


def _id_value(value: object) -> str | None:
    text = cell_text(value)
    return text if text is not None and text.strip() else None


def id_values(series: pd.Series) -> np.ndarray:
    import pandas as pd
    series = _as_strings(series)
    if not isinstance(series.dtype, pd.StringDtype):
        return map_unique(series, _id_value, None)
    values, blank = _string_cells(series)
    values[blank] = None
    return values
