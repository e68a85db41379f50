"""The main window: the steps of a study on the left, the current step's page on the right."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QEvent, QSettings, QSize, Qt, Signal
from PySide6.QtGui import (
    QAction,
    QCloseEvent,
    QDragEnterEvent,
    QDropEvent,
    QKeySequence,
)
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QMessageBox,
    QStackedWidget,
    QStyle,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from guiapp import APP_NAME
from guiapp.core.experiment.run_size import estimate_run
from guiapp.core.explain.cache import cache_files, restore_cache_files
from guiapp.core.locations import example_path
from guiapp.core.project.format import SUFFIX as PROJECT_SUFFIX
from guiapp.core.project.format import Project, model_folders_of
from guiapp.core.study.sections import ClusterSpec
from guiapp.core.study.spec import DataSpec, ExperimentSpec, SpecError
from guiapp.core.study.table_changes import TableChanges
from guiapp.core.tables.reader import SUPPORTED_SUFFIXES, LoadedTable
from guiapp.core.tables.rows import positions_of_rows
from guiapp.ui.pages.data_page import DataPage
from guiapp.ui.widgets.save_dialogs import ask_save_path
from guiapp.ui.pages.documents_page import DocumentsPage
from guiapp.ui.pages.models_page import ModelsPage
from guiapp.ui.pages.predict_page import PredictPage
from guiapp.ui.pages.results_page import ResultsPage
from guiapp.ui.pages.run_page import RunPage
from guiapp.ui.project_session import PROJECT_FILTER, ProjectSession, extraction_folder
from guiapp.ui.widgets.explanation_panel import ExplanationPanel, explanations_folder
from guiapp.ui.widgets.next_step import NextStepButton
from guiapp.ui.widgets.wheel_guard import install_wheel_guard
from guiapp.workers import ErrorSink, registry

OPEN_FILTER = (
    "Tables (*.xlsx *.xlsm *.xls *.xlsb *.ods *.csv *.tsv *.txt *.tab *.parquet *.pq *.gz);;"
    "Excel (*.xlsx *.xlsm *.xls *.xlsb);;OpenDocument (*.ods);;CSV and text (*.csv *.tsv *.txt *.tab *.gz);;"
    "Parquet (*.parquet *.pq);;All files (*)"
)
MAX_RECENT = 8
# Step number (0-based row) -> (title, what the step is for)
STEPS = (
    ("Data", "Open your coded texts, tell TextLab which column is which, and check the data."),
    ("Models", "Choose the models to compare and how they are tested."),
    ("Run", "Watch the models being tuned and tested."),
    ("Results", "See which model agrees best with your coding, and why."),
    ("Documents", "Read the test texts with every model's answer, find the mistakes, and see which words "
                  "pushed each decision."),
    ("Predict", "Apply a trained model to texts nobody has coded yet and save its answers."),
)
DATA_STEP, MODELS_STEP, RUN_STEP, RESULTS_STEP, DOCUMENTS_STEP, PREDICT_STEP = range(6)
WHY_NOT_ROLE = Qt.ItemDataRole.UserRole + 1


def show_data_changed(parent: QWidget, title: str, text: str) -> QMessageBox:
    """Say (without blocking) that a study's data file changed since the study was saved."""
    box = QMessageBox(QMessageBox.Icon.Information, title, text, QMessageBox.StandardButton.Ok, parent)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.open()
    return box


def data_changed_text(name: str, recorded: DataSpec, rows: int, categories: list[str] | None) -> str:
    """"study.xlsx changed since this study was saved: 1,122 → 1,130 rows; new category “Green”. …" """
    changes = TableChanges(rows_before=recorded.rows, rows_after=rows)
    if recorded.categories is not None and categories is not None:
        changes.new_categories = [c for c in categories if c not in set(recorded.categories)]
        changes.gone_categories = [c for c in recorded.categories if c not in set(categories)]
    parts = changes.sentences()
    if parts:
        what = ": " + "; ".join(parts) + "."
    elif recorded.rows is not None:
        what = f" (its contents differ, though it still has {rows:,} rows" + (
            " and the same categories)." if recorded.categories is not None and categories is not None else ").")
    else:
        what = f" (its contents differ; it now has {rows:,} rows)."
    return f"{name} changed since this study was saved{what} The study will use the file as it is now."


def is_supported(path: Path) -> bool:
    name = path.name.lower().removesuffix(".gz")
    return any(name.endswith(suffix) for suffix in SUPPORTED_SUFFIXES)


