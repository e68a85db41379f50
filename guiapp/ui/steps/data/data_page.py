"""Step 1, Data: open a table, map its columns, read the data-health report."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QFileSystemWatcher, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from guiapp.core.errors import DataError, UserError
from guiapp.core.events import EventCallback, ignore_events
from guiapp.core.health.findings import HealthReport
from guiapp.core.health.report import compute_health
from guiapp.core.study.mapping import ColumnMapping, check_mapping, suggest_mapping
from guiapp.core.study.spec import DataSpec
from guiapp.core.study.table_changes import TableChanges, compare_tables, keep_mapping
from guiapp.core.tables.reader import LoadedTable, read_table
from guiapp.core.tables.text_sniffing import describe_encoding
from guiapp.ui import theme
from guiapp.ui.common.frame_model import DataFrameModel
from guiapp.ui.steps.data.health_view import HealthReportView
from guiapp.ui.steps.data.heldout_file_choice import HeldOutFileChoice
from guiapp.ui.common.job_progress import JobProgress
from guiapp.ui.common.layouts import hbox
from guiapp.ui.steps.data.mapping_panel import MappingPanel
from guiapp.ui.steps.data.row_subset import RowSubsetModel
from guiapp.ui.common.scroll_area import ScrollArea
from guiapp.ui.steps.data.welcome import WelcomePanel
from guiapp.ui.session.study_session import StudySession
from guiapp.workers import ErrorSink, Worker, WorkerSlot

if TYPE_CHECKING:  # pandas loads with the first table, not when the window opens
    import pandas as pd

    from guiapp.core.study.category_fixes import CategoryFixes

FORMAT_NAMES = {
    "xlsx": "Excel workbook", "xlsm": "Excel workbook with macros", "xls": "Excel 97–2003 workbook",
    "xlsb": "Excel binary workbook", "ods": "OpenDocument spreadsheet", "csv": "CSV file",
    "tsv": "tab-separated file", "txt": "text file", "parquet": "Parquet file",
}
DELIMITER_NAMES = {",": "commas", ";": "semicolons", "\t": "tabs", "|": "vertical bars"}


def read_and_suggest(
    path: Path, sheet: str | None = None, wanted: ColumnMapping | None = None, on_event: EventCallback = ignore_events
) -> tuple[LoadedTable, ColumnMapping]:
    """Read a table and guess its column roles, both off the GUI thread. ``wanted`` (the mapping
    of an opened study) is used when its columns are in the table; otherwise the guess is."""
    table = read_table(path, sheet=sheet, on_event=on_event)
    if wanted is not None:
        try:
            check_mapping(table.frame, wanted)
        except DataError as error:
            table.notices.append(f"The study's column roles do not fit this table ({error.message}); TextLab guessed them again.")
        else:
            return table, wanted
    return table, suggest_mapping(table.frame)


def read_again(
    path: Path, sheet: str | None, mapping: ColumnMapping, before: pd.DataFrame, on_event: EventCallback = ignore_events
) -> tuple[LoadedTable, ColumnMapping, TableChanges]:
    """Read a table again (Reload), keeping every column role whose column is still there, and
    say what changed since ``before`` (the version on screen). Off the GUI thread."""
    table = read_table(path, sheet=sheet, on_event=on_event)
    kept, lost = keep_mapping(mapping, table.frame.columns)
    # a column that lists several categories per cell is not compared as single categories
    changes = compare_tables(before, table.frame, None if kept.multi_label else kept.category_column)
    changes.lost_roles = lost
    return table, kept, changes


FileSignature = tuple[int, int] | None  # (modification time in ns, size); None = the file is gone


def file_signature(path: Path) -> FileSignature:
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return stat.st_mtime_ns, stat.st_size


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
        # Noticing that the file changed on disk: a watcher, and a check when the window is activated.
        self.watcher = QFileSystemWatcher(self)
        self.watcher.fileChanged.connect(self._file_touched)
        self._watched: Path | None = None
        self._signature: FileSignature = None  # of the version on screen (or the one the user chose to keep)
        self._reading_signature: FileSignature = None  # taken when the reading started
        self._check_timer = QTimer(self, singleShot=True, interval=300)  # editors write in several steps
        self._check_timer.timeout.connect(self.check_file_on_disk)
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

        self.disk_banner = self._build_disk_banner()
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
        table_tab = QWidget()
        self.frame_model = DataFrameModel()
        self.rows_model = RowSubsetModel()
        self.rows_model.setSourceModel(self.frame_model)
        self.table_view = QTableView(objectName="tableView")
        self.table_view.setModel(self.rows_model)
        self.table_view.setWordWrap(False)
        self.table_view.verticalHeader().setDefaultSectionSize(24)
        self.table_view.horizontalHeader().setDefaultSectionSize(160)
        self.subset_label = QLabel("", objectName="subsetLabel")
        self.show_all_button = QPushButton("Show all rows", objectName="showAllRows")
        self.show_all_button.clicked.connect(lambda: self.show_rows(None))
        banner = QHBoxLayout()
        banner.addWidget(self.subset_label, 1)
        banner.addWidget(self.show_all_button)
        self.subset_banner = QWidget()
        self.subset_banner.setLayout(banner)
        self.subset_banner.setStyleSheet(f"background: {theme.NEWS_BACKGROUND};")
        table_column = QVBoxLayout(table_tab)
        table_column.setContentsMargins(0, 0, 0, 0)
        table_column.addWidget(self.subset_banner)
        table_column.addWidget(self.table_view, 1)

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

    def _build_disk_banner(self) -> QFrame:
        banner = QFrame(objectName="diskBanner")
        banner.setStyleSheet(f"#diskBanner {{ {theme.notice_style('disk', '')} }}")
        self.disk_label = QLabel("", objectName="diskLabel")
        self.disk_label.setWordWrap(True)
        self.banner_reload = QPushButton("Reload", objectName="bannerReload")
        self.banner_reload.setToolTip("Read the file as it is now, keeping your column roles.")
        self.banner_reload.clicked.connect(self.reload)
        self.banner_keep = QPushButton("Keep this version", objectName="bannerKeep")
        self.banner_keep.setToolTip("Go on with the table as it was read; the file on disk is not read.")
        self.banner_keep.clicked.connect(self.keep_this_version)
        hbox(banner, (self.disk_label, 1), self.banner_reload, self.banner_keep, margins=(8, 4, 8, 4))
        banner.hide()
        return banner

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
        return self.table is not None and self._watched is not None and not self._load_slot.is_busy()

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
        if self._watched is not None:
            self._signature = file_signature(self._watched)
            self._rewatch()
        self.disk_banner.hide()
        self.statusMessage.emit("Kept the version of the file that was read; the file on disk was not read.")

    def check_file_on_disk(self) -> bool:
        """Show the banner when the file on screen changed on disk since it was read (never reloads)."""
        path = self._watched
        if path is None or self.table is None or self._load_slot.is_busy():
            return False
        now = file_signature(path)
        self._rewatch()
        if now == self._signature:
            return False
        if now is None:
            self.disk_label.setText(f"<b>{path.name} was moved or deleted</b> since it was loaded. TextLab goes on with "
                                    "the table as it was read.")
        else:
            self.disk_label.setText(f"<b>The file changed on disk</b> since it was loaded ({path.name}). Reload it to use "
                                    "the new version (your column roles are kept), or keep this version.")
        self.banner_reload.setVisible(now is not None)
        self.disk_banner.show()
        return True

    def _file_touched(self, _path: str) -> None:
        self._check_timer.start()

    def _rewatch(self) -> None:
        """Editors replace a file (write a new one, rename it over): the watch must be set again."""
        if self._watched is not None and str(self._watched) not in self.watcher.files() and self._watched.exists():
            self.watcher.addPath(str(self._watched))

    def _watch(self, path: Path | None) -> None:
        if self.watcher.files():
            self.watcher.removePaths(self.watcher.files())
        self._watched = path
        self._signature = self._reading_signature if path is not None else None
        self._rewatch()
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
        self.file_details.setText(self._details_text(table))
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

    def _details_text(self, table: LoadedTable) -> str:
        rows, columns = table.frame.shape
        parts = [f"{rows:,} rows", f"{columns} columns", FORMAT_NAMES.get(table.file_format, table.file_format)]
        if self.test_file is not None:
            parts.append(f"test texts from {Path(self.test_file[0]).name} (set in the study file)")
        if table.delimiter:
            parts.append(f"values separated by {DELIMITER_NAMES.get(table.delimiter, repr(table.delimiter))}")
        if table.encoding:
            parts.append(f"encoding {describe_encoding(table.encoding)}")
        return "  ·  ".join(parts)

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
            self.file_details.setText(self._details_text(self.table))
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
        roles = _roles(mapping)
        self.frame_model.set_column_roles(roles)
        for position, column in enumerate(self.table.frame.columns):
            self.table_view.setColumnWidth(position, 520 if roles.get(str(column)) == "text" else 140)
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
        if mapping.multi_label:  # codings made in TextLab give one category per text: not part of this study
            return mapping
        return self.session.coded_mapping(mapping) if self.session.frame is self.table_frame() else mapping

    def _checked_table(self, mapping: ColumnMapping) -> tuple[pd.DataFrame, ColumnMapping]:
        """The table the check and the study use: the file's with the codings made in TextLab (a copy)."""
        session, frame = self.session, self.table.frame
        coded = session.coded_texts_here() if session.frame is frame else 0
        self.codings_note.setVisible(bool(coded))
        if not coded:
            return frame, mapping
        if mapping.multi_label:
            self.codings_note.setText(f"The {coded:,} text{'s' if coded != 1 else ''} coded on the Coding step "
                                      f"{'are' if coded != 1 else 'is'} not part of this check: the Coding step gives one "
                                      "category per text, and here a text can have several.")
            return frame, mapping
        self.codings_note.setText(f"The check below includes {coded:,} text{'s' if coded != 1 else ''} coded on "
                                  "the Coding step (your file is not changed).")
        try:
            return session.study_table_with_codings(mapping), session.coded_mapping(mapping)
        except UserError as error:  # codings of another version of the table: say so, check the file as it is
            self.codings_note.setText(str(error))
            return frame, mapping

    def _codings_changed(self) -> None:
        if self.mapping().multi_label:  # the Coding step's codings are not part of such a study
            return
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
        self.rows_model.set_rows(rows)
        self.subset_banner.setVisible(rows is not None)
        if rows is not None:
            self.subset_label.setText(f"Showing {len(rows):,} rows picked in the data-health report.")
            self.tabs.setCurrentIndex(1)
            self.table_view.scrollToTop()


def _roles(mapping: ColumnMapping) -> dict[str, str]:
    roles = {column: "text" for column in mapping.text_columns}
    roles.update({column: "metadata" for column in mapping.metadata_columns})
    roles.update({column: "category" for column in mapping.category_columns})
    for column, role in ((mapping.category_column, "category"), (mapping.id_column, "ID"), (mapping.split_column, "split")):
        if column:
            roles[column] = role
    return roles
