"""Fixes of the category column that a study records, never writes into the source table.

``[data] category_fixes`` in a study file: ``trim_spaces`` (remove spaces, tabs, non-breaking and
zero-width spaces at the start and end of a category, and runs of them inside it become one
space), ``merge`` (a category as written → the category it becomes) and ``leave_out`` (categories
whose texts are not used). They are applied in one place, :func:`fix_categories`, which
``apply_mapping`` calls, so the data-health report and the run see the same categories.

Order: a ``merge`` key matches a category as written in the table, or — with ``trim_spaces`` —
as trimmed; ``leave_out`` names a category as it is after merging and trimming.

Also here: :func:`visible` (a category with its invisible characters shown, “Democratic␣”) and
:func:`spelling_key` (what makes two spellings "the same category").
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from guiapp.core.study.schema import CategoryFixesSchema
from guiapp.core.study.schema_section import SchemaSection

if TYPE_CHECKING:  # pandas loads on first use, not when the window opens
    import pandas as pd

# spaces a spreadsheet can hide: ordinary, tab, line breaks, non-breaking, thin, ideographic …
_ZERO_WIDTH = "\u200b\u200c\u200d\u2060\ufeff"
_CLASS = r"[\s\u00a0\u2007\u202f" + _ZERO_WIDTH + "]+"
_SPACES = re.compile(_CLASS)
_EDGES = re.compile(f"^{_CLASS}|{_CLASS}$")
_NAMED = {
    "\t": "[tab]",
    "\n": "[line break]",
    "\r": "[line break]",
    "\u00a0": "[non-breaking space]",
    "\u2007": "[non-breaking space]",
    "\u202f": "[non-breaking space]",
    "\u200b": "[zero-width space]",
    "\u200c": "[zero-width space]",
    "\u200d": "[zero-width space]",
    "\u2060": "[zero-width space]",
    "\ufeff": "[zero-width space]",
}
SPACE_MARK = "␣"


def trim(label: str) -> str:
    """Without spaces of any kind at the ends; runs of them inside become one ordinary space."""
    return _SPACES.sub(" ", _EDGES.sub("", label))


def visible(label: str) -> str:
    """The label with what a reader cannot see made visible: an ordinary space at the start or
    end as ␣, tabs, line breaks, non-breaking and zero-width spaces by name anywhere."""
    core = label.strip(" ")
    lead = len(label) - len(label.lstrip(" "))
    tail = len(label) - len(label.rstrip(" ")) if core else 0
    middle = "".join(_NAMED.get(char, char) for char in core)
    return SPACE_MARK * lead + middle + SPACE_MARK * tail


def has_hidden_characters(label: str) -> bool:
    return visible(label) != label


def spelling_key(label: str) -> str:
    """Two categories with the same key look like one category spelled differently: compared
    after Unicode NFKC, case folding, without spaces of any kind and without punctuation (a key
    of only punctuation keeps it)."""
    folded = unicodedata.normalize("NFKC", trim(label)).casefold()
    words = "".join(char for char in folded if char.isalnum())
    return words or _SPACES.sub("", folded)


class CategoryFixes(SchemaSection, schema=CategoryFixesSchema, where=("data", "category_fixes")):
    """The study's fixes of its category column (see the module docstring)."""

    def is_empty(self) -> bool:
        return not (self.trim_spaces or self.merge or self.leave_out)

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> CategoryFixes:
        data = data or {}
        return cls(bool(data.get("trim_spaces", False)), dict(data.get("merge") or {}), list(data.get("leave_out") or []))

    def combined(self, other: CategoryFixes) -> CategoryFixes:
        """These fixes and then ``other``'s (a later merge of the same category wins)."""
        merge = {key: other.merge.get(value, value) for key, value in self.merge.items()}
        merge.update({key: value for key, value in other.merge.items() if key not in merge})
        leave_out = list(dict.fromkeys([*self.leave_out, *other.leave_out]))
        return CategoryFixes(self.trim_spaces or other.trim_spaces, merge, leave_out)

    def fix(self, label: str) -> str | None:
        """The category a label becomes (None: left out)."""
        if label in self.merge:
            label = self.merge[label]
        elif self.trim_spaces:
            trimmed = trim(label)
            label = self.merge.get(trimmed, trimmed)
        return None if label in self.leave_out else label

    def describe(self) -> list[str]:
        """One phrase per fix, in a researcher's words."""
        parts = []
        if self.trim_spaces:
            parts.append("spaces trimmed at the start and end of categories")
        for source, target in self.merge.items():
            parts.append(f"“{visible(source)}” merged into “{visible(target)}”")
        if self.leave_out:
            names = ", ".join(f"“{visible(label)}”" for label in self.leave_out)
            parts.append(f"left out {names}")
        return parts

    def summary(self) -> str:
        """"spaces trimmed …; “Democratic␣” merged into “Democratic”; left out “Other”" ("" when none)."""
        return "; ".join(self.describe())


