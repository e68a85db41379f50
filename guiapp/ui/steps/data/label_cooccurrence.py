"""Which categories go together, as a small heatmap: in a study where a text can have several
categories, each cell counts the coded texts that have both its row's and its column's category;
the diagonal counts the texts with that category. Drawn like the confusion matrix (names on both
sides, turned sideways when they don't fit) and saved as PNG or SVG like every TextLab chart."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from PySide6.QtCore import QPointF, QRectF, QSize
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QToolTip

from guiapp.ui.theme import AGREE_RGB, EMPTY_CELL_RGB
from guiapp.ui.common.chart_base import chart_font
from guiapp.ui.common.chart_numbers import format_count, format_row_share
from guiapp.ui.common.confusion_heatmap import ConfusionHeatmap

DIAGONAL_RGB = (226, 229, 234)  # a category with itself: a quiet grey, its count in bold


class LabelCooccurrenceHeatmap(ConfusionHeatmap):
    """Rows and columns: the categories. A cell off the diagonal says how many coded texts have
    both categories (the darker the blue, the more often the pair occurs); a cell on the diagonal
    how many have that category at all."""

    MIN_CELL = 26  # 20 categories still fit the data-health report
    PREFERRED_CELL = 38
    EMPTY_TEXT = "No categories to show"

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._default_name = "categories-together"
        self._set_axis_label("left", "Coded texts with…")
        self._set_axis_label("bottom", "… that also have")
        self.setToolTip("How many coded texts have both categories. Right-click to save this chart as an image.")

    def sizeHint(self) -> QSize:
        n = len(self._categories)
        metrics = QFontMetrics(chart_font(9))
        names = min(self.MAX_NAME_PIXELS, max((metrics.horizontalAdvance(c) for c in self._categories), default=0) + 14)
        cell = self.PREFERRED_CELL if n <= 12 else self.MIN_CELL + 4
        return QSize(names + self.FRAME_PIXELS + n * cell, 60 + min(names, self._columns_axis.MAX_NAME_PIXELS) + n * cell)

    # ----- public API -------------------------------------------------------------------------
    def set_matrix(self, categories: Sequence[str], matrix: Sequence[Sequence[int]]) -> None:
        """Draw ``matrix[row][column]`` = coded texts with both categories (the diagonal: with that one)."""
        super().set_matrix(categories, matrix)
        counts = self._matrix
        pairs = counts.copy()
        np.fill_diagonal(pairs, 0)
        most = pairs.max() if pairs.size else 0
        self._shares = pairs / most if most else np.zeros(counts.shape)  # colour strength, 1 = most frequent pair
        if self._image is not None:
            n = len(self._categories)
            self._image.setImage(self._colours())
            self._image.setRect(QRectF(-0.5, -0.5, n, n))
            self._refit()
        self.updateGeometry()

    def cell_text(self, row: int, column: int) -> str:
        """The count of a cell; empty cells (no texts) show nothing."""
        count = int(self._matrix[row, column])
        return format_count(count) if count else ""

    def pair_sentence(self, row: int, column: int) -> str:
        """A cell in words, as its tooltip says it."""
        first, second = self._categories[row], self._categories[column]
        count = int(self._matrix[row, column])
        with_first = int(self._matrix[row, row])
        texts = "coded text" if count == 1 else "coded texts"
        if row == column:
            return f"{format_count(count)} {texts} have “{first}”."
        sentence = f"{format_count(count)} {texts} have both “{first}” and “{second}”"
        if with_first:
            sentence += f": {format_row_share(count / with_first)} of the {format_count(with_first)} with “{first}”"
        return sentence + "."

    # ----- drawing ----------------------------------------------------------------------------------
    def _colours(self) -> np.ndarray:
        n = len(self._categories)
        strength = np.clip(self._shares, 0, 1) ** 0.7
        white = np.array([255, 255, 255])
        rgb = white + (np.array(AGREE_RGB) - white) * strength[..., None] * 0.92
        rgb[self._matrix == 0] = EMPTY_CELL_RGB
        rgb[np.eye(n, dtype=bool)] = DIAGONAL_RGB
        alpha = np.full((n, n, 1), 255)
        return np.concatenate([rgb, alpha], axis=2).astype(np.ubyte)

    def _hover(self, scene_pos: QPointF) -> None:
        cell = self.cell_at(scene_pos)
        if cell is not None:
            QToolTip.showText(self.mapToGlobal(self.mapFromScene(scene_pos)), self.pair_sentence(*cell), self)
