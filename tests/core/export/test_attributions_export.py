"""The explanation exports: the coloured-text HTML (self-contained, escaped, cut text marked), the
word table as CSV and as Excel sheets, and the usual export safety (no overwrite unless asked)."""

from __future__ import annotations

import re

import openpyxl
import pandas as pd
import pytest

from guiapp.core.errors import UserError
from guiapp.core.explain.attribution import Attribution
from guiapp.core.explain.words import split_words
from guiapp.core.export.attributions_html import write_attributions_html
from guiapp.core.export.attributions_table import (
    COLUMNS,
    SUMMARY_COLUMNS,
    attribution_rows,
    faithfulness_summary,
    write_attributions_csv,
)
from guiapp.core.export.excel import write_excel
from guiapp.core.export.highlight_html import (
    AWAY_RGB,
    TOWARD_RGB,
    format_score,
    highlighted_html,
    score_colour,
)
from tests.core.export.explain_samples import SPEECH, linear_review, speech


def _documents():
    return [speech(), linear_review()]


def _hex(rgb) -> str:
    return "#{:02x}{:02x}{:02x}".format(*rgb)


def test_highlighted_html_keeps_the_text_and_colours_words():
    text, attribution, _ = speech()
    page = highlighted_html(text, attribution)
    # The strongest word gets the full red; a negative word is blue; a ~zero word stays white.
    assert f'background-color:{_hex(TOWARD_RGB)};border-radius:3px;" title="“giveaway”: +0.920 toward “against”' in page
    speaker_colour = score_colour(-0.18, 0.92)
    assert speaker_colour and f'background-color:{speaker_colour};' in page
    assert speaker_colour.lower() != "#ffffff" and int(speaker_colour[5:7], 16) > int(speaker_colour[1:3], 16)  # blue
    assert score_colour(0.0001, 0.92) is None and score_colour(0.5, 0.0) is None
    assert score_colour(-0.92, 0.92) == _hex(AWAY_RGB)
    # Escaping: "<Medicare>" and "&" appear as text, never as markup.
    assert "&lt;" in page and "&gt;" in page and "&amp;" in page and "<Medicare>" not in page
    # The text as written: removing the tags and unescaping gives the original back, newline included.
    import html as html_module
    assert html_module.unescape(re.sub(r"<[^>]+>", "", page)) == text
    assert format_score(-0.18) == "−0.180" and format_score(0.0001) == "+0.0001"


def test_unseen_text_is_greyed_and_struck():
    text, attribution, _ = speech()
    page = highlighted_html(text, attribution)
    cut = page.index("line-through")
    assert "I will vote against it!" in re.sub(r"<[^>]+>", "", page[cut - 200:])
    assert 'title="The model never read this part"' in page
    # "against" in the unseen part is not coloured, though it has a score
    assert "“against”: +0.710" not in page


def test_words_without_spans_and_empty_scores():
    text = "Nothing here"
    attribution = Attribution("M", "occlusion", "Leaving words out.", 0, "for", split_words(text), [0.0, 0.0],
                              0.5, "probability")
    page = highlighted_html(text, attribution)
    assert "background-color" not in page and "Nothing" in page


def test_html_file_is_self_contained_and_explains(tmp_path):
    path = write_attributions_html(tmp_path / "why.html", _documents(), "Why the models decided: floor speeches")
    page = path.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    assert "<script" not in page.lower()
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:|//)""", page, re.IGNORECASE)
    assert "@import" not in page and "url(" not in page
    assert "Why the models decided: floor speeches" in page
    assert "red" in page and "blue" in page and "Integrated gradients" in page and "Exact word contributions" in page
    assert "BERT (fine-tuned)" in page and "Logistic regression · Basic BOW" in page
    assert "probability 0.93" in page and "probability 0.81" in page
    assert "Removing these 5 words changes the probability of “against” from 0.93 to 0.41" in page
    assert "&lt;Medicare&gt;" in re.sub(r"<[^>]+>", "", page) and "<Medicare>" not in page
    assert "line-through" in page and "cut off" in page
    assert page.count('<section class="doc">') == 2


def test_html_never_overwrites_without_asking(tmp_path):
    target = tmp_path / "why.html"
    target.write_text("keep me", encoding="utf-8")
    with pytest.raises(UserError, match="already exists"):
        write_attributions_html(target, _documents(), "Title")
    assert target.read_text(encoding="utf-8") == "keep me"
    write_attributions_html(target, _documents(), "Title", overwrite=True)
    assert "Title" in target.read_text(encoding="utf-8")
    assert [p.name for p in tmp_path.iterdir()] == ["why.html"]  # no temporary file left


