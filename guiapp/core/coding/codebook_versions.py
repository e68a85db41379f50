"""The history of a codebook: its versions, what changed in each, and which codings were made under
a definition that has changed since, for the coders to re-check.

Each :class:`CodebookVersion` has a number (1, 2, …), the date it was made, the researcher's note
and the whole :class:`~guiapp.core.coding.codebook.Codebook` as it then was. A coding records the
number of the version it was made under.

:meth:`CodebookHistory.revise` adds a version only when a category changed; moving categories up
or down alone is not a new version. What changed is said per category (:class:`CategoryChange`):

- ``"definition edited"`` / ``"examples edited"`` — the category kept its name;
- ``"added"`` / ``"removed"``;
- ``"merged into"`` — a category that is gone, whose texts now belong to another (the caller says
  so with ``merged={"old": "new"}``; a rename is a merge into a new name);
- ``"split into"`` and ``"split from"`` — a category divided into several (``split={"old": ["a",
  "b"]}``); the old category may stay as one of the parts.

A coding of category *C* made under version *v* is **to re-check** when a later version edited
*C*'s definition, removed it, merged it into another or split it (an edit of the examples alone
does not ask for it). :meth:`CodebookHistory.to_recheck` lists them.

:meth:`CodebookHistory.to_dict` and :meth:`CodebookHistory.from_dict` keep the history in a
project; reading it back checks every field (the file is untrusted).
"""

from __future__ import annotations

import copy
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

from guiapp.core.coding.codebook import Codebook
from guiapp.core.coding.coding_record import UnreadableCodings, check_version
from guiapp.core.errors import UserError

__all__ = ["FORMAT", "KINDS", "RECHECK_KINDS", "VERSION", "CategoryChange", "CodebookHistory", "CodebookVersion",
           "Recheck", "category_changes"]

FORMAT = "textlab-codebook-versions"
VERSION = 1
_WHAT = "codebook's versions"

EDITED, EXAMPLES, ADDED, REMOVED = "definition edited", "examples edited", "added", "removed"
MERGED_INTO, SPLIT_INTO, SPLIT_FROM = "merged into", "split into", "split from"
KINDS = (EDITED, EXAMPLES, ADDED, REMOVED, MERGED_INTO, SPLIT_INTO, SPLIT_FROM)
RECHECK_KINDS = frozenset({EDITED, REMOVED, MERGED_INTO, SPLIT_INTO})

Row = Hashable


@dataclass(frozen=True)
class CategoryChange:
    """What one version changed about one category; ``others``: the categories it was merged into,
    split into or split from."""

    version: int
    category: str
    kind: str
    others: tuple[str, ...] = ()

    def sentence(self) -> str:
        names = " and ".join(f"“{other}”" for other in self.others)
        return f"“{self.category}”: {self.kind}{' ' + names if names else ''} (version {self.version})."


@dataclass(frozen=True)
class CodebookVersion:
    number: int
    date: str  # ISO date, e.g. "2026-03-01"
    note: str
    codebook: Codebook
    changes: tuple[CategoryChange, ...] = ()

    def summary(self) -> str:
        """One line for the export and the appendix: the number, date, note and what changed."""
        changed = "; ".join(c.sentence().removesuffix(f" (version {self.number}).") for c in self.changes)
        line = f"Version {self.number} ({self.date})"
        if self.note:
            line += f": {self.note}"
        return line + (f" — {changed}." if changed else ".")


@dataclass(frozen=True)
class Recheck:
    """A coding made under an older definition of its category, and what changed since."""

    row: Row
    category: str
    version: int
    changes: tuple[CategoryChange, ...]


def _today() -> str:
    return datetime.now(UTC).date().isoformat()


def _copy(codebook: Codebook) -> Codebook:
    return copy.deepcopy(codebook)


def _check_names(mapping_names: Iterable[str], old: set[str], what: str) -> None:
    for name in mapping_names:
        if name not in old:
            raise UserError(f"“{name}” cannot be {what}: the codebook had no such category.",
                            "Name a category of the codebook as it was.")


