"""The Coding step's design read from its record and the file's codings."""

from __future__ import annotations

import numpy as np
import pytest

from guiapp.core.coding.codings import Coding, CodingLog
from guiapp.core.errors import DataError
from guiapp.core.findings import CodedSample, CodingStepDraws, Step, design_from_log, estimate_findings

AT = "2026-01-05T10:00:00.000+00:00"


def entry(row, category, chosen_by, probability=None, source="table"):
    return Coding(row, category, "ana", AT, chosen_by, probability, source=source)


def test_file_codings_draws_skips_hand_picks_and_reviews():
    rows = [10, 11, 12, 13, 14, 15, 16, 17]
    file_categories = {10: "a", 11: "b", 12: None}
    log = CodingLog([
        entry(13, "a", "random", 1 / 6),
        entry(14, None, "uncertainty", 0.4),  # skipped
        entry(15, "b", "in order"),  # chosen by hand
        entry(16, "b", "uncertainty", 0.3),
        entry(16, "a", "review"),  # the review changed it: its category is a, its draw stays
        entry(11, "a", "review"),  # a file coding changed: still one of the file's
        Coding(17, "b", "bo", AT, "second coder", None),  # a second coder's: not read
    ])
    logged = design_from_log(log, file_categories, rows)
    assert logged.design == CodingStepDraws((0, 1), (Step(3, 1 / 6), Step(4, 0.4), Step(5, None), Step(6, 0.3)))
    assert dict(zip(logged.positions.tolist(), logged.labels, strict=True)) == {0: "a", 1: "a", 3: "a", 5: "b", 6: "a"}
    assert (logged.n_skipped, logged.n_by_hand) == (1, 1)


def test_the_logged_design_runs_and_warns_about_skips_and_hand_picks():
    rng = np.random.default_rng(0)
    rows = list(range(100, 400))
    probabilities = rng.dirichlet([1, 1], size=300)
    file_categories = {row: rng.choice(["a", "b"]) for row in rows[:40]}
    entries = []
    for i, row in enumerate(rows[40:100]):
        if i == 5:
            entries.append(entry(row, None, "random", 1 / (260 - i)))
        elif i == 9:
            entries.append(entry(row, "a", "in order"))
        else:
            entries.append(entry(row, str(rng.choice(["a", "b"])), "random", 1 / (260 - i)))
    logged = design_from_log(CodingLog(entries), file_categories, rows)
    coded = CodedSample(logged.labels, probabilities[logged.positions], logged.positions)
    found = estimate_findings(probabilities, ("a", "b"), coded, logged.design)
    assert found.method_key == "sequential" and found.n_coded == 99
    assert any("skipped" in warning for warning in found.warnings)
    assert any("chosen by hand" in warning for warning in found.warnings)
    assert "weighted by the chance" in found.assumption


def test_second_file_draws_and_rows_outside_the_corpus():
    log = CodingLog([entry("r1", "a", "random", 0.5, source="second file"), entry(3, "a", "random", 0.2)])
    logged = design_from_log(log, {}, ["r0", "r1"], source="second file")
    assert logged.design == CodingStepDraws((), (Step(1, 0.5),))
    with pytest.raises(DataError, match="not in the corpus"):
        design_from_log(log, {}, [0, 1, 2])
    with pytest.raises(DataError, match="not in the corpus"):
        design_from_log(CodingLog(), {9: "a"}, [0, 1])
    with pytest.raises(DataError, match="twice"):
        design_from_log(CodingLog(), {}, [0, 0])