def test_rows_and_csv_read_back(tmp_path):
    rows = attribution_rows(_documents(), k=3)
    assert list(rows.columns) == COLUMNS
    first = rows[(rows["Document"] == "Document 1") & (rows["Direction"] == "toward")]
    assert first["Word"].tolist() == ["giveaway", "wealthiest", "cuts"]  # "against" was cut off
    assert first["Rank"].tolist() == [1, 2, 3]
    assert first["Score"].tolist() == pytest.approx([0.92, 0.64, 0.55])
    assert first["Comprehensiveness"].iloc[0] == pytest.approx(0.52)
    assert first["Sufficiency"].iloc[0] == pytest.approx(0.05)
    away = rows[(rows["Document"] == "Document 1") & (rows["Direction"] == "away")]
    assert away["Word"].tolist() == ["Speaker", "bill", "&"]
    second = rows[rows["Document"] == "Document 2"]
    assert second["Comprehensiveness"].isna().all() and second["Model"].iloc[0] == "Logistic regression · Basic BOW"
    assert second["Category"].iloc[0] == "for" and second["Method"].iloc[0] == "Exact word contributions"

    path = write_attributions_csv(tmp_path / "words.csv", _documents(), k=3)
    assert path.read_bytes().startswith(b"\xef\xbb\xbf")  # Excel reads UTF-8 right
    back = pd.read_csv(path, encoding="utf-8-sig")
    assert list(back.columns) == COLUMNS and len(back) == len(rows)
    assert back["Word"].tolist() == rows["Word"].tolist()
    assert back.loc[0, "Text (beginning)"].startswith("Mr. Speaker, this tax bill")
    with pytest.raises(UserError, match="already exists"):
        write_attributions_csv(path, _documents())


def test_faithfulness_summary_per_model_and_method():
    text, attribution, faith = speech()
    other = (text, attribution, type(faith)("against", 5, faith.words, 0.9, 0.7, 0.6))
    summary = faithfulness_summary([speech(), other, linear_review()])
    assert list(summary.columns) == SUMMARY_COLUMNS
    assert len(summary) == 1  # the linear model had no faithfulness check
    row = summary.iloc[0]
    assert row["Model"] == "BERT (fine-tuned)" and row["Documents"] == 2
    assert row["Mean comprehensiveness"] == pytest.approx((0.52 + 0.2) / 2)
    assert row["Mean sufficiency"] == pytest.approx((0.05 + 0.3) / 2)


@pytest.mark.parametrize("constant_memory", [False, True])
def test_excel_sheets(tmp_path, constant_memory):
    named = [(*speech(), "Speech 17"), linear_review()]
    path = write_excel(tmp_path / "why.xlsx", attributions=named, constant_memory=constant_memory)
    book = openpyxl.load_workbook(path)
    assert book.sheetnames == ["Word attributions", "Explanation faithfulness"]
    sheet = book["Word attributions"]
    rows = list(sheet.iter_rows(values_only=True))
    assert list(rows[0]) == COLUMNS
    assert rows[1][0] == "Speech 17" and rows[1][8] == "giveaway" and rows[1][9] == pytest.approx(0.92)
    assert rows[1][4] == pytest.approx(0.93) and rows[1][12] == pytest.approx(0.05) and rows[1][13] == 5
    assert any(row[0] == "Document 2" and row[13] is None for row in rows[1:])
    assert sheet.freeze_panes == "B2" and sheet["A1"].font.b
    assert sheet["E2"].number_format == "0.0%" and sheet["J2"].number_format.startswith("+0.000")
    small = book["Explanation faithfulness"]
    small_rows = list(small.iter_rows(values_only=True))
    assert list(small_rows[0]) == SUMMARY_COLUMNS
    assert small_rows[1][:3] == ("BERT (fine-tuned)", "Integrated gradients", 1)
    assert small_rows[1][3] == pytest.approx(0.52) and small["A1"].font.b
    assert any("Comprehensiveness" in (row[0] or "") for row in small_rows[2:])


def test_excel_without_attributions_is_unchanged(tmp_path):
    from tests.ui.sample_results import sample_result

    path = write_excel(tmp_path / "plain.xlsx", result=sample_result())
    assert "Word attributions" not in openpyxl.load_workbook(path).sheetnames


def test_speech_sample_is_what_the_tests_think():
    assert SPEECH.count("\n") == 1
