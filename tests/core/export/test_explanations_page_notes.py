"""The explanations page: the method note at the top speaks of every text (each text's own section
names its own category), and the words each category relies on come with how they were ranked."""

from __future__ import annotations

import re

from guiapp.core.explain.corpus_table import RANKING
from guiapp.core.explain.transformer_attributions import method_sentence
from guiapp.core.export.attributions_html import EACH_OWN_CATEGORY, attributions_document, write_attributions_html
from guiapp.core.export.corpus_words_export import write_corpus_words_csv
from tests.core.export.explain_samples import SPEECH, SPEECH_SCORES, attribution_for, corpus_words


def _documents():
    against = attribution_for(SPEECH, SPEECH_SCORES, target_name="Republican", target=1,
                              method_sentence=method_sentence("Republican"))
    toward = attribution_for(SPEECH, SPEECH_SCORES, target_name="Democrat", target=0,
                             method_sentence=method_sentence("Democrat"))
    return [(SPEECH, against, None, "Row 12"), (SPEECH, toward, None, "Row 40")]


def test_the_method_note_names_no_single_category_and_each_text_names_its_own():
    page = attributions_document(_documents(), "Why BERT decided as it did")
    intro = page[page.index('<div class="intro">'):page.index("</div>")]
    assert "Republican" not in intro and "Democrat" not in intro
    assert EACH_OWN_CATEGORY in intro
    sections = re.findall(r'<section class="doc">.*?</section>', page, flags=re.S)
    assert len(sections) == 2
    assert "score for “Republican”" in sections[0] and "“Democrat”" not in sections[0]
    assert "score for “Democrat”" in sections[1] and "“Republican”" not in sections[1]


def test_the_words_of_each_category_are_exported_with_their_ranking(tmp_path):
    words = corpus_words()
    path = write_attributions_html(tmp_path / "explanations.html", _documents(), "Why", words=words, min_documents=40)
    page = path.read_text(encoding="utf-8")
    assert "Words each category relies on" in page and RANKING in page
    assert "at least 40 of the explained documents" in page
    assert "giveaway" not in page.split("<section")[1]  # 37 documents: below the minimum chosen
    assert "deficit" in page
    csv = write_corpus_words_csv(tmp_path / "words.csv", words, 40).read_text(encoding="utf-8-sig")
    assert csv.splitlines()[0].startswith(f"category,word,weighted score ({RANKING})")
    assert "giveaway" not in csv and "deficit" in csv
    assert "Words each category relies on" not in attributions_document(_documents(), "Why")
