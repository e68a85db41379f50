"""Which categories go together, in the data-health report of a study where a text can have
several: the most frequent combinations as a short table ("economy + health: 41 coded texts") and
the co-occurrence heatmap (:mod:`guiapp.ui.steps.data.label_cooccurrence`), made when first shown.
Every number comes from the core's :class:`~guiapp.core.health.label_sets.LabelHealth`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QSizePolicy,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from guiapp.core.study.category_fixes import visible
from guiapp.ui.common.chart_numbers import format_share
from guiapp.ui.steps.data.health_parts import combination_words, muted_label, plural
from guiapp.ui.steps.data.report_table import fit_lines, report_table
from guiapp.ui.common.lazy_widget import LazyWidget

if TYPE_CHECKING:  # the heatmap loads pyqtgraph: made with the first report that needs it
    from guiapp.core.health.label_sets import LabelHealth
    from guiapp.ui.steps.data.label_cooccurrence import LabelCooccurrenceHeatmap


class CategoryCombinations(QWidget):
    """The combinations table (``combinations_table``) and the heatmap (``cooccurrence_heatmap``)
    with their captions (``combinations_caption``, ``cooccurrence_caption``)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(8)
        self._caption = muted_label("", self, "combinations_caption")
        layout.addWidget(self._caption)
        table = report_table(self, "combinations_table", ["Categories of a text", "Coded texts", "Share"], [
            "A set of categories given together to the same texts (“only”: that category and no other).",
            "How many coded texts have exactly this set of categories.",
            "Their share of all coded texts.",
        ])
        table.verticalHeader().setDefaultSectionSize(24)
        table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        table.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        table.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        header = table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in (1, 2):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        layout.addWidget(table)
        self._table = table
        self._heatmap_caption = muted_label("", self, "cooccurrence_caption")
        layout.addSpacing(6)
        layout.addWidget(self._heatmap_caption)
        self._heatmap_slot = LazyWidget(lambda: _make_heatmap(self), self)
        layout.addWidget(self._heatmap_slot, 0, Qt.AlignmentFlag.AlignLeft)

    # ----- public API -------------------------------------------------------------------------
    def combinations_table(self) -> QTableWidget:
        return self._table

    def heatmap(self) -> LabelCooccurrenceHeatmap:
        return self._heatmap_slot.widget()

    def combination_lines(self) -> list[str]:
        """The table as lines, e.g. ["economy + health: 41 coded texts", …]."""
        return [f"{self._table.item(line, 0).text()}: {self._table.item(line, 1).toolTip()}"
                for line in range(self._table.rowCount())]

    def set_label_health(self, health: LabelHealth | None) -> None:
        """Show the combinations and the heatmap of ``health`` (None: empty)."""
        if health is None:
            self._table.setRowCount(0)
            if self._heatmap_slot.is_made():
                self.heatmap().set_matrix([], [])
            return
        self._show_combinations(health)
        names = [visible(label) for label in health.labels]
        self._heatmap_caption.set_plain_text(
            "How often two categories are given to the same text: each cell counts the coded texts that have both "
            "the category of its row and that of its column; the grey diagonal counts the texts with that category. "
            "The darker the blue, the more often the pair occurs."
            if len(names) >= 2 else "With fewer than two categories there are no pairs to show.")
        heatmap = self.heatmap()
        heatmap.set_matrix(names, health.co_occurrence_matrix().tolist())
        hint = heatmap.sizeHint()
        heatmap.setFixedHeight(hint.height())
        heatmap.setMaximumWidth(max(hint.width(), heatmap.minimumWidth()))
        heatmap.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        heatmap.setVisible(len(names) >= 2)

    def _show_combinations(self, health: LabelHealth) -> None:
        combos = health.combinations
        table = self._table
        table.clearContents()
        table.setRowCount(len(combos))
        for line, combo in enumerate(combos):
            texts = plural(combo.count, "coded text")
            share = combo.count / health.n_coded if health.n_coded else 0.0
            cells = [combination_words(combo.labels), f"{combo.count:,}", format_share(share)]
            for column, value in enumerate(cells):
                item = QTableWidgetItem(value)
                item.setToolTip(texts)
                if column:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                table.setItem(line, column, item)
        fit_lines(table, len(combos))
        table.setVisible(bool(combos))
        shown = "The most frequent combinations" if len(combos) > 1 else "The combination"
        self._caption.set_plain_text(
            f"{shown} of categories given to the same text, most frequent first." if combos else
            "No coded texts yet.")


def _make_heatmap(parent: QWidget) -> LabelCooccurrenceHeatmap:
    from guiapp.ui.steps.data.label_cooccurrence import LabelCooccurrenceHeatmap

    heatmap = LabelCooccurrenceHeatmap(parent)
    heatmap.setObjectName("cooccurrence_heatmap")
    return heatmap
