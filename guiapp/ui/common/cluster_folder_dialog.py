"""File → Prepare for a cluster…: the worker jobs' size and a folder; writes the cluster folder
(``core/compute/cluster_folder.py``) in a worker and says where it went and what to do next."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from guiapp.core.study.sections import ClusterSpec
from guiapp.core.study.spec import ExperimentSpec
from guiapp.ui import theme
from guiapp.workers import Worker, error_report

INTRO = ("TextLab writes a folder to copy to a computing cluster that uses SLURM (the program that "
         "queues jobs there). On the cluster, one command starts the study: it asks for the worker jobs "
         "below, runs every model, and writes the results. The folder's README.txt says how, step by step.")
ACTIVATE = "source ~/textlab/bin/activate"
MEMORY = re.compile(r"^\s*\d+(\.\d+)?\s*[KMGT]i?B\s*$")  # as the study file's schema says
WALLTIME = re.compile(r"^(\d+-)?\d{1,3}:\d{2}(:\d{2})?$")


def _hint(text: str) -> QLabel:
    label = QLabel(text)
    label.setStyleSheet(theme.HINT_STYLE)
    return label


def _with_hint(field: QWidget, text: str) -> QHBoxLayout:
    row = QHBoxLayout()
    row.addWidget(field, 1)
    row.addWidget(_hint(text))
    return row


def _spin(low: int, high: int, value: int, tip: str) -> QSpinBox:
    box = QSpinBox()
    box.setRange(low, high)
    box.setValue(value)
    box.setToolTip(tip)
    return box


class ClusterFolderDialog(QDialog):
    """Asks for the worker jobs and the folder; OK writes the folder in the background."""

    def __init__(self, spec: ExperimentSpec, table: pd.DataFrame | None = None, parent: QWidget | None = None,
                 start_folder: Path | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Prepare for a cluster")
        self.spec = spec
        self.table = table
        self.worker: Worker | None = None
        self.written: Path | None = None
        cluster = spec.cluster
        intro = QLabel(INTRO, objectName="clusterIntro")
        intro.setWordWrap(True)

        self.workers = _spin(1, 1000, cluster.workers, "How many worker jobs to ask SLURM for; "
                             "the models' pieces of work are shared out among them.")
        self.cores = _spin(1, 256, cluster.cores_per_worker, "Processor cores each worker job asks for.")
        self.gpus = _spin(0, 16, cluster.gpus_per_worker, "GPUs (graphics cards) each worker job asks for; "
                          "they speed up fine-tuning a Transformer. 0: none.")
        self.memory = QLineEdit(cluster.memory)
        self.memory.setToolTip("Memory each worker job asks for, e.g. 16GB or 512MB.")
        self.walltime = QLineEdit(cluster.walltime)
        self.walltime.setToolTip("The longest each job may run, as hours:minutes:seconds (04:00:00) or "
                                 "days-hours:minutes:seconds (1-12:00:00). SLURM stops a job at this time.")
        self.queue = QLineEdit(cluster.queue)
        self.queue.setPlaceholderText("the cluster's default")
        self.queue.setToolTip("The partition (queue) the jobs go to, as the cluster's documentation names it.")
        self.account = QLineEdit(cluster.account)
        self.account.setPlaceholderText("your default")
        self.account.setToolTip("The account (project) the jobs are charged to, if your cluster asks for one.")
        self.setup = QPlainTextEdit("\n".join(cluster.setup or [ACTIVATE]))
        self.setup.setToolTip("Lines every job runs first, one per line: loading modules (module load cuda) "
                              "and activating TextLab's environment (source ~/textlab/bin/activate).")
        self.setup.setFixedHeight(self.setup.fontMetrics().lineSpacing() * 3 + 16)

        self.folder = QLineEdit(str(start_folder or Path.home() / f"{self._stem()} for the cluster"))
        self.folder.setToolTip("A new (or empty) folder; it is created.")
        choose = QPushButton("Choose…")
        choose.setToolTip("Choose where the new folder goes.")
        choose.clicked.connect(self.choose_folder)
        folder_row = QHBoxLayout()
        folder_row.addWidget(self.folder, 1)
        folder_row.addWidget(choose)

        form = QFormLayout()
        form.addRow("Worker jobs:", self.workers)
        form.addRow("Cores per worker:", self.cores)
        form.addRow("GPUs per worker:", self.gpus)
        form.addRow("Memory per worker:", _with_hint(self.memory, "e.g. 16GB or 512MB"))
        form.addRow("Time limit per job:", _with_hint(self.walltime, "hours:minutes:seconds, e.g. 04:00:00"))
        form.addRow("Partition:", self.queue)
        form.addRow("Account:", self.account)
        form.addRow("Setup lines:", self.setup)
        form.addRow("New folder:", folder_row)

        self.status = QLabel("", objectName="clusterStatus")
        self.status.setWordWrap(True)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.write_button = self.buttons.addButton("Write the folder", QDialogButtonBox.ButtonRole.AcceptRole)
        self.buttons.accepted.connect(self.write)
        self.buttons.rejected.connect(self.reject)

        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(form)
        layout.addWidget(self.status)
        layout.addWidget(self.buttons)
        self.resize(620, self.sizeHint().height())

    def _stem(self) -> str:
        name = self.spec.name or Path(self.spec.data.source).stem or "study"
        return "".join(c if c.isalnum() or c in " -_." else "-" for c in name).strip() or "study"

    # -- what the user chose -------------------------------------------------------------------------
    def cluster(self) -> ClusterSpec:
        """The worker jobs as chosen, checked (a UserError in plain words when a value is wrong)."""
        from guiapp.core.errors import UserError

        if not MEMORY.match(self.memory.text()):
            raise UserError(f"“{self.memory.text()}” is not an amount of memory.",
                            "Write a number with GB or MB after it, e.g. 16GB.")
        if not WALLTIME.match(self.walltime.text().strip()):
            raise UserError(f"“{self.walltime.text()}” is not a time limit SLURM understands.",
                            "Write it as hours:minutes:seconds, e.g. 04:00:00 for four hours, or with days "
                            "first, e.g. 1-12:00:00 for a day and a half.")
        setup = [line.strip() for line in self.setup.toPlainText().splitlines() if line.strip()]
        return ClusterSpec.from_dict({
            **self.spec.cluster.to_dict(), "scheduler": "", "system": "slurm",
            "workers": self.workers.value(), "cores_per_worker": self.cores.value(),
            "gpus_per_worker": self.gpus.value(), "memory": self.memory.text().strip(),
            "walltime": self.walltime.text().strip(), "queue": self.queue.text().strip(),
            "account": self.account.text().strip(), "setup": setup,
        })

    def choose_folder(self) -> None:
        current = Path(self.folder.text()).expanduser()
        where = QFileDialog.getExistingDirectory(self, "Where the new folder goes", str(current.parent))
        if where:
            self.folder.setText(str(Path(where) / current.name))

    # -- writing -------------------------------------------------------------------------------------
    def write(self) -> None:
        """Check the choices and write the folder in the background (the dialog stays open)."""
        import copy

        from guiapp.core.compute.cluster_folder import prepare_cluster_folder
        from guiapp.core.errors import UserError

        if self.written is not None:
            self.accept()
            return
        try:
            spec = copy.deepcopy(self.spec)
            spec.cluster = self.cluster()
        except UserError as error:
            self._show_problem(error)
            return
        folder = Path(self.folder.text().strip()).expanduser()
        if not self.folder.text().strip():
            self._say("Type or choose the folder to write.", error=True)
            return
        self.write_button.setEnabled(False)
        self._say("Writing the folder…")
        worker = Worker(prepare_cluster_folder, spec, folder, table=self.table, name="cluster folder")
        worker.signals.progress.connect(lambda event: self._say(event.message or "Writing the folder…"))
        worker.signals.finished.connect(self._written)
        worker.signals.failed.connect(self._failed)
        self.worker = worker
        worker.start()

    def _written(self, folder: Path) -> None:
        from guiapp.core.compute.sbatch_script import SCRIPT_NAME

        self.written = folder
        self._say(f"<b>Written: {folder}</b><br>Next: copy this folder to the cluster and run "
                  f"<code>sbatch {SCRIPT_NAME}</code> in it. Its README.txt says how, step by step "
                  "(installing TextLab there, following the jobs, copying the results back).")
        self.buttons.setStandardButtons(QDialogButtonBox.StandardButton.NoButton)
        self.write_button = self.buttons.addButton("Close", QDialogButtonBox.ButtonRole.AcceptRole)

    def _failed(self, error: BaseException) -> None:
        self._show_problem(error)

    def _show_problem(self, error: BaseException) -> None:
        report = error_report(error, "Preparing the cluster folder")
        self._say(f"{report.message} {report.hint}".strip(), error=True)
        self.write_button.setEnabled(True)

    def _say(self, text: str, error: bool = False) -> None:
        self.status.setStyleSheet(theme.ERROR_STYLE if error else "")
        self.status.setText(text)
        self.adjustSize()  # room for a longer message

    def reject(self) -> None:
        if self.worker is not None and self.worker.is_running():
            self.worker.cancel()
            self.worker.wait()
        super().reject()
