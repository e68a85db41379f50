"""A coding team's random draw enters the Findings' design as randomly drawn texts: each drawn text
that a coder reached is a draw at random from the texts still open (the draw is a simple random
sample), texts left out by the team's rule are drawn-but-uncoded and said in words, coding-sheet
entries count as drawn only for the coder the draw gave the text to, and over repeated draws the
shares' intervals cover the table's true shares at about the nominal rate."""

from __future__ import annotations

import numpy as np

from guiapp.core.coding.adjudication import Adjudication
from guiapp.core.coding.coding_record import ASSIGNED, SHEET
from guiapp.core.coding.codings import CodingLog
from guiapp.core.coding.team import Team
from guiapp.core.coding.team_assignment import TeamPlan, draw_assignment
from guiapp.core.findings import CodedSample, design_from_log, estimate_findings
from guiapp.core.findings.designs import CodingStepDraws

CATEGORIES = ("a", "b", "c")


def team_log(rows, coders=("Ana", "Ben", "Cy"), per_coder=20, overlap=0.25, seed=1, fallback="leave out"):
    plan = TeamPlan(tuple(coders), per_coder, overlap, 2, seed)
    team = Team(list(coders), fallback=fallback, assignment=draw_assignment(plan, rows))
    return CodingLog(team=team)


def code_drawn(log, truth, reached=None, wrong=()):
    """Each coder codes their first ``reached`` drawn texts (all by default) with the true category,
    except (coder, row) pairs in ``wrong`` (another category)."""
    assignment = log.team.assignment
    for coder in log.team.coders:
        rows = assignment.rows_for(coder)[:reached]
        for row in rows:
            category = truth[row]
            if (coder, row) in wrong:
                category = next(c for c in CATEGORIES if c != category)
            log.record(row, category, coder=coder, chosen_by=ASSIGNED, probability=assignment.texts[0].p_coder)


def test_the_draw_is_a_block_of_draws_at_random_from_the_open_texts():
    rows = list(range(100, 300))  # 200 texts, the first 20 coded in the file
    truth = {row: CATEGORIES[row % 3] for row in rows}
    file_categories = {row: truth[row] for row in rows[:20]}
    log = team_log(rows[20:], per_coder=10)
    log.record(rows[20], truth[rows[20]], coder="Ana", chosen_by="in order")  # by hand, before the draw
    drawn = {text.row for text in log.team.assignment.texts}
    assert rows[20] not in drawn
    overlap_row = log.team.assignment.overlap_texts()[0][1]
    two = [t.coder for t in log.team.assignment.texts if t.row == overlap_row]
    code_drawn(log, truth, wrong={(two[1], overlap_row)})  # the two coders of one overlap text disagree
    logged = design_from_log(log, file_categories, rows)
    design = logged.design
    assert isinstance(design, CodingStepDraws) and len(design.initial) == 20
    first, *team_steps = design.steps
    assert first.probability is None  # chosen by hand, before the draw
    assert len(team_steps) == len(drawn) == logged.n_team_drawn
    open_texts = 200 - 20 - 1
    assert [s.probability for s in team_steps] == [1 / (open_texts - j) for j in range(len(drawn))]
    assert {rows[s.position] for s in team_steps} == drawn
    # not the coder's chance m/N: every drawn text is a draw at random, the order is the draw's
    assert design.left_out == (rows.index(overlap_row),) and logged.n_left_out == 1
    coded = dict(zip(logged.positions.tolist(), logged.labels, strict=True))
    assert rows.index(overlap_row) not in coded and len(coded) == 20 + 1 + len(drawn) - 1
    assert all(truth[rows[p]] == c for p, c in coded.items())
    # adjudicated, the text is coded again and no longer left out
    log.team.adjudicate(overlap_row, Adjudication(truth[overlap_row], "Dee"))
    again = design_from_log(log, file_categories, rows)
    assert again.n_left_out == 0 and again.design.left_out == () and len(again.labels) == len(coded) + 1


def test_sheet_codings_count_as_drawn_only_for_the_coder_the_draw_gave_them_to():
    rows = list(range(60))
    truth = {row: CATEGORIES[row % 3] for row in rows}
    log = team_log(rows, coders=("Ana", "Ben"), per_coder=5, overlap=0.0)
    ana, ben = log.team.assignment.rows_for("Ana"), log.team.assignment.rows_for("Ben")
    for row in ana:
        log.record(row, truth[row], coder="Ana", chosen_by=SHEET)
    not_drawn = next(row for row in rows if row not in ana and row not in ben)
    log.record(not_drawn, truth[not_drawn], coder="Ben", chosen_by=SHEET)  # not Ben's drawn text: by hand
    logged = design_from_log(log, {}, rows)
    steps = logged.design.steps
    assert [rows[s.position] for s in steps if s.probability is not None] == [r for r in _key_order(log) if r in ana]
    assert [rows[s.position] for s in steps if s.probability is None] == [not_drawn]
    assert (logged.n_team_drawn, logged.n_by_hand, logged.n_team_waiting) == (5, 1, 5)
    assert any("5 texts drawn for the team are not coded yet" in note for note in logged.team_notes())


