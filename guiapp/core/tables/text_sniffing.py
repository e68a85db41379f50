"""Guessing how a delimited text file is written: its encoding, delimiter and header line.

Everything here works on a sample from the start of the file (a few hundred kilobytes), so it
is quick; :mod:`guiapp.core.tables.delimited` then parses the whole file with what was found.
"""

from __future__ import annotations

import codecs
import csv
import io
from dataclasses import dataclass

from guiapp.core.numbers import reads_as
from guiapp.core.tables.header_row import find_header_row

DELIMITERS = (",", ";", "\t", "|")
DELIMITER_NAMES = {",": "comma", ";": "semicolon", "\t": "tab", "|": "vertical bar"}
MAX_SAMPLE_RECORDS = 200

# Encodings for scripts other than Latin that charset-normalizer recognises reliably. Any other
# guess for a non-UTF-8 file (cp1250, mac_roman, iso8859_10 …) is usually a confused Western
# European file, which is by far the most common case for our users: we read it as cp1252.
_NON_LATIN_ENCODINGS = {
    "cp1251", "koi8_r", "koi8_u", "iso8859_5", "mac_cyrillic", "cp866",  # Cyrillic
    "cp1253", "iso8859_7",  # Greek
    "cp1255", "iso8859_8", "cp1256", "iso8859_6",  # Hebrew, Arabic
    "cp874", "tis_620",  # Thai
    "shift_jis", "cp932", "euc_jp", "iso2022_jp",  # Japanese
    "gb2312", "gbk", "gb18030", "big5", "big5hkscs", "cp950",  # Chinese
    "euc_kr", "cp949", "johab",  # Korean
}
_CENTRAL_EUROPEAN_LANGUAGES = {
    "Polish", "Czech", "Slovak", "Hungarian", "Croatian", "Slovene", "Romanian",
}


_ENCODING_NAMES = {
    "utf-8": "UTF-8",
    "utf-8-sig": "UTF-8",
    "utf-16": "UTF-16",
    "utf-16-le": "UTF-16",
    "utf-16-be": "UTF-16",
    "utf-32": "UTF-32",
    "cp1252": "Windows-1252 (Western European)",
    "latin-1": "Latin-1 (Western European)",
    "cp1250": "Windows-1250 (Central European)",
    "cp1251": "Windows-1251 (Cyrillic)",
}


class NotText(ValueError):
    """The bytes are binary data, not text in any encoding we know."""


def describe_encoding(encoding: str) -> str:
    """An encoding's name as people know it from "Save as" dialogs."""
    return _ENCODING_NAMES.get(encoding, encoding)


@dataclass(frozen=True)
class TextLayout:
    """How a delimited text file is laid out, as guessed from its first records."""

    delimiter: str | None  # None: no delimiter found, every line is one cell
    n_columns: int
    has_header: bool
    header_doubt: str = ""  # why the first line was taken as data, in plain words
    longest_record_chars: int = 0
    quoting: bool = True  # '"' starts a quoted cell (which may span lines)
    skip_lines: int = 0  # lines above the header (title lines and blank lines) to skip
    titles: str = ""  # the skipped title lines, quoted, for a notice


_CONTROL_BYTES = bytes(b for b in range(32) if b not in (0, 9, 10, 12, 13)) + b"\x7f"