class StepList(QListWidget):
    """The steps of a study. Only steps that exist in this version are listed."""

    availabilityChanged = Signal()  # a step was enabled or greyed out

    def __init__(self) -> None:
        super().__init__(objectName="stepList")
        self.setFixedWidth(190)
        self.setSpacing(2)
        self.setStyleSheet(
            "QListWidget { background: #f3f5f8; border: none; font-size: 14px; padding-top: 8px; }"
            "QListWidget::item { padding: 10px 12px; border-radius: 6px; }"
            "QListWidget::item:selected { background: #dbe7f7; color: #0b3d91; }"
        )

    def add_step(self, number: int, title: str, tip: str) -> QListWidgetItem:
        item = QListWidgetItem(f"{number}   {title}")
        item.setToolTip(tip)
        item.setData(Qt.ItemDataRole.UserRole, tip)
        self.addItem(item)
        return item

    def set_step_enabled(self, row: int, enabled: bool, why: str = "") -> None:
        """Enable a step, or grey it out with ``why`` added to its tooltip (never hidden)."""
        item = self.item(row)
        flags = item.flags()
        if enabled:
            item.setFlags(flags | Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable)
        else:
            item.setFlags(flags & ~Qt.ItemFlag.ItemIsEnabled & ~Qt.ItemFlag.ItemIsSelectable)
        tip = item.data(Qt.ItemDataRole.UserRole)
        item.setToolTip(tip if enabled or not why else f"{tip}\nNot available yet: {why}")
        item.setData(WHY_NOT_ROLE, "" if enabled else why)
        self.availabilityChanged.emit()

    def why_not(self, row: int) -> str:
        """Why a greyed-out step is not available yet ("" when it is, or when nobody said)."""
        return str(self.item(row).data(WHY_NOT_ROLE) or "")

    def is_step_enabled(self, row: int) -> bool:
        return bool(self.item(row).flags() & Qt.ItemFlag.ItemIsEnabled)