def category_changes(old: Codebook, new: Codebook, version: int, *, merged: Mapping[str, str] | None = None,
                     split: Mapping[str, Sequence[str]] | None = None) -> tuple[CategoryChange, ...]:
    """What ``new`` changed about each category of ``old`` (see the module's docstring), as version
    ``version``. :class:`UserError` when a merge or split names categories that do not fit."""
    merged, split = dict(merged or {}), {name: list(parts) for name, parts in (split or {}).items()}
    old_names, new_names = old.names(), new.names()
    old_set, new_set = set(old_names), set(new_names)
    _check_names(merged, old_set, "merged")
    _check_names(split, old_set, "split")
    for source, target in merged.items():
        if source in new_set:
            raise UserError(f"“{source}” is merged into “{target}” but is still in the codebook.",
                            f"Remove “{source}” from the codebook, or do not merge it.")
        if target not in new_set:
            raise UserError(f"“{source}” is merged into “{target}”, which is not in the codebook.",
                            f"Add “{target}” to the codebook, or merge “{source}” into one of its categories.")
    for source, parts in split.items():
        if source in merged:
            raise UserError(f"“{source}” cannot be both merged and split.", "Choose one of the two.")
        if len(parts) < 2 or len(set(parts)) != len(parts):
            raise UserError(f"“{source}” must be split into two or more different categories.",
                            "Name each part once.")
        missing = [part for part in parts if part not in new_set]
        if missing:
            raise UserError(f"“{source}” is split into “{missing[0]}”, which is not in the codebook.",
                            f"Add “{missing[0]}” to the codebook, or leave it out of the split.")
    parts_of = {part: source for source, parts in split.items() for part in parts if part != source}
    changes: list[CategoryChange] = []
    for name in old_names:
        before, after = old.category(name), new.category(name)
        if name in merged:
            changes.append(CategoryChange(version, name, MERGED_INTO, (merged[name],)))
        elif name in split:
            changes.append(CategoryChange(version, name, SPLIT_INTO, tuple(p for p in split[name] if p != name)))
        elif after is None:
            changes.append(CategoryChange(version, name, REMOVED))
        elif before.definition.strip() != after.definition.strip():
            changes.append(CategoryChange(version, name, EDITED))
        elif [e.strip() for e in before.examples] != [e.strip() for e in after.examples]:
            changes.append(CategoryChange(version, name, EXAMPLES))
    for name in new_names:
        if name in parts_of:
            if name in old_set:
                raise UserError(f"“{name}” is split from “{parts_of[name]}” but was in the codebook before.",
                                "Split a category only into itself and new categories.")
            changes.append(CategoryChange(version, name, SPLIT_FROM, (parts_of[name],)))
        elif name not in old_set:
            changes.append(CategoryChange(version, name, ADDED))
    return tuple(changes)