def strip_stray_nuls(sample: bytes) -> tuple[bytes, int]:
    """``sample`` without NUL bytes, and how many there were, when it is text with a few
    stray NULs (left by a crash, a faulty export or a copy); ``(sample, 0)`` unchanged when it
    has none, is UTF-16/32 (where NULs are part of the letters) or looks like binary data."""
    count = sample.count(0)
    if not count or sample.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return sample, 0
    head = sample[:8192]
    half = max(len(head) // 2, 1)
    if head[0::2].count(0) > 0.3 * half or head[1::2].count(0) > 0.3 * half:
        return sample, 0  # UTF-16 without a byte-order mark, or binary
    cleaned = sample.replace(b"\x00", b"")
    controls = sum(cleaned.count(byte) for byte in _CONTROL_BYTES)
    if count > 0.1 * len(sample) or controls > 0.01 * max(len(cleaned), 1):
        return sample, 0  # binary data: detect_encoding says so
    return cleaned, count


def detect_encoding(sample: bytes, at_eof: bool) -> str:
    """The Python codec name of a text sample: BOMs first, then UTF-16 by its NUL bytes, then
    UTF-8, else a legacy 8-bit encoding (see :func:`guess_legacy_encoding`)."""
    if sample.startswith(codecs.BOM_UTF8):
        return "utf-8-sig"
    if sample.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)):
        return "utf-32"
    if sample.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16"
    head = sample[:8192]
    if b"\x00" in head:
        even_nuls, odd_nuls = head[0::2].count(0), head[1::2].count(0)
        half = max(len(head) // 2, 1)
        if odd_nuls > 0.3 * half and even_nuls < 0.05 * half:
            return "utf-16-le"
        if even_nuls > 0.3 * half and odd_nuls < 0.05 * half:
            return "utf-16-be"
        raise NotText(f"{head.count(0)} NUL bytes in the first {len(head)} bytes")
    try:
        codecs.getincrementaldecoder("utf-8")().decode(sample, final=at_eof)
    except UnicodeDecodeError:
        return guess_legacy_encoding(sample)
    return "utf-8"


def guess_legacy_encoding(sample: bytes) -> str:
    """An 8-bit encoding for text that is not UTF-8: Cyrillic, Greek, East Asian … when
    charset-normalizer is sure of it, Central European cp1250 for those languages, else
    Windows-1252 (Western European, a superset of latin-1's printable characters)."""
    try:
        from charset_normalizer import from_bytes

        best = from_bytes(sample[:65536]).best()
    except Exception:  # detection is only advice; never fail on it  # noqa: BLE001
        best = None
    if best is not None:
        encoding = best.encoding
        if encoding in _NON_LATIN_ENCODINGS:
            return encoding
        if encoding == "cp1250" and best.language in _CENTRAL_EUROPEAN_LANGUAGES:
            return encoding
    try:
        sample.decode("cp1252")
    except UnicodeDecodeError:
        return "latin-1"
    return "cp1252"


def decode_sample(sample: bytes, encoding: str, at_eof: bool) -> str:
    """The sample as text, cut after its last complete line unless it is the whole file."""
    text = codecs.getincrementaldecoder(encoding)(errors="replace").decode(sample, final=at_eof)
    text = text.lstrip("\ufeff")
    if not at_eof:
        cut = max(text.rfind("\n"), text.rfind("\r"))
        if cut > 0:
            text = text[: cut + 1]
    return text


def _records(text: str, delimiter: str, at_eof: bool, quoting: bool = True) -> list[list[str]]:
    """The first records of the sample; blank lines are skipped as the parser skips them."""
    return _records_and_lines(text, delimiter, at_eof, quoting)[0]


def _records_and_lines(
    text: str, delimiter: str, at_eof: bool, quoting: bool = True
) -> tuple[list[list[str]], list[int]]:
    """The first records of the sample, and for each the number of lines read up to its end."""
    reader = csv.reader(
        io.StringIO(text, newline=""),
        delimiter=delimiter,
        quotechar='"',
        doublequote=True,
        quoting=csv.QUOTE_MINIMAL if quoting else csv.QUOTE_NONE,
        strict=False,
    )
    records: list[list[str]] = []
    lines: list[int] = []
    try:
        for record in reader:
            if record:  # [] is a blank line; a line of delimiters only is a record of empties
                records.append(record)
                lines.append(reader.line_num)
            if len(records) > MAX_SAMPLE_RECORDS:
                return records[:MAX_SAMPLE_RECORDS], lines[:MAX_SAMPLE_RECORDS]
    except csv.Error:  # e.g. a field longer than the csv module's limit: use what we have
        return records, lines
    if not at_eof and len(records) > 1:
        records.pop()  # the sample may end in the middle of the last record
        lines.pop()
    return records, lines


def quoting_is_used(text: str, delimiter: str, at_eof: bool) -> bool:
    """Whether '"' marks quoted cells the CSV way. Files whose texts merely start with a
    quotation (``"Yes we can" - he said<TAB>label``) are read with quotes as plain characters;
    otherwise such a line would swallow the lines after it."""
    reader = csv.reader(
        io.StringIO(text, newline=""), delimiter=delimiter, quotechar='"', strict=True
    )
    try:
        for _ in reader:
            pass
    except csv.Error as error:
        message = str(error)
        if "expected after" in message:  # text right after a closing quote
            return False
        if "unexpected end of data" in message:  # a quote still open where the text ends:
            return not at_eof  # a stray quote, unless the sample merely cut a quoted cell
        return True  # e.g. a cell longer than the csv module's limit: nothing wrong with quotes
    return True


def sniff_layout(text: str, suffix: str, at_eof: bool) -> TextLayout:
    """Find the delimiter (the candidate that splits the header and the records below it into
    the same number of fields), the number of columns and whether line 1 is a header."""
    preferred = "\t" if suffix in (".tsv", ".tab") else ("," if suffix == ".csv" else None)
    best: tuple | None = None
    for delimiter in DELIMITERS:
        quoting = quoting_is_used(text, delimiter, at_eof)
        records, line_ends = _records_and_lines(text, delimiter, at_eof, quoting)
        found = find_header_row(records)
        skip_lines, titles = 0, ""
        if found is not None and found.index > 0:
            # every line above the header's (last) line: titles and blank lines
            skip_lines, titles = line_ends[found.index] - 1, found.describe(records)
            records = records[found.index:]
        if not records or len(records[0]) < 2:
            continue
        n_fields = len(records[0])
        consistency = sum(len(r) == n_fields for r in records) / len(records)
        if consistency < 0.5:
            continue
        score = (consistency >= 0.9, delimiter == preferred, n_fields, consistency)
        if best is None or score > best[0]:
            best = (score, delimiter, records, quoting, skip_lines, titles)
    if best is not None:
        _, delimiter, records, quoting, skip_lines, titles = best
        doubt = _header_doubt(records)
        longest = _longest(records)
        return TextLayout(delimiter, len(records[0]), not doubt, doubt, longest, quoting,
                          skip_lines, titles)
    lines = [line for line in text.splitlines() if line.strip()][:MAX_SAMPLE_RECORDS]
    doubt = _single_column_header_doubt(lines)
    longest = max((len(x) for x in lines), default=0)
    # One text per line: quotes are part of the texts, except in a .csv of one quoted column.
    quoting = suffix == ".csv" and quoting_is_used(text, "\x1f", at_eof)
    return TextLayout(None, 1, not doubt, doubt, longest, quoting)


def _longest(records: list[list[str]]) -> int:
    return max((sum(len(cell) + 1 for cell in record) for record in records), default=0)


def _header_doubt(records: list[list[str]]) -> str:
    """Why the first record looks like data rather than column names ("" if it looks like a
    header): a word in it comes back as a value in the same column further down, as category
    labels do (column names do not repeat as values)."""
    if len(records) < 3:
        return ""
    first = records[0]
    if any(record == first for record in records[1:]):
        return ""  # a header repeated further down (files pasted together) is still a header
    for position, name in enumerate(first):
        name = name.strip()
        if not name or reads_as(float, name.replace(",", ".")):
            continue
        below = {r[position].strip() for r in records[1:] if position < len(r)}
        if name in below:
            return (
                f'the value "{name}" in the first line comes back further down in column '
                f"{position + 1}"
            )
    return ""


def _single_column_header_doubt(lines: list[str]) -> str:
    """For a file of one text per line: is the first line a text rather than a column name?"""
    if not lines:
        return ""
    first = lines[0].strip()
    if len(first) > 40 or len(first.split()) > 5:
        return "the first line is a whole text, not a short column name"
    if len(lines) >= 3 and first in {line.strip() for line in lines[1:]}:
        return f'the first line "{first}" comes back further down'
    return ""
