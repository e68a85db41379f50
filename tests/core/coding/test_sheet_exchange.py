"""Coding sheets between a project and its coders: the texts a coder's sheet holds, a sheet filled in
as a coder would (openpyxl stands in for Excel) read back into the record of codings, refused rows
said in words, a second import adding nothing, and the codings kept across a project save/reopen."""

from __future__ import annotations

import pandas as pd
import pytest

from guiapp.core.coding.codebook import Codebook, CodebookCategory
from guiapp.core.coding.coding_record import ASSIGNED, SHEET
from guiapp.core.coding.coding_sheet import key_token
from guiapp.core.coding.codings import CodingLog
from guiapp.core.coding.sheet_exchange import (
    import_sheet,
    project_id_of,
    sheet_texts_for,
    source_texts,
    write_sheet_for,
)
from guiapp.core.coding.team import Team
from guiapp.core.coding.team_assignment import TeamPlan, draw_assignment
from guiapp.core.errors import UserError
from tests.core.coding.sheet_filling import fill_sheet
from guiapp.core.study.mapping import ColumnMapping

CODEBOOK = Codebook([CodebookCategory("Health", "Illness, doctors, hospitals."),
                     CodebookCategory("Economy", "Jobs, prices, trade."), CodebookCategory("Other")])
MAPPING = ColumnMapping(text_columns=["speech"], category_column="topic")


def _frame() -> pd.DataFrame:
    return pd.DataFrame({"speech": [f"speech number {i} about things" for i in range(8)],
                         "topic": ["Health", None, None, None, None, None, None, None]})


_fill = fill_sheet


def test_the_sheet_holds_the_texts_no_one_coded():
    log = CodingLog()
    log.record(2, "Economy", coder="Ann", chosen_by="random", probability=0.2)
    chosen = sheet_texts_for(log, _frame(), MAPPING, "Bo")
    assert [text.key for text in chosen.texts] == [1, 3, 4, 5, 6, 7]  # row 0 coded in the file, 2 in TextLab
    assert chosen.texts[0].label == "3"  # the row as the spreadsheet shows it (header in row 1)
    assert not chosen.drawn and "6 texts of the table for Bo" in chosen.sentence()
    assert len(sheet_texts_for(log, _frame(), MAPPING, "Bo", limit=2).texts) == 2


def test_the_sheet_holds_a_coders_share_of_the_draw_still_uncoded():
    log = CodingLog()
    team = Team(["Ann", "Bo"])
    team.assignment = draw_assignment(TeamPlan(("Ann", "Bo"), 3, overlap_share=1 / 3, seed=1), range(1, 8))
    log.team = team
    mine = team.assignment.rows_for("Bo")
    log.record(mine[0], "Health", coder="Bo", chosen_by=ASSIGNED, probability=0.5)
    chosen = sheet_texts_for(log, _frame(), MAPPING, "Bo")
    assert chosen.drawn and [text.key for text in chosen.texts] == mine[1:]


def test_no_texts_left_is_said_in_words():
    log = CodingLog()
    for row in range(1, 8):
        log.record(row, "Other", coder="Ann", chosen_by="in order")
    with pytest.raises(UserError, match="no texts left for Bo"):
        sheet_texts_for(log, _frame(), MAPPING, "Bo")


def test_the_project_id_follows_the_texts_not_the_order_of_calls():
    texts = source_texts(_frame(), MAPPING)
    assert project_id_of(texts) == project_id_of(dict(texts))
    changed = dict(texts, **{})
    changed[3] = "another text"
    assert project_id_of(changed) != project_id_of(texts)
    assert project_id_of(texts, "second file") != project_id_of(texts)


def test_round_trip_into_the_log_and_twice_adds_nothing(tmp_path):
    log = CodingLog()
    log.record(2, "Economy", coder="Ann", chosen_by="random", probability=0.2)
    path, chosen = write_sheet_for(tmp_path / "bo.xlsx", log, _frame(), MAPPING, CODEBOOK, "Bo")
    _fill(path, {1: ("Health", "sure"), 3: ("Economy", ""), 4: ("Other", "")})
    before = path.read_bytes()
    report = import_sheet(log, path, _frame(), MAPPING, CODEBOOK)
    assert path.read_bytes() == before  # the coder's file is never changed
    assert (report.added, report.unchanged, report.not_coded, report.refused) == (3, 0, 3, ())
    assert report.team_created and log.team.coders == ["Ann", "Bo"] and log.team_mode
    bo = {entry.row: entry for entry in log.entries if entry.coder == "Bo"}
    assert {row: entry.category for row, entry in bo.items()} == {1: "Health", 3: "Economy", 4: "Other"}
    assert bo[1].chosen_by == SHEET and bo[1].comment == "sure" and bo[1].probability is None
    assert "Imported 3 new codings by Bo from bo.xlsx." in report.lines()[0]

    again = import_sheet(log, path, _frame(), MAPPING, CODEBOOK)
    assert again.added == 0 and again.unchanged == 3 and len(log) == 4
    assert "Nothing new" in again.sentence()


