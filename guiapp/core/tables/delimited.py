"""Reading delimited text files (.csv .tsv .txt .tab, also gzip-compressed) into a DataFrame.

pyarrow's streaming CSV reader parses one block (about 1 MB) at a time without holding the GIL,
so the GUI stays responsive and we report progress and check for cancellation between blocks.
Every cell is read as a string; only an empty cell is missing ("NA", "null" … stay text).
Columns are Arrow ``large_string`` so that the conversion to pandas' ``str`` dtype is free.
"""

from __future__ import annotations

import codecs
import gzip
import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from guiapp.core.errors import DataError
from guiapp.core.events import EventCallback, Progress
from guiapp.core.tables.text_sniffing import (
    DELIMITER_NAMES,
    NotText,
    TextLayout,
    decode_sample,
    describe_encoding,
    detect_encoding,
    guess_legacy_encoding,
    sniff_layout,
    strip_stray_nuls,
)

if TYPE_CHECKING:  # pandas and pyarrow load on first use, not when the window opens
    import pandas as pd
    import pyarrow as pa

SAMPLE_BYTES = 256 * 1024
BLOCK_SIZE = 1 << 20
MAX_BLOCK_SIZE = 1 << 30
_NO_DELIMITER = "\x1f"  # the ASCII unit separator: never in real text, so each line is one cell


@dataclass
class DelimitedTable:
    """Columns are positions 0…n-1; ``header`` holds the names from the first line (or None)."""

    frame: pd.DataFrame
    header: list[str | None] | None
    encoding: str
    delimiter: str | None
    notices: list[str] = field(default_factory=list)
    first_row: int = 2  # the line (from 1) of the first row of data, as a spreadsheet shows it


class _NulDropper(io.RawIOBase):
    """A binary stream without the NUL bytes of another (pyarrow would keep them in the
    cells); counts the ones it drops. Copies each block once, only when it holds a NUL."""

    def __init__(self, inner) -> None:
        self._inner = inner
        self.dropped = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:  # type: ignore[override]
        view = memoryview(buffer).cast("B")
        while True:
            data = self._inner.read(len(view))
            if not data:
                return 0
            if data.find(b"\x00") >= 0:
                n = len(data)
                data = data.replace(b"\x00", b"")
                self.dropped += n - len(data)
                if not data:
                    continue  # a block of NULs only: read on (0 would mean the end)
            view[: len(data)] = data
            return len(data)

    def close(self) -> None:
        self._inner.close()
        super().close()


class _CountingFile(io.RawIOBase):
    """A binary file that counts the bytes read from it, for the progress fraction."""

    def __init__(self, path: Path) -> None:
        self._file = open(path, "rb")  # noqa: SIM115 - closed in close()
        self.bytes_read = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:  # type: ignore[override]
        n = self._file.readinto(buffer) or 0
        self.bytes_read += n
        return n

    def close(self) -> None:
        self._file.close()
        super().close()


class _RetryWith(Exception):
    """Parsing must start again with other settings (a bigger block or another encoding)."""


def is_gzip(path: Path) -> bool:
    return path.suffix.lower() == ".gz"


def read_sample(path: Path, size: int = SAMPLE_BYTES) -> tuple[bytes, bool]:
    """The first bytes of the (decompressed) file and whether they are the whole file."""
    opener = gzip.open if is_gzip(path) else open
    with opener(path, "rb") as handle:
        sample = handle.read(size + 1)
    return sample[:size], len(sample) <= size


