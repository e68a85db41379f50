"""The Models step's one line "Runs on: this computer  Change…", so where a run goes can be chosen
before the first run (the Run step opens only once a run has started).

"Change…" unfolds a :class:`WhereToRun` view of the same :class:`WhereChoice` as the Run step's
(``bind``), so the two always agree and the address is checked in one place.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QPushButton, QWidget

from guiapp.ui import theme
from guiapp.ui.common.layouts import hbox
from guiapp.ui.common.where_to_run import DASK_TIP, WhereChoice, WhereToRun

MAX_SHOWN = 44  # characters of an address shown on the line (all of it in the tooltip)


class WhereToRunLine(QWidget):
    """The line (put it beside a Run button) and its unfolding choice, ``panel`` (put it above)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent, objectName="whereToRunLine")
        caption = QLabel("Runs on:", objectName="runsOnCaption")
        caption.setStyleSheet(theme.NOTE_STYLE)
        self.label = QLabel("", objectName="runsOnLabel")  # where: "this computer", "the Dask scheduler at …"
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.label.setStyleSheet(theme.BOLD_STYLE)
        self.change_button = QPushButton("Change…", objectName="changeWhereButton")
        self.change_button.setFlat(True)
        self.change_button.setStyleSheet(theme.LINK_BUTTON_STYLE)
        self.change_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.change_button.setToolTip("Choose where the run goes: this computer, or a Dask scheduler that shares "
                                      "the work out among other computers.")
        self.change_button.clicked.connect(lambda: self.toggle_panel())
        self.panel = WhereToRun()
        self.panel.setObjectName("whereToRunPanel")
        self.panel.setStyleSheet(theme.top_rule_style("whereToRunPanel", theme.PANEL_TINT))
        self.panel.hide()
        self.panel.changed.connect(self._show)
        hbox(self, caption, self.label, self.change_button, margins=(0, 0, 0, 0), spacing=4)
        self._show()

    @property
    def choice(self) -> WhereChoice:
        return self.panel.choice

    def bind(self, choice: WhereChoice) -> None:
        """Show and change ``choice`` (the Run step's) from now on."""
        self.panel.bind(choice)

    def toggle_panel(self, show: bool | None = None) -> None:
        """Unfold (or fold, or with ``show`` either) the choice; "Done" folds it again."""
        show = self.panel.isHidden() if show is None else show
        self.panel.setVisible(show)
        self.change_button.setText("Done" if show else "Change…")
        if show and self.choice.uses_scheduler():
            self.panel.address.setFocus()

    def _show(self) -> None:
        choice = self.choice
        if choice.uses_scheduler():
            address = choice.scheduler() or "(type its address)"
            shown = address if len(address) <= MAX_SHOWN else address[: MAX_SHOWN - 1] + "…"
            where = f"the Dask scheduler at {shown}"
            self.label.setToolTip(f"Runs on the Dask scheduler at {address}.\n\n{DASK_TIP}")
        else:
            where = "this computer"
            self.label.setToolTip("The run uses this computer's own processor cores (and GPU, if it has one).")
        self.label.setText(where)
