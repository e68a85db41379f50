"""The "Text lengths" section of the data-health report: how long the texts are in words and, as
the study's Transformer reads them, in subword tokens, each with a one-line summary and a histogram
(made when first shown: the charts load pyqtgraph). Every number comes from the core's report."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtGui import QFont
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from guiapp.core.health.findings import HealthReport
from guiapp.ui.common.glossary import GlossaryLabel
from guiapp.ui.common.lazy_widget import LazyWidget
from guiapp.ui.steps.data.health_parts import (
    length_summary,
    make_font,
    muted_label,
    over_limit_summary,
    sample_note,
)

if TYPE_CHECKING:
    from guiapp.ui.steps.data.charts import HistogramChart


class TextLengths:
    """Fills ``frame`` (a section of the report, laid out by ``layout``) with ``lengths_intro``,
    ``words_heading``, ``words_summary``, ``words_chart``, ``tokens_heading``, ``tokens_summary``,
    ``tokens_chart`` and ``tokens_note``."""

    def __init__(self, frame: QWidget, layout: QVBoxLayout) -> None:
        intro = muted_label(
            "Very short texts give a model little to go on; very long ones are cut off by a Transformer.",
            frame, "lengths_intro",
        )
        layout.addWidget(intro)
        self._words_heading, self._words_summary, self._words_slot = _length_block(
            QLabel("Words per text", frame), "words", frame, layout, spacing=4)
        self._tokens_heading, self._tokens_summary, self._tokens_slot = _length_block(
            GlossaryLabel("Subword tokens per text", frame), "tokens", frame, layout, spacing=8)
        self._tokens_note = muted_label("", frame, "tokens_note")
        layout.addWidget(self._tokens_note)

    def words_chart(self) -> HistogramChart:
        return self._words_slot.widget()

    def tokens_chart(self) -> HistogramChart:
        return self._tokens_slot.widget()

    def clear(self) -> None:
        """Empty the histograms (those not made yet are empty anyway)."""
        for slot in (self._words_slot, self._tokens_slot):
            if slot.is_made():
                slot.widget().set_histogram([], [])

    def show(self, report: HealthReport) -> None:
        words = report.words
        words_chart = self.words_chart()
        words_chart.setVisible(words is not None)
        if words is None:
            self._words_summary.set_plain_text("No texts to measure.")
            words_chart.set_histogram([], [])
        else:
            self._words_summary.set_plain_text(length_summary(words, "words") + sample_note(words))
            words_chart.set_histogram(words.histogram_edges, words.histogram_counts, words.limit, unit_label="words")
        tokens = report.tokens
        name = report.tokenizer_name
        self._tokens_heading.set_plain_text(
            f"Subword tokens per text (as the {name} Transformer reads them)" if name else "Subword tokens per text"
        )
        tokens_chart = self.tokens_chart()
        for widget in (self._tokens_summary, tokens_chart):
            widget.setVisible(tokens is not None)
        self._tokens_note.setVisible(tokens is None)
        if tokens is None:
            tokens_chart.set_histogram([], [])
            self._tokens_summary.set_plain_text("")
            self._tokens_note.set_plain_text(
                "Lengths in subword tokens could not be measured because the Transformer's tokenizer "
                "is not available on this computer. The word counts above are not affected."
            )
            return
        lines = [length_summary(tokens, "tokens")]
        over = over_limit_summary(tokens)
        if over:
            lines.append(over)
        self._tokens_summary.set_plain_text("\n".join(lines) + sample_note(tokens))
        tokens_chart.set_histogram(tokens.histogram_edges, tokens.histogram_counts, tokens.limit,
                                   unit_label="subword tokens")


def _length_block(heading: QLabel, name: str, frame: QWidget, layout: QVBoxLayout, spacing: int):
    """Heading, one-line summary and histogram for one unit of text length."""
    heading.setObjectName(f"{name}_heading")
    heading.setFont(make_font(10.5, QFont.Weight.DemiBold))
    layout.addSpacing(spacing)
    layout.addWidget(heading)
    summary = GlossaryLabel("", frame)
    summary.setObjectName(f"{name}_summary")
    layout.addWidget(summary)
    chart = LazyWidget(lambda: _make_histogram(frame, name), frame)
    layout.addWidget(chart)
    return heading, summary, chart


def _make_histogram(parent: QWidget, name: str) -> HistogramChart:
    from guiapp.ui.steps.data.charts import HistogramChart

    chart = HistogramChart(parent)
    chart.setObjectName(f"{name}_chart")
    return chart
