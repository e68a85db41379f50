"""The one way TextLab reads a JSON file it did not just write: bounded in size and in depth.

Python's JSON parser recurses, so text nested a few thousand levels deep (``[[[[…``) crashes it
with a RecursionError, and code that walks what was read recurses too. TextLab's own files nest
fewer than twenty levels; :data:`MAX_DEPTH` leaves ample room. The depth is measured on the text
before parsing (brackets outside strings), and each caller names the most bytes its kind of file
can need, so a file of gigabytes is refused before it fills the memory.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from guiapp.core.untrusted.bounded import TooLarge, read_file_at_most

MAX_DEPTH = 100

_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_RUN = re.compile(r"[\[{]+|[\]}]+")


class UnreadableJson(ValueError):
    """Not JSON TextLab can read; ``str()`` says why in words (it ends without a full stop)."""


def loads_json(data: bytes | str, *, max_depth: int = MAX_DEPTH) -> Any:
    """The value in ``data`` (UTF-8 bytes or text); :class:`UnreadableJson` when it is not JSON,
    not UTF-8, or nested deeper than ``max_depth``."""
    if isinstance(data, bytes | bytearray):
        try:
            text = bytes(data).decode("utf-8-sig")
        except UnicodeDecodeError as error:
            raise UnreadableJson(f"it is not UTF-8 text ({error.reason} at byte {error.start})") from None
    else:
        text = data
    if too_deep(text, max_depth):
        raise UnreadableJson(f"it is nested more than {max_depth} levels deep, far more than any TextLab file")
    try:
        return json.loads(text)
    except RecursionError:  # a backstop; too_deep has refused such text already
        raise UnreadableJson(f"it is nested more than {max_depth} levels deep, far more than any TextLab file") from None
    except ValueError as error:
        raise UnreadableJson(f"it is not valid JSON ({error})") from None


def read_json_file(path: str | Path, *, max_bytes: int, max_depth: int = MAX_DEPTH) -> Any:
    """The JSON value in the file at ``path``, read only up to ``max_bytes``; :class:`UnreadableJson`
    when it is larger, not JSON or too deep; OSError when it cannot be read at all."""
    try:
        data = read_file_at_most(path, max_bytes, Path(path).name)
    except TooLarge as error:
        raise UnreadableJson(str(error)) from None
    return loads_json(data, max_depth=max_depth)


def too_deep(text: str, max_depth: int = MAX_DEPTH) -> bool:
    """Whether arrays and objects in ``text`` nest deeper than ``max_depth`` (strings are skipped)."""
    if text.count("[") + text.count("{") <= max_depth:
        return False
    depth = 0
    for run in _RUN.finditer(_NOT_BRACKET.sub("", _STRING.sub("", text))):
        step = run.end() - run.start()
        if run.group()[0] in "[{":
            depth += step
            if depth > max_depth:
                return True
        else:
            depth = max(depth - step, 0)
    return False