def unmatched_fixes(fixes: CategoryFixes | None, labels: Iterable[str]) -> tuple[list[str], list[str]]:
    """``(merge keys, left-out names)`` of the fixes that match none of ``labels`` (the categories
    as written in the table), so that they change nothing: a merge key is looked for as written
    (or trimmed, with ``trim_spaces``), a left-out name after merging and trimming."""
    if fixes is None or fixes.is_empty():
        return [], []
    written = set(labels)
    trimmed = {trim(label) for label in written} if fixes.trim_spaces else set()
    merge = [source for source in fixes.merge if source not in written and source not in trimmed]
    kept = CategoryFixes(fixes.trim_spaces, fixes.merge)
    fixed = {kept.fix(label) for label in written}
    return merge, [name for name in fixes.leave_out if name not in fixed]


def unmatched_fixes_note(fixes: CategoryFixes | None, labels: Iterable[str], where: str = "the table") -> str | None:
    """A sentence naming the fixes that match no category in ``where`` (None when all match),
    with the table's own spelling of a name where it differs only in capitals, spaces or
    punctuation."""
    written = sorted(set(labels))
    merge, leave_out = unmatched_fixes(fixes, written)
    if not (merge or leave_out):
        return None
    assert fixes is not None
    by_key: dict[str, list[str]] = {}
    for label in written:
        by_key.setdefault(spelling_key(label), []).append(label)
    kept = CategoryFixes(fixes.trim_spaces, fixes.merge)
    after = sorted({name for name in (kept.fix(label) for label in written) if name is not None})
    after_by_key: dict[str, list[str]] = {}
    for label in after:
        after_by_key.setdefault(spelling_key(label), []).append(label)

    def named(name: str, keys: dict[str, list[str]]) -> str:
        close = [label for label in keys.get(spelling_key(name), []) if label != name]
        return f"“{visible(name)}”" + (f" (there is “{visible(close[0])}”)" if close else "")

    parts = [f"merge {named(source, by_key)} into “{visible(fixes.merge[source])}”" for source in merge]
    parts += [f"leave out {named(name, after_by_key)}" for name in leave_out]
    n = len(parts)
    return (f"{'A category fix names a category' if n == 1 else f'{n} category fixes name categories'} "
            f"not found in {where}, so {'it changes' if n == 1 else 'they change'} nothing: "
            + "; ".join(parts) + ".")


UNMATCHED_HINT = ("Check the spelling in [data] category_fixes of the study file (capitals and spaces count), "
                  "or remove the fixes that are not needed.")


def fix_categories(category: pd.Series, fixes: CategoryFixes | None) -> tuple[pd.Series, pd.Series]:
    """``(fixed categories, left-out mask)``: labels after the fixes (None where uncoded or
    left out) and which rows had a category that is left out."""
    import pandas as pd
    left_out = pd.Series(False, index=category.index)
    if fixes is None or fixes.is_empty():
        return category, left_out
    uniques = category.dropna().unique()
    table = {label: fixes.fix(label) for label in uniques}
    fixed = category.map(table, na_action="ignore")
    left_out = category.notna() & fixed.isna()
    return fixed.astype(object).where(fixed.notna(), None), left_out
