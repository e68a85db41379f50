"""The methods appendix's paragraph on a coding team: coders, the draw, α with its interval judged by
Krippendorff's thresholds, Fleiss' κ, the adjudication rule and counts, and the codebook versions."""

from __future__ import annotations

import json

import pytest

from guiapp.core.coding.adjudication import Adjudication
from guiapp.core.coding.codebook import Codebook, CodebookCategory
from guiapp.core.coding.codebook_versions import CodebookHistory
from guiapp.core.coding.codings import CodingLog
from guiapp.core.coding.team import Team
from guiapp.core.coding.team_assignment import TeamPlan, draw_assignment
from guiapp.core.coding.team_report import team_agreement_of_log
from guiapp.core.export.appendix import appendix_paragraph, build_appendix, render_appendix_html
from guiapp.core.export.appendix_coding_team import (
    coding_team_facts,
    coding_team_facts_of,
    coding_team_paragraph,
)
from tests.ui.sample_results import sample_result

CODERS = ["Ann", "Ben", "Cem"]


def codebook(definition: str = "Talks about money.") -> Codebook:
    return Codebook([CodebookCategory("econ", definition), CodebookCategory("health", "Illness or care.")])


def team_log(errors: set[tuple[str, int]]) -> CodingLog:
    log = CodingLog(team=Team(list(CODERS)), history=CodebookHistory(codebook(), "First version", date="2026-03-01"))
    truth = ["econ", "health"] * 10
    for row in range(20):
        if row == 10:
            log.history.revise(codebook("Money, wages or prices."), "Wages count as econ", date="2026-03-08")
        for coder in CODERS:
            category = truth[row]
            if (coder, row) in errors:
                category = "health" if category == "econ" else "econ"
            log.record(row, category, coder=coder, chosen_by="assigned")
    return log


def test_the_paragraph_gives_the_team_agreement_rule_and_versions():
    log = team_log({("Ben", 2), ("Cem", 2), ("Cem", 13)})
    log.team.adjudicate(2, Adjudication("econ", "Lead"))
    facts = coding_team_facts(log, categories=["econ", "health"])
    json.dumps(facts, allow_nan=False)  # kept in the appendix's JSON
    expected = team_agreement_of_log(log, categories=["econ", "health"])
    assert facts["agreement"]["alpha"] == pytest.approx(expected.alpha, abs=1e-4)
    assert facts["texts_per_coder"] == {"Ann": 20, "Ben": 20, "Cem": 20}
    assert facts["adjudicated"] == 1 and facts["rule_counts"]["agreed"] == 18
    text = coding_team_paragraph(facts)
    assert "3 coders (Ann, Ben and Cem)" in text
    assert f"Krippendorff's α (nominal, missing codings allowed) was {expected.alpha:.2f}" in text
    assert "95% interval" in text
    assert "Krippendorff (2004)" in text and "Fleiss' κ (Fleiss, 1971)" in text
    assert "an adjudicator settled the text" in text and "most of its coders gave" in text
    assert log.study_codings().sentence() in text
    assert "Version 2 (2026-03-08): Wages count as econ" in text and "definition edited" in text


@pytest.mark.parametrize(("errors", "judged"), [
    (set(), "above the .800"),
    ({("Ben", r) for r in range(0, 20, 4)}, "below the .667"),
])
def test_alpha_is_judged_by_krippendorff_s_thresholds(errors, judged):
    text = coding_team_paragraph(coding_team_facts(team_log(errors)))
    assert judged in text


def test_a_log_without_team_or_versions_has_no_paragraph():
    log = CodingLog()
    log.record(0, "econ", coder="Ann", chosen_by="random")
    assert coding_team_facts(log) is None and coding_team_facts_of(log) is None
    assert coding_team_paragraph(None) == ""


def test_the_draw_s_sentence_is_given():
    log = team_log(set())
    plan = TeamPlan(coders=CODERS, texts_per_coder=8, overlap_share=0.5, coders_per_overlap=2, seed=3)
    log.team.assignment = draw_assignment(plan, list(range(40)))
    text = coding_team_paragraph(coding_team_facts(log))
    assert f"Texts were assigned by a random draw: {log.team.assignment.sentence()}" in text


def test_the_appendix_page_has_the_paragraph_and_cites_krippendorff():
    log = team_log({("Cem", 5)})
    facts = coding_team_facts_of(log, codebook())()  # measured on a copy of the log
    appendix = build_appendix(sample_result(), extra={"coding_team": facts})
    prose = appendix_paragraph(appendix)
    assert "The texts were coded by a team of 3 coders" in prose
    page = render_appendix_html(appendix)
    assert "The texts were coded by a team of 3 coders" in page
    assert "Content analysis: An introduction to its methodology" in page
