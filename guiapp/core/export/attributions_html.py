"""Explained documents as one HTML file a researcher can keep, print, or attach to a paper.

The file is self-contained: inline CSS only, no scripts, no fonts or pictures from elsewhere, so
it opens offline years later and shows exactly what the Documents step showed (the coloured text
comes from the same :func:`~guiapp.core.export.highlight_html.explanation_html`). Word scores
sit in each word's ``title``, so hovering a word in a browser shows its score too.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence
from datetime import datetime
from pathlib import Path

from guiapp.core.explain.attribution import METHOD_NAMES
from guiapp.core.export.attributions_table import explained
from guiapp.core.export.highlight_html import AWAY_RGB, TOWARD_RGB, UNSEEN_STYLE, explanation_html, method_line
from guiapp.core.export.target import writing_to

CSS = """
body { font-family: Georgia, 'Times New Roman', serif; color: #222222; max-width: 58em; margin: 2em auto;
       padding: 0 1.5em; line-height: 1.5; background: #ffffff; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { font-size: 1.2em; margin: 0 0 0.3em 0; }
.meta { color: #555555; font-size: 0.95em; margin: 0 0 0.8em 0; }
.intro { border-bottom: 1px solid #cccccc; padding-bottom: 1em; margin-bottom: 1.5em; }
.doc { border: 1px solid #d0d0d0; border-radius: 6px; padding: 1em 1.2em; margin: 0 0 1.5em 0;
       page-break-inside: avoid; break-inside: avoid; }
.nowrap { white-space: nowrap; }
.swatch { display: inline-block; width: 1.4em; height: 0.9em; border: 1px solid #999999; vertical-align: middle; }
* { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
@media print { body { margin: 0; max-width: none; } .doc { border-color: #999999; } }
"""


def _rgb(colour: tuple[int, int, int]) -> str:
    return "#{:02x}{:02x}{:02x}".format(*colour)


EACH_OWN_CATEGORY = "the category named above each text"


def general_method_sentence(attribution) -> str:  # noqa: ANN001 - an Attribution
    """The method sentence of ``attribution`` said of every text: the category it names (the one
    this document was explained toward) becomes "the category named above each text", since the
    texts of one page are explained toward different categories; each text's own section names its own."""
    sentence = attribution.method_sentence
    name = attribution.target_name
    for quoted in (f"“{name}”", f'"{name}"', f"'{name}'"):
        sentence = sentence.replace(quoted, EACH_OWN_CATEGORY)
    return sentence


def _intro(methods: dict[str, str]) -> str:
    """The header: what the colours mean and how each method made them (said of every text)."""
    listed = "".join(f"<li>{html.escape(method_line(key, sentence))}</li>" for key, sentence in methods.items())
    return (
        '<div class="intro">'
        "<p>Each text is shown as it was written. A word's background shows how much it pushed the model "
        "toward the category named above the text "
        f'<span class="nowrap">(<span class="swatch" style="background-color:{_rgb(TOWARD_RGB)};"></span> red)</span> '
        f'or away from it <span class="nowrap">(<span class="swatch" style="background-color:{_rgb(AWAY_RGB)};">'
        '</span> blue)</span>; white words had '
        "little effect. The colours are scaled per text: the strongest word of each text has the strongest "
        "colour, so compare colours within a text, and the scores (shown when you point at a word) across texts. "
        f'<span style="{UNSEEN_STYLE}">Grey, struck-through text</span> was cut off: the model never read it.</p>'
        "<p>These colours are <i>attributions</i>: estimates of what drove the model's decision, not proof. "
        "Where a faithfulness check was run, it says how much the probability changes when the most important "
        "words are removed (a large drop: the model did rely on them) or kept alone.</p>"
        f"<p><b>{'Method' if len(methods) == 1 else 'Methods'}</b></p><ul>{listed}</ul>"
        "</div>"
    )


def attributions_document(documents: Iterable[Sequence], title: str, words=None,  # noqa: ANN001
                          min_documents: int | None = None) -> str:
    """The whole HTML page as a string; with ``words`` (CorpusWords) a section of the words each
    category relies on (those found in at least ``min_documents`` documents) comes first."""
    from guiapp.core.export.corpus_words_export import CSS as WORDS_CSS
    from guiapp.core.export.corpus_words_export import corpus_words_section

    items = explained(documents)
    methods = {doc.attribution.method: general_method_sentence(doc.attribution) for doc in items}
    made = datetime.now().strftime("%Y-%m-%d %H:%M")
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{html.escape(title)}</title><style>{CSS}{WORDS_CSS if words is not None else ''}</style></head><body>",
        f"<h1>{html.escape(title)}</h1>",
        f'<p class="meta">{len(items)} explained text{"s" if len(items) != 1 else ""} · '
        f"made with TextLab on {made}</p>",
        _intro(methods),
        corpus_words_section(words, min_documents) if words is not None else "",
    ]
    for doc in items:
        att = doc.attribution
        parts.append(
            f'<section class="doc"><h2>{html.escape(doc.name)}</h2>'
            f'<p class="meta">Model: <b>{html.escape(att.model)}</b> · '
            f"category: <b>“{html.escape(att.target_name)}”</b>"
            f" · probability {att.probability:.2f} · {html.escape(METHOD_NAMES.get(att.method, att.method))}</p>"
            f"{explanation_html(doc.text, att, doc.faithfulness)}</section>"
        )
    parts.append("</body></html>")
    return "\n".join(parts)


def write_attributions_html(
    path: str | Path,
    documents: list[tuple],
    title: str,
    overwrite: bool = False,
    protected: Iterable[str | Path] = (),
    words=None,  # noqa: ANN001 - CorpusWords: the words each category relies on, shown first
    min_documents: int | None = None,
) -> Path:
    """Write the page to ``path`` (never over an existing file unless ``overwrite``); returns it."""
    page = attributions_document(documents, title, words, min_documents)
    with writing_to(path, overwrite, protected) as temporary:
        temporary.write_text(page, encoding="utf-8")
    return Path(path)
