"""Findings of a table's own codings where a text can have several categories: each category's
share is the share of texts that have it, its own yes/no question with an interval, from the
file's codings and those made on the Coding step (a team's resolved sets too); the shares add up to
more than 100 %, the Excel workbook says how they were estimated, a category no coded text has is
left out in words, and per-group shares and a regression of one category work too."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from guiapp.core.coding.codings import CodingLog
from guiapp.core.errors import DataError
from guiapp.core.findings.from_table import table_findings_inputs
from guiapp.core.findings.several_categories import EACH_ON_ITS_OWN
from guiapp.core.study.mapping import ColumnMapping

WORDS = {"economy": ["jobs", "tax", "budget", "wages"], "health": ["hospital", "nurses", "doctors", "care"],
         "energy": ["power", "grid", "solar", "coal"]}
FILLER = ["the", "minister", "said", "today", "council", "plan", "new", "report", "people", "city"]
SHARES = {"economy": 0.6, "health": 0.45, "energy": 0.3}


def several_table(n=360, coded=150, seed=0, party=True):
    """A table whose texts have each category with the share in SHARES (independently); the first
    ``coded`` rows carry their 0/1 codings, the others are uncoded (empty cells)."""
    rng = np.random.default_rng(seed)
    has = {name: rng.random(n) < share for name, share in SHARES.items()}
    texts = []
    for i in range(n):
        words = list(rng.choice(FILLER, 8))
        for name in WORDS:  # the words say a text's categories, but not always: the model errs
            if has[name][i] and rng.random() < 0.75 or not has[name][i] and rng.random() < 0.15:
                words += list(rng.choice(WORDS[name], 1))
        rng.shuffle(words)
        texts.append(" ".join(words))
    frame = pd.DataFrame({"text": texts})
    if party:
        frame["party"] = rng.choice(["left", "right"], n)
    for name in WORDS:
        frame[name] = pd.array([int(v) if i < coded else None for i, v in enumerate(has[name])], dtype="Int64")
    truth = {name: float(has[name].mean()) for name in WORDS}
    return frame, truth, has


MAPPING = ColumnMapping(text_columns=["text"], multi_label=True, category_columns=list(WORDS))


def test_each_category_is_its_own_yes_no_question_with_an_interval(tmp_path):
    frame, truth, _ = several_table()
    inputs = table_findings_inputs(frame, MAPPING, None, categories=["health", "economy", "energy"])
    assert inputs.categories == ("health", "economy", "energy")
    assert inputs.coded_categories is not None and inputs.coded_categories.shape == (150, 3)
    assert "party" in inputs.columns() and "economy" not in inputs.columns()
    found = inputs.estimate()
    overall = {share.category: share for share in found.shares if share.group is None}
    assert set(overall) == set(WORDS)
    for name, share in overall.items():
        assert share.low <= truth[name] <= share.high, (name, share.low, truth[name], share.high)
        assert share.high - share.low < 0.2
    assert sum(share.estimate for share in overall.values()) > 1.1  # a text counts in each of its categories
    assert EACH_ON_ITS_OWN in found.assumption
    by_party = inputs.estimate("party")
    assert {(s.group, s.category) for s in by_party.shares if s.group} == {
        (g, c) for g in ("left", "right") for c in WORDS}
    regression = inputs.regress("health ~ party")
    assert regression is not None

    from guiapp.core.export.findings_export import write_findings

    path = write_findings(tmp_path / "findings.xlsx", found)
    sheets = pd.read_excel(path, sheet_name=None, header=None, engine="calamine")
    everything = " ".join(str(v) for sheet in sheets.values() for v in sheet.to_numpy().ravel())
    assert "share of texts that have it" in everything
    assert all(name in everything for name in WORDS)


def test_codings_made_in_textlab_and_a_teams_resolved_sets_count():
    from guiapp.core.coding.team import Team

    frame, _, has = several_table(coded=60)
    log = CodingLog(team=Team(["Ana", "Ben"], fallback="leave out"))
    for row in range(60, 120):
        labels = tuple(name for name in WORDS if has[name][row])
        log.record(row, None, coder="Ana", chosen_by="in order", labels=labels)
        if row < 70:  # Ben agrees on ten, and on 70–74 he disagrees: left out
            log.record(row, None, coder="Ben", chosen_by="in order", labels=labels)
    for row in range(70, 75):
        log.record(row, None, coder="Ben", chosen_by="in order", labels=("energy", "economy", "health"))
    inputs = table_findings_inputs(frame, MAPPING, log)
    assert len(inputs.coded.labels) == 60 + 60 - 5
    positions = set(inputs.coded.positions.tolist())
    assert not positions & {70, 71, 72, 73, 74}
    row_of = {p: i for i, p in enumerate(inputs.coded.positions.tolist())}
    k = inputs.categories.index("health")
    assert inputs.coded_categories[row_of[100], k] == int(has["health"][100])


def test_a_category_too_few_texts_have_is_left_out_in_words_and_nothing_coded_is_refused():
    frame, _, _ = several_table()
    frame["rare"] = pd.array([0 if i < 150 else None for i in range(len(frame))], dtype="Int64")
    frame["scarce"] = pd.array([1 if i < 1 else (0 if i < 150 else None) for i in range(len(frame))], dtype="Int64")
    mapping = ColumnMapping(text_columns=["text"], multi_label=True, category_columns=[*WORDS, "rare", "scarce"])
    inputs = table_findings_inputs(frame, mapping, None)
    assert "rare" not in inputs.categories and len(inputs.categories) == 4
    assert any("No coded text has “rare”, so its share is not measured" in note for note in inputs.notes)
    scarce = next(s for s in inputs.estimate().shares if s.category == "scarce" and s.group is None)
    assert 0 <= scarce.low < 1 / 360 < scarce.high < 0.1  # one coded text has it: measured, with a wide interval
    empty, _, _ = several_table(coded=5)
    with pytest.raises(DataError, match="Only 5 texts of the table are coded"):
        table_findings_inputs(empty, MAPPING, None)
