"""Where a Transformer looked in one text: a token × token attention heatmap with its choosers.

Attention is easy to over-read, so the view leads with :data:`ATTENTION_CAUTION` and points to the
word colours (attributions) for *why* the model decided. The colours are a white-to-purple ramp,
deliberately unlike the red/blue of the word colours, so the two are never confused.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QSizePolicy, QVBoxLayout, QWidget

from guiapp.core.explain.attention_maps import ATTENTION_CAUTION, AttentionMaps
from guiapp.ui import theme
from guiapp.ui.steps.documents.explanation_terms import ATTENTION_TIP, HEAD_TIP, LAYER_TIP, ROLLOUT_TIP
from guiapp.ui.common.lazy_widget import Footprint, LazyWidget

if TYPE_CHECKING:  # the heatmap loads pyqtgraph: made when the attention is first shown
    from guiapp.ui.steps.documents.attention_chart import AttentionHeatmap

ROLLOUT = "Rollout across layers"
ALL_HEADS = "All heads, averaged"
CAUTION_STYLE = (f"background-color:{theme.WARNING_BACKGROUND}; border:1px solid {theme.FLAG_COLOR}; "
                 f"border-radius:4px; padding:8px; color:{theme.CAUTION_TEXT};")
# what the empty heatmap asks of the layout (tests compare), so the view lays out the same before it is made
HEATMAP_FOOTPRINT = Footprint(QSize(760, 680), QSize(68, 68), QSize(300, 300), policy=QSizePolicy.Policy.Expanding)


class AttentionView(QWidget):
    """The caution, the layer and head choosers, and the heatmap of one text."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._maps: AttentionMaps | None = None
        self._caution = QLabel(
            f"<b>Read with care.</b> {ATTENTION_CAUTION} "
            "For why the model chose its category, look at the coloured words of the text."
        )
        self._caution.setWordWrap(True)
        self._caution.setTextFormat(Qt.TextFormat.RichText)
        self._caution.setStyleSheet(f"QLabel {{{CAUTION_STYLE}}}")
        self._caution.setToolTip(ATTENTION_TIP)
        self._layer = QComboBox()
        self._layer.setToolTip(f"{LAYER_TIP}\n{ROLLOUT_TIP}")
        self._head = QComboBox()
        self._head.setToolTip(HEAD_TIP)
        self._layer.currentIndexChanged.connect(self._redraw)
        self._head.currentIndexChanged.connect(self._redraw)
        self._message = QLabel()
        self._message.setWordWrap(True)
        self._message.setStyleSheet(theme.NOTE_STYLE)
        self._chart = LazyWidget(_make_heatmap, footprint=HEATMAP_FOOTPRINT)
        choosers = QHBoxLayout()
        choosers.addWidget(QLabel("Layer:"))
        choosers.addWidget(self._layer)
        choosers.addSpacing(16)
        choosers.addWidget(QLabel("Heads:"))
        choosers.addWidget(self._head)
        choosers.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self._caution)
        layout.addLayout(choosers)
        layout.addWidget(self._message)
        layout.addWidget(self._chart, 1)
        self.clear()

    # ----- public API -------------------------------------------------------------------------
    def show_maps(self, maps: AttentionMaps) -> None:
        """Show the attention of one text; starts on the rollout (a summary of all layers)."""
        self._maps = maps
        for box in (self._layer, self._head):
            box.blockSignals(True)
            box.clear()
        last = maps.n_layers
        self._layer.addItems([f"Layer {i + 1}" + (" (closest to the words)" if i == 0 else
                                                  " (last)" if i + 1 == last else "") for i in range(last)])
        self._layer.addItem(ROLLOUT)
        self._layer.setCurrentIndex(last)
        self._head.addItem(ALL_HEADS)
        self._head.addItems([f"Head {i + 1}" for i in range(maps.n_heads)])
        for box in (self._layer, self._head):
            box.setEnabled(True)
            box.blockSignals(False)
        self._redraw()

    def clear(self) -> None:
        self._maps = None
        for box in (self._layer, self._head):
            box.blockSignals(True)
            box.clear()
            box.setEnabled(False)
            box.blockSignals(False)
        self._message.setText("Attention is available for Transformer models only; choose a document "
                              "explained by a Transformer to see it.")
        if self._chart.is_made():  # a heatmap not made yet is empty anyway
            self.chart().set_matrix([], np.zeros((0, 0)))

    def choose(self, layer: int | None, head: int | None = None) -> None:
        """Show one layer (0-based; None: the rollout) and head (None: all heads averaged)."""
        if self._maps is None:
            return
        self._layer.setCurrentIndex(self._maps.n_layers if layer is None else layer)
        self._head.setCurrentIndex(0 if head is None else head + 1)

    # ----- what the user sees -----------------------------------------------------------------
    def chart(self) -> AttentionHeatmap:
        return self._chart.widget()

    def caution(self) -> str:
        return self._caution.text()

    def message(self) -> str:
        return self._message.text()

    def layer_choices(self) -> list[str]:
        return [self._layer.itemText(i) for i in range(self._layer.count())]

    def head_choices(self) -> list[str]:
        return [self._head.itemText(i) for i in range(self._head.count())]

    def heads_enabled(self) -> bool:
        return self._head.isEnabled()

    # ----- drawing ----------------------------------------------------------------------------
    def _redraw(self) -> None:
        maps = self._maps
        if maps is None:
            return
        layer = self._layer.currentIndex()
        rollout = layer >= maps.n_layers or layer < 0
        self._head.setEnabled(not rollout)
        if rollout:
            matrix = maps.rollout
            what = "the attention of all layers combined (rollout)"
        else:
            head = self._head.currentIndex() - 1
            matrix = maps.attentions[layer].mean(axis=0) if head < 0 else maps.attentions[layer, head]
            heads = "all heads averaged" if head < 0 else f"head {head + 1}"
            what = f"layer {layer + 1}, {heads}"
        sentence = (f"{maps.model}, {what}. Each row is one word piece of the text; the darker a square, "
                    f"the more of that row's attention goes to the piece in its column (each row adds up to 1).")
        if maps.cut:
            sentence += " The text was longer than the model reads: only the pieces it read are shown."
        self._message.setText(sentence)
        self._message.setToolTip(ROLLOUT_TIP if rollout else ATTENTION_TIP)
        self.chart().set_matrix(maps.tokens, matrix)


def _make_heatmap() -> AttentionHeatmap:
    from guiapp.ui.steps.documents.attention_chart import AttentionHeatmap

    return AttentionHeatmap()
