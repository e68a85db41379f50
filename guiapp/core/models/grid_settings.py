"""Reading a model family's grid of settings as a study or the Models step wrote it: only the
family's own settings, each a list of values without repeats (a single value counts as a list of
one), every value converted and checked by the family (its limits and its words); and checking a
family's whole-number option."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from guiapp.core.errors import UserError


def check_setting_names(family: str, grid: dict[str, Any], allowed: Iterable[str]) -> None:
    """A :class:`UserError` naming the settings of ``grid`` that ``family``'s grid does not have."""
    allowed = list(allowed)
    unknown = sorted(set(grid) - set(allowed))
    if unknown:
        raise UserError(f"The {family} grid has unknown setting(s): {', '.join(unknown)}.",
                        f"Allowed: {', '.join(allowed)}.")


def setting_values(family: str, shown_name: str, values: Any, convert: Callable[[Any], Any]) -> list[Any]:
    """The values of one setting, each converted (and checked) by ``convert``, repeats dropped and
    the order kept; a :class:`UserError` when there is none."""
    if not isinstance(values, list | tuple):
        values = [values]
    if not values:
        raise UserError(f"The {family} grid has no value for '{shown_name}'.", "Give at least one value.")
    return list(dict.fromkeys(convert(value) for value in values))


def check_whole_option(family: str, options: dict[str, Any], name: str, low: int, high: int) -> None:
    """A :class:`UserError` when ``options[name]``, where given, is not a whole number from ``low`` to ``high``."""
    value = options.get(name)
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high):
        raise UserError(f"{family}'s '{name}' must be a whole number from {low} to {high}, not {value!r}.")
