"""The "Team…" dialog of the Coding step: the team's coders, the rule for texts they disagreed on,
and the draw of the texts each coder codes.

- **Coders**: add a coder by name; remove one who has not coded yet (a coder with codings stays:
  every coding keeps who made it).
- **Disagreements**: what the study counts for a text the coders coded differently that no one
  settled — the majority of their coders, the first coder's, or leave it out (``team.set_fallback``).
- **The draw**: texts per coder, the share coded by two or more coders (to measure agreement),
  coders per shared text, the seed, and whether the second file's texts take part; a live sentence
  says what the plan gives (or, in words, why it does not fit) and "Draw texts" draws from the texts
  no one has coded yet (``team_assignment.draw_assignment``). Drawing again once drawn texts were
  coded asks first; every coding is kept.

Every change goes into the session's record of codings at once (the project keeps it) and is
announced with ``changed``.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGroupBox,
    QLabel,
    QLineEdit,
    QListWidget,
    QMessageBox,
    QPushButton,
    QSpinBox,
    QWidget,
)

from guiapp.core.coding.adjudication import FIRST_CODER, LEAVE_OUT, MAJORITY
from guiapp.core.coding.coding_record import ASSIGNED, SOURCES, row_label
from guiapp.core.coding.second_file import file_name
from guiapp.core.coding.team_assignment import TeamPlan, draw_assignment
from guiapp.core.errors import UserError
from guiapp.ui import theme
from guiapp.ui.common.flow_layout import together
from guiapp.ui.common.layouts import STRETCH, hbox, vbox
from guiapp.ui.steps.coding.team_coding import coders_with_codings

TABLE, SECOND_FILE = SOURCES
FALLBACK_WORDS = {
    MAJORITY: "Use the category most of their coders gave (a tie leaves the text out)",
    FIRST_CODER: "Use the first coder's category (the first in the list above)",
    LEAVE_OUT: "Leave them out of the study until someone settles them",
}


def ask(parent: QWidget, title: str, text: str) -> bool:
    """Yes or no, in a message box."""
    answer = QMessageBox.question(parent, title, text, QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
                                  QMessageBox.StandardButton.No)
    return answer == QMessageBox.StandardButton.Yes


class TeamDialog(QDialog):
    """The team of the session's project, changed in place."""

    changed = Signal()

    def __init__(self, session, first_coder: str = "", parent: QWidget | None = None) -> None:  # noqa: ANN001
        super().__init__(parent, objectName="teamDialog")
        self.setWindowTitle("Coding team")
        self.session = session
        self.team = session.team(first_coder)
        self.confirm: Callable[[str, str], bool] = lambda title, text: ask(self, title, text)

        intro = QLabel("Several coders code the same study. Each one codes on their own and never sees another's "
                       "coding of a text; texts coded by two or more coders measure how far the coders agree.")
        intro.setWordWrap(True)
        intro.setStyleSheet(theme.NOTE_STYLE)

        # coders
        self.coder_list = QListWidget(objectName="teamCoders")
        self.coder_list.setMaximumHeight(96)
        self.name_edit = QLineEdit(objectName="newCoderName", placeholderText="a coder's name or initials")
        self.name_edit.returnPressed.connect(self.add_coder)
        self.add_button = QPushButton("Add coder", objectName="addCoder")
        self.add_button.clicked.connect(self.add_coder)
        self.remove_button = QPushButton("Remove", objectName="removeCoder")
        self.remove_button.clicked.connect(self.remove_coder)
        self.coder_note = QLabel(objectName="coderNote", wordWrap=True)
        coders_box = QGroupBox("Coders (the first is the lead coder)")
        vbox(coders_box, self.coder_list, hbox(None, self.name_edit, self.add_button, self.remove_button),
             self.coder_note)

        # disagreements
        self.fallback_combo = QComboBox(objectName="teamFallback")
        for rule, words in FALLBACK_WORDS.items():
            self.fallback_combo.addItem(words, rule)
        self.fallback_combo.setCurrentIndex(self.fallback_combo.findData(self.team.fallback))
        self.fallback_combo.activated.connect(self._fallback_chosen)
        fallback_box = QGroupBox("Texts the coders disagreed on, until someone settles them")
        vbox(fallback_box, self.fallback_combo)

        # the draw
        self.texts_spin = QSpinBox(objectName="textsPerCoder", minimum=1, maximum=1_000_000, value=100)
        self.overlap_spin = QSpinBox(objectName="overlapShare", minimum=0, maximum=100, value=20, suffix=" %")
        self.overlap_spin.setToolTip("The share of the drawn texts that two or more coders code, to measure agreement.")
        self.per_text_spin = QSpinBox(objectName="codersPerText", minimum=2, maximum=2, value=2)
        self.seed_spin = QSpinBox(objectName="drawSeed", minimum=0, maximum=2_000_000_000, value=0)
        self.seed_spin.setToolTip("The same number draws the same texts again; another number, other texts.")
        self.second_check = QCheckBox(objectName="drawSecondFile")
        self.second_check.setChecked(True)
        for spin in (self.texts_spin, self.overlap_spin, self.per_text_spin, self.seed_spin):
            spin.valueChanged.connect(lambda _value: self.update_sentence())
        self.second_check.toggled.connect(lambda _on: self.update_sentence())
        self.plan_sentence = QLabel(objectName="drawSentence", wordWrap=True)
        self.draw_button = QPushButton("Draw texts", objectName="drawTexts")
        self.draw_button.clicked.connect(self.draw)
        self.drawn_sentence = QLabel(objectName="drawnSentence", wordWrap=True)
        self.drawn_sentence.setStyleSheet(f"color: {theme.GOOD_TEXT};")
        form = QFormLayout()
        form.addRow("Texts per coder:", self.texts_spin)
        form.addRow("Coded by two or more coders:", together(self.overlap_spin, QLabel("of the drawn texts")))
        form.addRow("Coders per shared text:", self.per_text_spin)
        form.addRow("Seed of the draw:", self.seed_spin)
        form.addRow("", self.second_check)
        draw_box = QGroupBox("Which texts each coder codes")
        draw_intro = QLabel("TextLab draws each coder's texts at random from the texts no one has coded yet and "
                            "records the chance each text had, so the Findings can still weight them.")
        draw_intro.setWordWrap(True)
        draw_intro.setStyleSheet(theme.MUTED_STYLE)
        vbox(draw_box, draw_intro, form, self.plan_sentence, hbox(None, self.draw_button, STRETCH), self.drawn_sentence)

        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.accept)
        vbox(self, intro, coders_box, fallback_box, draw_box, buttons, spacing=10)
        self.setMinimumWidth(560)
        self._show_plan_defaults()
        self.refresh()
        self.resize(self.sizeHint())  # every row of the draw at its full height

    # -- coders ---------------------------------------------------------------------------------------------
    def add_coder(self) -> None:
        try:
            name = self.team.add_coder(self.name_edit.text())
        except UserError as error:
            self._say(str(error), error=True)
            return
        self.name_edit.clear()
        self._changed(f"{name} joined the team.")

    def remove_coder(self) -> None:
        item = self.coder_list.currentItem()
        if item is None:
            self._say("Choose the coder to remove in the list first.", error=True)
            return
        name = item.text().split(" (", 1)[0]
        made = coders_with_codings(self.session.codings).get(name, 0)
        if made:
            self._say(f"{name} stays in the team: {name} has made {made:,} coding{'s' if made != 1 else ''}, and every "
                      "coding keeps who made it. A coder leaves the team only before their first coding.", error=True)
            return
        team = self.team
        drawn = team.assignment is not None and name in team.assignment.plan.coders
        if drawn and not self.confirm("Remove the coder?", f"{name} has texts in the team's draw. Removing {name} "
                                      "clears the draw; draw the texts again for the coders left. No coding is lost."):
            return
        if drawn:
            team.assignment = None
        team.coders.remove(name)
        if team.active == name:
            team.active = team.coders[0] if team.coders else ""
        self._changed(f"{name} left the team.")

    def _fallback_chosen(self, index: int) -> None:
        self.team.set_fallback(self.fallback_combo.itemData(index))
        self._changed("")

    # -- the draw ---------------------------------------------------------------------------------------------
    def plan(self) -> TeamPlan:
        return TeamPlan(tuple(self.team.coders), self.texts_spin.value(), self.overlap_spin.value() / 100,
                        self.per_text_spin.value(), self.seed_spin.value())

    def pool(self) -> tuple[list, list]:
        """The rows no one has coded yet: of the table (not coded in the file either), and of the
        second file when it takes part."""
        from guiapp.core.coding.codings import file_categories

        session = self.session
        coded = {(entry.source, entry.row) for entry in session.codings.entries_of() if not entry.skipped}
        rows, second_rows = [], []
        if session.frame is not None:
            in_file = file_categories(session.frame, session.mapping)
            rows = [row for row in session.frame.index
                    if row_label(row) not in in_file and (TABLE, row_label(row)) not in coded]
        second = session.coding_texts
        if second is not None and self.second_check.isChecked():
            second_rows = [row for row in second.index if (SECOND_FILE, row_label(row)) not in coded]
        return rows, second_rows

    def preview(self):  # noqa: ANN201 — a TeamAssignment; UserError when the plan does not fit
        return draw_assignment(self.plan(), *self.pool())

    def update_sentence(self) -> None:
        try:
            words, fits = self.preview().sentence(), True
        except UserError as error:
            words, fits = str(error), False
        self.plan_sentence.setText(words)
        self.plan_sentence.setStyleSheet(theme.SOFT_STYLE if fits else theme.ERROR_STYLE)
        self.draw_button.setEnabled(fits)

    def draw(self) -> None:
        try:
            assignment = self.preview()
        except UserError as error:
            self._say(str(error), error=True)
            return
        team = self.team
        if team.assignment is not None:
            coded = self._coded_drawn_texts()
            if coded and not self.confirm(
                    "Draw the texts again?",
                    f"The coders have coded {coded:,} of the texts drawn before. Their codings are kept; the new "
                    "draw gives out only texts no one has coded yet, and each coder then codes the new ones."):
                return
        team.assignment = assignment
        self._changed("")

    def _coded_drawn_texts(self) -> int:
        team = self.team
        drawn = {(text.coder, text.source, text.row) for text in team.assignment.texts}
        return sum(1 for entry in self.session.codings.entries_of()
                   if entry.chosen_by == ASSIGNED and (entry.coder, entry.source, entry.row) in drawn)

    # -- showing ----------------------------------------------------------------------------------------------
    def _show_plan_defaults(self) -> None:
        assignment = self.team.assignment
        if assignment is None:
            return
        plan = assignment.plan
        self.texts_spin.setValue(plan.texts_per_coder)
        self.overlap_spin.setValue(round(plan.overlap_share * 100))
        self.per_text_spin.setMaximum(max(2, len(self.team.coders), plan.coders_per_overlap))
        self.per_text_spin.setValue(plan.coders_per_overlap)
        self.seed_spin.setValue(plan.seed)

    def refresh(self) -> None:
        team, made = self.team, coders_with_codings(self.session.codings)
        self.coder_list.clear()
        for name in team.coders:
            count = made.get(name, 0)
            self.coder_list.addItem(f"{name} ({count:,} coding{'s' if count != 1 else ''})" if count else name)
        self.per_text_spin.setMaximum(max(2, len(team.coders)))
        second = self.session.coding_texts
        self.second_check.setVisible(second is not None)
        if second is not None:
            self.second_check.setText(f"Include the texts of the second file ({file_name(second)})")
        self.drawn_sentence.setText(f"Drawn: {team.assignment.sentence()}" if team.assignment is not None
                                    else "No texts drawn yet: each coder codes texts no one has coded yet.")
        self.update_sentence()

    def _say(self, words: str, *, error: bool = False) -> None:
        self.coder_note.setText(words)
        self.coder_note.setStyleSheet(theme.ERROR_STYLE if error else theme.NOTE_STYLE)

    def _changed(self, words: str) -> None:
        self.session.codings_changed()
        self.refresh()
        self._say(words)
        self.changed.emit()
