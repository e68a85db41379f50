"""How far two coders agree: the share of texts coded alike, Krippendorff's alpha and Cohen's kappa
with their intervals, in plain words, and the texts they coded differently, listed for discussion.

The view shows an :class:`AgreementFigures`, a plain record of numbers and texts; the page fills it
from the core's comparison of the two coders (:meth:`AgreementFigures.from_comparison`). Nothing is
computed here.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QAbstractItemView, QFrame, QHeaderView, QLabel, QTableWidget, QTableWidgetItem, QWidget

from guiapp.ui import theme
from guiapp.ui.steps.coding.elided_text_delegate import ElidedTextDelegate
from guiapp.ui.common.glossary import GlossaryLabel
from guiapp.ui.common.interval_strip import IntervalStrip
from guiapp.ui.common.layouts import STRETCH, hbox, vbox
from guiapp.ui.common.section_title import section_title

TITLE = "Agreement between two coders"
TERMS = ["Cohen's kappa", "Krippendorff's alpha", "interval", "95 % interval", "confidence interval"]
ALPHA_ZONES = ((0.667, theme.ERROR_BORDER), (0.8, theme.WARNING_BORDER), (1.0, theme.GOOD_BORDER))  # (up to, colour)
ALPHA_READING = "0.8 or more: reliable coding · 0.667 to 0.8: tentative conclusions only · below: too low"
KAPPA_READING = "1: the coders always agree · 0: no better than chance"
UNDEFINED = "Cannot be measured: both coders used one and the same category only."
TEXT_LINES = 2  # the height of a disagreement's row, in lines of text
ROW, TEXT, FIRST, SECOND = range(4)


@dataclass(frozen=True)
class DisagreedText:
    """A text the two coders coded differently."""

    row: Hashable  # the table's index label of the text
    text: str
    first: str  # the first coder's category
    second: str  # the second coder's category


@dataclass(frozen=True)
class AgreementFigures:
    """What the view shows. Coefficients are NaN where they cannot be measured (both coders used one
    category only); ``share_agreeing`` None where not known; ``sentence``: the result in words, if the
    page has one (else the view says what was measured)."""

    kappa: float
    kappa_interval: tuple[float, float]
    alpha: float
    alpha_interval: tuple[float, float]
    n: int  # texts coded by both coders
    disagreements: Sequence[DisagreedText] = field(default=())
    share_agreeing: float | None = None
    level: float = 0.95
    sentence: str = ""
    first_coder: str = ""
    second_coder: str = ""

    @classmethod
    def from_comparison(cls, agreement: Any, texts_by_row: Mapping, *, first_coder: str = "",
                        second_coder: str = "") -> AgreementFigures:
        """The figures of a comparison of two coders as the core gives it (its ``n_texts``, ``kappa``,
        ``alpha`` with intervals, ``share_agreeing``, ``level``, ``disagreements`` of ``row``, ``first``
        and ``second``, and ``sentence()``), with each disagreement's text from ``texts_by_row``."""
        sentence = agreement.sentence() if callable(getattr(agreement, "sentence", None)) else ""
        return cls(
            kappa=float(agreement.kappa), kappa_interval=_pair(agreement.kappa_interval),
            alpha=float(agreement.alpha), alpha_interval=_pair(agreement.alpha_interval),
            n=int(agreement.n_texts),
            disagreements=tuple(DisagreedText(d.row, str(texts_by_row.get(d.row, "")), str(d.first), str(d.second))
                                for d in agreement.disagreements),
            share_agreeing=float(agreement.share_agreeing), level=float(getattr(agreement, "level", 0.95)),
            sentence=sentence, first_coder=first_coder, second_coder=second_coder)


