"""The small dialog that flags the text being coded: "unsure", "ask colleague" or a flag in the
researcher's own words, with an optional comment."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QButtonGroup,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QLineEdit,
    QRadioButton,
    QWidget,
)

from guiapp.ui import theme
from guiapp.ui.common.flow_layout import together
from guiapp.ui.common.layouts import vbox

FLAGS = (("unsure", "Unsure about the category"), ("ask colleague", "Ask a colleague"))


class FlagDialog(QDialog):
    """Flag the text on screen: a preset flag or one in the researcher's words, and a comment."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent, objectName="flagDialog")
        self.setWindowTitle("Flag this text")
        intro = QLabel("Flag the text to come back to it later. The flag and your comment are kept with "
                       "your coding and in the exported spreadsheet.")
        intro.setWordWrap(True)
        intro.setStyleSheet(theme.NOTE_STYLE)
        self._choices = {flag: QRadioButton(label) for flag, label in FLAGS}
        self._choices[FLAGS[0][0]].setChecked(True)
        self._other = QRadioButton("Other:")
        self._group = QButtonGroup(self)  # one choice, though "Other:" sits in a row of its own
        for choice in (*self._choices.values(), self._other):
            self._group.addButton(choice)
        self._other_text = QLineEdit(objectName="flagOwnWords", placeholderText="a flag in your own words")
        self._other_text.textEdited.connect(lambda _: self._other.setChecked(True))
        self.comment = QLineEdit(objectName="flagComment", placeholderText="what to look at, or a question")
        self._buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel, self)  # in the dialog already:
        # only then does the Flag button become the dialog's default (Return in the comment flags)
        self._flag_button = self._buttons.addButton("Flag", QDialogButtonBox.ButtonRole.AcceptRole)
        self._flag_button.setObjectName("flagConfirm")
        self._flag_button.setDefault(True)
        self._buttons.accepted.connect(self.accept)
        self._buttons.rejected.connect(self.reject)
        self._other.toggled.connect(self._check)
        self._other_text.textChanged.connect(self._check)

        comment_title = QLabel("Comment (optional)")
        comment_title.setStyleSheet(theme.BOLD_STYLE)
        vbox(self, intro, *self._choices.values(), together(self._other, self._other_text), 4, comment_title,
             self.comment, self._buttons, spacing=8)
        self.setMinimumWidth(380)

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self.comment.setFocus()

    def choose(self, flag: str) -> None:
        """Choose a preset flag ("unsure", "ask colleague") or write one in your own words."""
        if flag in self._choices:
            self._choices[flag].setChecked(True)
        else:
            self._other.setChecked(True)
            self._other_text.setText(flag)

    def flag(self) -> str:
        if self._other.isChecked():
            return " ".join(self._other_text.text().split())
        return next(flag for flag, choice in self._choices.items() if choice.isChecked())

    def _check(self) -> None:
        self._flag_button.setEnabled(bool(self.flag()))
