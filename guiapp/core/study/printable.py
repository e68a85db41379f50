"""Names from a study file or a table shown safely in a message.

A file name, sheet or column may hold characters that a reader cannot see or that change what a
terminal shows: a NUL, an escape sequence that recolours or clears the screen, a right-to-left
override that turns "txt.exe" around. :func:`printable` writes them as escapes (``\\x00``,
``\\x1b``, ``\\u202e``), so a message shows what the file really holds.
"""

from __future__ import annotations

import unicodedata

# direction marks and overrides: they reorder the text around them on screen
_DIRECTION = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
_HIDDEN_KINDS = frozenset({"Cc", "Zl", "Zp", "Cs"})  # control characters, line/paragraph separators


def _escape(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: object, keep: str = "") -> str:
    """``text`` with control characters, line separators and direction overrides escaped;
    characters in ``keep`` (e.g. ``"\\n"`` for a message of several lines) stay as they are."""
    text = str(text)
    if text.isprintable() and not _DIRECTION.intersection(text):
        return text
    return "".join(
        char if char in keep or not (char in _DIRECTION or unicodedata.category(char) in _HIDDEN_KINDS)
        else _escape(char)
        for char in text
    )


def has_control_characters(text: str) -> bool:
    """Whether :func:`printable` would change ``text``."""
    return printable(text) != text
