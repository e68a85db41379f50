"""The Coding step's Codebook tab: the codebook editor, the codebook's versions, and the codings to
re-check after a definition changed.

Edits change the codebook at once (as before). A change that matters to a coder — a definition
edited, a category added, removed, merged into another ("Merge into…") or split into parts ("Split
into…") — becomes a new **version** with a note, kept in the project's record of codings
(``CodingLog.history``), so that every coding records the definition it was made under:

- **The first version** is made the first time the researcher leaves this tab with a codebook that
  has categories (or presses "Save as version 1…"): the definitions written in that first sitting
  are version 1, with the note "First version".
- **Later versions**: "Save as version N…" (enabled while the codebook differs from the last
  version) asks for a note in a dialog that lists what changed. A researcher who edits the codebook
  and leaves this tab without saving a version — to code, or to another step — is asked for the note
  then, once; "Save without a note" still saves the version. So no text is coded under a definition
  that is not a version yet.
- **Edits made elsewhere** (the codebook changed by another step while this tab is not shown) are
  saved as a version at once, with the note "Edited outside the Codebook tab".

Merges and splits are remembered until the version is saved (they become its "merged into" and
"split into" changes); they never rewrite a coding: the codings of the merged or split category are
listed to re-check (``recheck_panel.py``), as are those of a category whose definition was edited.
Moving categories up or down is not a new version.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QPushButton,
    QSplitter,
    QTableWidgetItem,
    QWidget,
)

from guiapp.core.coding.codebook_versions import CategoryChange, CodebookHistory, category_changes
from guiapp.core.errors import UserError
from guiapp.ui import theme
from guiapp.ui.common.read_only_table import read_only_table
from guiapp.ui.common.layouts import vbox
from guiapp.ui.steps.coding.codebook_editor import CodebookEditor
from guiapp.ui.steps.coding.codebook_version_dialog import ask_version_note, change_line
from guiapp.ui.steps.coding.recheck_panel import RecheckPanel

__all__ = ["FIRST_NOTE", "OUTSIDE_NOTE", "CodebookTab"]

FIRST_NOTE = "First version"
OUTSIDE_NOTE = "Edited outside the Codebook tab"
LEAVING = ("You changed the codebook. Before texts are coded under the new definitions, save the change as a "
           "version: every coding records the version it was made under.")
VERSION_COLUMNS = ("Version", "Date", "Note", "What changed")


class CodebookTab(QWidget):
    """The editor above; the versions and the codings to re-check below."""

    statusMessage = Signal(str)

    def __init__(self, session, editor: CodebookEditor, parent: QWidget | None = None) -> None:  # noqa: ANN001
        super().__init__(parent)
        self.setObjectName("codebookTab")
        self.session = session
        self.editor = editor
        self.merged: dict[str, str] = {}  # merges since the last version: category → the one it went into
        self.split: dict[str, list[str]] = {}  # splits since the last version: category → its parts
        self.ask_note: Callable[..., str | None] = ask_version_note  # the dialog (a test answers it)
        self._edited_here = False
        editor.changed.connect(self._edited)
        editor.chosenChanged.connect(self._update_actions)

        self.status = QLabel(objectName="codebookVersionStatus", wordWrap=True)
        self.status.setStyleSheet(theme.MUTED_STYLE)
        self.merge_button = QPushButton("Merge into…", objectName="mergeCategory",
                                        toolTip="Merge the chosen category into another: it leaves the codebook and "
                                                "its texts belong to the other. Codings are not changed; they are "
                                                "listed to re-check.")
        self.split_button = QPushButton("Split into…", objectName="splitCategory",
                                        toolTip="Split the chosen category into two or more categories. Its codings "
                                                "are listed to re-check.")
        self.save_button = QPushButton(objectName="saveCodebookVersion")
        self.save_button.setToolTip("Save the codebook as it is now as a new version, with a note on what changed.")
        self.merge_button.clicked.connect(self._ask_merge)
        self.split_button.clicked.connect(self._ask_split)
        self.save_button.clicked.connect(lambda: self._try(self.ask_and_save))
        bar = QHBoxLayout()
        bar.setSpacing(6)
        bar.addWidget(self.status, 1)
        for button in (self.merge_button, self.split_button, self.save_button):
            bar.addWidget(button, 0, Qt.AlignmentFlag.AlignTop)

        versions_title = QLabel("Versions of the codebook")
        versions_title.setStyleSheet(theme.heading_style(15))
        self.versions = read_only_table(VERSION_COLUMNS, "codebookVersions", widths=((0, 56), (1, 84), (2, 150)),
                                        stretch=(3,), rows_selectable=False)
        versions_box = QWidget()
        vbox(versions_box, versions_title, (self.versions, 1), margins=(0, 0, 0, 0), spacing=6)
        self.recheck = RecheckPanel(session)
        self.recheck.rechecked.connect(self.statusMessage)
        lower = QSplitter(Qt.Orientation.Horizontal)
        lower.addWidget(versions_box)
        lower.addWidget(self.recheck)
        lower.setStretchFactor(0, 2)
        lower.setStretchFactor(1, 3)
        bottom = QWidget()
        vbox(bottom, bar, (lower, 1), margins=(0, 8, 0, 0), spacing=8)
        split = QSplitter(Qt.Orientation.Vertical, objectName="codebookTabSplitter")
        split.addWidget(editor)
        split.addWidget(bottom)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        vbox(self, (split, 1), margins=(0, 0, 0, 0))

        session.codebookChanged.connect(self.refresh)
        session.codingsChanged.connect(self.refresh)
        session.codebookEdited.connect(self._edited_elsewhere)
        self.refresh()

    # ----- the history -------------------------------------------------------------------------------
    @property
    def history(self) -> CodebookHistory | None:
        return self.session.codings.history

    def changes(self) -> tuple[CategoryChange, ...]:
        """What the codebook as it is now changed since the last version (with the merges and splits
        made since); empty before the first version."""
        history = self.history
        if history is None:
            return ()
        number = history.current.number + 1
        try:
            return category_changes(history.current.codebook, self.session.codebook, number, merged=self.merged,
                                    split=self.split)
        except UserError:  # a merge or split that no longer fits the codebook (e.g. a part removed again)
            self._drop_stale()
            return category_changes(history.current.codebook, self.session.codebook, number, merged=self.merged,
                                    split=self.split)

    def _drop_stale(self) -> None:
        names = set(self.session.codebook.names())
        self.merged = {old: new for old, new in self.merged.items() if old not in names and new in names}
        self.split = {old: parts for old, parts in self.split.items() if old not in self.merged
                      and all(part in names for part in parts)}

    def next_number(self) -> int:
        return self.history.current.number + 1 if self.history is not None else 1

    def can_save(self) -> bool:
        if self.history is None:
            return bool(self.session.codebook.categories)
        return bool(self.changes())

    def save_version(self, note: str) -> int | None:
        """Save the codebook as it is now as the next version with ``note``; its number, or None when
        nothing changed since the last version."""
        self.editor.flush()
        log = self.session.codings
        if log.history is None:
            if not self.session.codebook.categories:
                return None
            log.history = CodebookHistory(self.session.codebook, note.strip() or FIRST_NOTE)
        else:
            self.changes()  # drops merges and splits that no longer fit
            if log.history.revise(self.session.codebook, note, merged=self.merged, split=self.split) is None:
                return None
        self.merged, self.split = {}, {}
        self._edited_here = False
        self.session.codings_changed()
        number = log.history.current.number
        self.statusMessage.emit(f"Saved the codebook as version {number}. Codings from now on record it.")
        return number

    def ask_and_save(self, *, leaving: bool = False) -> int | None:
        """Ask for the note (the dialog shows what changed) and save the version; None when the
        researcher chose not to (never when ``leaving``: then the version is saved without a note)."""
        self.editor.flush()
        if not self.can_save():
            return None
        if self.history is None:
            changes: tuple[CategoryChange, ...] = ()
        else:
            changes = self.changes()
        note = self.ask_note(self, self.next_number(), changes, reason=LEAVING if leaving else "",
                             optional=not leaving)
        if note is None:
            return None
        return self.save_version(note)

    def leave(self, *, ask: bool = True) -> int | None:
        """The researcher leaves this tab: the first version is made, or a change since the last one
        is saved as a version (asking for its note when ``ask``)."""
        self.editor.flush()
        if self.history is None:
            return self.save_version(FIRST_NOTE) if self.session.codebook.categories else None
        if not self.changes():
            return None
        if ask and self._edited_here:
            return self.ask_and_save(leaving=True)
        return self.save_version("" if self._edited_here else OUTSIDE_NOTE)

    def _edited(self, _codebook: object) -> None:
        if self.isVisible():
            self._edited_here = True

    def _edited_elsewhere(self) -> None:
        if not self.isVisible() and not self._edited_here and self.history is not None:
            QTimer.singleShot(0, self, self._save_edit_made_elsewhere)  # once the edit has settled

    def _save_edit_made_elsewhere(self) -> None:
        if not self.isVisible() and not self._edited_here and self.history is not None and self.changes():
            self.save_version(OUTSIDE_NOTE)

    def hideEvent(self, event) -> None:  # noqa: ANN001, N802 — Qt's name
        super().hideEvent(event)
        QTimer.singleShot(0, self, self._left)

    def _left(self) -> None:
        if self.isVisible():  # shown again at once (e.g. the window was only moved)
            return
        window = self.window()
        self._try(lambda: self.leave(ask=window is not self and window.isVisible()))

    # ----- merging and splitting --------------------------------------------------------------------
    def merge(self, source: str, target: str) -> None:
        """Merge ``source`` into ``target`` (see :meth:`CodebookEditor.merge`), remembered for the next
        version."""
        self.editor.flush()
        self._edited_here = True
        self.editor.merge(source, target)
        versioned = self.history is not None and source in self.history.current.codebook.names()
        self.merged = {old: (target if new == source else new) for old, new in self.merged.items()}
        for old, parts in list(self.split.items()):
            if source in parts:  # a part merged away: the split keeps the rest
                self.split[old] = [part for part in parts if part != source]
        self.split = {old: parts for old, parts in self.split.items() if len(parts) >= 2}
        if versioned:
            self.split.pop(source, None)
            self.merged[source] = target
        self.refresh()
        self.statusMessage.emit(f"Merged “{source}” into “{target}”. Its codings are listed to re-check once you "
                                "save the version.")

    def split_category(self, source: str, parts: list[str]) -> None:
        """Split ``source`` into ``parts`` (see :meth:`CodebookEditor.split`), remembered for the next
        version."""
        self.editor.flush()
        self._edited_here = True
        kept = self.editor.split(source, parts)
        if self.history is not None and source in self.history.current.codebook.names():
            self.merged.pop(source, None)
            self.split[source] = kept
        self.refresh()
        self.statusMessage.emit(f"Split “{source}” into {', '.join(f'“{part}”' for part in kept)}. Write what each "
                                "part means; its codings are listed to re-check once you save the version.")

    def _ask_merge(self) -> None:
        source = self.editor.chosen_name()
        others = [name for name in self.session.codebook.names() if name != source]
        if source is None or not others:
            return
        target, ok = QInputDialog.getItem(self, "Merge a category",
                                          f"Merge “{source}” into (its texts will belong there):", others, 0, False)
        if ok and target:
            self._try(lambda: self.merge(source, target))

    def _ask_split(self) -> None:
        source = self.editor.chosen_name()
        if source is None:
            return
        text, ok = QInputDialog.getMultiLineText(
            self, "Split a category", f"Split “{source}” into these categories, one name per line (keep “{source}” "
                                      "as one of them if it stays):", f"{source}\n")
        if ok:
            self._try(lambda: self.split_category(source, text.splitlines()))

    def _try(self, action: Callable[[], object]) -> None:
        """Do ``action``; a problem it meets is said in the line above the versions."""
        try:
            action()
        except UserError as error:
            self.status.setText(str(error))
            self.status.setStyleSheet(theme.ERROR_STYLE)

    # ----- showing ----------------------------------------------------------------------------------
    def refresh(self) -> None:
        history = self.history
        self.status.setStyleSheet(theme.MUTED_STYLE)
        number = self.next_number()
        self.save_button.setText(f"Save as version {number}…")
        self.save_button.setEnabled(self.can_save())
        self._update_actions()
        if history is None:
            self.status.setText("The codebook becomes version 1 when you leave this tab. From then on, a definition "
                                "edited or a category added, removed, merged or split is saved as a new version "
                                "with a note, and every coding records the version it was made under.")
        else:
            current = history.current
            changes = self.changes()
            line = f"Coding now under version {current.number} ({current.date})."
            if changes:
                line += " Changed since: " + "; ".join(change_line(change) for change in changes) + "."
            self.status.setText(line)
        self._fill_versions(history)

    def _update_actions(self) -> None:
        """"Merge “health” into…" / "Split “health” into…": the category chosen in the editor."""
        chosen = self.editor.chosen_name()
        name = f"“{chosen if len(chosen or '') <= 24 else chosen[:23] + '…'}” " if chosen else ""
        self.merge_button.setText(f"Merge {name}into…")
        self.split_button.setText(f"Split {name}into…")
        self.merge_button.setEnabled(chosen is not None and len(self.session.codebook.categories) >= 2)
        self.split_button.setEnabled(chosen is not None)

    def _fill_versions(self, history: CodebookHistory | None) -> None:
        versions = list(reversed(history.versions)) if history is not None else []
        self.versions.setRowCount(len(versions))
        for row, version in enumerate(versions):
            changed = "\n".join(change_line(change) for change in version.changes) or "—"
            for column, value in enumerate((str(version.number), version.date, version.note or "(no note)", changed)):
                item = QTableWidgetItem(value)
                item.setToolTip(value)
                self.versions.setItem(row, column, item)
        self.versions.resizeRowsToContents()
