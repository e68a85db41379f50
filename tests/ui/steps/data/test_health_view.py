"""The data-health view shows what the report says, in plain words, and leads to the rows."""

from __future__ import annotations

import dataclasses

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QLabel, QPushButton

from guiapp.core.tables.rows import spreadsheet_row
from guiapp.ui.theme import FLAG_COLOR
from guiapp.ui.common.glossary import GlossaryLabel
from guiapp.ui.steps.data.health_view import HealthReportView
from tests.ui.sample_reports import (
    lengths,
    not_ready_report,
    policy_report,
    ready_report,
    warnings_report,
)


@pytest.fixture
def view(qtbot):
    widget = HealthReportView()
    qtbot.addWidget(widget)
    widget.resize(760, 1000)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def _label(view, name) -> QLabel:
    label = view.findChild(QLabel, name)
    assert label is not None, f"no label {name}"
    return label


def _text(view, name) -> str:
    label = _label(view, name)
    return label.plain_text() if isinstance(label, GlossaryLabel) else label.text()


def _cards(view):
    return view.findChildren(QFrame, "issue_card")


def test_without_a_report_a_placeholder_explains_what_to_do(view):
    view.set_report(None)
    assert view.report() is None
    assert _label(view, "health_placeholder").isVisible()
    assert "choose the columns" in _text(view, "health_placeholder")
    assert not view.findChild(QFrame, "verdict_banner").isVisible()


def test_ready_report(view):
    report = ready_report()
    view.set_report(report)
    assert view.report() is report
    banner = view.findChild(QFrame, "verdict_banner")
    assert banner.isVisible() and banner.property("verdict") == "ready"
    assert "#e8f5e9" in banner.styleSheet()  # green
    assert _text(view, "verdict_text") == report.verdict_text
    assert not _label(view, "health_placeholder").isVisible()
    assert view.figures() == {"rows": "600", "coded": "600", "uncoded": "0", "categories": "3",
                              "empty": "0", "duplicates": "0"}
    assert _text(view, "figure_rows") == "600"
    assert _text(view, "caption_uncoded") == "not yet coded"
    assert _text(view, "issues_summary") == "Nothing to fix: the check found no problems."
    assert _cards(view) == [] and view.findChildren(QPushButton, "show_rows_button") == []
    assert _text(view, "duplicates_caption") == "No text appears more than once."
    assert not view.identical.table.isVisible()


def test_warnings_report_lists_its_issues(qtbot, view):
    report = warnings_report()
    view.set_report(report)
    assert view.findChild(QFrame, "verdict_banner").property("verdict") == "warnings"
    assert _text(view, "verdict_text").startswith("Ready, with points worth a look")
    assert [label.plain_text() for label in view.findChildren(QLabel, "issue_title")] == [
        "2 categories have fewer than 5 coded texts", "40 texts are not yet coded",
    ]
    assert view.issue_titles() == [issue.title for issue in report.issues]
    assert [card.property("severity") for card in _cards(view)] == ["warning", "info"]
    fixes = [label.plain_text() for label in view.findChildren(QLabel, "issue_fix")]
    assert fixes[0] == "What to do: Code more texts of these categories, or merge them with a related category."
    assert _text(view, "issues_summary") == "1 warning, 1 note."
    assert view.figures()["uncoded"] == "40"


def test_show_rows_button_emits_the_table_positions(qtbot, view):
    view.set_report(warnings_report())
    buttons = view.findChildren(QPushButton, "show_rows_button")
    assert [b.text() for b in buttons] == ["Show 6 rows", "Show 40 rows"]
    with qtbot.waitSignal(view.rowsRequested) as signal:
        qtbot.mouseClick(buttons[0], Qt.MouseButton.LeftButton)
    assert signal.args == [[10, 11, 12, 13, 14, 15]]


def test_not_ready_report_with_capped_rows(qtbot, view):
    view.set_report(not_ready_report())
    banner = view.findChild(QFrame, "verdict_banner")
    assert banner.property("verdict") == "not_ready" and "#fdecea" in banner.styleSheet()
    assert _text(view, "verdict_text").startswith("Not ready yet")
    assert [card.property("severity") for card in _cards(view)] == ["error", "error", "warning"]
    assert _text(view, "issues_summary") == "2 problems to fix, 1 warning."
    texts = [b.text() for b in view.findChildren(QPushButton, "show_rows_button")]
    assert texts == ["Show 12 rows", "Show the first 10,000 of 25,000 rows", "Show 2 rows"]
    with qtbot.waitSignal(view.rowsRequested) as signal:
        qtbot.mouseClick(view.show_rows_buttons()[1], Qt.MouseButton.LeftButton)
    assert signal.args[0] == list(range(10_000))
    assert view.figures()["empty"] == "12" and view.figures()["duplicates"] == "3"  # rows that repeat another row's text


def test_a_new_report_replaces_the_old_issues(view):
    view.set_report(not_ready_report())
    view.set_report(ready_report())
    assert _cards(view) == [] and view.issue_titles() == []
    view.set_report(warnings_report())
    assert len(_cards(view)) == 2


