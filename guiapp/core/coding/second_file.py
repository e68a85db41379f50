"""A second file of texts to code: texts that are not rows of the study's table (the next month's
tweets, a fresh sample of speeches) coded on the Coding step and added to the study.

:func:`texts_to_code` makes the file's table fit the study: its text column(s) under the names the
study's table uses (a file with other column names has its most text-like column taken and renamed),
its other columns kept as they are, shown beside each text. :func:`with_second_file_codings` adds
the coded texts of that file to the table a study runs on, after the table's own rows, so a study
learns from the file's codings plus every coding made in TextLab. Neither file is ever changed.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from guiapp.core.coding.coding_record import row_label
from guiapp.core.coding.codings import CodingLog, category_cell, category_column
from guiapp.core.errors import DataError
from guiapp.core.events import EventCallback, ignore_events
from guiapp.core.predict.new_texts import text_columns_for, texts_of
from guiapp.core.study.mapping import ColumnMapping
from guiapp.core.tables.reader import read_table
from guiapp.core.tables.rows import copy_row_origin

if TYPE_CHECKING:  # pandas loads on first use, not when the window opens
    import pandas as pd

SECOND_FILE = "second file"
NAME_ATTR = "textlab_file_name"  # the second file's name, kept with its rows (in the project too)


def read_texts_to_code(path: str | Path, mapping: ColumnMapping, sheet: str | None = None,
                       on_event: EventCallback = ignore_events) -> pd.DataFrame:
    """Read a second file of texts to code (never changing it) and make it fit the study
    (:func:`texts_to_code`); its name is kept with its rows (:func:`file_name`)."""
    table = read_table(path, sheet, on_event=on_event)
    fitted = texts_to_code(table.frame, mapping, table.path.name)
    fitted.attrs[NAME_ATTR] = table.path.name
    return fitted


def file_name(coding_texts: pd.DataFrame) -> str:
    """The name of the file the texts to code were read from ("the second file" when not known)."""
    name = coding_texts.attrs.get(NAME_ATTR)
    return name if isinstance(name, str) and name else "the second file"


def texts_to_code(frame: pd.DataFrame, mapping: ColumnMapping, name: str = "the file") -> pd.DataFrame:
    """The rows of a second file with the study's text column(s): taken as they are when the file
    has columns of those names, else its most text-like column renamed to the study's (one text
    column only). The rows keep their positions in the file (so the rows Excel shows are named).
    :class:`DataError` when no column holds texts, or the study joins several text columns the file
    lacks."""
    wanted = list(mapping.text_columns)
    if not wanted:
        raise DataError("Your table has no column marked as holding the texts yet.",
                        "Choose the text column on the Data step first, then open the file of texts to code.")
    if frame.empty:
        raise DataError(f"{name} has no rows.", "Choose a file with one text per row.")
    found = text_columns_for(frame, wanted)
    if found == wanted:
        out = frame.copy()
    elif len(wanted) == 1 and len(found) == 1:
        out = frame.rename(columns={found[0]: wanted[0]})
        if wanted[0] in frame.columns:  # the study's name is taken by another column of the file
            out = frame.drop(columns=[wanted[0]]).rename(columns={found[0]: wanted[0]})
    else:
        missing = ", ".join(f"“{column}”" for column in wanted if column not in frame.columns)
        raise DataError(
            f"{name} lacks the column{'s' if len(wanted) > 1 else ''} {missing} that hold{'' if len(wanted) > 1 else 's'}"
            " the texts in your table.",
            "Give the file's text column(s) the same names as in your table, then open it again.")
    copy_row_origin(frame, out)
    texts = texts_of(out, replace(mapping, text_columns=wanted))
    if not any(text.strip() for text in texts):
        raise DataError(f"The column “{wanted[0]}” of {name} holds no text.",
                        "Choose a file with one text per row in that column.")
    return out


def with_second_file_codings(study: pd.DataFrame, mapping: ColumnMapping, log: CodingLog,
                             coding_texts: pd.DataFrame | None) -> pd.DataFrame:
    """``study`` (the table with its codings applied) with the coded texts of the second file added
    after its rows: their text column(s), the columns both files share, and the category in the
    study's category column. Returned as it is when no text of a second file is coded.
    :class:`DataError` when a coding names a row the second file does not have."""
    import pandas as pd
    coded = log.categories_by_row(SECOND_FILE)
    if coding_texts is None or not coded:
        return study
    rows = {row_label(row): row for row in coding_texts.index}
    missing = [row for row in coded if row not in rows]
    if missing:
        shown = ", ".join(map(str, missing[:5])) + (" …" if len(missing) > 5 else "")
        raise DataError(f"{len(missing):,} coded text{'s are' if len(missing) != 1 else ' is'} not in the second "
                        f"file of texts (rows {shown}).",
                        "The file has changed since they were coded. Open the project that holds the file.")
    column = category_column(study, mapping)
    shared = [c for c in coding_texts.columns if c in study.columns and c != column]
    added = coding_texts.loc[[rows[row] for row in coded], shared].copy()
    dtype = study[column].dtype if column in study.columns else np.dtype(object)
    added[column] = [category_cell(category, dtype) for category in coded.values()]
    start = int(np.max(study.index.to_numpy(), initial=-1)) + 1 if pd.api.types.is_integer_dtype(
        study.index.dtype) else len(study)
    added.index = pd.RangeIndex(start, start + len(added))
    joined = pd.concat([study, added[[c for c in study.columns if c in added.columns]]], axis=0)
    copy_row_origin(study, joined)
    return joined
