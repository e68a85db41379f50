"""Is the chosen text column really text? A column of numbers or dates chosen as the text (by
hand, or because its name says "text") gives models nothing to learn from words.

Looks at up to :data:`SAMPLE_ROWS` rows of each text column with Arrow's string functions.
"""

from __future__ import annotations

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from guiapp.core.health.checks import make_issue, quoted
from guiapp.core.health.findings import HealthIssue
from guiapp.core.study.mapping import cell_text

SAMPLE_ROWS = 20_000
ERROR_SHARE = 0.8  # at least this share of numbers or dates: not ready
WARNING_SHARE = 0.5
_NUMBER = r"^[+-]?[$€£¥]?(\d+|\d{1,3}([,. '\x{a0}]\d{3})+)([.,]\d+)?([eE][+-]?\d+)?\s?%?$"
_DATE = (r"^(\d{1,4}[-./]\d{1,2}[-./]\d{1,4}([ T]\d{1,2}:\d{2}(:\d{2}(\.\d+)?)?)?"
         r"|\d{1,2}:\d{2}(:\d{2})?)$")


def numeric_text_issues(frame: pd.DataFrame, columns: list[str]) -> list[HealthIssue]:
    """An error (mostly numbers or dates) or a warning (half or more) per text column."""
    issues = []
    for column in columns:
        found = _numbers_and_dates(frame[column].iloc[:SAMPLE_ROWS])
        if found is None:
            continue
        share, what, example = found
        if share < WARNING_SHARE:
            continue
        error = share >= ERROR_SHARE
        issues.append(make_issue(
            "error" if error else "warning", "text_column_numbers",
            f"The text column '{column}' holds {'' if error else 'many '}{what}, not texts",
            f"{share:.0%} of its values are {what}, for example {quoted(example)}. Models learn "
            "from the words of a text; a number or a date has none.",
            "Choose the column that holds your texts." if error else
            "Check that you chose the column that holds your texts.",
            count=0,
        ))
    return issues


def _numbers_and_dates(values: pd.Series) -> tuple[float, str, str] | None:
    """(share of the non-empty values that are numbers or dates, "numbers"/"dates"/"numbers
    and dates", an example) or None when the column has no values."""
    present = values[values.notna()]
    if len(present) == 0:
        return None
    if pd.api.types.is_bool_dtype(present.dtype):
        return None
    if pd.api.types.is_numeric_dtype(present.dtype):
        return 1.0, "numbers", cell_text(present.iloc[0]) or ""
    if pd.api.types.is_datetime64_any_dtype(present.dtype):
        return 1.0, "dates", cell_text(present.iloc[0]) or ""
    texts = [cell_text(v) for v in present] if present.dtype == object else present.astype(str).tolist()
    array = pc.utf8_trim_whitespace(pa.array(texts, type=pa.large_string()))
    array = pc.filter(array, pc.not_equal(array, ""))
    if len(array) == 0:
        return None
    numbers = pc.match_substring_regex(array, _NUMBER)
    dates = pc.match_substring_regex(array, _DATE)
    n_numbers, n_dates = int(pc.sum(numbers).as_py() or 0), int(pc.sum(dates).as_py() or 0)
    either = pc.or_(numbers, dates)
    n_either = int(pc.sum(either).as_py() or 0)
    if not n_either:
        return 0.0, "numbers", ""
    share = n_either / len(array)
    what = "numbers" if not n_dates else "dates" if not n_numbers else "numbers and dates"
    example = pc.filter(array, either)[0].as_py()
    return share, what, example
