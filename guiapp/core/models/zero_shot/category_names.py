"""Whether a category's name tells a zero-shot model anything.

A zero-shot model knows a category only from the words that stand for it: its description, or its
name when it has none. A name such as "1", "12", "A" or "C-3" is a code: it carries no meaning to
the model, which then cannot tell what the category is about, so such a category needs a
description. A name counts as a code when it holds no two letters in a row.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import pairwise


def is_code(name: str) -> bool:
    """Whether ``name`` is a number or a short code rather than words ("12", "A", "C-3", "2.1")."""
    text = str(name)
    return not any(first.isalpha() and second.isalpha() for first, second in pairwise(text))


def coded_names(names: Iterable[str]) -> list[str]:
    """The names among ``names`` that carry no meaning to a zero-shot model (:func:`is_code`)."""
    return [name for name in names if is_code(name)]


def coded_names_note(names: list[str]) -> str:
    """One sentence on the categories known by a code only, and what to do ("" when there are none)."""
    if not names:
        return ""
    shown = names if len(names) <= 6 else names[:5]
    quoted = [f"“{name}”" for name in shown]
    series = quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]
    if len(shown) < len(names):
        series = ", ".join(quoted) + f" and {len(names) - len(shown)} more"
    one = len(names) == 1
    return (f"{'The category' if one else 'The categories'} {series} {'has' if one else 'have'} no description, and "
            f"{'its name is a number or code' if one else 'their names are numbers or codes'}, which carr"
            f"{'ies' if one else 'y'} no meaning to a zero-shot model: it cannot tell what "
            f"{'that category is' if one else 'those categories are'} about. Describe each in a sentence "
            "(Models step, “Category descriptions…”, e.g. from your codebook) before trusting its answers.")
