"""The methods appendix's paragraph on the human coding by a team: who coded, how the texts were
assigned to them (the draw and its overlap), how well they agreed (Krippendorff's α with its
interval, judged by Krippendorff's 2004 thresholds, and Fleiss' κ), how disagreements were settled
(the adjudication rule and how many texts came from each rule), and the codebook's versions.

:func:`coding_team_facts` reads the facts from a project's record of codings (``CodingLog``: its
``team`` and ``history``) as plain JSON values, kept in the appendix under ``coding_team``;
:func:`coding_team_paragraph` writes them as prose. A log with neither a team of two or more coders
nor codebook versions has no such paragraph.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from guiapp.core.coding.coding_record import SOURCES
from guiapp.core.errors import UserError

if TYPE_CHECKING:
    from guiapp.core.coding.codebook import Codebook
    from guiapp.core.coding.codings import CodingLog

__all__ = ["RELIABLE", "TENTATIVE", "coding_team_facts", "coding_team_facts_of", "coding_team_paragraph"]

RELIABLE, TENTATIVE = 0.800, 0.667  # Krippendorff (2004): rely on α ≥ .800; tentative conclusions from .667


def _number(value: float) -> float | None:
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else round(float(value), 4)


def coding_team_facts(log: CodingLog | None, *, categories: list[str] | None = None) -> dict[str, Any] | None:
    """The facts of the team's coding and the codebook's versions; None when there are neither."""
    if log is None or not (log.team_mode or log.history is not None):
        return None
    facts: dict[str, Any] = {}
    if log.team_mode:
        facts.update(_team_facts(log, categories))
    if log.history is not None:
        facts["versions"] = [{"number": v.number, "date": v.date, "note": v.note, "summary": v.summary(),
                              "changes": [c.sentence() for c in v.changes]} for v in log.history.versions]
    return facts


def coding_team_facts_of(log: CodingLog | None, codebook: Codebook | None = None
                         ) -> Callable[[], dict[str, Any] | None] | None:
    """A function that gives :func:`coding_team_facts` of a copy of ``log`` as it is now (to be
    measured in the background while coding goes on); None when the log has neither a team nor
    codebook versions."""
    if log is None or not (log.team_mode or log.history is not None):
        return None
    from guiapp.core.coding.codings import CodingLog
    copy = CodingLog.from_dict(log.to_dict())
    return partial(coding_team_facts, copy, categories=(codebook.names() or None) if codebook is not None else None)


def _team_facts(log: CodingLog, categories: list[str] | None) -> dict[str, Any]:
    from guiapp.core.coding.team import latest_by_coder
    from guiapp.core.coding.team_report import team_agreement_of_log

    team = log.team
    assert team is not None
    coded: dict[str, int] = dict.fromkeys(team.coders, 0)
    overlap = 0
    for source in SOURCES:
        for by_coder in latest_by_coder(log.entries, source).values():
            who = [coder for coder, entry in by_coder.items() if not entry.skipped]
            overlap += len(who) >= 2
            for coder in who:
                coded[coder] = coded.get(coder, 0) + 1
    studies = [log.study_codings(source) for source in SOURCES]
    counts = {rule: sum(study.counts.get(rule, 0) for study in studies) for rule in studies[0].counts}
    facts: dict[str, Any] = {
        "coders": list(team.coders), "texts_per_coder": coded, "texts_coded_by_two_or_more": overlap,
        "assignment": team.assignment.sentence() if team.assignment is not None else None,
        "fallback": team.fallback, "rule_counts": counts,
        "study_sentence": (studies[0].sentence() if not any(study.texts for study in studies[1:])
                           else _joined_sentence(studies)),
        "adjudicated": counts.get("adjudicated", 0),
    }
    try:
        agreement = team_agreement_of_log(log, categories=categories)
    except UserError as error:
        facts["agreement_problem"] = str(error)
        return facts
    facts["agreement"] = {
        "alpha": _number(agreement.alpha), "alpha_interval": [_number(v) for v in agreement.alpha_interval],
        "level": agreement.level, "texts_compared": agreement.n_texts_compared, "codings": agreement.n_codings,
        "samples": agreement.samples,
    }
    if agreement.fleiss is not None:
        facts["agreement"]["fleiss"] = {"kappa": _number(agreement.fleiss.kappa),
                                        "interval": [_number(v) for v in agreement.fleiss.interval],
                                        "coders_per_text": agreement.fleiss.coders_per_text,
                                        "texts": agreement.fleiss.n_texts}
    if agreement.by_label:
        facts["agreement"]["by_version"] = [{"version": found.label, "alpha": _number(found.alpha),
                                             "interval": [_number(v) for v in found.interval],
                                             "texts": found.n_texts} for found in agreement.by_label]
    return facts


def _joined_sentence(studies: list) -> str:
    """Texts of the table and of a second file, each source's sentence."""
    return " ".join(f"{where}: {study.sentence()}" for where, study in zip(("Table", "Second file"), studies,
                                                                           strict=True) if study.texts)


