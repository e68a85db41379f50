"""The Findings step measures a table a coding team coded from its random draw: the drawn texts are
weighted as the random sample they are (not as texts chosen by hand), and the texts left out because
their coders disagreed and no one adjudicated are said in words."""

from __future__ import annotations

import pandas as pd

from guiapp.core.coding.codings import CodingLog
from guiapp.core.coding.team import Team
from guiapp.core.coding.team_assignment import TeamPlan, draw_assignment
from guiapp.core.study.mapping import ColumnMapping
from guiapp.ui.steps.findings.findings_page import FindingsPage
from tests.core.findings.test_team_design import code_drawn
from tests.core.synthetic_texts import coded_texts
from tests.ui.helpers import save_screenshot, session_with_table


def test_a_teams_drawn_texts_are_weighted_as_drawn_and_left_out_texts_said(qtbot, tmp_path):
    frame = coded_texts(500, seed=8)
    truth = frame["label"].copy()
    frame.loc[frame.index[40:], "label"] = None  # 40 coded by the file, 460 to code
    session = session_with_table(frame, ColumnMapping(text_columns=["text"], category_column="label"))
    plan = TeamPlan(("Ana", "Ben", "Cy"), 50, 0.3, 2, 3)
    log = CodingLog(team=Team(["Ana", "Ben", "Cy"], fallback="leave out",
                              assignment=draw_assignment(plan, list(frame.index[40:]))))
    first_overlap = log.team.assignment.overlap_texts()[0][1]
    second = [t.coder for t in log.team.assignment.texts if t.row == first_overlap][1]
    code_drawn(log, truth.to_dict(), wrong={(second, first_overlap)})
    session.set_codings(log)
    widget = FindingsPage(session=session)
    qtbot.addWidget(widget)
    widget.resize(1200, 800)
    widget.show()
    qtbot.waitUntil(lambda: widget.findings is not None and not widget.is_busy() and widget.inputs is not None,
                    timeout=60_000)
    drawn = log.team.assignment.distinct_texts()
    assert widget.findings.method_key == "sequential" and widget.inputs.chosen_by_coding_step
    assert widget.findings.n_coded == 40 + drawn - 1
    words = widget.warnings.text()
    assert f"{drawn:,} texts come from the coding team's random draw" in words
    assert "1 text drawn for coding was left out because its coders disagreed" in words
    assert "chosen by hand" not in words
    for share in widget.findings.overall():
        assert share.low <= (truth == share.category).mean() <= share.high
    save_screenshot(widget, "findings_team_draw")

    out = tmp_path / "findings.xlsx"  # the workbook says it too
    widget.save_to(out)
    qtbot.waitUntil(lambda: out.exists() and not widget.is_busy(), timeout=30_000)
    how = " ".join(str(v) for v in pd.read_excel(out, sheet_name="How estimated", engine="calamine").to_numpy().ravel())
    assert "coding team's random draw" in how and "coders disagreed" in how
    widget.cancel_jobs()