def test_category_chart_and_caption(view):
    report = warnings_report()
    view.set_report(report)
    chart = view.category_chart()
    assert chart.objectName() == "category_chart"
    assert list(chart.bar_item().opts["width"]) == [c.count for c in report.categories]
    assert chart.axis_labels() == ["positive", "negative", "neutral", "mixed"]
    colours = [b.color().name() for b in chart.bar_item().opts["brushes"]]
    assert colours[2:] == [FLAG_COLOR, FLAG_COLOR]
    caption = _label(view, "category_caption")
    assert "2 categories in orange have too few examples for 5-fold cross-validation" in caption.plain_text()
    assert "Cross-validation:" in caption.toolTip()  # the term is explained in one sentence


def test_fold_count_comes_from_the_report(view):
    view.set_report(ready_report(n_folds=10))
    assert "enough examples for 10-fold cross-validation" in _text(view, "category_caption")


def test_text_lengths_in_words_and_tokens(view):
    report = ready_report()
    view.set_report(report)
    words = _text(view, "words_summary")
    assert words.startswith(f"Median {report.words.median:g} words; 90 % of texts have at most")
    assert list(view.lengths.words_chart().bar_item().opts["height"]) == list(report.words.histogram_counts)
    assert view.lengths.words_chart().limit_line() is None
    tokens = _text(view, "tokens_summary")
    assert "All texts fit within the 512 tokens a standard Transformer reads at once." in tokens
    assert view.lengths.tokens_chart().limit_text() == "512-token limit"
    assert list(view.lengths.tokens_chart().bar_item().opts["height"]) == list(report.tokens.histogram_counts)
    assert "all-MiniLM-L6-v2" in _text(view, "tokens_heading")
    tip = _label(view, "tokens_summary").toolTip()
    assert "Subword token:" in tip and "Transformer:" in tip
    assert not _label(view, "tokens_note").isVisible()


def test_texts_over_the_token_limit_and_sampling(view):
    tokens = dataclasses.replace(lengths("tokens", [10] * 9_848 + [600] * 152, limit=512), sampled=True)
    view.set_report(ready_report(tokens=tokens))
    text = _text(view, "tokens_summary")
    assert ("1.5 % of texts (152 of the 10,000 sampled) are longer than the 512 tokens a standard "
            "Transformer reads at once") in text
    assert "Estimated from a random sample of 10,000 texts." in text

    tokens = lengths("tokens", [10] * 4_338 + [600] * 152, limit=512)
    view.set_report(ready_report(tokens=tokens))
    assert "3.4 % of texts (152) are longer than the 512 tokens" in _text(view, "tokens_summary")
    assert "sample" not in _text(view, "tokens_summary")


def test_without_tokens_a_note_says_why(view):
    view.set_report(ready_report(tokens=None, tokenizer_name=None))
    assert not view.lengths.tokens_chart().isVisible()
    assert not _label(view, "tokens_summary").isVisible()
    note = _label(view, "tokens_note")
    assert note.isVisible() and "could not be measured" in note.plain_text()
    assert view.lengths.words_chart().isVisible()


def test_duplicate_groups_show_spreadsheet_rows_and_lead_to_them(qtbot, view):
    report = not_ready_report()
    view.set_report(report)
    table = view.identical.table
    assert table.isVisible() and table.rowCount() == 2
    cell = [[table.item(r, c).text() for c in range(4)] for r in range(2)]
    assert cell[0] == ["Stop the war now", ", ".join(str(spreadsheet_row(p)) for p in (5, 17, 40)),
                       "pro, contra", "Yes"]
    assert cell[1][1] == "9, 10" and cell[1][3] == ""
    assert "1 of them was coded differently" in _text(view, "duplicates_caption")
    rect = table.visualItemRect(table.item(1, 0))
    with qtbot.waitSignal(view.rowsRequested) as signal:
        qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert signal.args == [[7, 8]]


def test_long_duplicate_groups_are_shortened(view):
    view.set_report(policy_report())
    table = view.identical.table
    assert table.item(3, 1).text() == "1002, 1003, 1004, 1005 … +10 more"


def test_technical_words_in_issues_are_explained(view):
    view.set_report(policy_report())
    explanations = view.findChildren(QLabel, "issue_explanation")
    small = next(label for label in explanations if "cross-validation" in label.plain_text())
    assert "Cross-validation:" in small.toolTip() and "Fold:" in small.toolTip()
    plain = next(label for label in explanations if label.plain_text().startswith("Rows without"))
    assert plain.toolTip() == ""


def test_figures_rearrange_for_wide_panels(qtbot, view):
    view.set_report(policy_report())
    figures = [_label(view, f"figure_{key}") for key in ("rows", "empty")]
    view.resize(700, 900)
    qtbot.waitUntil(lambda: figures[1].mapTo(view, figures[1].rect().topLeft()).y()
                    > figures[0].mapTo(view, figures[0].rect().topLeft()).y())
    view.resize(1200, 900)
    qtbot.waitUntil(lambda: figures[1].mapTo(view, figures[1].rect().topLeft()).y()
                    == figures[0].mapTo(view, figures[0].rect().topLeft()).y())
