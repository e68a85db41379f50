"""A document's own text as HTML, each word's background coloured by its attribution score.

One pure function builds the coloured text so that the Documents step (a ``QTextBrowser``) and
the exported HTML file show exactly the same thing. The text is shown as the researcher wrote it:
the words' character offsets cut the original string, nothing is re-tokenised or re-joined.
Only inline styles are used (Qt's rich text and a saved file both understand them), every piece
of text is escaped, and the palette is ColorBrewer's red–blue, which stays readable for people
with the common forms of colour blindness.
"""

from __future__ import annotations

import bisect
import html

from guiapp.core.explain.attribution import METHOD_NAMES, Attribution, Faithfulness, format_score

TOWARD_RGB = (214, 96, 77)  # ColorBrewer RdBu, strong red: pushed toward the category
AWAY_RGB = (67, 147, 195)  # ColorBrewer RdBu, strong blue: pushed away from it
WHITE_BELOW = 0.05  # |score| / max |score| under this stays white ("about zero")
UNSEEN_STYLE = "color:#8a8a8a;background-color:#ededed;text-decoration:line-through;"
TEXT_STYLE = "white-space:pre-wrap;line-height:1.7;font-size:12pt;"
TOP_K = 5

SCALE_WORDS = {
    "logit": "on the model's internal scale (log-odds)",
    "margin": "on the model's raw score",
    "probability": "as a change in probability",
}


def score_colour(score: float, largest: float) -> str | None:
    """The background for a score: ``None`` (white) near zero, else red or blue ∝ |score|/largest."""
    if largest <= 0:
        return None
    strength = min(abs(score) / largest, 1.0)
    if strength < WHITE_BELOW:
        return None
    base = TOWARD_RGB if score > 0 else AWAY_RGB
    red, green, blue = (round(255 + (c - 255) * strength) for c in base)
    return f"#{red:02x}{green:02x}{blue:02x}"


def word_tooltip(word: str, score: float, attribution: Attribution) -> str:
    """What hovering a word says: its exact score and what the number is counted in."""
    direction = "toward" if score > 0 else "away from" if score < 0 else "neither toward nor away from"
    scale = SCALE_WORDS.get(attribution.scale, attribution.scale)
    return f"“{word}”: {format_score(score)} {direction} “{attribution.target_name}” ({scale})"


def _in_ranges(position: int, ranges: list[tuple[int, int]]) -> bool:
    return any(start <= position < end for start, end in ranges)


def _word_index(position: int, valid: list[tuple[int, int, int]], starts: list[int]) -> int | None:
    """The index of the word covering ``position`` (words sorted by start, not overlapping)."""
    at = bisect.bisect_right(starts, position) - 1
    if at >= 0 and valid[at][0] <= position < valid[at][1]:
        return valid[at][2]
    return None


def highlighted_html(text: str, attribution: Attribution) -> str:
    """``text`` as one ``<div>``: words on coloured backgrounds with a ``title`` holding the
    exact score, text the model never read (``attribution.unseen``) grey and struck through."""
    largest = max((abs(attribution.scores[i]) for i in _read(attribution)), default=0.0)
    unseen = sorted((max(0, a), min(len(text), b)) for a, b in attribution.unseen if b > a)
    valid = sorted((w.start, w.end, i) for i, w in enumerate(attribution.words) if 0 <= w.start < w.end <= len(text))
    starts = [start for start, _, _ in valid]
    cuts = {0, len(text)}
    for start, end, _ in valid:
        cuts.update((start, end))
    for start, end in unseen:
        cuts.update((start, end))
    bounds = sorted(cuts)
    parts: list[str] = []
    for start, end in zip(bounds, bounds[1:], strict=False):
        piece = html.escape(text[start:end], quote=False)
        if _in_ranges(start, unseen):
            parts.append(f'<span style="{UNSEEN_STYLE}" title="The model never read this part">{piece}</span>')
            continue
        index = _word_index(start, valid, starts)
        if index is None:
            parts.append(piece)
            continue
        score = attribution.scores[index]
        tip = html.escape(word_tooltip(attribution.words[index].text, score, attribution))
        colour = score_colour(score, largest)
        style = f"background-color:{colour};" if colour else ""
        parts.append(f'<span style="{style}border-radius:3px;" title="{tip}">{piece}</span>')
    return f'<div style="{TEXT_STYLE}">{"".join(parts)}</div>'


