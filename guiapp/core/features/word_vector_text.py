"""Parse a GloVe or word2vec *text* file into a folder TextLab can memory-map.

Writes ``vectors.npy`` (float32, written chunk by chunk so a 5 GB file never sits in memory
twice), ``words.parquet`` (column ``word``) and ``meta.json`` into a temporary folder next to the
target and renames it into place only when everything is written: a cancelled or failed
conversion leaves nothing behind. Used by :mod:`guiapp.core.features.word_vector_files`.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import shutil
import tempfile
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from guiapp.core.errors import UserError
from guiapp.core.events import EventCallback, Progress
from guiapp.core.numbers import reads_as

CHUNK_LINES = 20_000
_HINT = "Choose a GloVe or word2vec text file: one word and its numbers per line, separated by spaces."


def convert_text_file(source: Path, folder: Path, on_event: EventCallback) -> None:
    """Convert ``source`` into ``folder`` (which must not exist yet), atomically."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", suffix=".tmp", dir=folder.parent))
    finished = False
    try:
        meta = _parse(source, tmp, on_event)
        meta["key"] = folder.name
        (tmp / "meta.json").write_text(json.dumps(meta, indent=1), encoding="utf-8")
        try:
            os.rename(tmp, folder)
        except OSError:
            if not (folder / "meta.json").is_file():  # not just another process being faster
                raise
        else:
            finished = True
    finally:
        if not finished:
            shutil.rmtree(tmp, ignore_errors=True)


class _NpyWriter:
    """Appends float32 rows to a .npy file whose header is fixed up when closing."""

    def __init__(self, handle: BinaryIO, dim: int) -> None:
        self.handle, self.dim, self.rows = handle, dim, 0
        self.header_size = len(self._header(0))
        handle.write(self._header(0))

    def _header(self, rows: int) -> bytes:
        buffer = io.BytesIO()
        header = {"descr": "<f4", "fortran_order": False, "shape": (rows, self.dim)}
        np.lib.format.write_array_header_1_0(buffer, header)
        return buffer.getvalue()

    def append(self, values: np.ndarray) -> None:
        self.handle.write(np.ascontiguousarray(values, dtype="<f4").tobytes())
        self.rows += values.shape[0]

    def finish(self) -> None:
        header = self._header(self.rows)
        if len(header) != self.header_size:  # numpy leaves room for growth; never expected
            raise RuntimeError("the .npy header changed size")
        self.handle.seek(0)
        self.handle.write(header)
        self.handle.flush()
        os.fsync(self.handle.fileno())


def _open_text(raw: BinaryIO, name: str) -> BinaryIO:
    """The decompressed byte stream; UserError if it does not look like text."""
    stream: BinaryIO = raw
    if raw.peek(2)[:2] == b"\x1f\x8b":  # type: ignore[attr-defined]
        stream = io.BufferedReader(gzip.GzipFile(fileobj=raw, mode="rb"), 1 << 20)  # type: ignore[arg-type]
    try:
        head = stream.peek(8192)[:8192]  # type: ignore[attr-defined]
    except (OSError, EOFError) as error:
        raise UserError(f"“{name}” looks compressed but cannot be unpacked.", _HINT,
                        details=str(error)) from error
    if b"\x00" in head:
        raise UserError(f"“{name}” is not a text file of word vectors.",
                        _HINT + " Binary word2vec files (.bin) must be saved as text first.")
    return stream


def _parse(source: Path, tmp: Path, on_event: EventCallback) -> dict[str, object]:
    size = max(source.stat().st_size, 1)
    words: list[str] = []
    seen: set[str] = set()
    dim: int | None = None
    file_format = "glove"
    duplicates = 0
    batch_words: list[str] = []
    batch_values: list[bytes] = []
    batch_lines: list[int] = []
    on_event(Progress(0.0, "Converting word vectors: 0 words", 0, None))
    with open(source, "rb") as raw, open(tmp / "vectors.npy", "wb") as out:
        stream = _open_text(raw, source.name)  # type: ignore[arg-type]
        writer: _NpyWriter | None = None
        for line_no, body in _lines(stream):
            if dim is None:
                dim, header = _dimension(body, line_no, source)
                if header:
                    file_format = "word2vec"
                    continue
            if writer is None:
                writer = _NpyWriter(out, dim)
            word, values = _split_line(body, dim, source, line_no)
            if word in seen:
                duplicates += 1
                continue
            seen.add(word)
            batch_words.append(word)
            batch_values.append(values)
            batch_lines.append(line_no)
            if len(batch_words) >= CHUNK_LINES:
                writer.append(_parse_values(batch_values, batch_lines, dim, source))
                words.extend(batch_words)
                batch_words, batch_values, batch_lines = [], [], []
                on_event(Progress(min(raw.tell() / size, 1.0),
                                  f"Converting word vectors: {len(words):,} words", len(words), None))
        if writer is None or dim is None:
            raise UserError(f"“{source.name}” contains no word vectors.", _HINT)
        if batch_words:
            writer.append(_parse_values(batch_values, batch_lines, dim, source))
            words.extend(batch_words)
        on_event(Progress(1.0, f"Converting word vectors: {len(words):,} words", len(words), len(words)))
        writer.finish()
    pq.write_table(pa.table({"word": pa.array(words, type=pa.string())}), tmp / "words.parquet")
    info = source.stat()
    return {"source": str(source), "size": info.st_size, "mtime_ns": info.st_mtime_ns,
            "format": file_format, "n_words": len(words), "dim": dim,
            "duplicates_skipped": duplicates}