def read_delimited(path: Path, suffix: str, on_event: EventCallback) -> DelimitedTable:
    """Read the whole file. ``suffix`` is the format suffix (".csv" for "data.csv.gz")."""
    import pandas as pd
    try:
        sample, at_eof = read_sample(path)
    except (gzip.BadGzipFile, EOFError) as error:
        raise DataError(
            f'"{path.name}" is not a readable gzip-compressed file.',
            "The file may be damaged or incomplete. Unpack it with your archive program and "
            "open the unpacked file instead.",
            details=repr(error),
        ) from error
    if not sample.strip(b" \t\r\n\x00\xef\xbb\xbf\xff\xfe"):
        raise DataError(
            f'"{path.name}" contains no table: it is empty or holds only blank lines.',
            "Choose the file that holds your coded texts, or save the table again from the "
            "program you use to edit it.",
        )
    sample, sample_nuls = strip_stray_nuls(sample)
    try:
        encoding = detect_encoding(sample, at_eof)
    except NotText as error:
        raise DataError(
            f'"{path.name}" does not hold text: it contains binary data.',
            "Choose the spreadsheet or the CSV/text file itself. If the program that made this "
            "file can export tables, export yours as .xlsx or CSV (UTF-8).",
            details=str(error),
        ) from error
    # NULs are dropped while parsing (cheap for plain files; a compressed file is then
    # unpacked by Python rather than Arrow, so only when its start already had some)
    drop_nuls = encoding not in ("utf-16", "utf-16-le", "utf-16-be", "utf-32") and (
        bool(sample_nuls) or not is_gzip(path))
    layout = sniff_layout(decode_sample(sample, encoding, at_eof), suffix, at_eof)
    quoting = layout.quoting
    block_size = BLOCK_SIZE
    while block_size < 4 * layout.longest_record_chars and block_size < MAX_BLOCK_SIZE:
        block_size *= 4
    notices: list[str] = []
    tried: list[str] = []
    reported = [0.0]

    def report(fraction: float, message: str) -> None:
        reported[0] = max(reported[0], min(fraction, 1.0))  # restarts never move backwards
        on_event(Progress(reported[0], message))

    while True:
        tried.append(encoding)
        try:
            table, nuls = _parse(path, layout, encoding, quoting, block_size, report, drop_nuls)
            if quoting and layout.delimiter == "\t" and _swallowed_lines(table):
                quoting = False
                notices.append(
                    "Quotation marks are read as part of the texts: some texts begin with a "
                    "quotation that does not enclose the whole cell."
                )
                continue
            break
        except _RetryWith as retry:
            kind = str(retry)
            if kind == "block" and block_size < MAX_BLOCK_SIZE:
                block_size *= 4
            elif kind == "encoding" and "latin-1" not in tried:
                encoding = _fallback_encoding(path, encoding)
                if encoding in tried:
                    encoding = "latin-1"
                notices.append(
                    f"The file is not written in {describe_encoding(tried[-1])} throughout, so "
                    f"it was read as {describe_encoding(encoding)} instead; check that accented "
                    "letters look right."
                )
            else:
                raise DataError(
                    f'"{path.name}" could not be read as a table of text.',
                    "Open it in Excel or LibreOffice and save it again as CSV (UTF-8) or .xlsx.",
                    details=f"gave up after retrying ({kind}); encodings tried: {tried}",
                ) from retry
    if nuls:
        what = "1 NUL character" if nuls == 1 else f"{nuls:,} NUL characters"
        notices.append(
            f"Removed {what} (invisible “null” bytes, often left by a faulty export or a "
            "crash while saving) from the file; check that the texts are complete."
        )
    if layout.titles:
        lines = "1 line" if layout.skip_lines == 1 else f"{layout.skip_lines} lines"
        notices.append(f"Skipped {lines} above the header: {layout.titles}.")
    header = None
    if layout.has_header and table.num_rows:
        header = [table.column(i)[0].as_py() for i in range(table.num_columns)]
        table = table.slice(1)
    elif layout.has_header:
        header = [None] * table.num_columns
    else:
        names = ", ".join(f'"Column {i}"' for i in range(1, min(layout.n_columns, 3) + 1))
        more = " …" if layout.n_columns > 3 else ""
        notices.append(
            f"The first line of the file looks like data, not column names "
            f"({layout.header_doubt}), so it is kept as data and the columns are called "
            f"{names}{more}."
        )
    frame = table.rename_columns([str(i) for i in range(table.num_columns)]).to_pandas()
    frame.columns = pd.RangeIndex(table.num_columns)
    first_row = layout.skip_lines + (2 if layout.has_header else 1)
    return DelimitedTable(frame, header, encoding, layout.delimiter, notices, first_row)


def _swallowed_lines(table: pa.Table) -> bool:
    """Whether a quoted cell of a tab-separated file holds line breaks *and* tabs: the sign of
    a text that starts with a quotation mark and swallowed the lines after it (tabs inside
    genuinely quoted texts are very rare)."""
    import pyarrow.compute as pc
    for column in table.columns:
        lines = pc.match_substring(column, "\n")
        if pc.any(pc.and_kleene(lines, pc.match_substring(column, "\t"))).as_py():
            return True
    return False


def _arrow_encoding(encoding: str) -> str:
    # pyarrow reads UTF-8 natively and skips a UTF-8 byte-order mark itself.
    return "utf8" if encoding in ("utf-8", "utf-8-sig") else encoding


