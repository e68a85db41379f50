"""Reading a number a person wrote (in a study file or a settings field) strictly."""

from __future__ import annotations

from typing import Any


def parse_number(value: Any, kind: type) -> int | float:
    """``value`` as ``int`` or ``float``; ValueError for text, booleans and 2.5 as a whole number."""
    try:
        if isinstance(value, bool):
            raise ValueError
        number = kind(value)
        if kind is int and number != float(value):
            raise ValueError
    except (TypeError, ValueError):
        raise ValueError(value) from None
    return number


def number_words(kind: type) -> str:
    return "a whole number" if kind is int else "a number"
