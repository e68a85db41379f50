"""Plain-language checks of representation options, shared by the representation classes.

Each check raises :class:`guiapp.core.errors.UserError` naming the option as the GUI shows it.
"""

from __future__ import annotations

from collections.abc import Sequence
from numbers import Integral, Real

from guiapp.core.errors import UserError


def check_bool(label: str, value: object) -> None:
    if not isinstance(value, bool):
        raise UserError(f"“{label}” must be on or off (true or false), not {value!r}.")


def check_share(label: str, value: object) -> float:
    """A document share between 0 and 1 (0.001 = 0.1 %)."""
    if isinstance(value, bool) or not isinstance(value, Real):
        raise UserError(f"“{label}” must be a share between 0 and 1, not {value!r}.")
    share = float(value)
    if not 0.0 <= share <= 1.0:
        raise UserError(
            f"“{label}” must be a share between 0 and 1, not {share:g}.",
            "Write 0.001 for 0.1 % of the texts and 0.33 for 33 %.",
        )
    return share


def check_int(label: str, value: object, low: int, high: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise UserError(f"“{label}” must be a whole number, not {value!r}.")
    number = int(value)
    if number < low or (high is not None and number > high):
        allowed = f"from {low} to {high}" if high is not None else f"at least {low}"
        raise UserError(f"“{label}” must be {allowed}, not {number}.")
    return number


def check_choice(label: str, value: object, choices: Sequence[object]) -> None:
    if value not in choices:
        shown = ", ".join(repr(choice) for choice in choices)
        raise UserError(f"“{label}” cannot be {value!r}.", f"Choose one of: {shown}.")


def percent(share: float) -> str:
    """0.001 → "0.1 %", 0.33 → "33 %"."""
    return f"{share * 100:g} %"
