"""Codebook versions in the record of codings: every coding is stamped with the version it was made
under, the codings to re-check are listed per coder of a team, and both survive a project's save
and reopen."""

from __future__ import annotations

from guiapp.core.coding.codebook import Codebook, CodebookCategory
from guiapp.core.coding.codebook_versions import CodebookHistory
from guiapp.core.coding.codings import CodingLog
from guiapp.core.coding.recheck_list import codings_to_recheck
from guiapp.core.coding.team import Team
from guiapp.core.project.opening import open_project
from guiapp.core.project.saving import save_project
from tests.core.project.helpers import plain_project


def codebook(econ: str = "Money.", *extra: str) -> Codebook:
    return Codebook([CodebookCategory("econ", econ), CodebookCategory("health", "Care."),
                     *(CodebookCategory(name, "") for name in extra)])


def test_every_coding_records_the_version_it_was_made_under():
    log = CodingLog(history=CodebookHistory(codebook()))
    first = log.record(0, "econ", coder="Ana", chosen_by="random")
    assert first.codebook_version == 1
    log.history.revise(codebook("Money and wages."), "Wages count")
    second = log.record(1, "econ", coder="Ana", chosen_by="random")
    skipped = log.record(2, None, coder="Ana", chosen_by="random")
    assert (second.codebook_version, skipped.codebook_version) == (2, 2)
    assert CodingLog().record(0, "econ", coder="Ana", chosen_by="random").codebook_version is None


def test_only_codings_under_an_older_changed_definition_are_to_recheck():
    log = CodingLog(history=CodebookHistory(codebook()))
    log.record(0, "econ", coder="Ana", chosen_by="random")
    log.record(1, "health", coder="Ana", chosen_by="random")
    log.history.revise(codebook("Money and wages."), "Wages count")
    log.record(2, "econ", coder="Ana", chosen_by="random")
    listed = codings_to_recheck(log)
    assert [(item.row, item.category, item.version) for item in listed] == [(0, "econ", 1)]
    assert "definition edited" in listed[0].what_changed()
    log.record(0, "econ", coder="Ana", chosen_by="review")  # kept under version 2
    assert codings_to_recheck(log) == []


def test_a_merge_lists_the_merged_category_s_codings_and_changes_none():
    log = CodingLog(history=CodebookHistory(codebook("Money.", "wages")))
    log.record(0, "wages", coder="Ana", chosen_by="random")
    log.history.revise(codebook(), "Wages are economy", merged={"wages": "econ"})
    listed = codings_to_recheck(log)
    assert [(item.row, item.category) for item in listed] == [(0, "wages")]
    assert listed[0].changes[0].kind == "merged into" and listed[0].changes[0].others == ("econ",)
    assert log.latest()[0].category == "wages"  # never rewritten


def test_in_a_team_each_coder_has_their_own_list():
    log = CodingLog(team=Team(["Ana", "Ben"]), history=CodebookHistory(codebook()))
    for row in range(3):
        log.record(row, "econ", coder="Ana", chosen_by="assigned")
    log.record(0, "econ", coder="Ben", chosen_by="assigned")
    log.history.revise(codebook("Money and wages."), "Wages count")
    log.record(1, "econ", coder="Ben", chosen_by="assigned")  # under version 2
    log.record(2, "econ", coder="Ana", chosen_by="review")  # Ana re-checked text 2
    assert [item.row for item in codings_to_recheck(log, coder="Ana")] == [0, 1]
    assert [item.row for item in codings_to_recheck(log, coder="Ben")] == [0]
    assert {item.coder for item in codings_to_recheck(log, coder="Ben")} == {"Ben"}


def test_versions_stamps_and_the_recheck_list_survive_reopen(tmp_path):
    log = CodingLog(team=Team(["Ana", "Ben"]), history=CodebookHistory(codebook(), "First version",
                                                                      date="2026-03-01"))
    log.record(0, "econ", coder="Ana", chosen_by="assigned")
    log.record(0, "health", coder="Ben", chosen_by="assigned")
    log.history.revise(codebook("Money and wages."), "Wages count", date="2026-03-08")
    log.record(1, "econ", coder="Ben", chosen_by="assigned")
    project = plain_project(10)
    project.codings = log
    again = open_project(save_project(tmp_path / "versions.textlab", project), extract_models_to=None).codings
    assert again == log
    assert [v.note for v in again.history.versions] == ["First version", "Wages count"]
    assert [e.codebook_version for e in again.entries] == [1, 1, 2]
    assert [item.row for item in codings_to_recheck(again, coder="Ana")] == [0]
    assert codings_to_recheck(again, coder="Ben") == []  # Ben's text 0 was "health", unchanged
    assert again.record(2, "econ", coder="Ana", chosen_by="assigned").codebook_version == 2
