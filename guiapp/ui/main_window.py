"""The main window: the steps of a study on the left, the current step's page on the right.

The window builds the pages on one :class:`StudySession`, the menus from the table of actions, and
the navigation between steps. The pages read and write the session; the window only listens to
what decides which steps can be shown.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtGui import QCloseEvent, QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QMainWindow, QStackedWidget, QVBoxLayout, QWidget

from guiapp import APP_NAME
from guiapp.core.project.format import SUFFIX as PROJECT_SUFFIX
from guiapp.core.tables.reader import SUPPORTED_SUFFIXES
from guiapp.ui import theme
from guiapp.ui.steps.coding.coding_page import CodingPage
from guiapp.ui.steps.data.data_page import DataPage
from guiapp.ui.steps.documents.documents_page import DocumentsPage
from guiapp.ui.steps.models.models_page import ModelsPage
from guiapp.ui.steps.predict.predict_page import PredictPage
from guiapp.ui.steps.findings.findings_page import FindingsPage
from guiapp.ui.steps.results.results_page import ResultsPage
from guiapp.ui.steps.run.run_page import RunPage
from guiapp.ui.session.study_files import StudyFiles
from guiapp.ui.session.study_session import StudySession
from guiapp.ui.common.step_order import (  # noqa: F401 — the step numbers are part of the window's interface
    CODING_STEP,
    DATA_STEP,
    DOCUMENTS_STEP,
    FINDINGS_STEP,
    MODELS_STEP,
    PREDICT_STEP,
    RESULTS_STEP,
    RUN_STEP,
    STEPS,
)
from guiapp.ui.window import help_menu
from guiapp.ui.window.next_step import NextStepButton
from guiapp.ui.window.step_list import StepList
from guiapp.ui.common.wheel_guard import install_wheel_guard
from guiapp.ui.window.window_actions import WindowActions
from guiapp.workers import ErrorSink, registry

# When a step cannot be shown yet, its tooltip says why
NOT_YET = {
    CODING_STEP: "open your texts on the Data step and choose the column that holds them.",
    RUN_STEP: "start a run with the Run button on the Models step.",
    RESULTS_STEP: "the results appear here when a run has finished.",
    DOCUMENTS_STEP: "the test documents appear here when a run has finished.",
    PREDICT_STEP: "a study's trained models can predict new texts once a run has finished.",
    FINDINGS_STEP: "the shares of the categories appear here once texts of your table are coded, or a model has "
                   "predicted texts on the Predict step.",
}


def is_supported(path: Path) -> bool:
    name = path.name.lower().removesuffix(".gz")
    return any(name.endswith(suffix) for suffix in SUPPORTED_SUFFIXES)


class MainWindow(QMainWindow):
    def __init__(self) -> None:
        super().__init__()
        install_wheel_guard()  # first: the wheel scrolls panels, never changes a drop-down or number box
        self.setWindowTitle(APP_NAME)
        self.resize(1280, 820)
        self.setMinimumSize(QSize(900, 600))
        self.setAcceptDrops(True)
        self.errors = ErrorSink(self)
        self.session = session = StudySession(self)
        session.statusMessage.connect(self._show_status)
        session.errorRaised.connect(self.errors.report)

        self.data_page = DataPage(self.errors, session=session)
        self.coding_page = CodingPage(session=session)
        self.models_page = ModelsPage(session=session)
        self.run_page = RunPage(self.errors, session=session)
        self.results_page = ResultsPage(session=session)
        self.documents_page = DocumentsPage(session=session)
        self.predict_page = PredictPage(session=session)
        self.findings_page = FindingsPage(session=session)
        self.files = StudyFiles(session, self.errors, self, lambda: self.steps.currentRow())
        self.project = self.files.project
        self.files.titleChanged.connect(self.setWindowTitle)
        self.data_page.openRequested.connect(self.files.choose_file)
        self.data_page.exampleRequested.connect(self.files.open_example)
        self.data_page.recentRequested.connect(lambda path: self.open_path(Path(path)))
        self.models_page.saveRequested.connect(self.files.save_spec)
        self.run_page.resultReady.connect(lambda _result: self.project.mark_changed(autosave_now=True))

        self.steps = StepList()
        self.pages = QStackedWidget()
        pages = (self.data_page, self.coding_page, self.models_page, self.run_page, self.results_page, self.documents_page,
                 self.predict_page, self.findings_page)
        for number, ((title, tip), page) in enumerate(zip(STEPS, pages, strict=True), 1):
            self.steps.add_step(number, title, tip)
            self.pages.addWidget(page)
        self.steps.currentRowChanged.connect(self.pages.setCurrentIndex)
        self.next_button = NextStepButton(self.steps, STEPS)  # bottom right, in the status bar: no room taken
        self.steps.currentRowChanged.connect(lambda _row: self.next_button.refresh())
        self.steps.availabilityChanged.connect(self.next_button.refresh)
        self.statusBar().addPermanentWidget(self.next_button)
        self.steps.setCurrentRow(DATA_STEP)
        self.setCentralWidget(self._build_central())

        self.menu = WindowActions(self, self._handlers())
        self.recent_menu = self.menu.recent_menu
        self.files.recentChanged.connect(self._show_recent)
        self._show_recent(self.files.recent())
        session.stepWanted.connect(self.go_to_step)
        for changed in (session.dataChanged, session.specChanged, session.runStateChanged, session.resultChanged,
                        session.predictionsChanged, session.codingsChanged):
            changed.connect(self._update_steps)
        self._update_steps()
        self.statusBar().showMessage("Open a spreadsheet to begin, or try the example study.")

    # -- structure -----------------------------------------------------------------------------------
    def _build_central(self) -> QWidget:
        central = QWidget()
        layout = QHBoxLayout(central)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        side = QVBoxLayout()
        brand = QLabel(APP_NAME, objectName="brand")
        brand.setStyleSheet(theme.BRAND_STYLE)
        side.addWidget(brand)
        side.addWidget(self.steps, 1)
        side.setSpacing(0)
        layout.addLayout(side)
        layout.addWidget(self.pages, 1)
        return central

    def _handlers(self) -> dict:
        """What each action in the table of actions calls."""
        files = self.files
        return {
            "choose_file": files.choose_file, "open_example": files.open_example,
            "choose_project": files.choose_project, "choose_results_folder": files.choose_results_folder,
            "save_project": files.save_project, "save_project_as": files.save_project_as,
            "choose_file_to_predict": self.choose_file_to_predict, "choose_study": files.choose_study,
            "save_spec": files.save_spec, "prepare_for_cluster": files.prepare_for_cluster, "close": self.close,
            "write_replication_package": self.write_replication_package,
            "show_about": lambda: help_menu.show_about(self),
            "show_about_example": lambda: help_menu.show_about_example(self),
            "show_self_test": self.show_self_test,
        }

    def _show_recent(self, paths: list[str]) -> None:
        self.menu.set_recent(paths, lambda path: self.open_path(Path(path)))
        self.data_page.set_recent(paths)

    def _show_status(self, text: str) -> None:
        self.statusBar().showMessage(text, 8000)

    # -- steps ---------------------------------------------------------------------------------------
    def _update_steps(self) -> None:
        session = self.session
        self.steps.set_step_enabled(CODING_STEP, session.frame is not None and bool(session.mapping.text_columns),
                                    NOT_YET[CODING_STEP])
        reason = session.not_ready_reason()
        self.steps.set_step_enabled(MODELS_STEP, not reason, reason)
        self.steps.set_step_enabled(RUN_STEP, session.has_run(), NOT_YET[RUN_STEP])
        for step in (RESULTS_STEP, DOCUMENTS_STEP, PREDICT_STEP):
            self.steps.set_step_enabled(step, session.has_result, NOT_YET[step])
        self.steps.set_step_enabled(FINDINGS_STEP, bool(self.findings_page.sources()), NOT_YET[FINDINGS_STEP])
        self.menu.set_usable(table=session.table is not None, models=self.predict_page.has_models())

    def go_to_step(self, row: int) -> None:
        """Show a step; it is enabled first if needed (the page has something to show)."""
        if not self.steps.is_step_enabled(row):
            self.steps.set_step_enabled(row, True)
        self.steps.setCurrentRow(row)

    # -- what the window is asked from outside (the command line, the OS, tests) ----------------------
    def open_path(self, path: Path) -> None:
        """Open a table of coded texts on the Data step, a project file, or a results folder."""
        self.files.open_path(Path(path))

    def open_example(self) -> None:
        self.files.open_example()

    def open_study(self, path: Path) -> None:
        self.files.open_study(Path(path))

    def open_project(self, path: Path) -> None:
        self.project.open(Path(path))

    def open_results_folder(self, folder: Path) -> None:
        self.project.open_results(Path(folder))

    def study_spec(self):  # noqa: ANN201 — the ExperimentSpec as set up now, or None before a table
        return self.session.study_spec()

    def start_run(self, spec) -> None:  # noqa: ANN001 — an ExperimentSpec
        self.session.run(spec)

    def choose_file_to_predict(self) -> None:
        if self.predict_page.has_models():
            self.go_to_step(PREDICT_STEP)
            self.predict_page.choose_file()

    def write_replication_package(self) -> None:
        """File → Replication package…: the dialog that writes a package a reviewer can rerun."""
        from guiapp.ui.steps.results.results_export import print_pdf
        from guiapp.ui.window.replication_package_dialog import ReplicationPackageDialog

        project = self.session.capture_project({"step": self.steps.currentRow()})
        dialog = ReplicationPackageDialog(project, pdf_printer=print_pdf, parent=self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.replication_dialog = dialog
        dialog.open()

    def offer_recovery(self) -> bool:
        """Offer the autosave of a session that crashed (called once the window is shown)."""
        return self.project.offer_recovery()

    def show_self_test(self) -> None:
        self.self_test_dialog = help_menu.open_self_test(self)

    # -- drag and drop -------------------------------------------------------------------------------
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        urls = event.mimeData().urls()
        if urls and urls[0].isLocalFile():
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        urls = [url for url in event.mimeData().urls() if url.isLocalFile()]
        if not urls:
            return
        event.acceptProposedAction()
        path = Path(urls[0].toLocalFile())
        if self.steps.currentRow() == PREDICT_STEP and path.suffix.lower() != PROJECT_SUFFIX and not path.is_dir():
            self.predict_page.open_path(path)  # texts to predict
            return
        self.open_path(path)  # unsupported files get a clear message from the reader

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.ActivationChange and self.isActiveWindow():
            self.data_page.check_file_on_disk()  # back from the editor: did the file change?

    # -- closing -------------------------------------------------------------------------------------
    def closeEvent(self, event: QCloseEvent) -> None:
        if not self.files.may_close():
            event.ignore()
            return
        self.project.finish()
        for page in (self.predict_page, self.documents_page, self.run_page, self.data_page, self.models_page,
                     self.coding_page, self.findings_page):
            page.cancel_jobs()
        registry.cancel_all(wait_ms=5000)
        super().closeEvent(event)