def test_a_drawn_text_is_recorded_as_assigned_with_its_probability(tmp_path):
    log = CodingLog()
    team = Team(["Ann", "Bo"])
    team.assignment = draw_assignment(TeamPlan(("Ann", "Bo"), 3, seed=2), range(1, 8))
    log.team = team
    path, chosen = write_sheet_for(tmp_path / "bo.xlsx", log, _frame(), MAPPING, CODEBOOK, "Bo")
    first = chosen.texts[0].key
    _fill(path, {first: ("Health", "")})
    report = import_sheet(log, path, _frame(), MAPPING, CODEBOOK)
    entry = log.entries[-1]
    assert report.added == 1 and not report.team_created and not report.coder_joined
    assert entry.chosen_by == ASSIGNED and entry.probability == pytest.approx(
        next(t.p_coder for t in team.assignment.texts if t.coder == "Bo" and t.row == first))


def test_a_sheet_edited_as_a_coder_would_imports_right_or_is_refused_in_words(tmp_path):
    log = CodingLog()
    path, _ = write_sheet_for(tmp_path / "cy.xlsx", log, _frame(), MAPPING, CODEBOOK, "Cy")

    def edit(sheet, columns):
        rows = [[cell.value for cell in row] for row in sheet.iter_rows(min_row=2)]
        rows.sort(key=lambda values: str(values[columns["Text"] - 1]), reverse=True)  # sorted
        rows = [values for values in rows if values[0] != key_token(7)]  # a row deleted
        for values in rows:
            if values[0] == key_token(5):
                values[columns["Text"] - 1] = "speech number 5, as the coder retyped it"  # a text changed
        for number, values in enumerate(rows, start=2):
            for column, value in enumerate(values, start=1):
                sheet.cell(number, column).value = value
        sheet.delete_rows(len(rows) + 2, 10)

    _fill(path, {1: ("Health", ""), 3: ("Econmy", ""), 4: ("other", ""), 5: ("Health", ""), 6: ("Other", "")}, edit)
    report = import_sheet(log, path, _frame(), MAPPING, CODEBOOK)
    coded = {entry.row: entry.category for entry in log.entries}
    assert coded == {1: "Health", 4: "Other", 6: "Other"}  # matched by key, not by position
    words = "\n".join(report.lines())
    assert "Did you mean “Economy”?" in words
    assert "was changed in the sheet" in words
    assert report.deleted == 1 and "deleted from the sheet" in words
    assert "import it again" in words


def test_another_projects_sheet_is_refused_whole(tmp_path):
    log = CodingLog()
    path, _ = write_sheet_for(tmp_path / "cy.xlsx", log, _frame(), MAPPING, CODEBOOK, "Cy")
    _fill(path, {1: ("Health", "")})
    other = _frame().assign(speech=[f"another study's speech {i}" for i in range(8)])
    with pytest.raises(UserError, match="another project"):
        import_sheet(log, path, other, MAPPING, CODEBOOK)
    assert len(log) == 0


def test_the_imported_codings_survive_saving_and_reopening_the_project(tmp_path):
    from guiapp.core.project.format import Project
    from guiapp.core.project.opening import open_project
    from guiapp.core.project.saving import save_project
    from guiapp.core.study.spec import DataSpec, ExperimentSpec

    project = Project(spec=ExperimentSpec(data=DataSpec(source="speeches.csv", mapping=MAPPING)), table=_frame(),
                      codebook=CODEBOOK)
    project.codings.record(2, "Economy", coder="Ann", chosen_by="random", probability=0.2)
    saved = save_project(tmp_path / "study.textlab", project)
    reopened = open_project(saved, extract_models_to=None)
    path, _ = write_sheet_for(tmp_path / "bo.xlsx", reopened.codings, reopened.table, MAPPING, reopened.codebook, "Bo")
    _fill(path, {3: ("Economy", "")})
    report = import_sheet(reopened.codings, path, reopened.table, MAPPING, reopened.codebook)
    assert report.added == 1
    again = open_project(save_project(saved, reopened), extract_models_to=None)
    assert again.codings.team.coders == ["Ann", "Bo"]
    assert [(e.row, e.category, e.coder, e.chosen_by) for e in again.codings.entries][-1] == (3, "Economy", "Bo", SHEET)
    assert import_sheet(again.codings, path, again.table, MAPPING, again.codebook).added == 0  # same id after reopening


def test_each_imported_coding_records_the_codebooks_current_version(tmp_path):
    from guiapp.core.coding.codebook_versions import CodebookHistory

    log = CodingLog()
    log.history = CodebookHistory(CODEBOOK, "First version")
    revised = Codebook([CodebookCategory("Health", "Illness, doctors, hospitals, and care homes."),
                        CodebookCategory("Economy", "Jobs, prices, trade."), CodebookCategory("Other")])
    assert log.history.revise(revised, "Care homes count as health") is not None
    path, _ = write_sheet_for(tmp_path / "bo.xlsx", log, _frame(), MAPPING, revised, "Bo")
    _fill(path, {1: ("Health", "")})
    import_sheet(log, path, _frame(), MAPPING, revised)
    assert log.entries[-1].codebook_version == 2


def test_a_study_where_a_text_can_have_several_categories_gets_no_sheet_but_words(tmp_path):
    from dataclasses import replace

    several = replace(MAPPING, category_column=None, category_columns=["economy", "health"], multi_label=True)
    frame = _frame().assign(economy=None, health=None)
    with pytest.raises(UserError, match="one category") as error:
        sheet_texts_for(CodingLog(), frame, several, "Ana")
    assert "check box" in error.value.hint
