"""The Data step's words about a coding team's codings: how many texts of the study came from which
rule (one coder, agreed, adjudicated, left out …), for the table and a second file, and what the
rule is for texts the coders disagreed on that no one adjudicated. Plain text, no Qt."""

from __future__ import annotations

from guiapp.core.coding.adjudication import FIRST_CODER, LEAVE_OUT, MAJORITY
from guiapp.core.coding.coding_record import SOURCES

__all__ = ["fallback_words", "team_codings_words"]

WHERE_TO_CHANGE = "Change this rule under “Team…” on the Coding step."


def fallback_words(fallback: str) -> str:
    """What the study does with a text the coders disagreed on and no one adjudicated."""
    if fallback == FIRST_CODER:
        return ("Texts the coders disagreed on and no one adjudicated take the category of the first coder "
                "in the team's list who coded them.")
    if fallback == MAJORITY:
        return ("Texts the coders disagreed on and no one adjudicated take the category most of their coders "
                "gave; texts where the coders were split evenly are left out.")
    assert fallback == LEAVE_OUT, fallback
    return "Texts the coders disagreed on and no one adjudicated are left out of the study until someone adjudicates them."


def team_codings_words(log) -> str:  # noqa: ANN001 — a CodingLog
    """The sentence for a team's log (empty without a team of two or more coders): per source with
    codings, how many texts came from which rule, then the rule for unsettled texts."""
    if log is None or not log.team_mode:
        return ""
    parts = []
    for source in SOURCES:
        found = log.study_codings(source)
        if not any(found.counts.values()):
            continue
        where = "In the table" if source == SOURCES[0] else "In the second file"
        sentence = found.sentence()
        parts.append(f"{where}: {sentence[0].lower()}{sentence[1:]}" if not sentence[0].isdigit()
                     else f"{where}: {sentence}")
    if not parts:
        return ""
    return " ".join([f"Your team's codings. {' '.join(parts)}", fallback_words(log.team.fallback), WHERE_TO_CHANGE])
