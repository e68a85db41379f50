"""The codings export of a coding team with codebook versions: the coder, the version and the rule
per text, the *Codebook versions* sheet, and a *Team agreement* sheet whose numbers are those of
``team_agreement_of_log``."""

from __future__ import annotations

import math

import openpyxl
import pandas as pd
import pytest

from guiapp.core.coding.adjudication import Adjudication
from guiapp.core.coding.codebook import Codebook, CodebookCategory
from guiapp.core.coding.codebook_versions import CodebookHistory
from guiapp.core.coding.codings import CodingLog
from guiapp.core.coding.team import Team
from guiapp.core.coding.team_report import team_agreement_of_log
from guiapp.core.export.codings_export import (
    CODEBOOK_VERSION,
    EACH_CODER,
    RULE,
    SHEET,
    TEXTLAB_COLUMNS,
    codings_table,
    write_codings,
)
from guiapp.core.export.excel_team_sheets import TEAM_SHEET, VERSIONS_SHEET
from guiapp.core.study.mapping import ColumnMapping

MAPPING = ColumnMapping(text_columns=["text"], category_column=None)
CODERS = ("Ann", "Ben", "Cem")


def codebook(definition: str = "Talks about money.") -> Codebook:
    return Codebook([CodebookCategory("econ", definition, ["taxes are high"]),
                     CodebookCategory("health", "Talks about illness or care.")])


@pytest.fixture
def team_log() -> CodingLog:
    """Three coders, 12 texts, a few disagreements, one adjudication, a revision after text 5."""
    log = CodingLog(team=Team(list(CODERS)), history=CodebookHistory(codebook(), "First version", date="2026-03-01"))
    truth = ["econ", "health"] * 6
    for row in range(12):
        if row == 6:
            log.history.revise(codebook("Talks about money, wages or prices."), "Wages count as econ",
                               date="2026-03-08")
        for coder in CODERS:
            category = truth[row]
            if (coder, row) in {("Ben", 2), ("Cem", 2), ("Cem", 7), ("Ben", 9)}:
                category = "health" if category == "econ" else "econ"
            log.record(row, category, coder=coder, chosen_by="assigned", probability=0.5,
                       at=f"2026-03-0{1 + row // 6}T09:{row:02d}:00+00:00")
    log.team.adjudicate(2, Adjudication("econ", "Lead", "money matters here"))
    return log


def frame() -> pd.DataFrame:
    return pd.DataFrame({"text": [f"text {i}" for i in range(12)]})


def test_the_table_names_coder_version_and_rule_per_text(team_log):
    table = codings_table(frame(), MAPPING, team_log)
    textlab = list(table.columns[-(len(TEXTLAB_COLUMNS) + 3):])
    assert textlab == [*TEXTLAB_COLUMNS, CODEBOOK_VERSION, RULE, EACH_CODER]
    assert table[CODEBOOK_VERSION].tolist() == [1.0] * 6 + [2.0] * 6
    rules = table[RULE].tolist()
    assert rules[2] == "adjudicated" and rules[0] == "agreed"
    assert rules[7] == "majority" and rules[9] == "majority"  # two against one, the team's default rule
    assert table["Coding"].tolist()[2] == "econ" and table["Coding"].tolist()[7] == "health"
    assert table[EACH_CODER].tolist()[2] == "Ann: econ | Ben: health | Cem: health"
    assert table["Coder"].tolist()[0] == "Ann"


def test_a_log_without_versions_or_team_keeps_the_columns_it_had():
    log = CodingLog()
    log.record(0, "econ", coder="Ann", chosen_by="random")
    table = codings_table(frame(), MAPPING, log)
    assert list(table.columns[-len(TEXTLAB_COLUMNS):]) == list(TEXTLAB_COLUMNS)
    assert CODEBOOK_VERSION not in table.columns and RULE not in table.columns


def test_the_workbook_has_the_versions_and_the_team_s_agreement(team_log, tmp_path):
    path = write_codings(tmp_path / "codings.xlsx", frame(), MAPPING, team_log, codebook=codebook())
    book = openpyxl.load_workbook(path)
    assert book.sheetnames == [SHEET, "Codebook", VERSIONS_SHEET, TEAM_SHEET]
    saved = pd.read_excel(path, sheet_name=SHEET, engine="openpyxl")
    assert saved[CODEBOOK_VERSION].tolist() == [1] * 6 + [2] * 6
    assert saved[RULE].tolist()[2] == "adjudicated"

    versions = list(book[VERSIONS_SHEET].iter_rows(values_only=True))
    assert versions[2][:3] == (1, "2026-03-01", "First version")
    assert versions[3][:3] == (2, "2026-03-08", "Wages count as econ")
    assert "“econ”: definition edited" in versions[3][3]
    definitions = [row for row in versions if row and row[1] == "econ" and isinstance(row[0], int)]
    assert [row[2] for row in definitions] == ["Talks about money.", "Talks about money, wages or prices."]

    expected = team_agreement_of_log(team_log, categories=codebook().names())
    rows = [row for row in book[TEAM_SHEET].iter_rows(values_only=True)]
    by_name = {row[0]: row for row in rows if row and row[0]}
    alpha = by_name["Krippendorff's α (nominal)"]
    assert alpha[1] == pytest.approx(expected.alpha)
    assert alpha[2:4] == pytest.approx(expected.alpha_interval)
    assert alpha[4] == expected.n_texts_compared
    fleiss = next(row for name, row in by_name.items() if name.startswith("Fleiss"))
    assert fleiss[1] == pytest.approx(expected.fleiss.kappa)
    kappas, _ = expected.kappa_matrix()
    start = next(i for i, row in enumerate(rows) if row[0] == "Cohen's κ of each pair of coders")
    assert rows[start + 1][1:4] == CODERS
    for i, coder in enumerate(CODERS):
        line = rows[start + 2 + i]
        assert line[0] == coder
        for j in range(3):
            want = kappas[i][j]
            assert (line[1 + j] is None) if math.isnan(want) else line[1 + j] == pytest.approx(want)
    reference = {found.coder: found for found in expected.against_reference}
    assert set(reference) == set(CODERS)
    assert by_name["Ben"][2] == pytest.approx(reference["Ben"].accuracy)  # in the table against the adjudicated
    labelled = {row[0]: row for row in rows if row and isinstance(row[0], str) and row[0].startswith("Version ")}
    assert set(labelled) == {"Version 1", "Version 2"}
    for found in expected.by_label:
        assert labelled[f"Version {found.label}"][3] == pytest.approx(found.alpha)


def test_a_team_with_too_few_shared_texts_gets_a_sheet_that_says_so(tmp_path):
    log = CodingLog(team=Team(["Ann", "Ben"]))
    log.record(0, "econ", coder="Ann", chosen_by="assigned")
    log.record(1, "econ", coder="Ben", chosen_by="assigned")
    path = write_codings(tmp_path / "codings.xlsx", frame(), MAPPING, log, codebook=codebook())
    sheet = openpyxl.load_workbook(path)[TEAM_SHEET]
    assert sheet["A1"].value == "Agreement of the coding team"
    assert sheet["A3"].value and "two" in sheet["A3"].value.lower()
