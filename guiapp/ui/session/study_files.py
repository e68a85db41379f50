"""The window's files: tables, study files, projects and results folders opened into the study
session, studies and projects saved from it, and the list of recent files.

Everything here fills or reads the :class:`StudySession`; the steps follow the session, so this
module never looks inside a step.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, QSettings, Qt, Signal
from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from guiapp import APP_NAME
from guiapp.core.locations import example_path
from guiapp.core.project.format import SUFFIX as PROJECT_SUFFIX
from guiapp.core.project.format import Project
from guiapp.core.study.spec import DataSpec, ExperimentSpec, SpecError
from guiapp.core.tables.reader import LoadedTable
from guiapp.ui.session.data_checks import data_changed_text, data_path_stem
from guiapp.ui.session.project_files import PROJECT_FILTER, ProjectSession, extraction_folder
from guiapp.ui.session.study_session import StudySession
from guiapp.ui.common.step_order import DATA_STEP, RESULTS_STEP, RUN_STEP, STEPS, step_of
from guiapp.ui.common.open_table_dialog import TABLE_KINDS_FILTER, ask_table_path
from guiapp.ui.common.save_dialogs import ask_save_path
from guiapp.workers import ErrorSink

STUDY_FILTER = "Study files (*.toml *.json)"
MAX_RECENT = 8


def show_information(parent: QWidget, title: str, text: str) -> QMessageBox:
    """Say something without blocking (the box closes itself)."""
    box = QMessageBox(QMessageBox.Icon.Information, title, text, QMessageBox.StandardButton.Ok, parent)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.open()
    return box


def show_data_changed(parent: QWidget, title: str, text: str) -> QMessageBox:
    """Say (without blocking) that a study's data file changed since the study was saved."""
    return show_information(parent, title, text)


