"""The words-per-category view: words of fewer than 3 documents are left out until the researcher
lowers the minimum, the ranking weighs the documents, and the note says how."""

from __future__ import annotations

from PySide6.QtWidgets import QSpinBox

from guiapp.core.explain.attribution import LINEAR_EXACT
from guiapp.core.explain.corpus_words import corpus_words
from guiapp.ui.steps.documents.corpus_words_view import CorpusWordsView
from tests.core.explain.test_corpus_words_ranking import explained
from tests.ui.helpers import save_screenshot


def _words():
    documents = [explained("unique tax cuts", {"unique": 0.35, "tax": 1.0, "cuts": 0.6}),
                 explained("once budget", {"once": 0.347, "budget": 0.2})]
    documents += [explained("tax cuts deficit", {"tax": 1.0, "cuts": 0.6, "deficit": 0.3}) for _ in range(2)]
    documents += [explained(f"cuts deficit spending now {i}", {"cuts": 0.6, "deficit": 0.3, "spending": -0.4})
                  for i in range(20)]
    documents += [explained("jobs growth", {"jobs": 0.8, "growth": 0.5}, "for") for _ in range(6)]
    return corpus_words(documents, ["against", "for"], "Logistic regression · Basic BOW", LINEAR_EXACT)


def test_the_minimum_of_documents_can_be_changed_and_the_note_says_how_words_are_ranked(qtbot):
    view = CorpusWordsView()
    qtbot.addWidget(view)
    view.resize(1000, 520)
    view.show_words(_words())
    view.show()
    qtbot.waitExposed(view)
    spin = view.findChild(QSpinBox, "corpusWordsMinimum")
    assert spin.value() == view.min_documents() == 3 and spin.isEnabled()
    words = [row[0] for row in view.table_rows()]
    assert "unique" not in words and "once" not in words  # one document each
    assert words[0] == "cuts"  # 22 documents at +0.6 outrank "tax" at +1.0 in 3
    assert view.chart().words()[:2] == ["cuts", "tax"]
    assert "at least 3 of the explained documents" in view.note() and "log₂(1 + the number" in view.note()
    assert "Punctuation and symbols are left out" in view.note()
    assert view.visible_headers()[:3] == ["Word", "Weighted score", "Mean score"]
    save_screenshot(view, "corpus_words_minimum")
    spin.setValue(1)
    words = [row[0] for row in view.table_rows()]
    assert "unique" in words and "once" in words and "every word" in view.note().lower()
    spin.setValue(10)
    assert [row[0] for row in view.table_rows()] == ["cuts", "deficit", "now", "spending"]
    view.choose_category("for")
    assert view.table_rows() == [] and "lower the minimum" in view.chart().message()
    view.clear()
    assert not spin.isEnabled() and view.note() == ""