def _key_order(log):
    from guiapp.core.findings.coding_design import _draw_of

    return list(_draw_of(log, "table"))


def test_left_out_texts_are_said_in_the_findings_words():
    rng = np.random.default_rng(4)
    rows = list(range(400))
    truth = {row: CATEGORIES[int(rng.integers(3))] for row in rows}
    log = team_log(rows, per_coder=40, overlap=0.3)
    overlaps = [row for _, row in log.team.assignment.overlap_texts()[:3]]
    wrong = {([t.coder for t in log.team.assignment.texts if t.row == row][1], row) for row in overlaps}
    code_drawn(log, truth, wrong=wrong)
    logged = design_from_log(log, {}, rows)
    probabilities = _model(rng, [truth[r] for r in rows])
    coded = CodedSample(list(logged.labels), probabilities[logged.positions], logged.positions)
    found = estimate_findings(probabilities, CATEGORIES, coded, logged.design, bootstrap_replicates=50)
    words = " ".join(found.warnings)
    assert "3 texts drawn for coding were left out because their coders disagreed and no one adjudicated" in words
    assert "skipped" not in words  # no coder skipped a text: the left-out ones are not called skips


def _model(rng, labels):
    """A model that is right about two times in three: probabilities near the truth, with noise."""
    truth = np.array([CATEGORIES.index(label) for label in labels])
    scores = rng.normal(0.0, 1.0, (len(labels), 3))
    scores[np.arange(len(labels)), truth] += 1.2
    exp = np.exp(scores)
    return exp / exp.sum(axis=1, keepdims=True)


def test_the_shares_intervals_cover_the_truth_over_repeated_team_draws():
    n_texts, reps = 900, 200
    rng = np.random.default_rng(2026)
    labels = rng.choice(CATEGORIES, size=n_texts, p=[0.5, 0.3, 0.2])
    rows = list(range(n_texts))
    truth = dict(zip(rows, labels, strict=True))
    true_shares = {c: float(np.mean(labels == c)) for c in CATEGORIES}
    probabilities = _model(rng, labels)
    covered = dict.fromkeys(CATEGORIES, 0)
    for rep in range(reps):
        file_rows = list(rng.choice(n_texts, size=30, replace=False))  # the file's own random codings
        uncoded = [row for row in rows if row not in set(file_rows)]
        log = team_log(uncoded, per_coder=40, overlap=0.25, seed=rep)
        code_drawn(log, truth, reached=int(rng.integers(25, 41)))  # coders stopped at different places
        logged = design_from_log(log, {row: truth[row] for row in file_rows}, rows)
        coded = CodedSample(list(logged.labels), probabilities[logged.positions], logged.positions)
        found = estimate_findings(probabilities, CATEGORIES, coded, logged.design, bootstrap_replicates=20,
                                  power_tuning=rep % 2 == 0)
        for share in found.shares:
            if share.group is None:
                covered[share.category] += share.low <= true_shares[share.category] <= share.high
        assert logged.n_team_drawn and not logged.n_by_hand  # every team text weighted as drawn
    for category in CATEGORIES:
        assert 0.89 <= covered[category] / reps <= 0.995, (category, covered[category] / reps)  # nominal 0.95


def test_the_findings_read_the_teams_resolved_coding_not_the_latest_coder():
    """The table the Findings measure keeps the team (its rule and adjudications, after the Data
    step's fixes): a text two coders disagree on stays left out instead of taking the last coder's."""
    import pandas as pd

    from guiapp.core.coding.current_table import current_table
    from guiapp.core.study.category_fixes import CategoryFixes
    from guiapp.core.study.mapping import ColumnMapping

    frame = pd.DataFrame({"text": [f"text {i}" for i in range(6)], "label": [None] * 6})
    mapping = ColumnMapping(text_columns=["text"], category_column="label")
    log = CodingLog(team=Team(["Ana", "Ben"], fallback="leave out"))
    log.record(0, "a", coder="Ana", chosen_by="in order")
    log.record(0, "b", coder="Ben", chosen_by="in order")
    log.record(1, "a", coder="Ana", chosen_by="in order")
    log.record(1, "b", coder="Ben", chosen_by="in order")
    log.team.adjudicate(1, Adjudication("b ", "Dee"))
    fixes = CategoryFixes(trim_spaces=True)
    measured = current_table(frame, mapping, log, fixes).measured_log(log, fixes)
    assert measured.team_mode and measured.categories_by_row() == {1: "b"}
    assert log.team.adjudications_of()[1].category == "b "  # the project's own record is not changed
