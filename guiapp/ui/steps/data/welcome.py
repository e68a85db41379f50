"""The first thing a researcher sees: what to do, and the buttons to do it."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QWidget,
)

from guiapp.ui import theme
from guiapp.ui.common.layouts import STRETCH, vbox

FORMATS_TEXT = "Excel (.xlsx, .xlsm, .xls), OpenDocument (.ods), CSV, TSV or text files, Parquet"


class WelcomePanel(QWidget):
    openRequested = Signal()
    exampleRequested = Signal()
    recentRequested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        title = QLabel("Start with your coded texts", objectName="welcomeTitle")
        title.setStyleSheet(theme.heading_style(22))
        intro = QLabel(
            "Open a spreadsheet with one text per row and a column with the categories you coded "
            "by hand (a stance, a policy topic, toxic or not). TextLab checks whether the data are "
            "ready and then finds out which model reproduces your coding best.",
            objectName="welcomeIntro",
        )
        intro.setWordWrap(True)
        self.open_button = QPushButton("Open a spreadsheet…", objectName="welcomeOpen")
        self.open_button.setDefault(True)
        self.example_button = QPushButton("Open the example study", objectName="welcomeExample")
        self.example_button.setToolTip("4,449 US Congress bill titles, each coded by hand with one of 20 policy topics.")
        for button in (self.open_button, self.example_button):
            button.setMinimumHeight(38)
            button.setStyleSheet("font-size: 14px; padding: 4px 18px;")
        self.open_button.clicked.connect(self.openRequested)
        self.example_button.clicked.connect(self.exampleRequested)
        buttons = QHBoxLayout()
        buttons.addWidget(self.open_button)
        buttons.addWidget(self.example_button)
        buttons.addStretch(1)
        drop = QLabel(f"…or drag a file onto this window.  Formats: {FORMATS_TEXT}.", objectName="welcomeFormats")
        drop.setWordWrap(True)
        drop.setStyleSheet(theme.NOTE_STYLE)
        privacy = QLabel("Your texts stay on this computer: TextLab works offline and never uploads them.")
        privacy.setStyleSheet(theme.text_style(theme.GOOD))
        self.recent_label = QLabel("Recently opened")
        self.recent_label.setStyleSheet(f"{theme.BOLD_STYLE} margin-top: 12px;")
        self.recent = QListWidget(objectName="welcomeRecent")
        self.recent.setMaximumHeight(160)
        self.recent.itemActivated.connect(lambda item: self.recentRequested.emit(item.data(Qt.ItemDataRole.UserRole)))
        self.recent.itemClicked.connect(lambda item: self.recentRequested.emit(item.data(Qt.ItemDataRole.UserRole)))

        column = vbox(None, title, intro, 12, buttons, drop, privacy, self.recent_label, self.recent, STRETCH)
        box = QWidget()
        box.setLayout(column)
        box.setMaximumWidth(720)
        outer = QHBoxLayout(self)
        outer.addStretch(1)
        outer.addWidget(box, 4)
        outer.addStretch(1)
        outer.setContentsMargins(24, 48, 24, 24)
        self.set_recent([])

    def set_recent(self, paths: list[str]) -> None:
        self.recent.clear()
        for path in paths:
            item = QListWidgetItem(f"{Path(path).name}   —   {Path(path).parent}")
            item.setData(Qt.ItemDataRole.UserRole, path)
            item.setToolTip(path)
            self.recent.addItem(item)
        self.recent_label.setVisible(bool(paths))
        self.recent.setVisible(bool(paths))