def _interval(values: list[float | None], level: float) -> str:
    low, high = values
    if low is None or high is None:
        return ""
    return f" ({level:.0%} interval {low:.2f} to {high:.2f})"


def _judgement(alpha: float) -> str:
    if alpha >= RELIABLE:
        return "above the .800 that Krippendorff (2004) asks for before relying on a coding"
    if alpha >= TENTATIVE:
        return ("between the .667 and .800 that Krippendorff (2004) gives for tentative conclusions only, "
                "below the .800 he asks for before relying on a coding")
    return "below the .667 that Krippendorff (2004) gives as the least for even tentative conclusions"


def _names(coders: list[str]) -> str:
    return coders[0] if len(coders) == 1 else ", ".join(coders[:-1]) + " and " + coders[-1]


def coding_team_paragraph(facts: dict[str, Any] | None) -> str:
    """The paragraph on the team's coding and the codebook's versions; "" when there are no facts."""
    if not facts:
        return ""
    sentences: list[str] = []
    coders = facts.get("coders") or []
    if coders:
        per = facts.get("texts_per_coder") or {}
        counts = ", ".join(f"{name} {per.get(name, 0):,}" for name in coders)
        sentences.append(f"The texts were coded by a team of {len(coders)} coders ({_names(coders)}), each "
                         f"independently and without seeing the others' codings (texts coded: {counts}).")
        if facts.get("assignment"):
            sentences.append(f"Texts were assigned by a random draw: {facts['assignment']}")
        shared = facts.get("texts_coded_by_two_or_more", 0)
        sentences.append(f"{shared:,} text{'s were' if shared != 1 else ' was'} coded by two or more coders.")
        agreement = facts.get("agreement")
        if agreement and agreement.get("alpha") is not None:
            alpha = agreement["alpha"]
            level = agreement.get("level", 0.95)
            sentences.append(
                f"On these texts Krippendorff's α (nominal, missing codings allowed) was {alpha:.2f}"
                f"{_interval(agreement['alpha_interval'], level)}, from a bootstrap over texts, "
                f"{_judgement(alpha)}.")
            fleiss = agreement.get("fleiss")
            if fleiss and fleiss.get("kappa") is not None:
                sentences.append(f"Fleiss' κ (Fleiss, 1971) on the {fleiss['texts']:,} texts coded by "
                                 f"{fleiss['coders_per_text']} coders each was {fleiss['kappa']:.2f}"
                                 f"{_interval(fleiss['interval'], level)}.")
            by_version = [found for found in agreement.get("by_version") or [] if found.get("alpha") is not None]
            if len(by_version) > 1:
                parts = [f"{found['alpha']:.2f} under {_version_name(found['version'])} ({found['texts']:,} texts)"
                         for found in by_version]
                sentences.append(f"By the codebook version the codings were made under, α was {', '.join(parts)}.")
        elif facts.get("agreement_problem"):
            sentences.append(f"The team's agreement could not be measured: {facts['agreement_problem']}")
        fallback = facts.get("fallback")
        rule = {"first coder": "the first coder's category was used",
                "majority": "the category most of its coders gave was used (an even split left the text out)",
                "leave out": "the text was left out"}.get(fallback, "")
        sentences.append("Where coders disagreed, an adjudicator settled the text; where no one had"
                         + (f", {rule}." if rule else " settled it, the text was left out."))
        if facts.get("study_sentence"):
            sentences.append(f"The study's coding: {facts['study_sentence']}")
    versions = facts.get("versions") or []
    if len(versions) > 1:
        listed = " ".join(version["summary"] for version in versions)
        sentences.append(f"The codebook was revised during coding; every coding records the version it was made "
                         f"under, and codings made under a definition that changed later were listed for the coders "
                         f"to re-check. {listed}")
    elif versions:
        sentences.append(f"The codebook was not revised during coding (one version, of {versions[0]['date']}).")
    return " ".join(sentences)


def _version_name(label: object) -> str:
    return f"version {label}" if label else "the codebook before it had versions"