def check_head(source: Path, max_lines: int = 50) -> None:
    """Read the first ``max_lines`` lines of ``source`` as the conversion would, raising the same
    :class:`UserError` for a file that is not word vectors (quick: the file is not converted)."""
    dim: int | None = None
    with open(source, "rb") as raw:
        stream = _open_text(raw, source.name)  # type: ignore[arg-type]
        values, lines = [], []
        for line_no, body in _lines(stream):
            if dim is None:
                dim, header = _dimension(body, line_no, source)
                if header:
                    continue
            values.append(_split_line(body, dim, source, line_no)[1])
            lines.append(line_no)
            if line_no >= max_lines:
                break
    if dim is None or not values:
        raise UserError(f"“{source.name}” contains no word vectors.", _HINT)
    _parse_values(values, lines, dim, source)


def _lines(stream) -> Iterator[tuple[int, bytes]]:  # noqa: ANN001 — a binary text stream
    """Each line that is not blank, with its number (counting from 1) and without its line end."""
    for line_no, line in enumerate(stream, start=1):
        body = line.rstrip(b"\r\n \t")
        if body:
            yield line_no, body


def _dimension(body: bytes, line_no: int, source: Path) -> tuple[int, bool]:
    """The numbers per word, read from the first line that is not blank; True with it when that line
    is word2vec's header ("400000 300"), which holds no word."""
    fields = body.split()
    if line_no == 1 and len(fields) == 2 and all(f.isdigit() for f in fields):
        return int(fields[1]), True
    if len(fields) < 2:
        raise _bad_line(source, line_no, "has a word but no numbers")
    return len(fields) - 1, False


def _split_line(body: bytes, dim: int, source: Path, line_no: int) -> tuple[str, bytes]:
    """The word and its numbers (as bytes) of one line; UserError on a wrong count."""
    word, _, rest = body.partition(b" ")
    if not rest or rest.count(b" ") + 1 != dim or b"  " in rest or b"\t" in rest or b"\t" in word:
        parts = body.split()
        if len(parts) == dim + 1:
            word, rest = parts[0], b" ".join(parts[1:])
        elif len(parts) > dim + 1 and not any(reads_as(float, p) for p in parts[1:-dim]):
            # a "word" with spaces inside, as in GloVe 840B (". . .")
            word, rest = b" ".join(parts[:-dim]), b" ".join(parts[-dim:])
        else:
            raise _bad_line(source, line_no, f"has {len(parts) - 1} numbers, but the file has {dim} "
                                             "per word")
    return word.decode("utf-8", errors="replace"), rest


def _parse_values(values: list[bytes], lines: list[int], dim: int, source: Path) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            array = np.fromstring(b" ".join(values), dtype=np.float32, sep=" ")
        except (ValueError, DeprecationWarning):
            array = np.zeros(0, dtype=np.float32)
    if array.size == len(values) * dim:
        return array.reshape(len(values), dim)
    for value_bytes, line_no in zip(values, lines, strict=True):
        for part in value_bytes.split():
            if not reads_as(float, part):
                shown = part.decode("utf-8", errors="replace")[:30]
                raise _bad_line(source, line_no, f"has “{shown}” where a number should be")
    raise _bad_line(source, lines[0], "cannot be read as numbers")  # pragma: no cover


def _bad_line(source: Path, line_no: int, problem: str) -> UserError:
    return UserError(f"Line {line_no:,} of “{source.name}” {problem}.", _HINT,
                     details=f"file: {source}")
