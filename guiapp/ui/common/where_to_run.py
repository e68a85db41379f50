"""The Run step's "Where to run" choice: this computer (the default) or a running Dask scheduler.

The choice itself is one :class:`WhereChoice`; every :class:`WhereToRun` view shows and edits the
one it is bound to (the Run step's, and the Models step's unfolding "Change…", see
``where_to_run_line.py``), so both always say the same. It never changes the user's study:
:meth:`WhereChoice.spec_for_run` gives a copy whose ``[cluster]`` says where the run goes. The address's form is checked at once
(``core/compute/where.py``'s ``scheduler_address_problem``); whether
anything answers there is the engine's check (``core/compute/where.py``), reported like any error.
"""

from __future__ import annotations

import copy

from PySide6.QtCore import QObject, QSignalBlocker, Signal
from PySide6.QtWidgets import QFrame, QLabel, QLineEdit, QWidget

from guiapp.core.compute.where import scheduler_address_problem
from guiapp.core.study.sections import ClusterSpec
from guiapp.core.study.spec import ExperimentSpec
from guiapp.ui import theme
from guiapp.ui.common.layouts import STRETCH, hbox, vbox
from guiapp.ui.common.radio_choice import radio_choice

EXAMPLE_ADDRESS = "tcp://host:8786"
DASK_NOTE = ("Dask runs the pieces of work on other computers; every computer needs TextLab with the "
             "cluster extra (pip install 'textlab[cluster]').")
DASK_TIP = ("Dask is a program that shares work out among several computers. Someone starts a Dask "
            "scheduler (dask scheduler) and Dask workers on those computers; TextLab sends the tuning and "
            "testing of the models there and gets the results back. Give the address the scheduler prints.")


class WhereChoice(QObject):
    """Where the next run goes: this computer, or the Dask scheduler at an address; and the problem
    with that address once it was checked (shown by every view until the address is right)."""

    changed = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._dask = False
        self._address = ""
        self.shown_problem = ""  # the last check's answer, while it is shown

    def uses_scheduler(self) -> bool:
        return self._dask

    def address(self) -> str:
        """The address as typed (also while "This computer" is chosen)."""
        return self._address

    def scheduler(self) -> str:
        """The chosen scheduler's address ("" for this computer)."""
        return self._address.strip() if self._dask else ""

    def set(self, *, dask: bool | None = None, address: str | None = None) -> None:
        new_dask = self._dask if dask is None else bool(dask)
        new_address = self._address if address is None else address
        if (new_dask, new_address) == (self._dask, self._address):
            return
        self._dask, self._address = new_dask, new_address
        if self.shown_problem:  # the message goes away once the address is right
            self.shown_problem = scheduler_address_problem(self._address) if self._dask else ""
        self.changed.emit()

    def set_cluster(self, cluster: ClusterSpec) -> None:
        """Preselect what a study file's ``[cluster]`` says (only a scheduler address is shown here)."""
        if cluster.scheduler:
            self.set(dask=True, address=cluster.scheduler)
        else:
            self.set(dask=False)

    def problem(self) -> str:
        """Why the choice cannot be used ("" when it can); every view then shows it under the choice."""
        self.shown_problem = scheduler_address_problem(self._address) if self._dask else ""
        self.changed.emit()
        return self.shown_problem

    def spec_for_run(self, spec: ExperimentSpec) -> ExperimentSpec:
        """A copy of ``spec`` that runs where chosen; ``spec`` itself is not changed."""
        chosen = copy.deepcopy(spec)
        chosen.cluster = ClusterSpec(**{**spec.cluster.to_dict(), "scheduler": self.scheduler(), "system": ""})
        return chosen

    def describe(self) -> str:
        return f"on the Dask scheduler at {self.scheduler()}" if self._dask else "on this computer"


class WhereToRun(QFrame):
    """Radio buttons "This computer" / "A Dask scheduler at:" with the address, and a grey note."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None, choice: WhereChoice | None = None) -> None:
        super().__init__(parent, objectName="whereToRun")
        self.choice = choice if choice is not None else WhereChoice(self)
        self.setStyleSheet(theme.top_rule_style("whereToRun"))
        title = QLabel("Where to run", objectName="whereTitle")
        title.setStyleSheet(theme.BOLD_STYLE)
        _group, (self.here, self.dask) = radio_choice(
            self, ("This computer", "runHere",
                   "Run the study with this computer's own processor cores (and GPU, if it has one)."),
            ("A Dask scheduler at:", "runOnDask", DASK_TIP))
        self.address = QLineEdit(objectName="schedulerAddress")
        self.address.setPlaceholderText(EXAMPLE_ADDRESS)
        self.address.setToolTip("The address the Dask scheduler printed when it started, e.g. tcp://login1:8786.")
        self.address.setMinimumWidth(220)
        self.address.setMaximumWidth(360)
        self.address.setEnabled(False)
        self.note = QLabel(DASK_NOTE, objectName="whereNote")
        self.note.setStyleSheet(theme.HINT_STYLE)
        self.note.setWordWrap(True)
        self.problem_label = QLabel("", objectName="whereProblem")
        self.problem_label.setStyleSheet(theme.ERROR_STYLE)
        self.problem_label.setWordWrap(True)
        self.problem_label.hide()

        row = hbox(None, title, 6, self.here, self.dask, (self.address, 1), STRETCH, spacing=12)
        vbox(self, row, self.note, self.problem_label, margins=(16, 8, 16, 8), spacing=4)

        self.dask.toggled.connect(self._toggled)
        self.address.textChanged.connect(self._edited)
        self.choice.changed.connect(self._show_choice)
        self._show_choice()

    # -- the choice -------------------------------------------------------------------------------
    def bind(self, choice: WhereChoice) -> None:
        """Show and edit ``choice`` from now on (shared with another view)."""
        self.choice.changed.disconnect(self._show_choice)
        self.choice = choice
        choice.changed.connect(self._show_choice)
        self._show_choice()

    def set_cluster(self, cluster: ClusterSpec) -> None:
        """Preselect what a study file's ``[cluster]`` says (only a scheduler address is shown here)."""
        self.choice.set_cluster(cluster)

    def problem(self) -> str:
        """Why the choice cannot be used ("" when it can); shown under the choice."""
        return self.choice.problem()

    def spec_for_run(self, spec: ExperimentSpec) -> ExperimentSpec:
        """A copy of ``spec`` that runs where chosen; ``spec`` itself is not changed."""
        return self.choice.spec_for_run(spec)

    def describe(self) -> str:
        return self.choice.describe()

    # -- events ------------------------------------------------------------------------------------
    def _toggled(self, on: bool) -> None:
        self.choice.set(dask=on)
        if on:
            self.address.setFocus()

    def _edited(self, text: str) -> None:
        self.choice.set(address=text)

    def _show_choice(self) -> None:
        """Show the choice as it is now (edited here, in another view, or by a study file)."""
        choice = self.choice
        with QSignalBlocker(self.here), QSignalBlocker(self.dask), QSignalBlocker(self.address):
            (self.dask if choice.uses_scheduler() else self.here).setChecked(True)
            if self.address.text() != choice.address():
                self.address.setText(choice.address())
        self.address.setEnabled(choice.uses_scheduler())
        self.problem_label.setText(choice.shown_problem)
        self.problem_label.setVisible(bool(choice.shown_problem))
        self.changed.emit()
