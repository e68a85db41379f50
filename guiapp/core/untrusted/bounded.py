"""Reading a stream or a file up to a limit: the bytes are counted as they arrive, so a size
that a file's header declares (and a zip bomb lies about) is never trusted alone."""

from __future__ import annotations

from pathlib import Path
from typing import BinaryIO

_CHUNK = 1 << 20


class TooLarge(ValueError):
    """More bytes than the limit allows for this kind of file."""

    def __init__(self, what: str, limit: int) -> None:
        super().__init__(f"{what} is larger than {describe_size(limit)}, more than this kind of file ever needs")
        self.limit = limit


def read_at_most(stream: BinaryIO, limit: int, what: str) -> bytes:
    """All of ``stream``, or :class:`TooLarge` as soon as it gives more than ``limit`` bytes."""
    parts, size = [], 0
    while block := stream.read(min(_CHUNK, limit + 1 - size)):
        size += len(block)
        if size > limit:
            raise TooLarge(what, limit)
        parts.append(block)
    return b"".join(parts)


def read_file_at_most(path: str | Path, limit: int, what: str = "") -> bytes:
    """The bytes of the file at ``path``, or :class:`TooLarge` beyond ``limit`` (OSError as usual)."""
    with open(path, "rb") as stream:
        return read_at_most(stream, limit, what or Path(path).name)


def describe_size(size: int) -> str:
    """``1536`` → ``"1.5 KB"``, ``16 << 20`` → ``"16 MB"``; for messages."""
    for unit, scale in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if size >= scale:
            return f"{size / scale:.3g} {unit}"
    return f"{size} bytes"
