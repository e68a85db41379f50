"""The words each category relies on, exported: a section of the explanations page (per category a
table of its best-ranked words, and the sentences that say how they were chosen and ranked,
:mod:`guiapp.core.explain.corpus_table`) and a CSV file whose ranking column names its formula."""

from __future__ import annotations

import html
from collections.abc import Iterable
from pathlib import Path

from guiapp.core.explain.corpus_table import RANKING, CorpusWords, corpus_words_frame
from guiapp.core.export.highlight_html import format_score
from guiapp.core.export.target import writing_to

CSS = """
table.words { border-collapse: collapse; margin: 0.3em 0 1.2em 0; font-size: 0.95em; }
table.words th, table.words td { border-bottom: 1px solid #dddddd; padding: 0.15em 0.7em 0.15em 0; text-align: left; }
table.words td.num, table.words th.num { text-align: right; }
"""


def corpus_words_section(words: CorpusWords, min_documents: int | None = None) -> str:
    """The section's HTML ("" when no category has words to show)."""
    least = words.min_documents if min_documents is None else int(min_documents)
    coefficients = any(row.coefficient is not None for row in words.rows)
    head = ("<tr><th>Word</th>"
            f'<th class="num" title="{html.escape(RANKING)}">Weighted score</th><th class="num">Mean score</th>'
            '<th class="num">Documents</th><th class="num">Occurrences</th>'
            + ('<th class="num">Coefficient</th>' if coefficients else "") + "</tr>")
    blocks = []
    for category in words.categories:
        rows = words.for_category(category, least)
        if not rows:
            continue
        body = "".join(
            f"<tr><td>{html.escape(row.word)}</td><td class=\"num\">{format_score(row.weighted_score)}</td>"
            f"<td class=\"num\">{format_score(row.mean_score)}</td><td class=\"num\">{row.documents:,}</td>"
            f"<td class=\"num\">{row.occurrences:,}</td>"
            + (f"<td class=\"num\">{'' if row.coefficient is None else format_score(row.coefficient)}</td>"
               if coefficients else "") + "</tr>"
            for row in rows)
        blocks.append(f"<h3>“{html.escape(category)}”</h3><table class=\"words\">{head}{body}</table>")
    if not blocks:
        return ""
    documents = f"{words.n_documents:,} explained document{'s' if words.n_documents != 1 else ''}"
    return (f'<section class="intro"><h2>Words each category relies on</h2>'
            f"<p>Over all {documents}, the words that pushed {html.escape(words.model)} most toward each category "
            f"it chose. {html.escape(words.method_note(least))}</p>{''.join(blocks)}</section>")


def write_corpus_words_csv(path: str | Path, words: CorpusWords, min_documents: int | None = None, *,
                           overwrite: bool = False, protected: Iterable[str | Path] = ()) -> Path:
    """One row per category and word, best-ranked first (never over an existing file unless ``overwrite``)."""
    with writing_to(path, overwrite, protected) as temporary:
        corpus_words_frame(words, min_documents).to_csv(temporary, index=False, encoding="utf-8-sig")
    return Path(path)
