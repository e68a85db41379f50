"""The main window: the steps of a study on the left, the current step's page on the right."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings, QSize, Qt
from PySide6.QtGui import QAction, QCloseEvent, QDragEnterEvent, QDropEvent, QKeySequence
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

from guiapp import APP_NAME, __version__
from guiapp.core.data import SUPPORTED_SUFFIXES
from guiapp.core.spec import ExperimentSpec
from guiapp.paths import example_path
from guiapp.ui.pages.data_page import DataPage
from guiapp.workers import ErrorSink, registry

OPEN_FILTER = (
    "Tables (*.xlsx *.xlsm *.xls *.xlsb *.ods *.csv *.tsv *.txt *.tab *.parquet *.pq *.gz);;"
    "Excel (*.xlsx *.xlsm *.xls *.xlsb);;OpenDocument (*.ods);;CSV and text (*.csv *.tsv *.txt *.tab *.gz);;"
    "Parquet (*.parquet *.pq);;All files (*)"
)
MAX_RECENT = 8


def is_supported(path: Path) -> bool:
    name = path.name.lower().removesuffix(".gz")
    return any(name.endswith(suffix) for suffix in SUPPORTED_SUFFIXES)


class StepList(QListWidget):
    """The steps of a study. Only steps that exist in this version are listed."""

    def __init__(self) -> None:
        super().__init__(objectName="stepList")
        self.setFixedWidth(190)
        self.setSpacing(2)
        self.setStyleSheet(
            "QListWidget { background: #f3f5f8; border: none; font-size: 14px; padding-top: 8px; }"
            "QListWidget::item { padding: 10px 12px; border-radius: 6px; }"
            "QListWidget::item:selected { background: #dbe7f7; color: #0b3d91; }"
        )

    def add_step(self, number: int, title: str, tip: str) -> None:
        item = QListWidgetItem(f"{number}   {title}")
        item.setToolTip(tip)
        self.addItem(item)


class MainWindow(QMainWindow):
    def __init__(self) -> None:
        super().__init__()
        self.setWindowTitle(APP_NAME)
        self.resize(1280, 820)
        self.setMinimumSize(QSize(900, 600))
        self.setAcceptDrops(True)
        self.errors = ErrorSink(self)
        self.settings = QSettings()

        self.data_page = DataPage(self.errors)
        self.data_page.statusMessage.connect(lambda text: self.statusBar().showMessage(text, 8000))
        self.data_page.tableLoaded.connect(self._table_loaded)
        self.data_page.welcome.openRequested.connect(self.choose_file)
        self.data_page.welcome.exampleRequested.connect(self.open_example)
        self.data_page.welcome.recentRequested.connect(lambda path: self.open_path(Path(path)))
        self.data_page.other_button.clicked.connect(self.choose_file)

        self.steps = StepList()
        self.pages = QStackedWidget()
        self._add_step("Data", "Open your coded texts, tell TextLab which column is which, and check the data.", self.data_page)
        self.steps.currentRowChanged.connect(self.pages.setCurrentIndex)
        self.steps.setCurrentRow(0)

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
        self.save_spec_action = QAction("Save data settings as…", self)
        self.save_spec_action.setToolTip("Save the file, sheet and column roles as a study file the command line can use")
        self.save_spec_action.setEnabled(False)
        self.save_spec_action.triggered.connect(self.save_spec)
        quit_action = QAction("&Quit", self)
        quit_action.setShortcut(QKeySequence.StandardKey.Quit)
        quit_action.triggered.connect(self.close)

        file_menu = self.menuBar().addMenu("&File")
        file_menu.addAction(self.open_action)
        file_menu.addAction(self.example_action)
        self.recent_menu = file_menu.addMenu("Open &recent")
        file_menu.addSeparator()
        file_menu.addAction(self.save_spec_action)
        file_menu.addSeparator()
        file_menu.addAction(quit_action)
        help_menu = self.menuBar().addMenu("&Help")
        about = QAction(f"About {APP_NAME}", self)
        about.triggered.connect(self.show_about)
        about_example = QAction("About the example data", self)
        about_example.triggered.connect(self.show_about_example)
        help_menu.addAction(about)
        help_menu.addAction(about_example)

        toolbar = QToolBar("Main", objectName="mainToolbar")
        toolbar.setMovable(False)
        toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        toolbar.addAction(self.open_action)
        toolbar.addAction(self.example_action)
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
        self.steps.setCurrentRow(0)
        self.data_page.open_path(path)

    def _table_loaded(self, table) -> None:
        self.setWindowTitle(f"{table.path.name} — {APP_NAME}")
        self.save_spec_action.setEnabled(True)
        if table.path.resolve() != example_path().resolve():
            self.settings.setValue("last_folder", str(table.path.parent))
            self._remember(str(table.path))

    def save_spec(self) -> None:
        data = self.data_page.data_spec()
        if data is None:
            return
        suggested = str(data_path_stem(data.source)) + ".textlab.toml"
        path, _ = QFileDialog.getSaveFileName(self, "Save data settings", suggested, "Study settings (*.toml *.json)")
        if path:
            try:
                ExperimentSpec(data=data, name=Path(data.source).stem).save(path)
            except OSError as error:
                self.errors.report(error, "Saving the settings")
            else:
                self.statusBar().showMessage(f"Saved {path}", 8000)

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
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802
        urls = event.mimeData().urls()
        if urls and urls[0].isLocalFile():
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802
        urls = [url for url in event.mimeData().urls() if url.isLocalFile()]
        if not urls:
            return
        event.acceptProposedAction()
        path = Path(urls[0].toLocalFile())
        self.open_path(path)  # unsupported files get a clear message from the reader

    # -- help -----------------------------------------------------------------------------------------
    def show_about(self) -> None:
        QMessageBox.about(
            self,
            f"About {APP_NAME}",
            f"<h3>{APP_NAME} {__version__}</h3>"
            "<p>Find out which machine-learning model best reproduces your own coding of texts, "
            "see why it decides as it does, and use it on the rest of your corpus.</p>"
            "<p>Everything runs on this computer; your texts are never uploaded.</p>"
            "<p>Licence: GNU GPL v3 or later.</p>",
        )

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

    # -- closing --------------------------------------------------------------------------------------
    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802
        self.data_page.cancel_jobs()
        registry.cancel_all(wait_ms=5000)
        super().closeEvent(event)


def data_path_stem(source: str) -> Path:
    path = Path(source)
    return path.with_name(path.name.split(".")[0])