class FigureCard(QFrame):
    """A card with one figure: its name (technical terms explained), the number large, a line under it."""

    def __init__(self, name: str, object_name: str, strip: IntervalStrip | None = None, reading: str = "",
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName(object_name)
        self.setStyleSheet(theme.card_style(object_name))
        self.title = GlossaryLabel(name, terms=TERMS)
        self.title.setStyleSheet(f"{theme.BOLD_STYLE} {theme.text_style(theme.HEADING_INK)}")
        self.value_label = QLabel(objectName=f"{object_name}Value")
        self.value_label.setStyleSheet(f"{theme.heading_style(26)} {theme.text_style(theme.DARK_TEXT)}")
        self.detail = GlossaryLabel(terms=TERMS, objectName=f"{object_name}Detail")
        self.detail.setStyleSheet(theme.SOFT_STYLE)
        self.strip = strip
        column = vbox(self, self.title, self.value_label, self.detail, margins=(14, 10, 14, 12), spacing=4)
        if strip is not None:
            column.addSpacing(4)
            column.addWidget(strip)
        if reading:
            note = QLabel(reading)
            note.setWordWrap(True)
            note.setStyleSheet(f"{theme.MUTED_STYLE} font-size: 11px;")
            column.addWidget(note)
        column.addStretch(1)


class CoderAgreementView(QWidget):
    """Agreement between two coders, and their disagreements."""

    disagreementChosen = Signal(object)  # the row of a disagreement double-clicked (to open the text)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("coderAgreementView")
        self._figures: AgreementFigures | None = None
        self.headline = GlossaryLabel(terms=TERMS, objectName="agreementHeadline")
        self.headline.setStyleSheet(theme.headline_style("agreementHeadline"))
        self.alike_card = FigureCard("Coded alike", "agreementAlike")
        self.alpha_card = FigureCard("Krippendorff's alpha", "agreementAlpha",
                                     IntervalStrip(ALPHA_ZONES, (0.0, 1.0, 0.8, 0.667)), ALPHA_READING)
        self.kappa_card = FigureCard("Cohen's kappa", "agreementKappa", IntervalStrip(), KAPPA_READING)
        cards = hbox(None, (self.alike_card, 2), (self.alpha_card, 3), (self.kappa_card, 3), spacing=12)
        self.disagreements_title = QLabel(objectName="disagreementsTitle")
        self.disagreements_title.setStyleSheet(f"{theme.BOLD_STYLE} {theme.text_style(theme.HEADING_INK)}")
        self.disagreements_note = QLabel(objectName="disagreementsNote")
        self.disagreements_note.setWordWrap(True)
        self.disagreements_note.setStyleSheet(theme.MUTED_STYLE)
        self.table = QTableWidget(0, 4, objectName="disagreementsTable")
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.table.setAlternatingRowColors(True)
        self.table.setShowGrid(False)
        self.table.verticalHeader().hide()
        self.table.setStyleSheet(f"QTableWidget {{ border: 1px solid {theme.BORDER}; }}"
                                 "QTableWidget::item { padding: 0 6px; }")
        self._delegate = ElidedTextDelegate(TEXT_LINES, self.table)
        self.table.setItemDelegateForColumn(TEXT, self._delegate)
        header = self.table.horizontalHeader()
        header.setHighlightSections(False)
        header.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        for column in (ROW, FIRST, SECOND):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(TEXT, QHeaderView.ResizeMode.Stretch)
        self.table.cellDoubleClicked.connect(self._chosen)
        vbox(self, section_title(TITLE), self.headline, cards, 4, self.disagreements_title, self.disagreements_note,
             (self.table, 1), (STRETCH, 0),  # the stretch takes the room only while the table is hidden
             margins=(0, 0, 0, 0), spacing=10)
        self.set_agreement(None)

    # ----- the page gives -------------------------------------------------------------------------
    def set_agreement(self, figures: AgreementFigures | None, *, row_names: Mapping | None = None) -> None:
        """Show ``figures`` (None: the second coder has not coded enough texts yet). ``row_names``: row →
        how the spreadsheet numbers it (default: the row itself)."""
        self._figures = figures
        for card in (self.alike_card, self.alpha_card, self.kappa_card):
            card.setVisible(figures is not None)
        if figures is None:
            self.headline.set_plain_text("The agreement shows here once a second coder has coded at least two "
                                         "of the texts the first coder coded.")
            self.disagreements_title.hide()
            self.disagreements_note.hide()
            self.table.hide()
            return
        self.headline.set_plain_text(figures.sentence or _plain_sentence(figures))
        share = figures.share_agreeing
        self.alike_card.value_label.setText("–" if share is None else f"{round(share * 100)} %")
        self.alike_card.detail.set_plain_text(f"of the {figures.n:,} texts both coders coded")
        self._show_coefficient(self.alpha_card, figures.alpha, figures.alpha_interval, figures.level)
        self._show_coefficient(self.kappa_card, figures.kappa, figures.kappa_interval, figures.level)
        self._show_disagreements(figures, dict(row_names or {}))

    # ----- what the researcher sees (for tests and the page) --------------------------------------
    def headline_text(self) -> str:
        return self.headline.plain_text()

    def figures_shown(self) -> dict[str, tuple[str, str]]:
        """Per figure ("alike", "alpha", "kappa"): its number and the line under it, as shown."""
        cards = {"alike": self.alike_card, "alpha": self.alpha_card, "kappa": self.kappa_card}
        return {name: (card.value_label.text(), card.detail.plain_text()) for name, card in cards.items()}

    def disagreement_rows(self) -> list[list[str]]:
        """The disagreements as listed: row, text, first coder's category, second coder's."""
        return [[self.table.item(r, c).text() for c in range(4)] for r in range(self.table.rowCount())]

    def column_titles(self) -> list[str]:
        return [self.table.horizontalHeaderItem(c).text() for c in range(4)]

    # ----- drawing ----------------------------------------------------------------------------------
    @staticmethod
    def _show_coefficient(card: FigureCard, value: float, interval: tuple[float, float], level: float) -> None:
        low, high = interval
        if not math.isfinite(value):
            card.value_label.setText("–")
            card.detail.set_plain_text(UNDEFINED)
        elif math.isfinite(low) and math.isfinite(high):
            card.value_label.setText(f"{value:.2f}")
            card.detail.set_plain_text(f"{round(level * 100)} % interval: {low:.2f} to {high:.2f}")
        else:
            card.value_label.setText(f"{value:.2f}")
            card.detail.set_plain_text("No interval: too few texts vary in their categories.")
        if card.strip is not None:
            card.strip.show_value(value, interval)
            card.strip.setVisible(math.isfinite(value))

    def _show_disagreements(self, figures: AgreementFigures, row_names: dict) -> None:
        lines = list(figures.disagreements)
        first = figures.first_coder or "First coder"
        second = figures.second_coder or "Second coder"
        self.table.setHorizontalHeaderLabels(["Row", "Text", first, second])
        tips = ("The row of the text in your spreadsheet.", "The text (hover over it to read all of it).",
                f"The category {first if figures.first_coder else 'the first coder'} gave the text.",
                f"The category {second if figures.second_coder else 'the second coder'} gave the text.")
        for column, tip in enumerate(tips):
            self.table.horizontalHeaderItem(column).setToolTip(tip)
        count = len(lines)
        self.disagreements_title.setText(f"Disagreements to discuss ({count:,})" if count else "Disagreements")
        self.disagreements_note.setText(
            "Each text the two coders coded differently, in the order the second coder saw them. Discuss them, "
            "then sharpen the codebook's definitions where they were read differently." if count
            else f"The two coders coded all {figures.n:,} texts alike.")
        self.disagreements_title.show()
        self.disagreements_note.show()
        self.table.setVisible(bool(count))
        self.table.setRowCount(0)
        self.table.setRowCount(count)
        height = self._delegate.row_height(self.table)
        for index, line in enumerate(lines):
            name = str(row_names.get(line.row, line.row))
            cells = ((name, f"Row {name} of your spreadsheet."), (" ".join(line.text.split()), line.text),
                     (line.first, f"{first}: “{line.first}”"), (line.second, f"{second}: “{line.second}”"))
            for column, (text, tip) in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(tip)
                item.setData(Qt.ItemDataRole.UserRole, index)
                item.setTextAlignment((Qt.AlignmentFlag.AlignRight if column == ROW else Qt.AlignmentFlag.AlignLeft)
                                      | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(index, column, item)
            self.table.setRowHeight(index, height)

    def _chosen(self, index: int, _column: int) -> None:
        if self._figures is not None and 0 <= index < len(self._figures.disagreements):
            self.disagreementChosen.emit(self._figures.disagreements[index].row)


def _plain_sentence(figures: AgreementFigures) -> str:
    if figures.share_agreeing is None:
        return f"{figures.n:,} texts were coded by both coders."
    return f"The two coders coded {round(figures.share_agreeing * 100)} % of the {figures.n:,} texts both coded alike."


def _pair(values: Sequence[float]) -> tuple[float, float]:
    low, high = values
    return float(low), float(high)