class MainWindow(QMainWindow):
    def __init__(self) -> None:
        super().__init__()
        install_wheel_guard()  # first: the wheel scrolls panels, never changes a drop-down or number box
        self.setWindowTitle(APP_NAME)
        self.resize(1280, 820)
        self.setMinimumSize(QSize(900, 600))
        self.setAcceptDrops(True)
        self.errors = ErrorSink(self)
        self.settings = QSettings()

        self.data_page = DataPage(self.errors)
        self.data_page.statusMessage.connect(self._show_status)
        self.data_page.tableLoaded.connect(self._table_loaded)
        self.data_page.welcome.openRequested.connect(self.choose_file)
        self.data_page.welcome.exampleRequested.connect(self.open_example)
        self.data_page.welcome.recentRequested.connect(lambda path: self.open_path(Path(path)))
        self.data_page.other_button.clicked.connect(self.choose_file)
        self.data_page.reportReady.connect(lambda _report: self._data_changed())
        self.data_page.reportReady.connect(self._check_study_data)
        self._study_check: tuple[str, DataSpec] | None = None  # (study file name, its data part) until checked
        self.study_cluster = ClusterSpec()  # an opened study file's [cluster] (File → Prepare for a cluster…)
        self.data_page.testFileChanged.connect(self._data_changed)
        self.data_page.mapping_panel.mappingChanged.connect(lambda _mapping: self._data_changed())

        self.models_page = ModelsPage()
        self.models_page.study_source = lambda: (self.study_spec(), self.data_page.table_frame())
        self.models_page.statusMessage.connect(self._show_status)
        self.models_page.runRequested.connect(self.start_run)
        self.models_page.saveRequested.connect(self.save_spec)
        self.run_page = RunPage(self.errors)
        self.run_page.statusMessage.connect(self._show_status)
        self.run_page.resultReady.connect(self._result_ready)
        self.run_page.runningChanged.connect(lambda _running: self._update_steps())
        self.models_page.where_line.bind(self.run_page.where.choice)  # one choice, on both steps
        self.results_page = ResultsPage()
        self.results_page.statusMessage.connect(self._show_status)
        self.results_page.errorRaised.connect(lambda error, doing: self.errors.report(error, doing))
        self._has_result = False
        self.ask_before_closing = True  # "save the project?" when work is unsaved (tests turn it off)
        self.ask_before_large_runs = True  # "start anyway?" above LARGE_RUN_FITS fits (tests turn it off)
        self._model_folders: dict[str, Path] = {}  # the trained model folders of the result shown
        self.documents_page = DocumentsPage()
        self.explanations = ExplanationPanel()
        self.explanations.errorRaised.connect(lambda error, doing: self.errors.report(error, doing))
        self.explanations.statusMessage.connect(self._show_status)
        self.documents_page.detail_area.layout().addWidget(self.explanations)
        self.explanations.widthWanted.connect(self.documents_page.want_detail_width)
        self.documents_page.text_browser.hide()  # the explanation shows the text, coloured
        self.documents_page.documentSelected.connect(self._document_selected)
        self.documents_page.filters.filterChanged.connect(
            lambda _f: self.explanations.choose_model(self.documents_page.filters.chosen_model() or ""))
        self.results_page.confusionCellClicked.connect(self.show_confusion_cell)
        self.results_page.extendGridRequested.connect(self._extend_transformer_grid)
        self.results_page.tables = self._study_tables
        self.results_page.groups.groupChosen.connect(self._show_group)
        self.results_page.export.explained = (  # "Explain all" results go into the Excel export too
            lambda: self.explanations.corpus.documents if self.explanations.corpus else [])
        self.predict_page = PredictPage(self._study_table)
        self.predict_page.statusMessage.connect(self._show_status)
        self.predict_page.errorRaised.connect(lambda error, doing: self.errors.report(error, doing))
        self.project = ProjectSession(self.capture_project, self.errors, self)
        self.project.statusMessage.connect(self._show_status)
        self.project.opened.connect(self._project_opened)
        self.project.resultsOpened.connect(self._results_folder_opened)
        self.project.saved.connect(self._project_saved)

        self.steps = StepList()
        self.pages = QStackedWidget()
        pages = (self.data_page, self.models_page, self.run_page, self.results_page, self.documents_page,
                 self.predict_page)
        for (title, tip), page in zip(STEPS, pages, strict=True):
            self._add_step(title, tip, page)
        self.steps.currentRowChanged.connect(self.pages.setCurrentIndex)
        self.next_button = NextStepButton(self.steps, STEPS)  # bottom right, in the status bar: no room taken
        self.steps.currentRowChanged.connect(lambda _row: self.next_button.refresh())
        self.steps.availabilityChanged.connect(self.next_button.refresh)
        self.statusBar().addPermanentWidget(self.next_button)
        self.steps.setCurrentRow(DATA_STEP)
        self._update_steps()

        central = QWidget()
        layout = QHBoxLayout(central)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        side = QVBoxLayout()
        brand = QLabel(APP_NAME, objectName="brand")
        brand.setStyleSheet("font-size: 18px; font-weight: 700; padding: 14px 12px 4px 16px; background: #f3f5f8;")
        side.addWidget(brand)
        side.addWidget(self.steps, 1)
        side.setSpacing(0)
        layout.addLayout(side)
        layout.addWidget(self.pages, 1)
        self.setCentralWidget(central)

        self._build_actions()
        self._refresh_recent()
        self.statusBar().showMessage("Open a spreadsheet to begin, or try the example study.")

    # -- structure -----------------------------------------------------------------------------
    def _add_step(self, title: str, tip: str, page: QWidget) -> None:
        self.steps.add_step(self.steps.count() + 1, title, tip)
        self.pages.addWidget(page)

    def _build_actions(self) -> None:
        style = self.style()
        self.open_action = QAction(style.standardIcon(QStyle.StandardPixmap.SP_DialogOpenButton), "&Open…", self)
        self.open_action.setShortcut(QKeySequence.StandardKey.Open)
        self.open_action.setToolTip("Open a spreadsheet with your coded texts (Ctrl+O)")
        self.open_action.triggered.connect(self.choose_file)
        self.example_action = QAction(style.standardIcon(QStyle.StandardPixmap.SP_FileDialogInfoView), "Open &example", self)
        self.example_action.setToolTip("Open the example study: US Congress bills coded by policy topic")
        self.example_action.triggered.connect(self.open_example)
        self.open_study_action = QAction("Open &study…", self)
        self.open_study_action.setToolTip("Open a saved study file (.toml/.json): its table, column roles, models and settings")
        self.open_study_action.triggered.connect(self.choose_study)
        self.open_project_action = QAction("Open &project…", self)
        self.open_project_action.setToolTip(f"Open a TextLab project ({PROJECT_SUFFIX}): the data, the study, its results and trained models")
        self.open_project_action.triggered.connect(self.choose_project)
        self.open_results_action = QAction("Open &results folder…", self)
        self.open_results_action.setToolTip(
            "Open the results folder of a study run elsewhere (textlab run, a computing cluster): its scores, "
            "test texts and trained models; the study's table must be beside the folder")
        self.open_results_action.triggered.connect(self.choose_results_folder)
        self.save_project_action = QAction(style.standardIcon(QStyle.StandardPixmap.SP_DialogSaveButton), "&Save project", self)
        self.save_project_action.setShortcut(QKeySequence.StandardKey.Save)
        self.save_project_action.setToolTip("Keep everything in one project file: the data, the study, the results "
                                            "and the trained models (Ctrl+S)")
        self.save_project_action.triggered.connect(self.save_project)
        self.save_project_action.setEnabled(False)
        self.save_project_as_action = QAction("Save project &as…", self)
        self.save_project_as_action.setShortcut(QKeySequence.StandardKey.SaveAs)
        self.save_project_as_action.triggered.connect(self.save_project_as)
        self.save_project_as_action.setEnabled(False)
        self.predict_file_action = QAction("&Predict a file of new texts…", self)
        self.predict_file_action.setToolTip("Apply a trained model to a spreadsheet of texts nobody has coded yet")
        self.predict_file_action.triggered.connect(self.choose_file_to_predict)
        self.predict_file_action.setEnabled(False)
        self.save_spec_action = QAction("Save study &file as…", self)
        self.save_spec_action.setToolTip(
            "Save the data settings, the ticked models and their settings as a study file the command line can run"
        )
        self.save_spec_action.setEnabled(False)
        self.save_spec_action.triggered.connect(self.save_spec)
        self.cluster_folder_action = QAction("Prepare for a &cluster…", self)
        self.cluster_folder_action.setToolTip("Open your coded texts and choose models first.")
        self.cluster_folder_action.setEnabled(False)
        self.cluster_folder_action.triggered.connect(self.prepare_for_cluster)
        quit_action = QAction("&Quit", self)
        quit_action.setShortcut(QKeySequence.StandardKey.Quit)
        quit_action.triggered.connect(self.close)

        file_menu = self.menuBar().addMenu("&File")
        file_menu.addAction(self.open_action)
        file_menu.addAction(self.example_action)
        file_menu.addAction(self.open_project_action)
        file_menu.addAction(self.open_results_action)
        self.recent_menu = file_menu.addMenu("Open &recent")
        file_menu.addSeparator()
        file_menu.addAction(self.save_project_action)
        file_menu.addAction(self.save_project_as_action)
        file_menu.addSeparator()
        file_menu.addAction(self.predict_file_action)
        file_menu.addSeparator()
        file_menu.addAction(self.open_study_action)
        file_menu.addAction(self.save_spec_action)
        file_menu.addAction(self.cluster_folder_action)
        file_menu.addSeparator()
        file_menu.addAction(quit_action)
        help_menu = self.menuBar().addMenu("&Help")
        about = QAction(f"About {APP_NAME}", self)
        about.triggered.connect(self.show_about)
        about_example = QAction("About the example data", self)
        about_example.triggered.connect(self.show_about_example)
        self.self_test_action = QAction("&Self-test…", self)
        self.self_test_action.setToolTip("Check that the bundled model, word vectors and example load and a tiny study runs")
        self.self_test_action.triggered.connect(self.show_self_test)
        help_menu.addAction(about)
        help_menu.addAction(about_example)
        help_menu.addAction(self.self_test_action)

        toolbar = QToolBar("Main", objectName="mainToolbar")
        toolbar.setMovable(False)
        toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        toolbar.addAction(self.open_action)
        toolbar.addAction(self.example_action)
        toolbar.addAction(self.save_project_action)
        self.addToolBar(toolbar)

    # -- opening --------------------------------------------------------------------------------
    def choose_file(self) -> None:
        start = self.settings.value("last_folder", str(Path.home()))
        path, _ = QFileDialog.getOpenFileName(self, "Open a spreadsheet with coded texts", start, OPEN_FILTER)
        if path:
            self.open_path(Path(path))

    def open_example(self) -> None:
        path = example_path()
        if not path.is_file():
            self.errors.report(FileNotFoundError(str(path)), "Opening the example")
            return
        self.open_path(path)

    def open_path(self, path: Path) -> None:
        """Open a table of coded texts on the Data step, a project file, or a results folder."""
        if path.suffix.lower() == PROJECT_SUFFIX:
            self.open_project(path)
            return
        if path.is_dir():  # a results folder; any other folder gets a message saying what to choose
            self.open_results_folder(path)
            return
        self.project.path = None  # a new table starts a new study
        self.steps.setCurrentRow(0)
        self.data_page.open_path(path)

    def _table_loaded(self, table) -> None:
        self._results_follow_table(table)
        self._start_study_check(table)
        self.setWindowTitle(f"{table.path.name} — {APP_NAME}")
        self.save_spec_action.setEnabled(True)
        self.cluster_folder_action.setEnabled(True)
        self.cluster_folder_action.setToolTip(
            "Write a folder to copy to a SLURM computing cluster: the data, the study and a job script that runs it there")
        self.save_project_action.setEnabled(True)
        self.save_project_as_action.setEnabled(True)
        self.predict_page.study_table_changed()
        self.project.mark_changed()
        self._data_changed()
        if table.path.resolve() != example_path().resolve():
            self.settings.setValue("last_folder", str(table.path.parent))
            self._remember(str(table.path))

    def _show_status(self, text: str) -> None:
        self.statusBar().showMessage(text, 8000)

    def study_spec(self) -> ExperimentSpec | None:
        """The study as set up now: the data step's choices plus the Models step's models."""
        spec = self.models_page.build_spec()
        if spec is None:
            data = self.data_page.data_spec()
            return None if data is None else ExperimentSpec(data=data, name=Path(data.source).stem)
        return spec

    def choose_study(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open a study", str(Path.home()), "Study files (*.toml *.json)")
        if path:
            self.open_study(Path(path))

    def open_study(self, path: Path) -> None:
        """Open a study file: read its table with its column roles, then take over its models."""
        try:
            spec = ExperimentSpec.load(path)
            source = spec.source_path(path)
            if not source.is_file():
                raise SpecError(
                    f"The study's table {source} does not exist.",
                    "Move the table back, or change 'source' in the study file to where it is now.",
                )
        except SpecError as error:
            self.errors.report(error, "Opening the study")
            return
        test = spec.test_source_path(path)
        if self._has_result and not self._result_is_of_study(spec, source):
            self._clear_results()  # results belong to their study
        self._study_check = (source.name, spec.data) if spec.data.sha256 else None
        self.steps.setCurrentRow(DATA_STEP)
        self.data_page.open_path(
            source, spec.data.sheet, spec.data.mapping, (str(test), spec.data.test_sheet) if test else None,
            fixes=spec.data.category_fixes,
        )
        self.models_page.load_spec(spec)
        self.run_page.where.set_cluster(spec.cluster)  # a study file's scheduler is preselected
        self.study_cluster = spec.cluster
        self._show_status(f"Opened the study {path.name}: {len(spec.models)} models.")
        if self.models_page.load_notes:
            box = QMessageBox(QMessageBox.Icon.Information, "Opening the study", self.models_page.load_notes, parent=self)
            box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            self.study_notes_box = box
            box.open()

    def save_spec(self) -> None:
        spec = self.study_spec()
        if spec is None:
            return
        path, _ = ask_save_path(self, "Save study", data_path_stem(spec.data.source).name + ".textlab.toml",
                                "Study files (*.toml *.json)", protected=[spec.data.source, spec.data.test_source])
        if path:
            try:
                spec.save(path)
            except OSError as error:
                self.errors.report(error, "Saving the study")
            else:
                self.statusBar().showMessage(f"Saved {path}", 8000)

    def prepare_for_cluster(self) -> None:
        """File → Prepare for a cluster…: the dialog that writes a folder to run the study on SLURM."""
        from guiapp.ui.widgets.cluster_folder_dialog import ClusterFolderDialog

        spec = self.study_spec()
        if spec is None:
            return
        spec.cluster = self.study_cluster
        dialog = ClusterFolderDialog(spec, table=self.data_page.table_frame(), parent=self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.cluster_folder_dialog = dialog
        dialog.open()

    # -- steps ------------------------------------------------------------------------------------------
    def _data_changed(self) -> None:
        """The table, its mapping or its health report changed: tell the Models step."""
        page = self.data_page
        self.models_page.set_data(page.data_spec(), page.health_report(), page.table_frame(), page.test_count())
        self._update_steps()

    def _update_steps(self) -> None:
        reason = self.models_page.not_ready_reason()
        self.steps.set_step_enabled(MODELS_STEP, not reason, reason)
        ran = self.run_page.is_busy() or self.run_page.state() != "idle"
        self.steps.set_step_enabled(RUN_STEP, ran, "start a run with the Run button on the Models step.")
        self.steps.set_step_enabled(
            RESULTS_STEP, self._has_result, "the results appear here when a run has finished."
        )
        self.steps.set_step_enabled(
            DOCUMENTS_STEP, self._has_result, "the test documents appear here when a run has finished."
        )
        self.steps.set_step_enabled(
            PREDICT_STEP, self._has_result, "a study's trained models can predict new texts once a run has finished."
        )

    def _extend_transformer_grid(self, grid: dict) -> None:
        self.models_page.use_transformer_grid(grid)
        self.go_to_step(MODELS_STEP)
        rates = ", ".join(f"{value:g}" for value in grid.get("learning_rate", []))
        epochs = ", ".join(str(value) for value in grid.get("epochs", []))
        self._show_status(f"The Transformer now tries learning rates {rates} and {epochs} epochs; run the study again.")

    def go_to_step(self, row: int) -> None:
        """Show a step; it is enabled first if needed (the page has something to show)."""
        if not self.steps.is_step_enabled(row):
            self.steps.set_step_enabled(row, True)
        self.steps.setCurrentRow(row)

    # -- running -----------------------------------------------------------------------------------------
    def start_run(self, spec: ExperimentSpec) -> None:
        """Start ``spec`` on the Run step (asks first when another run is still going)."""
        if self.run_page.is_busy() and not self._confirm_replace_run():
            return
        if self.ask_before_large_runs and not self._confirm_large_run(spec):
            return
        self.go_to_step(RUN_STEP)
        self.models_page.cancel_jobs()  # a speed measurement would only compete with the run
        self.run_page.start(spec, table=self.data_page.table_frame())
        self._update_steps()

    def _confirm_replace_run(self) -> bool:
        answer = QMessageBox.question(
            self,
            "A run is still going",
            "The models of the previous run are still being compared.\n\n"
            "Stop that run and start the new one? The unfinished run is not saved.",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.No,
        )
        return answer == QMessageBox.StandardButton.Yes

    def _confirm_large_run(self, spec: ExperimentSpec) -> bool:
        """Ask before a study of more than LARGE_RUN_FITS fits (a grid of thousands of values)."""
        report = self.data_page.health_report()
        n_coded = report.n_coded if report is not None else 0
        test_file = bool(spec.data.test_source)
        n_test = (self.data_page.test_count() or 0) if test_file else round(spec.evaluation.test_share * n_coded)
        n_train = n_coded if test_file else n_coded - n_test
        size = estimate_run(spec, n_train or None, n_test, len(report.categories) if report is not None else 2)
        if not size.large:
            return True
        about = f", {size.duration} on this computer" if size.duration else ""
        answer = QMessageBox.question(
            self, "A large study",
            f"This study will fit {size.fits:,} models{about}.\n\nStart anyway?",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.No,
        )
        return answer == QMessageBox.StandardButton.Yes

    def _result_ready(self, result) -> None:
        self._show_result(result, model_folders_of(result))
        self.go_to_step(RESULTS_STEP)
        self.project.mark_changed(autosave_now=True)

    def _show_result(self, result, folders: dict[str, Path]) -> None:
        self._model_folders = dict(folders)
        self.results_page.show_result(result)
        self._learning_curve_study(result)
        folder_of = lambda model: self._model_folders.get(model.name)  # noqa: E731
        self.documents_page.show_result(result, self._test_metadata(result))
        self.explanations.set_result(result, folder_of)
        self.predict_page.set_result(result, folder_of)
        self.predict_file_action.setEnabled(self.predict_page.has_models())
        self._has_result = True
        self._update_steps()

    # -- which study the results belong to -------------------------------------------------------------
    def _clear_results(self) -> None:
        """Results, Documents and Predict go back to their empty states (another study was opened)."""
        self.results_page.clear()
        self.documents_page.clear()
        self.explanations.set_result(None, lambda _model: None)
        self.predict_page.set_result(None)
        self.predict_file_action.setEnabled(False)
        self._model_folders = {}
        self._has_result = False
        self._update_steps()

    def _result_data(self) -> dict:
        result = self.results_page.result
        return ((result.spec or {}).get("data") or {}) if result is not None else {}

    def _result_is_of_study(self, spec: ExperimentSpec, source: Path) -> bool:
        result = self.results_page.result
        return (result is not None and (result.spec or {}).get("name", "") == spec.name
                and _same_file(self._result_data().get("source"), source))

    def _results_follow_table(self, table: LoadedTable) -> None:
        """A table was shown: keep the results made from it, label them when the file changed since
        (Reload), clear them when the table is another one."""
        if not self._has_result:
            return
        data = self._result_data()
        sha = str(data.get("sha256") or "")
        if sha and table.sha256 and sha == table.sha256:
            self.results_page.set_data_note("")
        elif _same_file(data.get("source"), table.path):
            if sha and table.sha256:
                rows = data.get("rows")
                then = f" ({rows:,} rows)" if isinstance(rows, int) else ""
                self.results_page.set_data_note(
                    f"These results were computed on an earlier version of {table.path.name}{then}; the file now has "
                    f"{len(table.frame):,} rows. Run the study again to include the changes.")
        else:
            self._clear_results()

    def _start_study_check(self, table: LoadedTable) -> None:
        """An opened study's table is read: if it is not the one the study was saved with, say so
        (once its categories are known, from the health report, when the study recorded them)."""
        if self._study_check is None:
            return
        name, recorded = self._study_check
        if not table.sha256 or table.sha256 == recorded.sha256 or table.path.name != name:
            self._study_check = None
            return
        if recorded.categories is None or not self.data_page.mapping().category_column:
            self._study_check = None
            self.data_changed_box = show_data_changed(
                self, "The study's data file changed", data_changed_text(name, recorded, len(table.frame), None))

    def _check_study_data(self, report) -> None:
        if self._study_check is None or self.data_page.table is None:
            return
        name, recorded = self._study_check
        self._study_check = None
        categories = sorted(category.label for category in report.categories)
        self.data_changed_box = show_data_changed(
            self, "The study's data file changed",
            data_changed_text(name, recorded, len(self.data_page.table.frame), categories))

    # -- projects ---------------------------------------------------------------------------------------
    def _study_tables(self):
        """The study's table, mapping and separate test table (or None), for the scores per group of texts."""
        frame = self.data_page.table_frame()
        if frame is None:
            return None, None, None
        spec = self.data_page.mapping()
        test = self.data_page.test_choice.frame if getattr(self.data_page.test_choice, "frame", None) is not None else None
        return frame, spec, test

    def _show_group(self, column: str, value) -> None:  # noqa: ANN001 — a cell value, a (low, high) range or None
        """Double-clicking a group on the Results step opens its test texts on the Documents step
        (filtered by that column's value; a range of numbers cannot be filtered there)."""
        if isinstance(value, tuple):
            self._show_status(f"The Documents step filters by one value of “{column}”, not by a range: choose the "
                              "column there and type a value.")
            return
        from guiapp.core.explain.documents import DocumentFilter

        result = self.results_page.result
        table = self.documents_page.table
        if result is not None and (table is None or column not in table.metadata_columns()):
            self.documents_page.show_result(result, self._test_metadata(result))  # the table came after the result
        self.go_to_step(DOCUMENTS_STEP)
        model = self.results_page.groups.model_combo.currentData() or None
        self.documents_page.set_filter(DocumentFilter(model=model, metadata_column=column, metadata_mode="equals",
                                                      metadata_value="" if value is None else str(value)))

    def _learning_curve_study(self, result) -> None:  # noqa: ANN001
        """The Results step's learning curve redraws the study that gave ``result``, on the table shown."""
        from guiapp.core.errors import UserError

        frame = self.data_page.table_frame()
        try:
            spec = ExperimentSpec.from_dict(result.spec) if result.spec else None
        except (UserError, ValueError, TypeError):
            spec = None
        self.results_page.set_study(spec if frame is not None else None, frame)

    def _test_metadata(self, result):  # noqa: ANN001, ANN202
        """The other columns of the table (party, year …), one row per test document, for the Documents
        step's column filter; None when the table is not there or no longer matches the result."""
        table, mapping, test_table = self._study_tables()
        if table is None or mapping is None:
            return None
        source = test_table if result.split.get("how") == "test file" and test_table is not None else table
        positions = positions_of_rows(source, result.test_rows).tolist()
        if not positions or min(positions) < 0 or max(positions) >= len(source):
            return None
        used = {*mapping.text_columns, mapping.category_column, mapping.id_column}  # the ID has its own column
        columns = [column for column in source.columns if column not in used]
        return source.iloc[positions][columns].reset_index(drop=True) if columns else None

    def _study_table(self):
        """The study's table and mapping, for "predict the uncoded rows" (None, None before a table)."""
        frame = self.data_page.table_frame()
        return (frame, self.data_page.mapping()) if frame is not None else (None, None)

    def capture_project(self) -> Project | None:
        """Everything the user would lose on closing: data, study, results, trained models, view."""
        table = self.data_page.table
        spec = self.study_spec()
        if table is None or spec is None:
            return None
        result = self.results_page.result if self._has_result else None
        chosen = self.results_page.chosen_model() if result is not None else None
        return Project(
            spec=spec,
            table=table.frame,
            test_table=self.data_page.test_choice.frame if spec.data.test_source else None,
            learning_curve=self.results_page.learning.curve() if result is not None else None,
            result=result,
            model_folders=dict(self._model_folders) if result is not None else {},
            ui_state={"step": self.steps.currentRow(), "results_model": chosen.name if chosen else None},
            explanations=cache_files(explanations_folder(result)) if result is not None else {},
            source_sha256=table.sha256,
            source_name=table.path.name,
        )

    def choose_project(self) -> None:
        start = self.settings.value("last_folder", str(Path.home()))
        path, _ = QFileDialog.getOpenFileName(self, "Open a TextLab project", start, PROJECT_FILTER)
        if path:
            self.open_project(Path(path))

    def open_project(self, path: Path) -> None:
        self.project.open(path)

    def choose_results_folder(self) -> None:
        start = self.settings.value("last_folder", str(Path.home()))
        folder = QFileDialog.getExistingDirectory(self, "Open a results folder (it holds results.json)", start)
        if folder:
            self.open_results_folder(Path(folder))

    def open_results_folder(self, folder: Path) -> None:
        """Show the results a run wrote into ``folder`` (read in the background) as an opened project."""
        self.project.open_results(folder)

    def save_project(self) -> None:
        if self.project.path is None:
            self.save_project_as()
        else:
            self.project.save(self.project.path)

    def save_project_as(self) -> None:
        table = self.data_page.table
        if table is None:
            return
        path = self._ask_project_path(table)
        if path:
            self.project.save(path)

    def _project_saved(self, path: Path) -> None:
        self.setWindowTitle(f"{path.name} — {APP_NAME}")
        self._remember(str(path))

    def _project_opened(self, project: Project, path: Path | None) -> None:
        """Show an opened (or recovered) project as it was saved."""
        spec = project.spec
        where = path.name if path is not None else "the recovered autosave"
        table = LoadedTable(
            frame=project.table, path=Path(spec.data.source), file_format="snapshot kept in the project",
            sheet=spec.data.sheet, sheets=[], sha256=project.source_sha256,
            notices=[f"This is the copy of {project.source_name or Path(spec.data.source).name} kept in {where}; "
                     "the original file is not read again."],
        )
        test_file = None
        if project.test_table is not None:
            folder = extraction_folder(path or Path(spec.data.source))
            folder.mkdir(parents=True, exist_ok=True)
            test_path = folder / "test texts.parquet"
            project.test_table.to_parquet(test_path, index=False)
            test_file = (str(test_path), None)
        self._show_project(project, table, test_file)
        if path is not None:
            self.setWindowTitle(f"{path.name} — {APP_NAME}")
            self._remember(str(path))
        else:
            self.setWindowTitle(f"{spec.name or 'Recovered study'} (recovered) — {APP_NAME}")
        self._show_status(f"Opened {where}.")

    def _results_folder_opened(self, project: Project, folder: Path) -> None:
        """Show a results folder (read by ``core/project/results_folder.py``) like an opened project,
        on the Results step; its table is the file found beside it, read as it is."""
        spec = project.spec
        source = Path(spec.data.source)
        table = LoadedTable(
            frame=project.table, path=source, file_format=source.suffix.lstrip(".") or "table",
            sheet=spec.data.sheet, sheets=[], sha256=project.source_sha256,
            notices=[f"The table of the results in “{folder.name}”, read from {source}."],
        )
        test_file = (spec.data.test_source, spec.data.test_sheet) if spec.data.test_source else None
        self._show_project(project, table, test_file)
        self.go_to_step(RESULTS_STEP)
        self.setWindowTitle(f"{folder.name} (results of “{spec.name or source.stem}”) — {APP_NAME}")
        self.settings.setValue("last_folder", str(folder.parent))
        self._remember(str(folder))
        models = len(project.model_folders)
        self._show_status(f"Opened the results in {folder.name}: {models} trained model{'s' if models != 1 else ''}. "
                          "Save project… keeps them in one file.")

    def _show_project(self, project: Project, table: LoadedTable, test_file: tuple[str, str | None] | None) -> None:
        """The data, study, results and view of ``project`` on every step."""
        spec = project.spec
        self.data_page.show_table(table, spec.data.mapping, test_file, fixes=spec.data.category_fixes)
        self.models_page.load_spec(spec)
        if project.result is not None:
            restore_cache_files(explanations_folder(project.result), project.explanations)
            self._show_result(project.result, project.model_folders)
            if project.learning_curve is not None:
                self.results_page.learning.set_curve(project.learning_curve)
            chosen = project.ui_state.get("results_model")
            if isinstance(chosen, str):
                self.results_page.choose_model(chosen)
        else:
            self._clear_results()
        step = project.ui_state.get("step")
        if isinstance(step, int) and 0 <= step < self.steps.count() and step != RUN_STEP:
            self.go_to_step(step)

    def show_confusion_cell(self, model: str, human: int, predicted: int) -> None:
        """A click on a confusion-matrix cell: the Documents step, filtered to those documents."""
        self.go_to_step(DOCUMENTS_STEP)
        self.documents_page.show_cell(model, human, predicted)
        self.explanations.choose_model(model)

    def _document_selected(self, index: int) -> None:
        result = self.results_page.result
        if result is not None and 0 <= index < len(result.test_texts):
            self.explanations.show_document(result.test_texts[index])

    def choose_file_to_predict(self) -> None:
        if not self.predict_page.has_models():
            return
        self.go_to_step(PREDICT_STEP)
        self.predict_page.source.choose()

    def offer_recovery(self) -> bool:
        """Offer the autosave of a session that crashed (called once the window is shown)."""
        return self.project.offer_recovery()

    # -- recent files -----------------------------------------------------------------------------
    def _recent(self) -> list[str]:
        value = self.settings.value("recent_files", [])
        paths = [value] if isinstance(value, str) else list(value or [])
        return [p for p in paths if Path(p).exists()][:MAX_RECENT]

    def _remember(self, path: str) -> None:
        paths = [path] + [p for p in self._recent() if p != path]
        self.settings.setValue("recent_files", paths[:MAX_RECENT])
        self._refresh_recent()

    def _refresh_recent(self) -> None:
        paths = self._recent()
        self.recent_menu.clear()
        for path in paths:
            action = self.recent_menu.addAction(Path(path).name)
            action.setToolTip(path)
            action.triggered.connect(lambda _=False, p=path: self.open_path(Path(p)))
        self.recent_menu.setEnabled(bool(paths))
        self.data_page.welcome.set_recent(paths)

    # -- drag and drop ------------------------------------------------------------------------------
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

    # -- help -----------------------------------------------------------------------------------------
    def show_about(self) -> None:
        from guiapp.ui.widgets.about_dialog import about_box

        about_box(self).exec()

    def show_self_test(self) -> None:
        """Help → Self-test…: the checks run in a worker; the dialog shows each line as it comes."""
        from guiapp.ui.widgets.self_test_dialog import SelfTestDialog

        self.self_test_dialog = SelfTestDialog(self)
        self.self_test_dialog.open()

    def show_about_example(self) -> None:
        QMessageBox.information(
            self,
            "About the example data",
            "The example holds the titles of the 4,449 bills introduced in the 107th US Congress "
            "(2001–2002), each coded by hand with one of 20 major policy topics.\n\n"
            "Source: Congressional Bills Project, E. Scott Adler and John D. Wilkerson "
            "(congressionalbills.org), as distributed in the R package RTextTools (GPL-3).\n"
            "Please cite: Adler, E. Scott and John Wilkerson. Congressional Bills Project: 2001–2002.",
        )

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.ActivationChange and self.isActiveWindow():
            self.data_page.check_file_on_disk()  # back from the editor: did the file change?

    # -- closing --------------------------------------------------------------------------------------
    def closeEvent(self, event: QCloseEvent) -> None:
        if not self._may_close():
            event.ignore()
            return
        self.project.finish()
        self.predict_page.cancel_jobs()
        self.explanations.cancel_jobs()
        self.run_page.cancel_jobs()
        self.data_page.cancel_jobs()
        self.models_page.cancel_jobs()
        registry.cancel_all(wait_ms=5000)
        super().closeEvent(event)


    def _may_close(self) -> bool:
        """Ask to save unsaved work; False when the user cancels or the save did not work."""
        if not self.ask_before_closing or not self.project.dirty or self.data_page.table is None:
            return True
        answer = QMessageBox.question(
            self, "Save the project?",
            "Your study has changes that are not saved in a project file.\n\n"
            "Save them before closing? Otherwise they are lost when TextLab closes.",
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Save,
        )
        if answer == QMessageBox.StandardButton.Cancel:
            return False
        if answer == QMessageBox.StandardButton.Discard:
            return True
        return self.project.save_and_wait(self.project.path) if self.project.path else self._save_as_and_wait()

    def _save_as_and_wait(self) -> bool:
        table = self.data_page.table
        path = self._ask_project_path(table)
        return bool(path) and self.project.save_and_wait(path)

    def _ask_project_path(self, table: LoadedTable) -> Path | None:
        """The project's file, asked in a save dialog (its own name and folder once it has one)."""
        current = self.project.path
        name = current.name if current else data_path_stem(str(table.path)).name + PROJECT_SUFFIX
        path, _ = ask_save_path(self, "Save the project", name, PROJECT_FILTER, protected=[table.path],
                                folder=current.parent if current else None)
        return path


def _same_file(source: object, path: Path) -> bool:
    if not source:
        return False
    try:
        return Path(str(source)).resolve() == path.resolve()
    except OSError:
        return False


def data_path_stem(source: str) -> Path:
    path = Path(source)
    return path.with_name(path.name.split(".")[0])
