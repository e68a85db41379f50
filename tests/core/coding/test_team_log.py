"""The record of codings when a team codes: the study's coding is the team's resolved one (agreed,
from one coder, adjudicated, the majority or a tie, left out), each coder's own view adds, undoes
and flags only their entries, a recoding changes only the coder's own coding, and the team, the
codebook's versions and codings of several categories are kept in the project's record (version 1
written without them). No Qt here."""

from __future__ import annotations

import json

import pytest

from guiapp.core.coding.adjudication import ADJUDICATED, AGREED, LEAVE_OUT, LEFT_OUT, MAJORITY, ONE_CODER, TIE, Adjudication
from guiapp.core.coding.codebook import Codebook, CodebookCategory
from guiapp.core.coding.codebook_versions import CodebookHistory
from guiapp.core.coding.codings import CodingLog, UnreadableCodings
from guiapp.core.coding.team import Team

T0 = "2026-01-05T09:00:{:02d}.000+00:00"


def team_log(*coders: str, fallback: str = MAJORITY) -> CodingLog:
    return CodingLog(team=Team(list(coders), coders[0], fallback))


def code(log: CodingLog, row, category, coder: str, second: int = 0, **kwargs):  # noqa: ANN001
    return log.record(row, category, coder=coder, chosen_by="random", probability=0.1, at=T0.format(second), **kwargs)


def test_the_study_coding_is_the_resolved_one_by_every_rule() -> None:
    log = team_log("Ann", "Bo", "Cy")
    code(log, 1, "econ", "Ann")
    code(log, 1, "econ", "Bo")  # agreed
    code(log, 2, "health", "Bo")  # one coder
    for coder, category in (("Ann", "econ"), ("Bo", "econ"), ("Cy", "health")):
        code(log, 3, category, coder)  # majority
    code(log, 4, "econ", "Ann")
    code(log, 4, "health", "Bo")  # a tie
    code(log, 5, "econ", "Ann")
    code(log, 5, "health", "Cy")
    log.team.adjudicate(5, Adjudication("health", "Dee", "definition 2 applies"))
    study = log.study_codings()
    assert {text.row: text.rule for text in study.texts} == {1: AGREED, 2: ONE_CODER, 3: MAJORITY, 4: TIE,
                                                            5: ADJUDICATED}
    assert log.categories_by_row() == {1: "econ", 2: "health", 3: "econ", 5: "health"}
    assert log.counts() == {"econ": 2, "health": 2}
    assert log.latest()[3].coder == "Ann"  # the entry of the first coder who gave the resolved category
    assert log.latest()[5].category == "health" and log.latest()[5].coder == "Cy"

    log.team.set_fallback(LEAVE_OUT)
    assert log.study_codings().rule_of(3) == LEFT_OUT and 3 not in log.categories_by_row()
    assert log.categories_by_row(coder="Cy") == {3: "health", 5: "health"}  # each coder's own, as entered


def test_a_coders_view_adds_undoes_and_flags_only_their_own_entries() -> None:
    log = team_log("Ann", "Bo")
    ann, bo = log.of_coder("Ann"), log.of_coder("Bo")
    code(ann, 1, "econ", "Ann", 1)
    code(bo, 1, "health", "Bo", 2)
    code(ann, 2, "econ", "Ann", 3)
    assert len(log) == 3 and [e.row for e in ann.entries] == [1, 2] and [e.row for e in bo.entries] == [1]
    assert bo.latest() == {1: log.entries[1]} and ann.categories_by_row() == {1: "econ", 2: "econ"}
    flagged = bo.flag(1, "unsure", "ask Ann", coder="Bo", at=T0.format(4))
    assert flagged.category == "health" and list(bo.flagged()) == [1] and ann.flagged() == {}
    assert bo.undo() == flagged  # Bo's last entry, though Ann's are older
    assert bo.undo().category == "health" and bo.undo() is None
    assert [e.coder for e in log.entries] == ["Ann", "Ann"]
    assert ann.undo().row == 2 and len(log) == 1