class StudyFiles(QObject):
    """Opening and saving for the window: every file ends up in (or comes from) the session."""

    titleChanged = Signal(str)  # the window's title
    recentChanged = Signal(list)  # the recent files, newest first

    def __init__(self, session: StudySession, errors: ErrorSink, window: QWidget, current_step) -> None:  # noqa: ANN001
        super().__init__(window)
        self.session = session
        self.errors = errors
        self.window = window
        self.settings = QSettings()
        self._current_step = current_step  # () -> the step shown, kept in projects
        self._study_check: tuple[str, DataSpec] | None = None  # (study file name, its data part) until checked
        self.ask_before_closing = True  # "save the project?" when work is unsaved (tests turn it off)
        self.project = ProjectSession(
            lambda: session.capture_project(
                {"step": self._current_step(), "step_name": STEPS[self._current_step()][0]}), errors, window)
        self.project.statusMessage.connect(session.say)
        self.project.opened.connect(self._project_opened)
        self.project.resultsOpened.connect(self._results_folder_opened)
        self.project.saved.connect(self._project_saved)
        session.tableChanged.connect(self._table_shown)
        session.codingsEdited.connect(lambda: self.project.mark_changed(autosave_now=True))  # a crash loses no coding
        session.codebookEdited.connect(self.project.mark_changed)
        session.dataChanged.connect(self._check_study_data)

    # -- opening tables ---------------------------------------------------------------------------------
    def _start_folder(self) -> str:
        return str(self.settings.value("last_folder", str(Path.home())))

    def choose_file(self) -> None:
        path = ask_table_path(self.window, "Open a spreadsheet with coded texts", self._start_folder(),
                              TABLE_KINDS_FILTER)
        if path is not None:
            self.open_path(path)

    def open_example(self) -> None:
        path = example_path()
        if not path.is_file():
            self.errors.report(FileNotFoundError(str(path)), "Opening the example")
            return
        self.open_path(path)

    def open_path(self, path: Path) -> None:
        """Open a table of coded texts on the Data step, a project file, or a results folder."""
        if path.suffix.lower() == PROJECT_SUFFIX:
            self.project.open(path)
            return
        if path.is_dir():  # a results folder; any other folder gets a message saying what to choose
            self.project.open_results(path)
            return
        self.project.path = None  # a new table starts a new study
        self.session.go_to(DATA_STEP)
        self.session.open_file(path)

    def _table_shown(self, table: LoadedTable) -> None:
        self._start_study_check(table)
        self.titleChanged.emit(f"{table.path.name} — {APP_NAME}")
        self.project.mark_changed()
        if table.path.resolve() != example_path().resolve():
            self.settings.setValue("last_folder", str(table.path.parent))
            self.remember(str(table.path))

    # -- study files ------------------------------------------------------------------------------------
    def choose_study(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self.window, "Open a study", str(Path.home()), STUDY_FILTER)
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
        if self.session.has_result and not self.session.result_is_of_study(spec, source):
            self.session.clear_result()  # results belong to their study
        self._study_check = (source.name, spec.data) if spec.data.sha256 else None
        self.session.go_to(DATA_STEP)
        self.session.open_file(source, spec.data.sheet, spec.data.mapping,
                               (str(test), spec.data.test_sheet) if test else None, spec.data.category_fixes)
        notes = self.session.load_spec(spec)
        self.session.where.set_cluster(spec.cluster)  # a study file's scheduler is preselected
        self.session.cluster = spec.cluster
        self.session.say(f"Opened the study {path.name}: {len(spec.models)} models.")
        if notes:
            self.study_notes_box = show_information(self.window, "Opening the study", notes)

    def save_spec(self) -> None:
        spec = self.session.study_spec()
        if spec is None:
            return
        path, _ = ask_save_path(self.window, "Save study", data_path_stem(spec.data.source).name + ".textlab.toml",
                                STUDY_FILTER, protected=[spec.data.source, spec.data.test_source])
        if path:
            try:
                spec.save(path)
            except OSError as error:
                self.errors.report(error, "Saving the study")
            else:
                self.session.say(f"Saved {path}")

    def prepare_for_cluster(self) -> None:
        """File → Prepare for a cluster…: the dialog that writes a folder to run the study on SLURM."""
        from guiapp.ui.common.cluster_folder_dialog import ClusterFolderDialog

        spec = self.session.study_spec()
        if spec is None:
            return
        spec.cluster = self.session.cluster
        dialog = ClusterFolderDialog(spec, table=self.session.frame, parent=self.window)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.cluster_folder_dialog = dialog
        dialog.open()

    def _start_study_check(self, table: LoadedTable) -> None:
        """An opened study's table is read: if it is not the one the study was saved with, say so
        (once its categories are known, from the health report, when the study recorded them)."""
        if self._study_check is None:
            return
        name, recorded = self._study_check
        if not table.sha256 or table.sha256 == recorded.sha256 or table.path.name != name:
            self._study_check = None
            return
        if recorded.categories is None or not self.session.mapping.category_column:
            self._study_check = None
            self.data_changed_box = show_data_changed(
                self.window, "The study's data file changed", data_changed_text(name, recorded, len(table.frame), None))

    def _check_study_data(self) -> None:
        report, table = self.session.report, self.session.table
        if self._study_check is None or table is None or report is None:
            return
        name, recorded = self._study_check
        self._study_check = None
        categories = sorted(category.label for category in report.categories)
        self.data_changed_box = show_data_changed(
            self.window, "The study's data file changed",
            data_changed_text(name, recorded, len(table.frame), categories))

    # -- projects and results folders -------------------------------------------------------------------
    def choose_project(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self.window, "Open a TextLab project", self._start_folder(),
                                              PROJECT_FILTER)
        if path:
            self.project.open(Path(path))

    def choose_results_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self.window, "Open a results folder (it holds results.json)",
                                                  self._start_folder())
        if folder:
            self.project.open_results(Path(folder))

    def save_project(self) -> None:
        if self.project.path is None:
            self.save_project_as()
        else:
            self.project.save(self.project.path)

    def save_project_as(self) -> None:
        if self.session.table is None:
            return
        path = self._ask_project_path(self.session.table)
        if path:
            self.project.save(path)

    def _project_saved(self, path: Path) -> None:
        self.titleChanged.emit(f"{path.name} — {APP_NAME}")
        self.remember(str(path))

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
            self.titleChanged.emit(f"{path.name} — {APP_NAME}")
            self.remember(str(path))
        else:
            self.titleChanged.emit(f"{spec.name or 'Recovered study'} (recovered) — {APP_NAME}")
        self.session.say(f"Opened {where}.")

    def _results_folder_opened(self, project: Project, folder: Path) -> None:
        """Show a results folder like an opened project, on the Results step; its table is the file
        found beside it, read as it is."""
        spec = project.spec
        source = Path(spec.data.source)
        table = LoadedTable(
            frame=project.table, path=source, file_format=source.suffix.lstrip(".") or "table",
            sheet=spec.data.sheet, sheets=[], sha256=project.source_sha256,
            notices=[f"The table of the results in “{folder.name}”, read from {source}."],
        )
        test_file = (spec.data.test_source, spec.data.test_sheet) if spec.data.test_source else None
        self._show_project(project, table, test_file)
        self.session.go_to(RESULTS_STEP)
        self.titleChanged.emit(f"{folder.name} (results of “{spec.name or source.stem}”) — {APP_NAME}")
        self.settings.setValue("last_folder", str(folder.parent))
        self.remember(str(folder))
        models = len(project.model_folders)
        self.session.say(f"Opened the results in {folder.name}: {models} trained model{'s' if models != 1 else ''}. "
                         "Save project… keeps them in one file.")

    def _show_project(self, project: Project, table: LoadedTable, test_file: tuple[str, str | None] | None) -> None:
        self.session.restore(project, table, test_file)
        step = step_of(project.ui_state)
        if step is not None and step != RUN_STEP:
            self.session.go_to(step)

    # -- closing ----------------------------------------------------------------------------------------
    def may_close(self) -> bool:
        """Ask to save unsaved work; False when the user cancels or the save did not work."""
        if not self.ask_before_closing or not self.project.dirty or self.session.table is None:
            return True
        answer = QMessageBox.question(
            self.window, "Save the project?",
            "Your study has changes that are not saved in a project file.\n\n"
            "Save them before closing? Otherwise they are lost when TextLab closes.",
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Save,
        )
        if answer == QMessageBox.StandardButton.Cancel:
            return False
        if answer == QMessageBox.StandardButton.Discard:
            return True
        if self.project.path:
            return self.project.save_and_wait(self.project.path)
        path = self._ask_project_path(self.session.table)
        return bool(path) and self.project.save_and_wait(path)

    def _ask_project_path(self, table: LoadedTable) -> Path | None:
        """The project's file, asked in a save dialog (its own name and folder once it has one)."""
        current = self.project.path
        name = current.name if current else data_path_stem(str(table.path)).name + PROJECT_SUFFIX
        path, _ = ask_save_path(self.window, "Save the project", name, PROJECT_FILTER, protected=[table.path],
                                folder=current.parent if current else None)
        return path

    # -- recent files -----------------------------------------------------------------------------------
    def recent(self) -> list[str]:
        value = self.settings.value("recent_files", [])
        paths = [value] if isinstance(value, str) else list(value or [])
        return [p for p in paths if Path(p).exists()][:MAX_RECENT]

    def remember(self, path: str) -> None:
        paths = [path] + [p for p in self.recent() if p != path]
        self.settings.setValue("recent_files", paths[:MAX_RECENT])
        self.recentChanged.emit(self.recent())
