"""Reading JSON lines (.jsonl, .ndjson, or any text file of one JSON object per line).

Exports from annotation tools and APIs are often JSON lines, sometimes named .csv. Each object
is a row and its keys are the columns (in the order they first appear); numbers, booleans and
strings keep their types, nested lists and objects are kept as JSON text. Lines are parsed in
chunks so that progress is reported and the callback can cancel.
"""

from __future__ import annotations

import gzip
import io
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from guiapp.core.errors import DataError
from guiapp.core.events import EventCallback, Progress
from guiapp.core.untrusted.json_reading import loads_json

if TYPE_CHECKING:  # pandas loads on first use, not when the window opens
    import pandas as pd

JSON_LINES_SUFFIXES = (".jsonl", ".ndjson")
LINES_PER_STEP = 20_000


@dataclass
class JsonLinesTable:
    frame: pd.DataFrame  # columns are positions 0…n-1
    header: list[object]
    notices: list[str] = field(default_factory=list)


def _open_text(path: Path):
    raw = gzip.open(path, "rb") if path.suffix.lower() == ".gz" else open(path, "rb")  # noqa: SIM115
    return io.TextIOWrapper(raw, encoding="utf-8-sig", errors="replace", newline=None)


def looks_like_json_lines(sample: bytes) -> bool:
    """Whether the first non-blank line of ``sample`` is a JSON object."""
    text = sample.decode("utf-8", errors="replace").lstrip("\ufeff")
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        if not line.startswith("{"):
            return False
        try:
            return isinstance(loads_json(line), dict)
        except ValueError:
            return False
    return False


def read_json_lines(path: Path, on_event: EventCallback) -> JsonLinesTable:
    import pandas as pd
    total = max(path.stat().st_size, 1)
    frames: list[pd.DataFrame] = []
    done_bytes = 0
    line_number = 0
    with _open_text(path) as text:
        while True:
            chunk: list[tuple[int, str]] = []
            for line in text:
                line_number += 1
                done_bytes += len(line)
                if line.strip():
                    chunk.append((line_number, line))
                if len(chunk) >= LINES_PER_STEP:
                    break
            if not chunk:
                break
            frames.append(_parse_chunk(path, chunk))
            on_event(Progress(min(done_bytes / total, 1.0), f"Reading {path.name}: {line_number:,} lines"))
    if not frames:
        raise DataError(f'"{path.name}" contains no table: it holds no JSON objects.',
                        "Choose the file that holds your coded texts.")
    frame = pd.concat(frames, ignore_index=True, sort=False) if len(frames) > 1 else frames[0]
    header: list[object] = [str(name) for name in frame.columns]
    frame = frame.set_axis(pd.RangeIndex(frame.shape[1]), axis=1)
    for position in range(frame.shape[1]):
        frame.isetitem(position, _tidy_column(frame.iloc[:, position]))
    notice = (f'"{path.name}" holds JSON lines (one record per line), not a table of values '
              "separated by commas; each record was read as a row.")
    if path.suffix.lower() in JSON_LINES_SUFFIXES or path.suffixes[-2:-1] == [".jsonl"]:
        notice = "Each line of the JSON lines file was read as a row; its fields are the columns."
    return JsonLinesTable(frame, header, [notice])


def _parse_chunk(path: Path, lines: list[tuple[int, str]]) -> pd.DataFrame:
    import pandas as pd
    records = []
    for number, line in lines:
        try:
            record = loads_json(line)  # bounded in depth: a line nested thousands deep is a bad line
        except ValueError as error:
            raise _bad_line(path, number, line, error) from error
        if not isinstance(record, dict):
            raise _bad_line(path, number, line, ValueError("not a JSON object"))
        records.append(record)
    return pd.DataFrame.from_records(records)


def _bad_line(path: Path, number: int, line: str, error: Exception) -> DataError:
    return DataError(
        f'Line {number} of "{path.name}" is not a JSON object, although the file holds JSON '
        "lines (one record in curly braces per line).",
        "Check the line in a text editor, or export the data again.",
        details=f"{error}\nline text: {line[:300]!r}",
    )


def _tidy_column(column: pd.Series) -> pd.Series:
    """Nested values as JSON text; a column of strings (and gaps) as a str column."""
    import pandas as pd
    if column.dtype != object:
        return column
    nested = column.map(lambda v: isinstance(v, (list, dict)))
    if nested.any():
        column = column.where(~nested, column[nested].map(lambda v: json.dumps(v, ensure_ascii=False)))
    if pd.api.types.infer_dtype(column, skipna=True) in ("string", "empty"):
        return column.astype("str")
    return column
