"""The representation × classifier grid of the Models step: one checkbox per model that can run.

Rows are the ways of turning texts into numbers, columns the ways of learning the categories
from them; each header carries one plain sentence. A pair that cannot run (naive Bayes needs
word counts) shows a dash whose tooltip says why. Each checkbox's text is the expected run
time of that model, set by the page (:meth:`ModelChoiceGrid.set_estimate`).
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from guiapp.core.models.conventional import CLASSIFIERS
from guiapp.core.study.sections import (
    DEFAULT_MODELS,
    REPRESENTATION_LABELS,
    available_models,
)
from guiapp.ui import theme
from guiapp.ui.common.muted_note import muted_note
from guiapp.ui.steps.models.ticked_models import Pair, TickedModels, show_ticked


# Names on screen: the spec's labels plus what each one is made from.
REPRESENTATION_TITLES: dict[str, str] = {
    "bow": "Basic BOW",
    "word_vectors": "Word vectors (GloVe)",
    "sentence_embeddings": "Sentence embeddings (MiniLM)",
}
REPRESENTATION_SENTENCES: dict[str, str] = {
    "bow": "Which words occur in each text (stemmed): the paper's basic bag of words.",
    "word_vectors": (
        "The average of the GloVe vectors of a text's words, so words with similar meanings "
        "count as similar."
    ),
    "sentence_embeddings": (
        "A small pre-trained language model (all-MiniLM-L6-v2) turns each text into one vector "
        "of its meaning. Slower to prepare."
    ),
}
IMPOSSIBLE_TIP = (
    "Naive Bayes counts how often words occur, so it only works with the bag of words "
    "(Basic BOW), not with word vectors or sentence embeddings."
)


def model_title(pair: Pair) -> str:
    """``SVM · Basic BOW``: the classifier first, as in the results."""
    representation, classifier = pair
    return f"{CLASSIFIERS[classifier].label} · {REPRESENTATION_LABELS[representation]}"


class ModelChoiceGrid(TickedModels, QWidget):
    """Checkboxes for every representation × classifier pair, row by row (representations, then
    classifiers); emits ``changed`` on every tick."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setStyleSheet(theme.tickable_card_style("modelCell"))
        self._boxes: dict[Pair, QCheckBox] = {}
        self._cells: dict[Pair, QFrame] = {}
        self._dashes: dict[Pair, QLabel] = {}
        self._estimates: dict[Pair, QLabel] = {}
        available = set(available_models())
        # the fine-tuned Transformer has its own section below the grid (transformer_choice.py)
        representations = [kind for kind in REPRESENTATION_LABELS if kind in REPRESENTATION_TITLES]
        classifiers = list(CLASSIFIERS)

        grid = QGridLayout()
        grid.setHorizontalSpacing(10)
        grid.setVerticalSpacing(14)
        corner = QWidget(objectName="gridCorner")
        corner_column = QVBoxLayout(corner)
        corner_column.setContentsMargins(2, 0, 2, 0)
        across = QLabel("Learning methods →")
        across.setAlignment(Qt.AlignmentFlag.AlignRight)
        down = QLabel("Texts as numbers ↓")
        for label in (across, down):
            label.setWordWrap(True)
            label.setStyleSheet(f"{theme.MUTED_STYLE} font-style: italic;")
        corner_column.addWidget(across)
        corner_column.addStretch(1)
        corner_column.addWidget(down)
        grid.addWidget(corner, 0, 0)
        for column, classifier in enumerate(classifiers, 1):
            info = CLASSIFIERS[classifier]
            grid.addWidget(_header(info.label, info.description, f"classifierHeader_{classifier}"), 0, column)
            grid.setColumnStretch(column, 4)
        grid.setColumnStretch(0, 5)
        for row, representation in enumerate(representations, 1):
            grid.addWidget(
                _header(REPRESENTATION_TITLES[representation], REPRESENTATION_SENTENCES[representation],
                        f"representationHeader_{representation}"),
                row, 0,
            )
            for column, classifier in enumerate(classifiers, 1):
                pair = (representation, classifier)
                if pair in available:
                    grid.addWidget(self._make_cell(pair), row, column)
                else:
                    dash = QLabel("—", objectName=f"impossible_{representation}_{classifier}")
                    dash.setAlignment(Qt.AlignmentFlag.AlignCenter)
                    dash.setStyleSheet(f"{theme.text_style(theme.ABSENT_TEXT)} font-size: 18px;")
                    dash.setToolTip(IMPOSSIBLE_TIP)
                    self._dashes[pair] = dash
                    grid.addWidget(dash, row, column)

        self.all_button = QPushButton("Tick all", objectName="tickAll")
        self.all_button.setToolTip(
            "Compare every model of this grid. The fine-tuned Transformer below is ticked on its own, "
            "as it takes much longer.")
        self.all_button.clicked.connect(lambda: self.set_checked(self.available()))
        self.none_button = QPushButton("Untick all", objectName="tickNone")
        self.none_button.clicked.connect(lambda: self.set_checked([]))
        self.default_button = QPushButton("Suggested choice", objectName="tickDefault")
        self.default_button.setToolTip(
            "The paper's strong conventional models plus sentence embeddings: "
            + ", ".join(model_title(pair) for pair in DEFAULT_MODELS) + "."
        )
        self.default_button.clicked.connect(lambda: self.set_checked(list(DEFAULT_MODELS)))
        shortcuts = QHBoxLayout()
        for button in (self.default_button, self.all_button, self.none_button):
            button.setCursor(Qt.CursorShape.PointingHandCursor)
            shortcuts.addWidget(button)
        shortcuts.addStretch(1)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(grid)
        layout.addSpacing(8)
        layout.addLayout(shortcuts)
        self.set_checked(list(DEFAULT_MODELS))

    def _make_cell(self, pair: Pair) -> QFrame:
        cell = _Cell(objectName="modelCell")
        cell.setProperty("ticked", False)
        box = QCheckBox("", objectName=f"model_{pair[0]}_{pair[1]}")
        box.setAccessibleName(f"Compare {model_title(pair)}")
        box.setToolTip(f"Compare {model_title(pair)}.")
        box.setStyleSheet("QCheckBox::indicator { width: 18px; height: 18px; }")
        box.toggled.connect(lambda _checked, p=pair: self._toggled(p))
        estimate = QLabel("", objectName=f"estimate_{pair[0]}_{pair[1]}")
        estimate.setWordWrap(True)
        estimate.setMinimumWidth(60)
        cell.box = box
        row = QHBoxLayout(cell)
        row.setContentsMargins(10, 8, 8, 8)
        row.setSpacing(6)
        row.addWidget(box, 0, Qt.AlignmentFlag.AlignVCenter)
        row.addWidget(estimate, 1)
        cell.setMinimumHeight(50)
        self._boxes[pair] = box
        self._cells[pair] = cell
        self._estimates[pair] = estimate
        return cell

    # -- state -------------------------------------------------------------------------------
    def available(self) -> list[Pair]:
        return list(self._boxes)

    def dash(self, representation: str, classifier: str) -> QLabel | None:
        return self._dashes.get((representation, classifier))

    def set_estimate(self, pair: Pair, text: str, tip: str = "") -> None:
        """Show ``text`` (e.g. "about 2 minutes") next to the pair's checkbox."""
        self._estimates[pair].setText(text)
        tip = f"Compare {model_title(pair)}." + (f"\n{tip}" if tip else "")
        self._boxes[pair].setToolTip(tip)
        self._cells[pair].setToolTip(tip)

    def estimate(self, pair: Pair) -> str:
        """The expected time shown next to the pair's checkbox ("" before the data is known)."""
        return self._estimates[pair].text()

    def _restyle(self, pair: Pair) -> None:
        ticked = self._boxes[pair].isChecked()
        show_ticked(self._cells[pair], ticked)
        self._estimates[pair].setStyleSheet(theme.text_style(theme.ACCENT) if ticked else theme.MUTED_STYLE)


class _Cell(QFrame):
    """A grid cell: a click anywhere on it toggles its checkbox."""

    box: QCheckBox

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton and self.rect().contains(event.position().toPoint()):
            self.box.toggle()
            event.accept()
            return
        super().mouseReleaseEvent(event)


def _header(title: str, sentence: str, name: str) -> QWidget:
    header = QWidget(objectName=name)
    column = QVBoxLayout(header)
    column.setContentsMargins(2, 0, 2, 0)
    column.setSpacing(2)
    label = QLabel(f"<b>{title}</b>")
    label.setStyleSheet("font-size: 14px;")
    label.setWordWrap(True)
    text = muted_note(sentence)
    text.setMinimumWidth(100)
    column.addWidget(label)
    column.addWidget(text)
    column.addStretch(1)
    header.setToolTip(sentence)
    return header
