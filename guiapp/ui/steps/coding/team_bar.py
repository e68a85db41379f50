"""The bar above the Coding step's tabs that says who codes when a team codes: "Coding as: [coder ▾]"
with the team's coders (switching is one click), how far the active coder has come, and "Team…"
(the coders, the rule for disagreements and the draw of texts, ``team_dialog.py``).

Without a team the bar only offers "Code as a team…"; the coder's name is then the one in the
bar below it, as for one coder. The bar changes the team through the session and says so with
``codings_changed()`` (the project keeps the team with the codings)."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QLabel, QPushButton, QWidget

from guiapp.ui import theme
from guiapp.ui.common.flow_layout import FlowRow, together
from guiapp.ui.common.layouts import vbox
from guiapp.ui.steps.coding.team_coding import TeamCoding

TEAM_WORDS = "Team…"
NO_TEAM_WORDS = "Code as a team…"


class TeamBar(QWidget):
    switched = Signal(str)  # the coder who codes now
    teamWanted = Signal()  # "Team…"

    def __init__(self, team_coding: TeamCoding, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.team_coding = team_coding
        self.coder_combo = QComboBox(objectName="teamCoder")
        self.coder_combo.setToolTip("Who codes now. Each coder sees and undoes only their own codings, and never "
                                    "another coder's coding of a text.")
        self.coder_combo.activated.connect(self._chosen)
        self.coder_label = QLabel("Coding as:")
        self.team_button = QPushButton(NO_TEAM_WORDS, objectName="teamButton")
        self.team_button.setToolTip("Several coders: their names, which texts each codes (with a share coded by two "
                                    "or more, to measure agreement), and the rule for texts they disagree on.")
        self.team_button.clicked.connect(self.teamWanted)
        self.progress_label = QLabel(objectName="teamProgress")
        self.progress_label.setStyleSheet(theme.MUTED_STYLE)
        self._coder_group = together(self.coder_label, self.coder_combo)
        row = FlowRow(spacing=14, line_spacing=6)
        for widget in (self._coder_group, self.team_button, self.progress_label):
            row.add_widget(widget)
        vbox(self, row, margins=(0, 0, 0, 0))
        self.refresh()

    def has_team(self) -> bool:
        """Whether the project has a team with coders (then the coder is chosen here)."""
        team = self.team_coding.team
        return team is not None and bool(team.coders)

    def refresh(self) -> None:
        """Show the team as the record of codings holds it now."""
        team = self.team_coding.team
        shown = self.has_team()
        self._coder_group.setVisible(shown)
        self.team_button.setText(TEAM_WORDS if shown else NO_TEAM_WORDS)
        combo = self.coder_combo
        combo.blockSignals(True)
        combo.clear()
        if shown:
            combo.addItems(team.coders)
            combo.setCurrentIndex(team.coders.index(team.active) if team.active in team.coders else 0)
        combo.blockSignals(False)
        words = self.team_coding.progress_words()
        self.progress_label.setText(words)
        self.progress_label.setVisible(bool(words))

    def active(self) -> str:
        return self.coder_combo.currentText() if self.has_team() else ""

    def _chosen(self, index: int) -> None:
        team = self.team_coding.team
        name = self.coder_combo.itemText(index)
        if team is None or name == team.active:
            return
        team.switch_to(name)
        self.team_coding.session.codings_changed()
        self.switched.emit(name)
        self.refresh()
