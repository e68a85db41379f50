"""The codings to re-check after the codebook changed: each text whose latest coding (of one coder
in a team) was made under an older version of the codebook whose definition of its category was
edited since, or whose category was removed, merged into another or split
(``CodebookHistory.to_recheck``). Codings are never changed here: a coder re-checks a text by
coding it again under the current version (the same category — "Keep" — or another), which takes
it off the list.

:func:`codings_to_recheck` gives the list for the study (one coder) or for one coder of a team; a
coding of several categories is listed when any of them changed. Codings made before the codebook
had versions are not listed (what they were coded under is not known).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from guiapp.core.coding.codebook_versions import CategoryChange
from guiapp.core.coding.coding_record import SOURCES, Row

if TYPE_CHECKING:
    from guiapp.core.coding.codings import CodingLog

__all__ = ["RecheckItem", "codings_to_recheck"]


@dataclass(frozen=True)
class RecheckItem:
    """A coding to re-check: where the text is, who coded it, as what, under which version, and
    what changed since."""

    source: str
    row: Row
    coder: str
    categories: tuple[str, ...]
    version: int
    changes: tuple[CategoryChange, ...]
    several: bool = False  # the coding gave several categories

    @property
    def category(self) -> str:
        return "; ".join(self.categories)

    def what_changed(self) -> str:
        return " ".join(change.sentence() for change in self.changes)


def codings_to_recheck(log: CodingLog, *, coder: str | None = None) -> list[RecheckItem]:
    """The latest codings of ``coder`` (of the study when the log has no team) to re-check, table
    first, in the order of the rows' latest codings."""
    history = log.history
    if history is None:
        return []
    own = coder if log.team_mode else None
    found: list[RecheckItem] = []
    for source in SOURCES:
        for row, coding in log.latest(source, coder=own).items():
            version = coding.codebook_version
            if version is None or not 1 <= version < history.current.number:
                continue
            categories = tuple(coding.coded_as)
            listed = history.to_recheck([(row, category, version) for category in categories])
            if listed:
                changes = tuple(change for item in listed for change in item.changes)
                found.append(RecheckItem(source, row, coding.coder, categories, version, changes,
                                         several=coding.labels is not None))
    return found