def legend_text(attribution: Attribution) -> str:
    """"red: pushed toward “against” · blue: pushed away"."""
    return f"red: pushed toward “{attribution.target_name}” · blue: pushed away · white: little effect"


def legend_html(attribution: Attribution) -> str:
    """The legend line with small colour swatches (escaped, inline styles)."""
    red = "#{:02x}{:02x}{:02x}".format(*TOWARD_RGB)
    blue = "#{:02x}{:02x}{:02x}".format(*AWAY_RGB)
    target = html.escape(attribution.target_name)
    swatch = 'style="background-color:{};">&nbsp;&nbsp;&nbsp;&nbsp;</span>'
    return (
        f'<span {swatch.format(red)} red: pushed toward “{target}” &nbsp;·&nbsp; '
        f'<span {swatch.format(blue)} blue: pushed away &nbsp;·&nbsp; white: little effect. '
        "The stronger the colour, the stronger the push (compared with this document's strongest word)."
    )


def unseen_note(attribution: Attribution) -> str:
    """A sentence about the cut-off part, or "" when the model read the whole text."""
    if not attribution.unseen:
        return ""
    return ("Grey, struck-through text was cut off: the text is longer than the model reads, "
            "so this part played no role in its decision.")


def _read(attribution: Attribution) -> set[int]:
    """Indices of the words the model did read (outside ``unseen``)."""
    return {i for i, w in enumerate(attribution.words) if not _in_ranges(w.start, attribution.unseen)}


def top_read_words(attribution: Attribution, k: int = TOP_K, toward: bool = True) -> list[int]:
    """Like :meth:`Attribution.top_words`, leaving out words in the part the model never read."""
    return attribution.top_read_words(k, toward)


def top_words_lines(attribution: Attribution, k: int = TOP_K) -> tuple[str, str]:
    """Plain lines "Toward “x”: tax (+0.41), cut (+0.22)" and "Away from it: …" (— when there
    are none). Words in the cut-off part never count, whatever score they carry."""
    def listed(toward: bool) -> str:
        ranked = top_read_words(attribution, k, toward)
        return ", ".join(f"{attribution.words[i].text} ({format_score(attribution.scores[i])})"
                         for i in ranked) or "—"
    return (f"Toward “{attribution.target_name}”: {listed(True)}", f"Away from it: {listed(False)}")


def method_name(attribution: Attribution) -> str:
    return METHOD_NAMES.get(attribution.method, attribution.method)


def method_line(method: str, sentence: str) -> str:
    """"Name: sentence", without saying the name twice when the sentence starts with it."""
    name = METHOD_NAMES.get(method, method)
    return sentence if sentence.lower().startswith(name.lower()) else f"{name}: {sentence}"


def explanation_html(text: str, attribution: Attribution, faithfulness: Faithfulness | None = None) -> str:
    """Everything shown about one explained document: legend, coloured text, note on cut text,
    top words, method and faithfulness sentences. Shared by the widget and the HTML export."""
    muted = "color:#555555;"
    toward, away = top_words_lines(attribution)
    lines = [
        f'<p style="margin:0 0 8px 0;">{legend_html(attribution)}</p>',
        highlighted_html(text, attribution),
    ]
    note = unseen_note(attribution)
    if note:
        lines.append(f'<p style="{muted}margin:6px 0;"><i>{html.escape(note)}</i></p>')
    lines.append(
        f'<p style="margin:10px 0 2px 0;"><b>Words that mattered most</b><br>'
        f'<span style="color:#a23b2a;">▲</span> {html.escape(toward)}<br>'
        f'<span style="color:#2d6c99;">▼</span> {html.escape(away)}</p>'
    )
    lines.append(f'<p style="{muted}margin:8px 0 2px 0;"><b>How the colours were made:</b> '
                 f"{html.escape(method_line(attribution.method, attribution.method_sentence))}</p>")
    if faithfulness is not None:
        lines.append(f'<p style="{muted}margin:4px 0;"><b>How far to trust them:</b> '
                     f"{html.escape(faithfulness.sentence())}</p>")
    return "\n".join(lines)
