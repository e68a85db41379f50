"""Reading a number a person wrote (in a study file or a settings field) strictly; whether a text
reads as a number (or as what another parser accepts), and whether a value read from a file is a
finite number."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


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


def reads_as(parse: Callable[[T], object], text: T) -> bool:
    """Whether ``parse`` accepts ``text`` (raises no ValueError), e.g. ``reads_as(float, b"2.5")``."""
    try:
        parse(text)
    except ValueError:
        return False
    return True


def is_finite_number(value: object) -> bool:
    """A finite int or float that is not a boolean (what a number read from a JSON file must be)."""
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def is_whole_number(value: object) -> bool:
    """An int as a JSON file gives it (``True`` and ``False`` are not numbers here)."""
    return isinstance(value, int) and not isinstance(value, bool)
