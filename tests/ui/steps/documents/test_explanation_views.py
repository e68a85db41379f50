"""The explanation views with hand-made records: what a researcher sees in the coloured text, the
attention heatmap and the per-category word table; screenshots go to screenshots/."""

from __future__ import annotations

import math

import numpy as np
import pytest
from PySide6.QtCore import Qt

from guiapp.core.explain.attention_maps import ATTENTION_CAUTION
from guiapp.core.export.highlight_html import TOWARD_RGB
from guiapp.ui.steps.documents.attention_heatmap import ALL_HEADS, ROLLOUT, AttentionView
from guiapp.ui.steps.documents.corpus_words_view import CorpusWordsView
from guiapp.ui.steps.documents.highlighted_text import HighlightedText
from tests.core.export.explain_samples import attention_maps, corpus_words, linear_review, speech
from tests.ui.helpers import save_screenshot


def test_highlighted_text_shows_colours_tooltips_legend_and_sentences(qtbot):
    view = HighlightedText()
    qtbot.addWidget(view)
    text, attribution, faithfulness = speech()
    view.show_attribution(text, attribution, faithfulness)
    shown = view.plain_text()
    assert "this tax bill is a giveaway to the wealthiest 1% & their lobbyists." in shown
    assert "<Medicare>" in shown  # written as the researcher wrote it, not swallowed as markup
    assert "#{:02x}{:02x}{:02x}".format(*TOWARD_RGB) in view.html()  # the strongest word in full red
    assert view.legend().startswith("red: pushed toward “against” · blue: pushed away")
    assert "red: pushed toward “against”" in shown
    assert "Integrated gradients: each word's share" in shown
    assert "Removing these 5 words changes the probability of “against” from 0.93 to 0.41" in shown
    toward, away = view.top_words()
    assert toward.startswith("Toward “against”: giveaway (+0.920), wealthiest (+0.640), cuts (+0.550)")
    assert "Speaker (−0.180)" in away and "I (" not in away and toward in shown
    assert "cut off" in view.unseen_note() and "cut off" in shown
    assert view.tooltip_of("giveaway").startswith("“giveaway”: +0.920 toward “against”")
    assert "−0.180 away from" in view.tooltip_of("Speaker")
    assert "BERT (fine-tuned)" in view.heading() and "0.93" in view.heading()

    view.show_attribution(*linear_review())  # no faithfulness check: no sentence about it
    assert "trust" not in view.plain_text() and "for" in view.legend()
    view.clear("Nothing chosen")
    assert view.plain_text() == "Nothing chosen" and view.html() == ""


def test_highlighted_text_screenshot(qtbot):
    view = HighlightedText()
    qtbot.addWidget(view)
    view.resize(900, 520)
    view.show_attribution(*speech())
    view.show()
    qtbot.waitExposed(view)
    qtbot.wait(50)
    save_screenshot(view, "highlighted_text")


def test_attention_view_choosers_heatmap_and_caution(qtbot):
    view = AttentionView()
    qtbot.addWidget(view)
    maps = attention_maps()
    view.resize(900, 820)
    view.show_maps(maps)
    view.show()
    qtbot.waitExposed(view)
    assert ATTENTION_CAUTION in view.caution() and "coloured words" in view.caution()
    assert view.layer_choices()[-1] == ROLLOUT and len(view.layer_choices()) == 5
    assert view.head_choices()[0] == ALL_HEADS and len(view.head_choices()) == 7
    chart = view.chart()
    n = len(maps.tokens)
    # starts on the rollout, heads do not apply there
    assert chart.image_data().shape == (n, n) and not view.heads_enabled()
    np.testing.assert_allclose(chart.matrix(), maps.rollout, rtol=1e-6)
    assert "rollout" in view.message()
    view.choose(2, None)
    np.testing.assert_allclose(chart.matrix(), maps.attentions[2].mean(axis=0), rtol=1e-5)
    assert view.heads_enabled() and "layer 3, all heads averaged" in view.message()
    view.choose(0, 4)
    np.testing.assert_allclose(chart.matrix(), maps.attentions[0, 4])
    assert "layer 1, head 5" in view.message()
    assert chart.row_labels() == maps.tokens and chart.column_labels() == maps.tokens
    value = maps.attentions[0, 4, 2, 9]
    assert chart.hover_text(2, 9) == f"«tax» → «the»: {value:.2f}"
    qtbot.wait(50)
    save_screenshot(view, "attention_view")
    view.clear()
    assert not view.layer_choices() and "Transformer" in view.message()


def test_attention_long_text_labels_are_thinned(qtbot):
    view = AttentionView()
    qtbot.addWidget(view)
    maps = attention_maps()
    n = 200
    tokens = ["[CLS]", *(f"word{i}" for i in range(n - 2)), "[SEP]"]
    rows = np.full((1, 1, n, n), 1.0 / n, dtype=np.float32)
    maps = type(maps)("BERT", tokens, list(range(n)), rows, np.full((n, n), 1.0 / n, np.float32), cut=True)
    view.resize(800, 800)
    view.show_maps(maps)
    view.show()
    qtbot.waitExposed(view)
    labels = view.chart().row_labels()
    assert labels[0] == "[CLS]" and 0 < sum(1 for label in labels if label) < n
    assert "longer than the model reads" in view.message()


def test_corpus_words_view_table_sorting_and_chart(qtbot):
    view = CorpusWordsView()
    qtbot.addWidget(view)
    view.resize(1000, 520)
    view.show_words(corpus_words())
    view.show()
    qtbot.waitExposed(view)
    assert "250 explained documents" in view.sentence() and "integrated gradients" in view.sentence()
    assert view.visible_headers() == ["Word", "Weighted score", "Mean score", "Occurrences", "Documents"]
    rows = view.table_rows()
    assert rows[0][0] == "giveaway" and rows[0][2:] == ["+0.810", "42", "37"]
    assert rows[-1][0] == "growth" and len(rows) == 8
    assert view.chart().words()[:3] == ["giveaway", "deficit", "cuts"]
    assert view.chart().values()[-1] == pytest.approx(-0.35 * math.log2(61))  # mean × log2(1 + documents)
    # sort by occurrences, as a user clicking the header would
    view.table().sortByColumn(3, Qt.SortOrder.DescendingOrder)
    assert [row[3] for row in view.table_rows()][:3] == ["130", "120", "95"]
    view.table().sortByColumn(0, Qt.SortOrder.AscendingOrder)
    assert view.table_rows()[0][0] == "cuts"
    view.choose_category("for")
    assert [row[0] for row in view.table_rows()] == ["jobs", "growth", "relief", "families"]
    view.choose_category("against")
    qtbot.wait(50)
    save_screenshot(view, "corpus_words")

    view.show_words(corpus_words(coefficients=True))
    assert view.visible_headers()[-1] == "Coefficient" and view.table_rows()[0][-1] == "+1.900"
    view.clear()
    assert view.table_rows() == [] and view.chart().message()
