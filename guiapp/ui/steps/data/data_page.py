"""Step 1, Data: open a table, map its columns, read the data-health report.

Reading the table is :mod:`~guiapp.ui.steps.data.table_reading`, its "Table" tab
:mod:`~guiapp.ui.steps.data.table_tab`; noticing that its file changed on
disk is :mod:`~guiapp.ui.steps.data.file_on_disk`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from guiapp.core.errors import DataError, UserError
from guiapp.core.health.findings import HealthReport
from guiapp.core.health.report import compute_health
from guiapp.core.study.mapping import ColumnMapping
from guiapp.core.study.spec import DataSpec
from guiapp.core.study.table_changes import TableChanges
from guiapp.core.tables.reader import LoadedTable
from guiapp.ui import theme
from guiapp.ui.common.job_progress import JobProgress
from guiapp.ui.common.scroll_area import ScrollArea
from guiapp.ui.session.study_session import StudySession
from guiapp.ui.steps.data.file_on_disk import FileOnDiskBanner, FileSignature, file_signature
from guiapp.ui.steps.data.health_view import HealthReportView
from guiapp.ui.steps.data.heldout_file_choice import HeldOutFileChoice
from guiapp.ui.steps.data.mapping_panel import MappingPanel
from guiapp.ui.steps.data.table_reading import read_again, read_and_suggest, table_details
from guiapp.ui.steps.data.table_tab import TableTab
from guiapp.ui.steps.data.welcome import WelcomePanel
from guiapp.workers import ErrorSink, Worker, WorkerSlot

if TYPE_CHECKING:  # pandas loads with the first table, not when the window opens
    import pandas as pd

    from guiapp.core.study.category_fixes import CategoryFixes


class DataPage(QWidget):
    """Welcome → loading → workspace (mapping, health report, table)."""

    tableLoaded = Signal(object)  # LoadedTable
    reportReady = Signal(object)  # HealthReport
    statusMessage = Signal(str)
    testFileChanged = Signal()  # a separate file of test texts was accepted or removed
    openRequested = Signal()  # "Open…" on the welcome panel or "Open another file…"
    exampleRequested = Signal()
    recentRequested = Signal(str)  # a recent file's path

    def __init__(self, errors: ErrorSink, parent: QWidget | None = None, session: StudySession | None = None) -> None:
        super().__init__(parent)
        self.errors = errors
        self.session = session or StudySession(self)
        self.table: LoadedTable | None = None
        self.test_file: tuple[str, str | None] | None = None  # (path, sheet) from an opened study file
        self._wanted_test_file: tuple[str, str | None] | None = None
        self.report: HealthReport | None = None
        self._previous_sha: str | None = None  # of the table shown before the current one (for Reload)
        self._load_slot = WorkerSlot(self)
        self._health_slot = WorkerSlot(self)
        self._reading_signature: FileSignature = None  # of the file on disk when the reading started
        # codings made on the Coding step are counted in the check: once coding pauses for a moment
        self._codings_timer = QTimer(self, singleShot=True, interval=1500)
        self._codings_timer.timeout.connect(self._recheck_with_codings)

        self.welcome = WelcomePanel()
        self.welcome.openRequested.connect(self.openRequested)
        self.welcome.exampleRequested.connect(self.exampleRequested)
        self.welcome.recentRequested.connect(self.recentRequested)
        self.loading = self._build_loading()
        self.workspace = self._build_workspace()
        self.stack = QStackedWidget()
        for panel in (self.welcome, self.loading, self.workspace):
            self.stack.addWidget(panel)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.stack)
        # what the study holds comes from here; opened studies and projects are shown here
        for changed in (self.tableLoaded, self.reportReady, self.testFileChanged):
            changed.connect(self._publish)
        self.mapping_panel.mappingChanged.connect(self._publish)
        self.session.fileWanted.connect(self.open_path)
        self.session.tableWanted.connect(self.show_table)
        self.statusMessage.connect(self.session.say)
        self.session.codingsChanged.connect(self._codings_changed)

    def _publish(self, *_args: object) -> None:
        """Tell the study session what the Data step holds now."""
        choice = self.test_choice
        self.session.set_data(
            table=self.table, mapping=self.mapping(), data_spec=self.data_spec(), report=self.report,
            test_frame=choice.frame,
            test_count=self.test_count())

    def set_recent(self, paths: list[str]) -> None:
        """The recent files, offered on the welcome panel."""
        self.welcome.set_recent(paths)

    # -- building ----------------------------------------------------------------------------
    def _build_loading(self) -> QWidget:
        panel = QWidget()
        self.load_title = QLabel("", objectName="loadTitle")
        self.load_title.setStyleSheet(theme.heading_style(16))
        self.load_progress = JobProgress()
        self.load_progress.setObjectName("loadProgress")
        column = QVBoxLayout()
        column.addStretch(1)
        column.addWidget(self.load_title)
        column.addWidget(self.load_progress)
        column.addStretch(2)
        outer = QHBoxLayout(panel)
        outer.addStretch(1)
        outer.addLayout(column, 3)
        outer.addStretch(1)
        return panel

    def _build_workspace(self) -> QWidget:
        panel = QWidget()
        self.file_label = QLabel("", objectName="fileLabel")
        self.file_label.setStyleSheet(theme.heading_style(15))
        self.file_details = QLabel("", objectName="fileDetails")
        self.file_details.setStyleSheet(theme.NOTE_STYLE)
        self.sheet_label = QLabel("Sheet:")
        self.sheet_combo = QComboBox(objectName="sheetCombo")
        self.sheet_combo.setToolTip("This workbook has several sheets: choose the one with your coded texts.")
        self.sheet_combo.activated.connect(self._sheet_chosen)
        self.reload_button = QPushButton("Reload", objectName="reloadFile", toolTip=(
            "Read this file again (after you changed it, e.g. in Excel), keeping the column roles you chose, "
            "and see what changed."), clicked=self.reload)
        self.other_button = QPushButton("Open another file…", objectName="openAnother")
        header = QHBoxLayout()
        titles = QVBoxLayout()
        titles.addWidget(self.file_label)
        titles.addWidget(self.file_details)
        self.codings_note = QLabel("", objectName="codingsNote")
        self.codings_note.setStyleSheet(theme.NOTE_STYLE)
        self.codings_note.setToolTip("Texts you coded on the Coding step count everywhere a study uses your "
                                     "coding: here, on the Models step and in every run. Your file is not changed.")
        self.codings_note.setWordWrap(True)
        self.codings_note.hide()
        titles.addWidget(self.codings_note)
        header.addLayout(titles, 1)
        header.addWidget(self.sheet_label)
        header.addWidget(self.sheet_combo)
        header.addWidget(self.reload_button)
        header.addWidget(self.other_button)
        self.other_button.clicked.connect(self.openRequested)
        self.notices = QLabel("", objectName="fileNotices")
        self.notices.setWordWrap(True)
        self.notices.setStyleSheet(theme.notice_style("caution", "6px"))

        # noticing that the file changed on disk: a watch, and a check when the window is activated
        self.disk_banner = FileOnDiskBanner(lambda: self.table is not None and not self._load_slot.is_busy())
        self.watcher, self.disk_label = self.disk_banner.watcher, self.disk_banner.label
        self.banner_reload, self.banner_keep = self.disk_banner.reload_button, self.disk_banner.keep_button
        self.banner_reload.clicked.connect(self.reload)
        self.banner_keep.clicked.connect(self.keep_this_version)
        self.changes_label = QLabel("", objectName="reloadChanges")
        self.changes_label.setWordWrap(True)
        self.changes_label.setStyleSheet(theme.notice_style("news", "6px"))
        self.changes_label.hide()

        self.mapping_panel = MappingPanel()
        self.mapping_panel.mappingChanged.connect(self._mapping_changed)
        self.test_choice = HeldOutFileChoice(self.mapping)
        self.test_choice.changed.connect(self._test_file_changed)
        self.mapping_panel.mappingChanged.connect(lambda _mapping: self.test_choice.refresh())
        mapping_column = QWidget()
        mapping_layout = QVBoxLayout(mapping_column)
        mapping_layout.setContentsMargins(0, 0, 0, 0)
        mapping_layout.addWidget(self.mapping_panel)
        mapping_layout.addWidget(self.test_choice)
        mapping_layout.addStretch(1)
        mapping_scroll = ScrollArea(mapping_column, framed=True)
        mapping_scroll.setMinimumWidth(300)

        # Health tab
        health_tab = QWidget()
        self.health_progress = JobProgress()
        self.health_progress.setObjectName("healthProgress")
        self.health_progress.cancelRequested.connect(self._health_cancelled_by_user)
        self.mapping_message = QLabel("", objectName="mappingMessage")
        self.mapping_message.setWordWrap(True)
        self.mapping_message.setStyleSheet(theme.notice_style("problem", "8px"))
        self.health_view = HealthReportView()
        self.health_view.rowsRequested.connect(self.show_rows)
        self.health_view.categoryFixesChanged.connect(lambda _fixes: self._mapping_changed(self.mapping()))
        self.health_view.categoryFixesChanged.connect(self.mapping_panel.set_category_fixes)  # the hint's count
        column = QVBoxLayout(health_tab)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.health_progress)
        column.addWidget(self.mapping_message)
        column.addWidget(self.health_view, 1)

        # Table tab
        table_tab = TableTab()
        self.frame_model, self.rows_model, self.table_view = table_tab.frame_model, table_tab.rows_model, table_tab.table_view
        self.subset_label, self.subset_banner = table_tab.subset_label, table_tab.subset_banner
        self.show_all_button = table_tab.show_all_button
        self.show_all_button.clicked.connect(lambda: self.show_rows(None))
        self._table_tab = table_tab

        self.tabs = QTabWidget(objectName="dataTabs")
        self.tabs.addTab(health_tab, "Data health")
        self.tabs.addTab(table_tab, "Table")
        self.tabs.setTabToolTip(0, "Is your coded data ready for comparing models? What should you fix?")
        self.tabs.setTabToolTip(1, "The rows of your table as TextLab read them.")

        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(mapping_scroll)
        splitter.addWidget(self.tabs)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([330, 900])

        layout = QVBoxLayout(panel)
        layout.addLayout(header)
        layout.addWidget(self.disk_banner)
        layout.addWidget(self.changes_label)
        layout.addWidget(self.notices)
        layout.addWidget(splitter, 1)
        return panel

    # -- opening -------------------------------------------------------------------------------
    def open_path(
        self,
        path: str | Path,
        sheet: str | None = None,
        mapping: ColumnMapping | None = None,
        test_file: tuple[str, str | None] | None = None,
        fixes: CategoryFixes | None = None,
    ) -> None:
        """Read ``path`` in the background; the current table stays until the new one is read.

        ``mapping``, ``test_file`` (path, sheet) and the category ``fixes`` come from an opened study file."""
        path = Path(path)
        self.test_file = None
        self._wanted_fixes = fixes
        self._wanted_test_file = test_file  # checked once the table (and so the mapping) is there
        worker = Worker(read_and_suggest, path, sheet=sheet, wanted=mapping, name=f"read {path.name}", light=True)
        self._health_slot.cancel()
        self.load_title.setText(f"Reading {path.name}" + (f", sheet “{sheet}”" if sheet else ""))
        self.load_progress.attach(worker, "Opening the file…")
        self._reading_signature = file_signature(path)
        worker.signals.finished.connect(lambda loaded, w=worker: self._table_loaded(w, loaded))
        worker.signals.failed.connect(lambda error, w=worker: self._load_ended(w, error))
        worker.signals.cancelled.connect(lambda w=worker: self._load_ended(w, None))
        self.stack.setCurrentWidget(self.loading)
        self._load_slot.start(worker)

    def can_reload(self) -> bool:
        """A file (not a project's snapshot) is shown and nothing is being read."""
        return self.table is not None and self.disk_banner.path is not None and not self._load_slot.is_busy()

    def reload(self) -> None:
        """Read the same file (and sheet) again, keeping the column roles; says what changed."""
        if not self.can_reload():
            return
        table = self.table
        assert table is not None
        worker = Worker(read_again, table.path, table.sheet, self.mapping(), table.frame, name=f"read {table.path.name} again", light=True)
        self._health_slot.cancel()
        self.load_title.setText(f"Reading {table.path.name} again" + (f", sheet “{table.sheet}”" if table.sheet else ""))
        self.load_progress.attach(worker, "Reading the file again…")
        self._reading_signature = file_signature(table.path)
        self._wanted_test_file = self.test_file
        worker.signals.finished.connect(lambda loaded, w=worker: self._reloaded(w, loaded))
        worker.signals.failed.connect(lambda error, w=worker: self._load_ended(w, error))
        worker.signals.cancelled.connect(lambda w=worker: self._load_ended(w, None))
        self.stack.setCurrentWidget(self.loading)
        self._load_slot.start(worker)

    def _reloaded(self, worker: Worker, loaded: tuple[LoadedTable, ColumnMapping, TableChanges]) -> None:
        if worker is not self._load_slot.current:
            return
        table, mapping, changes = loaded
        self._show_loaded(table, mapping)
        if table.sha256 and table.sha256 == self._previous_sha:
            text = f"Read {table.path.name} again: the file has not changed."
        else:
            text = f"Read {table.path.name} again: {changes.summary()}"
        self.changes_label.setText(text + (" Your column roles were kept." if not changes.lost_roles else
                                           " The other column roles were kept."))
        self.changes_label.show()
        self.statusMessage.emit(text)

    def keep_this_version(self) -> None:
        """Go on with the table on screen; the banner comes back only if the file changes again."""
        self.disk_banner.keep()
        self.statusMessage.emit("Kept the version of the file that was read; the file on disk was not read.")

    def check_file_on_disk(self) -> bool:
        """Show the banner when the file on screen changed on disk since it was read (never reloads)."""
        return self.disk_banner.check()

    def _watch(self, path: Path | None) -> None:
        self.disk_banner.watch(path, self._reading_signature)
        self.reload_button.setEnabled(path is not None)
        self.reload_button.setToolTip(
            "Read this file again (after you changed it, e.g. in Excel), keeping the column roles you chose, and "
            "see what changed." if path is not None else
            "This is the copy of the table kept in the project; open the original file to read it again.")

    def is_busy(self) -> bool:
        return self._load_slot.is_busy() or self._health_slot.is_busy() or self.test_choice.is_busy()

    def cancel_jobs(self) -> None:
        self._load_slot.cancel()
        self._health_slot.cancel()
        self.test_choice.cancel_jobs()

    def _load_ended(self, worker: Worker, error: BaseException | None) -> None:
        if worker is not self._load_slot.current:
            return  # replaced by a newer file: that one decides what is shown
        self.stack.setCurrentWidget(self.workspace if self.table is not None else self.welcome)
        if error is not None:
            self.errors.report(error, "Opening the file")
        else:
            self.statusMessage.emit("Opening the file was cancelled.")
        if self.table is not None and self.report is None:
            self._mapping_changed(self.mapping_panel.mapping())

    def _table_loaded(self, worker: Worker, loaded: tuple[LoadedTable, ColumnMapping]) -> None:
        if worker is not self._load_slot.current:
            return
        self._show_loaded(*loaded)

    def show_table(self, table: LoadedTable, mapping: ColumnMapping,
                   test_file: tuple[str, str | None] | None = None, fixes: CategoryFixes | None = None) -> None:
        """Show a table that is already read, with its mapping (a project's snapshot)."""
        self._load_slot.cancel()
        self._health_slot.cancel()
        self._wanted_test_file = test_file
        self._wanted_fixes = fixes
        self._show_loaded(table, mapping, watch=False)

    def _show_loaded(self, table: LoadedTable, mapping: ColumnMapping, watch: bool = True) -> None:
        self._previous_sha = self.table.sha256 if self.table is not None else None
        wanted, self._wanted_fixes = getattr(self, "_wanted_fixes", None), None
        if self.table is None or self.table.path != table.path or wanted is not None:
            self.health_view.set_category_fixes(wanted)  # fixes belong to one table (a study's own, when opened)
        self.mapping_panel.set_category_fixes(self.health_view.category_fixes())
        self.table = table
        self.report = None
        self._watch(table.path if watch else None)
        self.disk_banner.hide()
        self.changes_label.hide()
        frame = table.frame
        self.file_label.setText(table.path.name + (f"  ·  sheet “{table.sheet}”" if table.sheet and len(table.sheets) > 1 else ""))
        self.file_label.setToolTip(str(table.path))
        self.file_details.setText(table_details(table, self.test_file))
        self.sheet_combo.blockSignals(True)
        self.sheet_combo.clear()
        self.sheet_combo.addItems(table.sheets)
        if table.sheet:
            self.sheet_combo.setCurrentText(table.sheet)
        self.sheet_combo.blockSignals(False)
        several = len(table.sheets) > 1
        self.sheet_label.setVisible(several)
        self.sheet_combo.setVisible(several)
        self.notices.setText("\n".join(table.notices))
        self.notices.setVisible(bool(table.notices))
        self.frame_model.set_frame(frame)
        self.show_rows(None)
        self.mapping_panel.set_table(frame, mapping)
        self.stack.setCurrentWidget(self.workspace)
        self.tabs.setCurrentIndex(0)
        self.tableLoaded.emit(table)
        wanted, self._wanted_test_file = self._wanted_test_file, None
        if wanted is not None:
            self.test_choice.set_file(wanted, lambda error: self.errors.report(error, "Reading the test file"))
        elif self.test_choice.file is not None:
            self.test_choice.remove()
        self.statusMessage.emit(f"Read {len(frame):,} rows from {table.path.name}.")
        self._mapping_changed(mapping)

    def _sheet_chosen(self, index: int) -> None:
        if self.table is not None and self.sheet_combo.itemText(index) != self.table.sheet:
            self.open_path(self.table.path, self.sheet_combo.itemText(index), test_file=self.test_file)

    # -- mapping and health -----------------------------------------------------------------------
    def mapping(self) -> ColumnMapping:
        return self.mapping_panel.mapping()

    def table_frame(self) -> pd.DataFrame | None:
        """The loaded table as read (never modified), or None before one is open."""
        return self.table.frame if self.table is not None else None

    def health_report(self) -> HealthReport | None:
        """The report for the current mapping, or None while it is being made (or failed)."""
        return self.report

    def _test_file_changed(self) -> None:
        self.test_file = self.test_choice.file
        if self.table is not None:
            self.file_details.setText(table_details(self.table, self.test_file))
        self.testFileChanged.emit()

    def test_count(self) -> int | None:
        """Coded texts in the separate test file (None without one, or while it is read)."""
        return self.test_choice.count if self.test_file is not None else None

    def data_spec(self) -> DataSpec | None:
        if self.table is None:
            return None
        spec = DataSpec(str(self.table.path), self.table.sheet, self.table.sha256, self._checked_mapping(),
                        rows=len(self.table.frame))
        if self.report is not None and (spec.mapping.category_column or spec.mapping.category_columns):
            spec.categories = sorted(category.label for category in self.report.categories)
        if self.test_file is not None and not spec.mapping.split_column:
            spec.test_source, spec.test_sheet = self.test_file
        spec.category_fixes = self.health_view.category_fixes()  # the check's one-click fixes
        return spec

    def _mapping_changed(self, mapping: ColumnMapping) -> None:
        if self.table is None:
            return
        self._table_tab.show_roles(self.table.frame, mapping)
        self.mapping_message.hide()
        self._check_health(mapping)

    def _check_health(self, mapping: ColumnMapping) -> None:
        """Start the data check of the table (with the codings made in TextLab) under ``mapping``."""
        self.report = None  # the report on screen stays until the new one is ready
        self._codings_timer.stop()
        frame, mapping = self._checked_table(mapping)
        worker = Worker(compute_health, frame, mapping, n_folds=5, fixes=self.health_view.category_fixes(),
                        test_share=None if self.test_file is not None else 0.3, name="health report")
        worker.signals.finished.connect(lambda report, w=worker: self._report_ready(w, report))
        worker.signals.failed.connect(lambda error, w=worker: self._health_failed(w, error))
        worker.signals.done.connect(lambda w=worker: self._health_done(w))
        self.health_progress.attach(worker, "Checking your data…")
        self.health_progress.show()
        self._health_slot.start(worker)

    def _checked_mapping(self) -> ColumnMapping:
        """The column roles chosen here, with the column of the codings made in TextLab when the table has
        no category column of its own."""
        mapping = self.mapping()
        return self.session.coded_mapping(mapping) if self.session.frame is self.table_frame() else mapping

    def _checked_table(self, mapping: ColumnMapping) -> tuple[pd.DataFrame, ColumnMapping]:
        """The table the check and the study use: the file's with the codings made in TextLab (a copy)."""
        session, frame = self.session, self.table.frame
        coded = session.coded_texts_here() if session.frame is frame else 0
        self.codings_note.setVisible(bool(coded))
        if not coded:
            return frame, mapping
        self.codings_note.setText(f"The check below includes {coded:,} text{'s' if coded != 1 else ''} coded on "
                                  "the Coding step (your file is not changed)."
                                  + _team_words(session.codings))
        try:
            return session.study_table_with_codings(mapping), session.coded_mapping(mapping)
        except UserError as error:  # codings of another version of the table: say so, check the file as it is
            self.codings_note.setText(str(error))
            return frame, mapping

    def _codings_changed(self) -> None:
        if self.table is not None and self.session.frame is self.table.frame:
            self._codings_timer.start()

    def _recheck_with_codings(self) -> None:
        if self.table is not None:
            self._check_health(self.mapping())

    def _report_ready(self, worker: Worker, report: HealthReport) -> None:
        if worker is not self._health_slot.current:
            return  # a newer mapping has replaced this job
        self.report = report
        self.health_view.set_report(report)
        self.reportReady.emit(report)
        self.statusMessage.emit(report.verdict_text)

    def _health_failed(self, worker: Worker, error: BaseException) -> None:
        if worker is not self._health_slot.current:
            return
        self.report = None
        self.health_view.set_report(None)
        # The mapping cannot be applied (no text column, a column in two roles): say what to
        # change, inline. Everything else about the data is an issue inside the report.
        if isinstance(error, DataError):
            self.mapping_message.setText(f"<b>{error.message}</b><br>{error.hint}")
            self.mapping_message.show()
        else:
            self.errors.report(error, "Checking the data")

    def _health_done(self, worker: Worker) -> None:
        if self._health_slot.current is None or worker is self._health_slot.current:
            self.health_progress.hide()

    def _health_cancelled_by_user(self) -> None:
        self.statusMessage.emit("The data check was stopped. Change the mapping to check again.")

    # -- rows ---------------------------------------------------------------------------------------
    def show_rows(self, rows: list[int] | None) -> None:
        """Show only ``rows`` (table positions) in the Table tab, or every row for None."""
        self._table_tab.show_rows(rows)
        if rows is not None:
            self.tabs.setCurrentIndex(1)
            self.table_view.scrollToTop()


def _team_words(log) -> str:  # noqa: ANN001 — a CodingLog
    """A team's codings in words (which rule gave how many texts), after a space; empty without a team."""
    from guiapp.core.coding.team_codings_words import team_codings_words

    words = team_codings_words(log)
    return f" {words}" if words else ""
