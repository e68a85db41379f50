"""File → Replication package…: where to save the package (a folder or a zip file), whether the texts
may be shared, what will go in (in words, with sizes); Write builds it in the background
(``core/replication/package.py``) with progress and Cancel, and says at the end where it is and the two
commands a reviewer runs."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from guiapp.ui import theme
from guiapp.workers import Worker, error_report

INTRO = ("A replication package holds everything a reviewer needs to rerun your study and see the same numbers: "
         "the study file with its seeds, the data, the codebook and codings, the results and exports, the trained "
         "models, the versions of every library, a report card of the recommended model and a README. Each file's "
         "fingerprint (SHA-256) is recorded, so a changed file is noticed.")
NO_TEXTS = "The texts may not be shared (only their fingerprint goes in)"
NO_TEXTS_TIP = ("Tick this when your data's licence or your ethics approval forbids passing the texts on. The package "
                "then holds only the table's fingerprint, its number of rows and a description of its columns; the "
                "README tells the reviewer which file to obtain, and the rerun checks it by that fingerprint.")
VERIFY, REPLICATE = "textlab verify {name}", "textlab replicate {name} --out rerun"


def size_words(size: int | float | None) -> str:
    """A size in bytes, as people read it ("3.4 MB")."""
    if size is None:
        return "size unknown"
    for unit in ("bytes", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:,.0f} {unit}" if unit == "bytes" else f"{size:,.1f} {unit}"
        size /= 1024
    return ""


def _folder_size(folder: Path) -> int:
    try:
        return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file() and not path.is_symlink())
    except OSError:
        return 0


def contents_lines(project: Any, share_texts: bool) -> list[str]:
    """What the package will hold, one line each, with sizes where they are known."""
    result = project.result
    lines = ["The study file as it was run, with its seed (study.toml)"]
    table = project.table
    if table is not None:
        rows, columns = table.shape
        if share_texts:
            memory = int(table.memory_usage(deep=True).sum())
            lines.append(f"The data: {rows:,} rows and {columns} columns (about {size_words(memory)} before "
                         "compression)" + (", and the separate test file" if project.test_table is not None else ""))
        else:
            lines.append(f"No texts: only the data's fingerprint, its {rows:,} rows and a description of its "
                         f"{columns} columns; the reviewer must obtain the file themselves")
    codings = project.codings
    if codings is not None and len(codings):
        lines.append(f"The codebook and the {len(codings):,} codings made in TextLab, with coders and versions")
    elif project.codebook is not None and len(project.codebook):
        lines.append("The codebook")
    if result is not None:
        lines.append(f"The results of {len(result.finished_models())} models (results.json, predictions, the Excel "
                     "workbook, the methods appendix" + (", the findings" if project.findings is not None else "") + ")")
    folders = [Path(folder) for folder in project.model_folders.values() if Path(folder).is_dir()]
    if folders:
        lines.append(f"{len(folders)} trained model{'s' if len(folders) != 1 else ''}, "
                     f"{size_words(sum(_folder_size(folder) for folder in folders))}")
    lines += ["The environment: TextLab's version, every library's version, the computer, and a list pip can "
              "rebuild it from", "A report card of the recommended model (web page and PDF)",
              "A README for the reviewer and the fingerprint of every file (manifest.json)"]
    return lines


class ReplicationPackageDialog(QDialog):
    """Asks where to save and whether the texts may be shared; Write builds the package in a worker.

    ``project`` is the study as it is now (``StudySession.capture_project``), None before a table is
    open; ``pdf_printer(html, path)`` prints the methods appendix and the report card to PDF."""

    def __init__(self, project: Any, pdf_printer: Callable[[str, Path], Path] | None = None,
                 parent: QWidget | None = None, start_folder: Path | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Replication package")
        self.project = project
        self.pdf_printer = pdf_printer
        self.worker: Worker | None = None
        self.written: Path | None = None
        intro = QLabel(INTRO, objectName="replicationIntro", wordWrap=True)

        self.as_folder = QRadioButton("A folder", objectName="packageAsFolder", checked=True)
        self.as_zip = QRadioButton("A zip file (one file to upload to a journal's archive)", objectName="packageAsZip")
        kinds = QButtonGroup(self)
        kinds.addButton(self.as_folder)
        kinds.addButton(self.as_zip)
        kind_row = QHBoxLayout()
        kind_row.addWidget(QLabel("Save as:"))
        kind_row.addWidget(self.as_folder)
        kind_row.addWidget(self.as_zip)
        kind_row.addStretch(1)
        self.path = QLineEdit(str(start_folder or Path.home() / f"{self._stem()} replication package"),
                              objectName="packagePath")
        self.path.setToolTip("A new folder (or, for a zip file, the file's name); it is created.")
        self.choose = choose = QPushButton("Choose…", objectName="packageChoose")
        choose.clicked.connect(self.choose_path)
        path_row = QHBoxLayout()
        path_row.addWidget(QLabel("Where:"))
        path_row.addWidget(self.path, 1)
        path_row.addWidget(choose)

        self.no_texts = QCheckBox(NO_TEXTS, objectName="packageNoTexts")
        self.no_texts.setToolTip(NO_TEXTS_TIP)
        self.no_texts.toggled.connect(self._show_contents)
        self.contents = QLabel("", objectName="packageContents", wordWrap=True)
        self.contents.setTextFormat(Qt.TextFormat.PlainText)
        self.progress = QProgressBar(objectName="packageProgress", visible=False)
        self.progress.setRange(0, 100)
        self.status = QLabel("", objectName="packageStatus", wordWrap=True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.write_button = self.buttons.addButton("Write", QDialogButtonBox.ButtonRole.AcceptRole)
        self.write_button.setObjectName("packageWrite")
        self.buttons.accepted.connect(self.write)
        self.buttons.rejected.connect(self.reject)

        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(kind_row)
        layout.addLayout(path_row)
        layout.addWidget(self.no_texts)
        layout.addWidget(QLabel("<b>What goes in</b>"))
        layout.addWidget(self.contents)
        layout.addWidget(self.progress)
        layout.addWidget(self.status)
        layout.addStretch(1)
        layout.addWidget(self.buttons)
        self._show_contents()
        self.resize(680, self.sizeHint().height())

    def _stem(self) -> str:
        spec = getattr(self.project, "spec", None)
        name = (spec.name if spec is not None else "") or (Path(spec.data.source).stem if spec is not None else "")
        return "".join(c if c.isalnum() or c in " -_." else "-" for c in name or "study").strip() or "study"

    def problem(self) -> str:
        """Why no package can be written yet, in words ("" when it can)."""
        result = getattr(self.project, "result", None)
        if self.project is None or result is None or not result.finished_models():
            return "There is no finished study to package yet: run the study on the Run step first."
        return ""

    def _show_contents(self) -> None:
        problem = self.problem()
        if problem:
            self.contents.setText("")
            self._say(problem, error=True)
            self.write_button.setEnabled(False)
            return
        lines = contents_lines(self.project, share_texts=not self.no_texts.isChecked())
        self.contents.setText("\n".join(f"•  {line}" for line in lines))
        self._fit()

    def choose_path(self) -> None:
        current = Path(self.path.text().strip() or str(Path.home())).expanduser()
        if self.as_zip.isChecked():
            chosen, _ = QFileDialog.getSaveFileName(self, "Save the replication package as", str(current.with_suffix(".zip")),
                                                    "Zip file (*.zip)")
        else:
            where = QFileDialog.getExistingDirectory(self, "Where the new folder goes", str(current.parent))
            chosen = str(Path(where) / current.name) if where else ""
        if chosen:
            self.path.setText(chosen)

    # -- writing -------------------------------------------------------------------------------------
    def target(self) -> Path | None:
        text = self.path.text().strip()
        return Path(text).expanduser() if text else None

    def write(self) -> Worker | None:
        """Write the package in the background (the dialog stays open and shows the progress)."""
        from guiapp.core.replication.package import write_package
        from guiapp.core.replication.report_card import write_report_card

        if self.written is not None:
            self.accept()
            return None
        if self.problem():
            return None
        target = self.target()
        if target is None:
            self._say("Type or choose where to save the package.", error=True)
            return None
        self.write_button.setEnabled(False)
        for widget in (self.as_folder, self.as_zip, self.path, self.choose, self.no_texts):
            widget.setEnabled(False)
        self.progress.setValue(0)
        self.progress.setVisible(True)
        self._say("Writing the replication package…")
        card = partial(write_report_card, pdf_printer=self.pdf_printer)
        worker = Worker(write_package, self.project, target, share_texts=not self.no_texts.isChecked(),
                        as_zip=self.as_zip.isChecked(), report_card=card, pdf_printer=self.pdf_printer,
                        name="writing the replication package")
        worker.signals.progress.connect(self._progress)
        worker.signals.finished.connect(self._written)
        worker.signals.failed.connect(self._failed)
        worker.signals.cancelled.connect(self._cancelled)
        self.worker = worker
        worker.start()
        return worker

    def _progress(self, event: Any) -> None:
        if event.fraction is not None:
            self.progress.setValue(int(100 * event.fraction))
        if event.message:
            self._say(event.message + "…")

    def _written(self, where: Path) -> None:
        self.written = Path(where)
        self.progress.setValue(100)
        name = self.written.name
        self._say(f"<b>Written: {_escape(str(self.written))}</b><br>A reviewer "
                  f"{'unzips it, ' if self.written.suffix.lower() == '.zip' else ''}opens a terminal in it and runs "
                  f"two commands:<br><code>{VERIFY.format(name='.')}</code> — checks that every file is there and "
                  f"unchanged;<br><code>{REPLICATE.format(name='.')}</code> — reruns the study and compares the "
                  f"scores with yours.<br>Its README.md says the same for the reviewer ({_escape(name)}).")
        self.buttons.clear()  # Write and Cancel are done with: only Close is left
        self.write_button = self.buttons.addButton("Close", QDialogButtonBox.ButtonRole.AcceptRole)

    def _failed(self, error: BaseException) -> None:
        report = error_report(error, "Writing the replication package")
        self._say(f"{report.message} {report.hint}".strip(), error=True)
        self._ready_again()

    def _cancelled(self) -> None:
        self._say("Stopped: no package was written.")
        self._ready_again()

    def _ready_again(self) -> None:
        self.progress.setVisible(False)
        self.write_button.setEnabled(True)
        for widget in (self.as_folder, self.as_zip, self.path, self.choose, self.no_texts):
            widget.setEnabled(True)

    def _say(self, text: str, error: bool = False) -> None:
        self.status.setStyleSheet(theme.ERROR_STYLE if error else "")
        self.status.setText(text)
        self._fit()

    def _fit(self) -> None:
        """Grow to show every line (never shrink under the user's hands)."""
        self.layout().activate()
        self.resize(max(self.width(), 680), max(self.height(), self.sizeHint().height()))

    def reject(self) -> None:
        """Cancel: stop a package being written (nothing is left behind), else close."""
        if self.worker is not None and self.worker.is_running():
            self._say("Stopping…")
            self.worker.cancel()
            return
        super().reject()


def _escape(text: str) -> str:
    from html import escape

    return escape(text, quote=False)
