"""A text column chosen by hand that holds numbers or dates is flagged in the health report."""

from __future__ import annotations

import datetime as dt

import pandas as pd
import pytest

from guiapp.core.health.report import compute_health
from guiapp.core.study.mapping import ColumnMapping


def words(texts, on_event):
    return [len(text.split()) for text in texts], "words"


def report_for(text: pd.Series):
    frame = pd.DataFrame({"answer": text, "label": ["yes", "no", "maybe"] * (len(text) // 3)})
    return compute_health(frame, ColumnMapping(text_columns=["answer"], category_column="label"), token_counter=words)


def finding(report):
    return [issue for issue in report.issues if issue.code == "text_column_numbers"]


@pytest.mark.parametrize("values, what, example", [
    (pd.Series([str(i * 7) for i in range(30)], dtype="str"), "numbers", "“0”"),
    (pd.Series([i * 1.5 for i in range(30)]), "numbers", "“0”"),
    (pd.Series([f"2024-01-{i % 28 + 1:02d}" for i in range(30)], dtype="str"), "dates", "“2024-01-01”"),
    (pd.Series(pd.date_range("2024-01-01", periods=30)), "dates", "“2024-01-01”"),
    (pd.Series([dt.date(2024, 1, i % 28 + 1) for i in range(30)], dtype=object), "dates", "“2024-01-01”"),
])
def test_a_text_column_of_numbers_or_dates_is_not_ready(values, what, example):
    report = report_for(values)
    [issue] = finding(report)
    assert report.verdict == "not_ready" and issue.severity == "error"
    assert issue.title == f"The text column 'answer' holds {what}, not texts"
    assert example in issue.explanation and "100%" in issue.explanation


def test_half_numbers_is_a_warning_and_real_texts_are_fine():
    half = pd.Series([str(i) if i % 2 else f"I think option {i} is better" for i in range(30)], dtype="str")
    [issue] = finding(report_for(half))
    assert issue.severity == "warning" and "many numbers" in issue.title
    texts = pd.Series([f"answer {i} mentions 3 things" for i in range(30)], dtype="str")
    report = report_for(texts)
    assert finding(report) == [] and report.verdict != "not_ready"


def test_a_thousand_columns_check_quickly():
    import time

    frame = pd.DataFrame({f"var{i}": pd.Series([str(i)] * 200, dtype="str") for i in range(1000)})
    frame["text"] = pd.Series([f"a text with words {i}" for i in range(200)], dtype="str")
    frame["label"] = ["a", "b"] * 100
    started = time.perf_counter()
    report = compute_health(frame, ColumnMapping(text_columns=["text"], category_column="label"), token_counter=words)
    assert time.perf_counter() - started < 2 and finding(report) == []
