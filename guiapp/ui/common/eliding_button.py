"""A push button that shortens its label with “…” when it is given less room than the label needs
(a long category name in “Merge … into …”), with the whole label in its tooltip."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QPushButton, QSizePolicy, QStyle, QStyleOptionButton, QWidget

MINIMUM_CHARACTERS = 12  # never narrower than about this many characters


class ElidingButton(QPushButton):
    """``elide``: where the label is shortened — in the middle (by default), or at its end where its
    start must stay readable ("Change to “Macroec…")."""

    def __init__(self, text: str, parent: QWidget | None = None, *,
                 elide: Qt.TextElideMode = Qt.TextElideMode.ElideMiddle) -> None:
        super().__init__(text, parent)
        self._elide = elide
        self._full = text
        self._tip = ""
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)  # may be narrower than its label

    def full_text(self) -> str:
        """The whole label (``text()`` is what is shown, perhaps shortened)."""
        return self._full

    def setText(self, text: str) -> None:  # noqa: N802 — Qt's name
        self._full = text
        QPushButton.setText(self, text)
        self.updateGeometry()
        self._fit()

    def setToolTip(self, tip: str) -> None:  # noqa: N802 — Qt's name
        self._tip = tip
        self._show_tooltip()

    def sizeHint(self) -> QSize:
        """The size the whole label needs (as QPushButton measures it, style sheet included)."""
        self.ensurePolished()
        option = QStyleOptionButton()
        self.initStyleOption(option)
        option.text = self._full
        text = self.fontMetrics().size(Qt.TextFlag.TextShowMnemonic, self._full)
        option.rect.setSize(text)
        return self.style().sizeFromContents(QStyle.ContentsType.CT_PushButton, option, text, self)

    def minimumSizeHint(self) -> QSize:
        full = self.sizeHint()
        shortest = self.fontMetrics().averageCharWidth() * MINIMUM_CHARACTERS + self._padding(full)
        return QSize(min(full.width(), shortest), full.height())

    def resizeEvent(self, event) -> None:  # noqa: ANN001
        super().resizeEvent(event)
        self._fit()

    def _padding(self, full: QSize) -> int:
        return max(full.width() - self.fontMetrics().horizontalAdvance(self._full), 0)

    def _fit(self) -> None:
        full = self.sizeHint()
        if self.width() >= full.width():
            shown = self._full
        else:
            room = max(self.width() - self._padding(full), 0)
            shown = self.fontMetrics().elidedText(self._full, self._elide, room)
        if shown != self.text():
            QPushButton.setText(self, shown)
        self._show_tooltip()

    def _show_tooltip(self) -> None:
        if self.text() == self._full:
            QPushButton.setToolTip(self, self._tip)
        else:
            QPushButton.setToolTip(self, f"{self._full}\n\n{self._tip}".strip())
