"""The methods appendix's words: every work the prose cites is in the references, and the short
column headings of the model table are kept on one line."""

from __future__ import annotations

from guiapp.core.export.appendix_data import build_appendix
from guiapp.core.export.appendix_html import render_appendix_html
from guiapp.core.export.appendix_references import references
from guiapp.core.export.appendix_text import appendix_paragraph
from tests.ui.sample_results import sample_result


def _with_weighted_vote() -> dict:
    appendix = build_appendix(sample_result())
    parts = [model["name"] for model in appendix["models"][:2]]
    appendix["models"].append({"name": "Combined: weighted vote", "representation": "combined",
                               "classifier": "weighted_vote", "classifier_label": "Weighted vote", "parts": parts,
                               "weights": {parts[0]: 0.6, parts[1]: 0.4}, "learnt_on_texts": 700})
    return appendix


def test_a_cited_work_is_listed_in_the_references():
    appendix = _with_weighted_vote()
    prose = appendix_paragraph(appendix)
    assert "(Caruana et al., 2004)" in prose
    assert [work["key"] for work in references(prose)] == ["Wankmüller (2022)", "Caruana et al., 2004"]
    page = render_appendix_html(appendix)
    listed = page[page.index(">References</h2>"):]
    assert "Caruana, R., Niculescu-Mizil, A., Crew, G., &amp; Ksikes, A. (2004)" in listed
    assert "Ensemble selection from libraries of models" in listed and "Wankmüller" in listed


def test_no_reference_is_listed_that_the_prose_does_not_cite():
    page = render_appendix_html(build_appendix(sample_result()))
    assert "Caruana" not in page and "Wankmüller" in page[page.index(">References</h2>"):]


def test_the_rank_heading_does_not_break():
    page = render_appendix_html(build_appendix(sample_result()))
    assert '<th width="6%" style="white-space:nowrap">Rank</th>' in page