def _parse(path, layout: TextLayout, encoding: str, quoting: bool, block_size: int, report,
           drop_nuls: bool = True) -> tuple[pa.Table, int]:
    import pyarrow as pa
    import pyarrow.csv as pacsv
    names = [f"c{i}" for i in range(layout.n_columns)]
    bad_rows: list = []

    def on_invalid_row(row) -> str:
        if not row.text.strip():  # a line of spaces only: as good as a blank line
            return "skip"
        bad_rows.append(row)
        return "error"

    read_options = pacsv.ReadOptions(
        column_names=names, block_size=block_size, encoding=_arrow_encoding(encoding),
        skip_rows=layout.skip_lines,
    )
    parse_options = pacsv.ParseOptions(
        delimiter=layout.delimiter or _NO_DELIMITER,
        quote_char='"' if quoting else False,
        double_quote=True,
        newlines_in_values=quoting,
        ignore_empty_lines=True,
        invalid_row_handler=on_invalid_row,
    )
    convert_options = pacsv.ConvertOptions(
        column_types={name: pa.large_string() for name in names},
        null_values=[""],
        strings_can_be_null=True,
        quoted_strings_can_be_null=True,
    )
    counting = _CountingFile(path)
    total = max(path.stat().st_size, 1)
    message = f"Reading {path.name}"
    dropper = None
    if drop_nuls:
        inner = gzip.GzipFile(fileobj=counting, mode="rb") if is_gzip(path) else counting
        dropper = _NulDropper(inner)
        stream = pa.PythonFile(dropper, mode="r")
    else:
        stream = pa.PythonFile(counting, mode="r")
        if is_gzip(path):
            stream = pa.CompressedInputStream(stream, "gzip")
    batches: list[pa.RecordBatch] = []
    reader = None
    try:
        reader = pacsv.open_csv(stream, read_options, parse_options, convert_options)
        report(counting.bytes_read / total, message)
        while True:
            try:
                batch = reader.read_next_batch()
            except StopIteration:
                break
            batches.append(batch)
            report(counting.bytes_read / total, message)
        return pa.Table.from_batches(batches, schema=reader.schema), (dropper.dropped if dropper else 0)
    except pa.ArrowInvalid as error:
        text = str(error)
        if bad_rows:
            raise _ragged_row_error(path, encoding, bad_rows[0], layout, error) from error
        if "straddl" in text:
            raise _RetryWith("block") from error
        if "UTF8" in text or "UTF-8" in text:
            raise _RetryWith("encoding") from error
        raise DataError(
            f'"{path.name}" could not be read as a table of text.',
            "Open it in Excel or LibreOffice, check that it looks like a table, and save it "
            "again as CSV (UTF-8) or .xlsx.",
            details=text,
        ) from error
    except UnicodeDecodeError as error:
        raise _RetryWith("encoding") from error
    finally:
        batches.clear()
        if reader is not None:
            reader.close()
        stream.close()
        counting.close()


def _fallback_encoding(path: Path, encoding: str) -> str:
    """The legacy encoding of the first stretch of the file that is not valid ``encoding``."""
    decoder = codecs.getincrementaldecoder(encoding)()
    opener = gzip.open if is_gzip(path) else open
    with opener(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            try:
                decoder.decode(chunk)
            except UnicodeDecodeError as error:
                start = max(error.start - 32768, 0)
                return guess_legacy_encoding(chunk[start : error.start + 32768])
    return "cp1252"


def _line_number(path: Path, encoding: str, row_text: str) -> int | None:
    """The line of the file on which a row starts (1-based), found by its text."""
    first_line = row_text.splitlines()[0] if row_text else ""
    opener = gzip.open if is_gzip(path) else open
    with opener(path, "rb") as raw:
        text = io.TextIOWrapper(raw, encoding=encoding, errors="replace", newline=None)
        for number, line in enumerate(text, start=1):
            if line.rstrip("\n").lstrip("\ufeff") == first_line:
                return number
    return None


def _ragged_row_error(path, encoding, row, layout: TextLayout, error) -> DataError:
    line = _line_number(path, encoding, row.text)
    where = f"Line {line}" if line else "A line"
    name = DELIMITER_NAMES.get(layout.delimiter or "", "delimiter")
    if row.actual_columns > row.expected_columns:
        hint = (
            f"Usually a text in that line contains a {name} without quotation marks around it. "
            "Open the file in Excel or LibreOffice and save it again as CSV, or put quotation "
            f'marks (") around texts that contain a {name}.'
        )
    else:
        hint = (
            "The line may have been cut short or split in two. Check it in a text editor, or "
            "open the file in Excel or LibreOffice and save it again as CSV."
        )
    return DataError(
        f'{where} of "{path.name}" has {row.actual_columns} values separated by {name}s, but '
        f"the first line has {row.expected_columns} columns.",
        hint,
        details=f"{error}\nline text: {row.text[:300]!r}",
    )
