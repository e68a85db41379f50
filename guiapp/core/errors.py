"""Errors that a user can understand and fix.

A :class:`UserError` carries three parts that the GUI shows as a dialog and the CLI prints:
what happened (``message``), what to do next (``hint``) and technical ``details`` folded away.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeVar

T = TypeVar("T")


class UserError(Exception):
    """A problem caused by the input or the environment, explained in plain words."""

    def __init__(self, message: str, hint: str = "", details: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.details = details

    def __str__(self) -> str:
        return f"{self.message} {self.hint}".strip()


class DataError(UserError):
    """The table cannot be read or does not fit what TextLab needs."""


def one_of(table: Mapping[str, T], name: str, message: str, hint_start: str) -> T:
    """``table[name]``; where ``name`` is not in it, a :class:`UserError` with ``message`` and a hint
    that lists the names it holds (``hint_start``, e.g. "Use one of", then the names)."""
    try:
        return table[name]
    except KeyError:
        raise UserError(message, f"{hint_start}: {', '.join(table)}.") from None
