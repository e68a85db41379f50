"""The window's menu and toolbar actions, declared as data: what each says, where it sits, what it
calls and when it can be used."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow, QMenu, QStyle, QToolBar

from guiapp import APP_NAME
from guiapp.core.project.format import SUFFIX as PROJECT_SUFFIX

SEPARATOR = "-"
RECENT_MENU = "recent"


@dataclass(frozen=True)
class ActionSpec:
    name: str  # the window's attribute, e.g. "open_action"
    text: str
    calls: str  # the name of the window's method it calls
    menu: str  # "File" or "Help"
    tip: str = ""
    shortcut: QKeySequence.StandardKey | None = None
    icon: QStyle.StandardPixmap | None = None
    toolbar: bool = False
    needs: str = ""  # "" (always usable), "table" (a table is open) or "models" (trained models can predict)
    tip_until_usable: str = ""  # the tooltip while it cannot be used


Pixmap = QStyle.StandardPixmap
Key = QKeySequence.StandardKey

ACTIONS: tuple[ActionSpec | str, ...] = (
    ActionSpec("open_action", "&Open…", "choose_file", "File", "Open a spreadsheet with your coded texts (Ctrl+O)",
               Key.Open, Pixmap.SP_DialogOpenButton, toolbar=True),
    ActionSpec("example_action", "Open &example", "open_example", "File",
               "Open the example study: US Congress bills coded by policy topic",
               icon=Pixmap.SP_FileDialogInfoView, toolbar=True),
    ActionSpec("open_project_action", "Open &project…", "choose_project", "File",
               f"Open a TextLab project ({PROJECT_SUFFIX}): the data, the study, its results and trained models"),
    ActionSpec("open_results_action", "Open &results folder…", "choose_results_folder", "File",
               "Open the results folder of a study run elsewhere (textlab run, a computing cluster): its scores, "
               "test texts and trained models; the study's table must be beside the folder"),
    RECENT_MENU,
    SEPARATOR,
    ActionSpec("save_project_action", "&Save project", "save_project", "File",
               "Keep everything in one project file: the data, the study, the results and the trained models (Ctrl+S)",
               Key.Save, Pixmap.SP_DialogSaveButton, toolbar=True, needs="table"),
    ActionSpec("save_project_as_action", "Save project &as…", "save_project_as", "File", shortcut=Key.SaveAs,
               needs="table"),
    SEPARATOR,
    ActionSpec("predict_file_action", "&Predict a file of new texts…", "choose_file_to_predict", "File",
               "Apply a trained model to a spreadsheet of texts nobody has coded yet", needs="models"),
    SEPARATOR,
    ActionSpec("open_study_action", "Open &study…", "choose_study", "File",
               "Open a saved study file (.toml/.json): its table, column roles, models and settings"),
    ActionSpec("save_spec_action", "Save study &file as…", "save_spec", "File",
               "Save the data settings, the ticked models and their settings as a study file the command line can run",
               needs="table"),
    ActionSpec("cluster_folder_action", "Prepare for a &cluster…", "prepare_for_cluster", "File",
               "Write a folder to copy to a SLURM computing cluster: the data, the study and a job script that runs "
               "it there", needs="table", tip_until_usable="Open your coded texts and choose models first."),
    ActionSpec("replication_package_action", "&Replication package…", "write_replication_package", "File",
               "Write a folder or zip a reviewer can rerun with one command: the study, data (or its fingerprint), "
               "codings, results, trained models, library versions, a report card and a README", needs="table",
               tip_until_usable="Open your coded texts and run the study first."),
    SEPARATOR,
    ActionSpec("quit_action", "&Quit", "close", "File", shortcut=Key.Quit),
    ActionSpec("about_action", f"About {APP_NAME}", "show_about", "Help"),
    ActionSpec("about_example_action", "About the example data", "show_about_example", "Help"),
    ActionSpec("self_test_action", "&Self-test…", "show_self_test", "Help",
               "Check that the bundled model, word vectors and example load and a tiny study runs"),
)


class WindowActions:
    """The actions of ``ACTIONS`` built on a window: its menus, toolbar and the File → Open recent menu."""

    def __init__(self, window: QMainWindow, handlers: Mapping[str, Callable[[], object]]) -> None:
        self.actions: dict[str, QAction] = {}
        self._specs = [spec for spec in ACTIONS if isinstance(spec, ActionSpec)]
        menus: dict[str, QMenu] = {}
        toolbar = QToolBar("Main", objectName="mainToolbar")
        toolbar.setMovable(False)
        toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        file_menu = menus["File"] = window.menuBar().addMenu("&File")
        menus["Help"] = window.menuBar().addMenu("&Help")
        for spec in ACTIONS:
            if spec == RECENT_MENU:
                self.recent_menu = file_menu.addMenu("Open &recent")
            elif spec == SEPARATOR:
                file_menu.addSeparator()
            else:
                action = self._build(window, spec, handlers[spec.calls])
                menus[spec.menu].addAction(action)
                if spec.toolbar:
                    toolbar.addAction(action)
                self.actions[spec.name] = action
                setattr(window, spec.name, action)
        window.addToolBar(toolbar)
        self.set_usable(table=False, models=False)

    @staticmethod
    def _build(window: QMainWindow, spec: ActionSpec, handler: Callable[[], object]) -> QAction:
        action = QAction(spec.text, window)
        if spec.icon is not None:
            action.setIcon(window.style().standardIcon(spec.icon))
        if spec.shortcut is not None:
            action.setShortcut(spec.shortcut)
        if spec.tip:
            action.setToolTip(spec.tip)
        action.triggered.connect(lambda _checked=False: handler())
        return action

    def set_usable(self, **conditions: bool) -> None:
        """Enable each action whose condition (``table``, ``models``) holds."""
        for spec in self._specs:
            if not spec.needs or spec.needs not in conditions:
                continue
            usable = conditions[spec.needs]
            action = self.actions[spec.name]
            action.setEnabled(usable)
            if spec.tip_until_usable:
                action.setToolTip(spec.tip if usable else spec.tip_until_usable)

    def set_recent(self, paths: list[str], open_path: Callable[[str], object]) -> None:
        self.recent_menu.clear()
        for path in paths:
            action = self.recent_menu.addAction(Path(path).name)
            action.setToolTip(path)
            action.triggered.connect(lambda _=False, p=path: open_path(p))
        self.recent_menu.setEnabled(bool(paths))