class CodebookHistory:
    """Every version of the codebook, oldest first; the last is the one coders code with now."""

    def __init__(self, codebook: Codebook, note: str = "First version", date: str | None = None) -> None:
        codebook.check()
        self._versions: list[CodebookVersion] = [
            CodebookVersion(1, _check_date(date or _today()), note, _copy(codebook))]

    @property
    def versions(self) -> tuple[CodebookVersion, ...]:
        return tuple(self._versions)

    @property
    def current(self) -> CodebookVersion:
        return self._versions[-1]

    def version(self, number: int) -> CodebookVersion:
        """Version ``number``; :class:`UserError` when there is none."""
        if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= len(self._versions):
            raise UserError(f"The codebook has no version {number!r}.",
                            f"Its versions are numbered 1 to {len(self._versions)}.")
        return self._versions[number - 1]

    def revise(self, codebook: Codebook, note: str, *, merged: Mapping[str, str] | None = None,
               split: Mapping[str, Sequence[str]] | None = None, date: str | None = None) -> CodebookVersion | None:
        """Add ``codebook`` as a new version with ``note`` when a category changed (``merged``: a
        removed category → the one it was merged into; ``split``: a category → the categories it was
        split into); None when nothing changed. The codebook is copied, so later edits to it do not
        change the history."""
        codebook.check()
        changes = category_changes(self.current.codebook, codebook, len(self._versions) + 1,
                                   merged=merged, split=split)
        if not changes:
            return None
        if not isinstance(note, str):
            raise UserError("The note of a codebook version must be a text.", "Say in a few words what changed.")
        version = CodebookVersion(len(self._versions) + 1, _check_date(date or _today()), note.strip(),
                                  _copy(codebook), changes)
        self._versions.append(version)
        return version

    def changed_since(self, version: int, category: str) -> tuple[CategoryChange, ...]:
        """Every change to ``category`` made by a version after ``version`` (empty: unchanged)."""
        self.version(version)
        return tuple(change for later in self._versions[version:] for change in later.changes
                     if change.category == category)

    def to_recheck(self, codings: Iterable[tuple[Row, str | None, int]]) -> list[Recheck]:
        """The codings (each: row, category, the version it was made under) whose category's
        definition was edited, or which was removed, merged or split, after that version; in the
        order given. Skips (category None) are never listed."""
        found = []
        for row, category, version in codings:
            if category is None:
                continue
            changes = tuple(c for c in self.changed_since(version, category) if c.kind in RECHECK_KINDS)
            if changes:
                found.append(Recheck(row, category, version, changes))
        return found

    def to_dict(self) -> dict[str, Any]:
        return {"format": FORMAT, "version": VERSION, "versions": [
            {"number": v.number, "date": v.date, "note": v.note, "codebook": v.codebook.to_dict(),
             "changes": [{"category": c.category, "kind": c.kind, "others": list(c.others)} for c in v.changes]}
            for v in self._versions]}

    @classmethod
    def from_dict(cls, data: object) -> CodebookHistory:
        """The history in ``data`` (read from an untrusted file); :class:`UnreadableCodings` says
        what is wrong with it."""
        if not isinstance(data, dict):
            raise UnreadableCodings("it is not a list of versions", _WHAT)
        check_version(data, FORMAT, VERSION, _WHAT)
        entries = data.get("versions")
        if not isinstance(entries, list) or not entries:
            raise UnreadableCodings("it holds no version of the codebook", _WHAT)
        versions = [_version(entry, number) for number, entry in enumerate(entries, start=1)]
        history = cls.__new__(cls)
        history._versions = versions
        return history


def _check_date(text: str) -> str:
    try:
        return date.fromisoformat(text).isoformat()
    except (TypeError, ValueError):
        raise UserError(f"“{str(text)[:40]}” is not a date.", "Give the date as year-month-day, e.g. 2026-03-01.") from None


def _version(entry: object, number: int) -> CodebookVersion:
    if not isinstance(entry, dict):
        raise UnreadableCodings(f"version {number} is not a codebook version", _WHAT)
    if entry.get("number") != number or isinstance(entry.get("number"), bool):
        raise UnreadableCodings(f"the versions are not numbered 1, 2, 3, … (the {number}. is "
                                f"{str(entry.get('number'))[:20]!r})", _WHAT)
    when, note = entry.get("date"), entry.get("note", "")
    try:
        when = _check_date(when)
    except UserError:
        raise UnreadableCodings(f"version {number} has no date ({str(when)[:40]!r})", _WHAT) from None
    if note is None:
        note = ""
    if not isinstance(note, str):
        raise UnreadableCodings(f"the note of version {number} is not a text", _WHAT)
    try:
        codebook = Codebook.from_dict(entry.get("codebook"))
    except UnreadableCodings as error:
        raise UnreadableCodings(f"the codebook of version {number} cannot be read ({error.reason})", _WHAT) from None
    changes = entry.get("changes", [])
    if not isinstance(changes, list):
        raise UnreadableCodings(f"the changes of version {number} are not a list", _WHAT)
    return CodebookVersion(number, when, note, codebook, tuple(_change(c, number) for c in changes))


def _change(entry: object, number: int) -> CategoryChange:
    if not isinstance(entry, dict):
        raise UnreadableCodings(f"a change of version {number} is not a change", _WHAT)
    category, kind, others = entry.get("category"), entry.get("kind"), entry.get("others", [])
    if not isinstance(category, str):
        raise UnreadableCodings(f"a change of version {number} names no category", _WHAT)
    if kind not in KINDS:
        raise UnreadableCodings(f"a change of version {number} is of an unknown kind ({str(kind)[:40]!r})", _WHAT)
    if not isinstance(others, list) or not all(isinstance(other, str) for other in others):
        raise UnreadableCodings(f"a change of version {number} names other categories that are not texts", _WHAT)
    return CategoryChange(number, category, kind, tuple(others))