def test_a_recoding_changes_only_the_coders_own_coding() -> None:
    log = team_log("Ann", "Bo")
    code(log, 7, "econ", "Ann", 1)
    code(log, 7, "econ", "Bo", 2)
    recoded = code(log, 7, "health", "Bo", 3)
    assert recoded.previous == "econ"  # Bo's own earlier coding
    first = code(log, 8, "health", "Bo", 4, file_category="econ")
    assert first.previous is None  # a team coder's coding is no change of the file's category
    assert log.latest(coder="Ann")[7].category == "econ" and log.latest(coder="Bo")[7].category == "health"
    assert log.study_codings().rule_of(7) == TIE  # two coders, one each: split evenly


def test_the_team_history_labels_and_versions_come_back_from_the_projects_record() -> None:
    log = team_log("Ann", "Bo")
    log.history = CodebookHistory(Codebook([CodebookCategory("econ"), CodebookCategory("health")]), "First")
    code(log, 1, "econ", "Ann", 1)
    code(log, 1, None, "Bo", 2, labels=("econ", "health"))
    log.team.adjudicate(1, Adjudication("econ", "Dee", "the main topic"))
    assert log.entries[0].codebook_version == 1
    data = json.loads(json.dumps(log.to_dict()))
    assert data["version"] == 2 and data["team"]["coders"] == ["Ann", "Bo"]
    again = CodingLog.from_dict(data)
    assert again == log
    assert again.team.adjudications_of() == {1: Adjudication("econ", "Dee", "the main topic")}
    assert again.entries[1].labels == ("econ", "health") and again.entries[1].codebook_version == 1
    assert again.history.current.number == 1 and again.team_mode


def test_a_record_without_a_team_is_written_as_version_1_without_them() -> None:
    log = CodingLog()
    code(log, 1, "econ", "Ann")
    data = log.to_dict()
    assert data["version"] == 1 and "team" not in data and "codebook_history" not in data
    assert set(data["codings"][0]) >= {"row", "category", "coder"}
    assert "labels" not in data["codings"][0] and "codebook_version" not in data["codings"][0]
    assert CodingLog.from_dict(data) == log


@pytest.mark.parametrize(("team", "words"), [
    ("Ann and Bo", "not a team of coders"),
    ({"coders": "Ann"}, "coders are not a list of names"),
    ({"coders": ["Ann", "ann"]}, "given twice"),
    ({"coders": ["Ann", "Bo"], "fallback": "toss a coin"}, "rule for disagreements"),
    ({"coders": ["Ann", "Bo"], "adjudications": [{"row": 1, "category": ""}]}, "has no category"),
    ({"coders": ["Ann", "Bo"], "assignment": {"plan": {"coders": ["Ann"], "texts_per_coder": 0}}},
     "at least one text"),
])
def test_an_untrusted_team_is_refused_in_words(team, words) -> None:  # noqa: ANN001
    data = {"format": "textlab-codings", "version": 2, "codings": [], "team": team}
    with pytest.raises(UnreadableCodings) as raised:
        CodingLog.from_dict(data)
    assert words in str(raised.value)
    assert "Traceback" not in str(raised.value)


def test_a_copy_keeps_the_team_and_the_versions_and_does_not_follow_later_changes():
    from guiapp.core.coding.adjudication import Adjudication
    from guiapp.core.coding.codebook import Codebook, CodebookCategory
    from guiapp.core.coding.codebook_versions import CodebookHistory
    from guiapp.core.coding.codings import CodingLog
    from guiapp.core.coding.team import Team

    log = CodingLog(team=Team(["ann", "bob"]), history=CodebookHistory(Codebook([CodebookCategory("a")])))
    log.record(1, "a", coder="ann", chosen_by="assigned")
    log.record(1, "b", coder="bob", chosen_by="assigned")
    copy = log.copy()
    assert copy == log and copy.team_mode
    log.team.adjudicate(1, Adjudication("b"))
    log.history.revise(Codebook([CodebookCategory("a"), CodebookCategory("b")]), "b added")
    log.record(2, "a", coder="ann", chosen_by="assigned")
    assert copy.categories_by_row() == {} and log.categories_by_row() == {1: "b", 2: "a"}
    assert len(copy.history.versions) == 1 and len(copy) == 2
