"""A project worked on over weeks: after save and reopen the Coding step's pool never holds a text
coded in TextLab, whatever the table's row labels; a text coded again keeps its first record and
the new coding links to it; the recorded chances are exactly those of the draws."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from guiapp.core.coding.coding_loop import CodingLoop
from guiapp.core.coding.codings import CodingLog, file_categories
from guiapp.core.export.codings_export import codings_table
from guiapp.core.project.opening import open_project
from guiapp.core.project.saving import save_project
from guiapp.core.study.mapping import ColumnMapping
from tests.core.project.helpers import plain_project

MAPPING = ColumnMapping(text_columns=["text"], category_column="label")


def half_coded(index) -> pd.DataFrame:
    project = plain_project(len(index))
    table = project.table.set_axis(index)
    table["label"] = table["label"].where(np.arange(len(table)) % 3 == 0, None)  # a third coded in the file
    return table


def loop_of(table: pd.DataFrame, seed: int = 1) -> tuple[CodingLoop, dict]:
    in_file = file_categories(table, MAPPING)
    uncoded = [row for row in table.index if row not in in_file]
    texts = dict(zip(table.index, table["text"], strict=True))
    return CodingLoop(uncoded, [texts[row] for row in uncoded], table_texts=texts, strategy="random", seed=seed), in_file


def code_some(loop: CodingLoop, log: CodingLog, in_file: dict, n: int) -> list:
    rows = []
    for i in range(n):
        suggestion = loop.next_text(log, in_file)
        assert loop.distribution(log, in_file)[suggestion.choice.position] == suggestion.choice.probability
        log.record(suggestion.row, "abc"[i % 3], coder="Ana", chosen_by=suggestion.choice.strategy,
                   probability=suggestion.choice.probability, file_category=in_file.get(suggestion.row))
        rows.append(suggestion.row)
    return rows


@pytest.mark.parametrize("index", [pd.RangeIndex(60), pd.Index(np.arange(100, 160, dtype=np.int64)),
                                   pd.Index([f"id-{i}" for i in range(60)])], ids=["range", "numbers", "texts"])
def test_texts_coded_before_the_project_was_saved_never_come_back(tmp_path, index):
    table = half_coded(index)
    loop, in_file = loop_of(table)
    log = CodingLog()
    before = code_some(loop, log, in_file, 12)
    project = plain_project(len(table))
    project.table, project.codings = table, log
    again = open_project(save_project(tmp_path / "weeks.textlab", project), extract_models_to=None)

    reopened, in_file_again = loop_of(again.table, seed=2)  # a new start draws with another generator
    assert in_file_again == in_file
    assert reopened.pool.rows == loop.pool.rows
    open_texts = reopened.pool.open_mask(again.codings, in_file_again)
    assert open_texts.sum() == 40 - 12
    assert not any(reopened.is_open(row, again.codings, in_file_again) for row in before)
    for _ in range(28):
        suggestion = reopened.next_text(again.codings, in_file_again)
        assert suggestion.row not in before
        assert suggestion.choice.probability == pytest.approx(1 / reopened.pool.open_mask(again.codings,
                                                                                          in_file_again).sum())
        again.codings.record(suggestion.row, "a", coder="Ana", chosen_by="random",
                             probability=suggestion.choice.probability)
    assert reopened.next_text(again.codings, in_file_again) is None
    first = {row: log.latest()[row] for row in before}
    assert all(again.codings.first_entries()[row] == entry for row, entry in first.items())
    chances = [entry.probability for entry in again.codings.entries]
    assert chances == pytest.approx([1 / n for n in range(40, 0, -1)])  # each the chance of its draw


def test_a_text_coded_again_keeps_its_first_record_and_the_new_coding_links_to_it():
    log = CodingLog()
    first = log.record(7, "health", coder="Ana", chosen_by="random", probability=1 / 2173,
                       at="2024-05-06T09:00:00+00:00")
    same = log.record(7, "health", coder="Bea", chosen_by="review", at="2024-06-01T10:00:00+00:00")
    other = log.record(7, "energy", coder="Bea", chosen_by="review", at="2024-06-02T10:00:00+00:00")
    assert (same.previous, same.changed) == ("health", False)  # coded again: it says what it had been
    assert (other.previous, other.changed) == ("health", True)
    assert log.first_entries()[7] == first  # time, way chosen and chance as they were
    assert log.latest()[7] == other and log.categories_by_row() == {7: "energy"}
    table = pd.DataFrame({"text": [f"text {i}" for i in range(10)], "label": [None] * 10})
    exported = codings_table(table, MAPPING, log).loc[7]
    assert exported["Coding"] == "energy" and exported["Previous coding"] == "health"
    assert exported["How chosen"] == "random" and exported["Probability of being chosen"] == pytest.approx(1 / 2173)
    assert exported["Time (UTC)"] == pd.Timestamp("2024-05-06 09:00:00")


def test_a_suggestion_is_open_only_while_nobody_has_coded_its_text():
    table = half_coded(pd.RangeIndex(30))
    loop, in_file = loop_of(table)
    log = CodingLog()
    suggestion = loop.next_text(log, in_file)
    assert loop.is_open(suggestion.row, log, in_file)
    assert not loop.is_open(0, log, in_file)  # coded in the file: not a text of the pool
    log.record(suggestion.row, None, coder="Ana", chosen_by="random", probability=suggestion.choice.probability)
    assert not loop.is_open(suggestion.row, log, in_file)  # skipped
    assert not loop.is_open(suggestion.row, log, in_file, "second file")
