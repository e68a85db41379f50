"""The question asked when the codebook becomes a new version: what changed since the last version
(each category's change in a sentence: a definition edited, a category added, removed, merged into
another or split), and a note in the researcher's words — what the team learned, why the rule
changed. The note goes into the codebook's history, the codings export and the methods appendix.

:class:`CodebookVersionDialog` is the dialog; :func:`ask_version_note` opens it and gives the note
(None when the researcher chose not to save the version now).
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QLineEdit,
    QListWidget,
    QVBoxLayout,
    QWidget,
)

from guiapp.core.coding.codebook_versions import RECHECK_KINDS, CategoryChange
from guiapp.ui import theme

__all__ = ["CodebookVersionDialog", "ask_version_note", "change_line"]


def change_line(change: CategoryChange) -> str:
    """One change as the dialog and the list of versions show it, e.g. "“Health”: definition edited"."""
    return change.sentence().removesuffix(f" (version {change.version}).")


class CodebookVersionDialog(QDialog):
    """What changed, and a note for the new version."""

    def __init__(self, number: int, changes: Sequence[CategoryChange], parent: QWidget | None = None, *,
                 reason: str = "", optional: bool = True) -> None:
        super().__init__(parent)
        self.setObjectName("codebookVersionDialog")
        self.setWindowTitle(f"Save the codebook as version {number}")
        self.setMinimumWidth(520)
        heading = QLabel(f"Version {number} of the codebook", objectName="codebookVersionHeading")
        heading.setStyleSheet(theme.heading_style(16))
        intro = QLabel(reason or "Every coding records the version of the codebook it was made under. Say in a few "
                                 "words what changed and why — the note goes into the export and the methods "
                                 "appendix.", wordWrap=True)
        intro.setStyleSheet(theme.MUTED_STYLE)
        self.changes = QListWidget(objectName="codebookVersionChanges")
        for change in changes:
            self.changes.addItem(change_line(change))
        if not changes:
            self.changes.addItem("The codebook's first version: its categories and definitions as they are now.")
        self.changes.setMaximumHeight(24 * max(2, min(len(changes), 8)) + 8)
        recheck = sum(change.kind in RECHECK_KINDS for change in changes)
        after = QLabel((f"Codings of {recheck} changed categor{'y' if recheck == 1 else 'ies'} made under an earlier "
                        "version will be listed on the Codebook tab to re-check; no coding is changed.")
                       if recheck else "No definition changed, so no coding needs to be re-checked.",
                       objectName="codebookVersionRecheckNote", wordWrap=True)
        after.setStyleSheet(theme.HINT_STYLE)
        note_title = QLabel("Note")
        note_title.setStyleSheet(theme.BOLD_STYLE)
        self.note = QLineEdit(objectName="codebookVersionNote",
                              placeholderText="e.g. Wages count as economy; pilot round with three coders")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        buttons.button(QDialogButtonBox.StandardButton.Save).setText(f"Save as version {number}")
        self.optional = optional  # False: the version is saved either way, "Save without a note" the other button
        buttons.button(QDialogButtonBox.StandardButton.Cancel).setText("Not now" if optional else "Save without a note")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.setSpacing(8)
        for widget in (heading, intro, QLabel("What changed since the last version:"), self.changes, after, note_title,
                       self.note, buttons):
            layout.addWidget(widget)

    def note_text(self) -> str:
        return self.note.text().strip()


def ask_version_note(parent: QWidget | None, number: int, changes: Sequence[CategoryChange], *,
                     reason: str = "", optional: bool = True) -> str | None:
    """Ask for the note of version ``number``; None when the researcher chose "Not now" (only when
    ``optional``; otherwise the other button saves the version without a note, "")."""
    dialog = CodebookVersionDialog(number, changes, parent, reason=reason, optional=optional)
    if dialog.exec() == QDialog.DialogCode.Accepted:
        return dialog.note_text()
    return None if optional else ""
