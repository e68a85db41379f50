"""Several categories per text coded in TextLab: sets recorded, recoded and undone; the table a
study runs on holds them as the study does (0/1 indicator columns, or one column listing them), the
file never changed; counts; and the record across a project save and reopen."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest

from guiapp.core.coding.codings import (
    CodingLog,
    coded_counts,
    file_categories,
    file_label_sets,
    label_cell,
    label_set_mapping,
    with_codings,
)
from guiapp.core.errors import DataError
from guiapp.core.project.opening import open_project
from guiapp.core.project.saving import save_project
from guiapp.core.study.label_sets import NO_CATEGORY
from guiapp.core.study.mapping import ColumnMapping, apply_mapping
from tests.core.project.helpers import plain_project

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
CATEGORIES = ["economy", "health", "environment", "migration"]
INDICATORS = ColumnMapping(text_columns=["text"], id_column="id", multi_label=True, category_columns=CATEGORIES)
LISTED = ColumnMapping(text_columns=["text"], id_column="id", multi_label=True, category_column="topics",
                       label_separator=";")


def indicator_table() -> pd.DataFrame:
    return pd.read_csv(FIXTURES / "multi_label_small.csv")


def listed_table() -> pd.DataFrame:
    return pd.read_csv(FIXTURES / "multi_label_small_delimited.csv")


def uncoded_rows(table: pd.DataFrame, mapping: ColumnMapping) -> list:
    coded = file_categories(table, mapping)
    return [row for row in table.index if row not in coded]


def test_sets_are_recorded_recoded_and_undone():
    log = CodingLog()
    log.record(3, None, labels=["health", "economy"], coder="Ana", chosen_by="random", probability=0.1)
    log.record(4, None, labels=[], coder="Ana", chosen_by="random", probability=0.1)
    assert log.label_sets_by_row() == {3: ("health", "economy"), 4: ()}
    assert not log.entry_of(4).skipped  # "none of these" is a coding, not a skip
    log.record(3, None, labels=["migration"], coder="Ana", chosen_by="review")
    assert log.label_sets_by_row()[3] == ("migration",)
    assert log.undo().labels == ("migration",)
    assert log.label_sets_by_row()[3] == ("health", "economy")
    log.record(5, None, coder="Ana", chosen_by="random", probability=0.1)  # skipped
    assert 5 not in log.label_sets_by_row() and log.skipped() == [5]


def test_the_file_codes_its_rows_and_the_uncoded_ones_stay_open():
    table = indicator_table()
    in_file = file_label_sets(table, INDICATORS)
    assert len(in_file) == 90  # 6 rows have every indicator cell empty
    assert in_file[0] == ("economy", "health", "migration")
    assert len(uncoded_rows(table, INDICATORS)) == 6
    assert file_categories(table, INDICATORS)[0] == "economy; health; migration"
    assert sum(1 for labels in in_file.values() if not labels) == 24
    listed = listed_table()
    assert file_label_sets(listed, LISTED) == in_file


def test_indicator_columns_get_a_zero_or_one_per_category_and_the_file_stays():
    table = indicator_table()
    before = table.copy()
    open_rows = uncoded_rows(table, INDICATORS)
    log = CodingLog()
    log.record(open_rows[0], None, labels=["health", "migration"], coder="Ana", chosen_by="random")
    log.record(open_rows[1], None, labels=[], coder="Ana", chosen_by="random")
    study = with_codings(table, INDICATORS, log)
    pd.testing.assert_frame_equal(table, before)
    assert study.loc[open_rows[0], CATEGORIES].tolist() == [0, 1, 0, 1]
    assert study.loc[open_rows[1], CATEGORIES].tolist() == [0, 0, 0, 0]
    assert study.loc[open_rows[2], CATEGORIES].isna().all()  # still uncoded
    sets = apply_mapping(study, INDICATORS).frame["category"]
    assert sets[open_rows[0]] == ("health", "migration")
    assert sets[open_rows[1]] == ()
    assert sets[open_rows[2]] is None


def test_a_new_category_gets_its_own_column_for_the_study():
    table = indicator_table()
    row = uncoded_rows(table, INDICATORS)[0]
    log = CodingLog()
    log.record(row, None, labels=["economy", "crime"], coder="Ana", chosen_by="random")
    mapping = label_set_mapping(table, INDICATORS, log)
    assert mapping.category_columns == [*CATEGORIES, "crime"]
    study = with_codings(table, mapping, log)
    sets = apply_mapping(study, mapping).frame["category"]
    assert sets[row] == ("crime", "economy")
    assert sets[0] == ("economy", "health", "migration")  # an empty cell in a coded row counts as 0


def test_a_column_listing_the_categories_gets_the_joined_list():
    table = listed_table()
    open_rows = uncoded_rows(table, LISTED)
    log = CodingLog()
    log.record(open_rows[0], None, labels=["health", "economy"], coder="Ana", chosen_by="random")
    log.record(open_rows[1], None, labels=[], coder="Ana", chosen_by="random")
    study = with_codings(table, LISTED, log)
    assert study.loc[open_rows[0], "topics"] == "health; economy"
    assert study.loc[open_rows[1], "topics"] == ";"
    assert table["topics"].isna().sum() == 6  # the file is not changed
    sets = apply_mapping(study, LISTED).frame["category"]
    assert sets[open_rows[0]] == ("economy", "health")
    assert sets[open_rows[1]] == ()


def test_a_study_without_a_category_column_gets_a_new_listing_column():
    table = listed_table().drop(columns=["topics"])
    mapping = replace(LISTED, category_column=None)
    log = CodingLog()
    log.record(2, None, labels=["health"], coder="Ana", chosen_by="random")
    coded = label_set_mapping(table, mapping, log)
    assert coded.category_column == "category"
    assert apply_mapping(with_codings(table, coded, log), coded).frame["category"][2] == ("health",)


def test_a_separator_inside_a_category_is_refused_in_words():
    with pytest.raises(DataError, match="separator"):
        label_cell(["economy; trade"], ";")
    assert label_cell([], " + ") == "+"
    assert label_cell(["a", "b"], " + ") == "a + b"


def test_counts_add_the_codings_to_the_files():
    table = indicator_table()
    open_rows = uncoded_rows(table, INDICATORS)
    before = coded_counts(table, INDICATORS, CodingLog())
    assert before == {"economy": 35, "health": 27, "environment": 21, NO_CATEGORY: 24, "migration": 18}
    log = CodingLog()
    log.record(open_rows[0], None, labels=["health", "migration"], coder="Ana", chosen_by="random")
    log.record(open_rows[1], None, labels=[], coder="Ana", chosen_by="random")
    after = coded_counts(table, INDICATORS, log)
    assert after["health"] == before["health"] + 1
    assert after["migration"] == before["migration"] + 1
    assert after[NO_CATEGORY] == before[NO_CATEGORY] + 1
    assert after["economy"] == before["economy"]


def test_the_coded_sets_survive_a_project_save_and_reopen(tmp_path):
    table = indicator_table()
    open_rows = uncoded_rows(table, INDICATORS)
    log = CodingLog()
    log.record(open_rows[0], None, labels=["health", "migration"], coder="Ana", chosen_by="random", probability=0.2)
    log.record(open_rows[1], None, labels=[], coder="Ana", chosen_by="random", probability=0.25)
    project = plain_project(len(table))
    project.table, project.codings = table, log
    again = open_project(save_project(tmp_path / "sets.textlab", project), extract_models_to=None)
    assert again.codings.label_sets_by_row() == {open_rows[0]: ("health", "migration"), open_rows[1]: ()}
    pd.testing.assert_frame_equal(with_codings(again.table, INDICATORS, again.codings),
                                  with_codings(table, INDICATORS, log))


def test_a_team_s_sets_resolve_into_the_study_table_none_of_these_included():
    from guiapp.core.coding.adjudication import Adjudication
    from guiapp.core.coding.team import Team

    table = indicator_table()
    a, b, c = uncoded_rows(table, INDICATORS)[:3]
    log = CodingLog(team=Team(coders=["Ana", "Ben"], active="Ana"))
    for coder, labels in (("Ana", ["health", "economy"]), ("Ben", ["economy", "health"])):
        log.record(a, None, labels=labels, coder=coder, chosen_by="random")
    for coder in ("Ana", "Ben"):  # both: none of these categories — agreed, not missing
        log.record(b, None, labels=[], coder=coder, chosen_by="random")
    log.record(c, None, labels=["health"], coder="Ana", chosen_by="random")
    log.record(c, None, labels=["migration"], coder="Ben", chosen_by="random")
    rules = {text.row: text.rule for text in log.study_codings().texts}
    assert rules[a] == rules[b] == "agreed"
    log.team.adjudicate(c, Adjudication("health; migration", "Cleo"), "table")
    sets = apply_mapping(with_codings(table, INDICATORS, log), INDICATORS).frame["category"]
    assert sets[a] == ("economy", "health")
    assert sets[b] == ()
    assert sets[c] == ("health", "migration")
    assert coded_counts(table, INDICATORS, log)[NO_CATEGORY] == 25


def test_the_table_as_it_is_now_has_no_uncoded_row_that_was_coded_here():
    from guiapp.core.coding.current_table import current_table

    table = indicator_table()
    open_rows = uncoded_rows(table, INDICATORS)
    log = CodingLog()
    log.record(open_rows[0], None, labels=["crime"], coder="Ana", chosen_by="random")
    log.record(open_rows[1], None, labels=[], coder="Ana", chosen_by="random")
    now = current_table(table, INDICATORS, log)
    assert "crime" in now.mapping.category_columns
    assert list(now.uncoded_rows().index) == open_rows[2:]
    listed = listed_table().drop(columns=["topics"])
    bare = replace(LISTED, category_column=None)
    now = current_table(listed, bare, log)
    assert now.mapping.category_column == "category"
    assert open_rows[0] not in now.uncoded_rows().index and len(now.uncoded_rows()) == len(listed) - 2
