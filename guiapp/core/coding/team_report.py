"""The agreement of a project's coding team, read from its record of codings: what the Coding
step, the command line, the Excel export and the methods appendix all report.

- :func:`team_agreement_of_log` — Krippendorff's α (missing codings allowed), per category,
  Fleiss' κ, Cohen's κ of every pair, each coder against the adjudicated coding, the
  disagreements, and α per codebook version the codings were made under (``stats/team_agreement.py``);
- :func:`team_category_agreement_of_log` — where a text can have several categories: α of each
  category as its own yes/no question.

Every coder's latest coding of each text counts (skips are gaps). A text of a second file is named
``("second file", row)`` so that it never meets a table row of the same number.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from guiapp.core.coding.coding_record import SOURCES
from guiapp.core.coding.team import latest_by_coder

if TYPE_CHECKING:
    from guiapp.core.coding.codings import CodingLog
    from guiapp.core.stats.team_agreement import TeamAgreement, TeamCategoryAgreement

__all__ = ["BEFORE_VERSIONS", "team_agreement_of_log", "team_category_agreement_of_log", "team_codings"]

TABLE = SOURCES[0]
BEFORE_VERSIONS = 0  # the label of codings made before the codebook had versions


def _unit(source: str, row: object) -> object:
    return row if source == TABLE else (source, row)


def team_codings(log: CodingLog, sources: Sequence[str] = SOURCES, *, several: bool = False
                 ) -> tuple[dict, dict, dict]:
    """(text → coder → category, (text, coder) → codebook version, text → adjudicated category) of
    every text at least one coder coded; ``several``: each coding as its set of categories."""
    codings: dict = {}
    versions: dict = {}
    reference: dict = {}
    team = log.team
    for source in sources:
        for row, by_coder in latest_by_coder(log.entries, source).items():
            unit = _unit(source, row)
            coded = {coder: entry for coder, entry in by_coder.items() if not entry.skipped}
            if not coded:
                continue
            codings[unit] = {coder: (frozenset(entry.coded_as) if several else entry.category)
                             for coder, entry in coded.items()}
            for coder, entry in coded.items():
                versions[(unit, coder)] = entry.codebook_version or BEFORE_VERSIONS
        if team is not None:
            for row, adjudication in team.adjudications_of(source).items():
                reference[_unit(source, row)] = adjudication.category
    return codings, versions, reference


def team_agreement_of_log(log: CodingLog, *, categories: list | None = None, samples: int = 1000,
                          seed: int = 0, level: float = 0.95) -> TeamAgreement:
    """The team's agreement on one category per text; :class:`UserError` (in words) when there are
    fewer than two coders or fewer than two texts coded by two of them."""
    from guiapp.core.stats.team_agreement import team_agreement

    codings, versions, reference = team_codings(log)
    coders = _coders(log, codings)
    used = {label for row in codings.values() for label in row.values()}
    if categories is not None:
        categories = [*categories, *sorted(used - set(categories) - {None}, key=str)]
    return team_agreement(codings, reference or None, labels=versions if len(set(versions.values())) > 1 else None,
                          categories=categories, coders=coders, samples=samples, seed=seed, level=level)


def team_category_agreement_of_log(log: CodingLog, *, categories: list | None = None, samples: int = 1000,
                                   seed: int = 0, level: float = 0.95) -> TeamCategoryAgreement:
    """Agreement per category where a text can have several categories."""
    from guiapp.core.stats.team_agreement import team_category_agreement

    codings, _, _ = team_codings(log, several=True)
    used = {label for row in codings.values() for labels in row.values() for label in labels}
    if categories is not None:
        categories = [*categories, *sorted(used - set(categories), key=str)]
    return team_category_agreement(codings, categories=categories, coders=_coders(log, codings),
                                   samples=samples, seed=seed, level=level)


def _coders(log: CodingLog, codings: dict) -> list:
    order = list(log.team.coders) if log.team is not None else []
    for row in codings.values():
        order.extend(coder for coder in row if coder not in order)
    return order
