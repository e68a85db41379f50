"""The study being worked on: one object that every step reads and writes, each part with a signal
that says it changed.

A step never reaches into another step: the Data step writes the table, its column roles and its
health report here; the Models step writes the study it builds; the Run step writes the result;
the Results, Documents and Predict steps follow. When a step wants another one to show something
(the texts of a confusion-matrix cell, a wider Transformer grid), it asks here and the step that
owns the view answers. Projects, study files and results folders fill the session the same way,
and the steps follow.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal

from guiapp.core.coding.codebook import Codebook
from guiapp.core.coding.codings import SOURCES, CodingLog
from guiapp.core.study.sections import ClusterSpec
from guiapp.core.study.spec import ColumnMapping, DataSpec, ExperimentSpec
from guiapp.ui.session.data_checks import not_ready_reason, results_note_for_table
from guiapp.ui.common.where_to_run import WhereChoice

if TYPE_CHECKING:  # pandas loads with the first table, not when the window opens
    import pandas as pd

DATA_FIELDS = ("table", "frame", "mapping", "data_spec", "report", "test_frame", "test_count")


class StudySession(QObject):
    """The table, column roles, health report, study, result, its trained models, explanations,
    learning curve, predictions and where to run — each with a change signal."""

    # what the study holds
    dataChanged = Signal()  # the table, its column roles, category fixes, test file or health report
    tableChanged = Signal(object)  # another table (a LoadedTable) was read and shown
    specChanged = Signal()  # the study as set up on the Models step
    resultChanged = Signal(object)  # an ExperimentResult, or None when the results were cleared
    resultsNoteChanged = Signal(str)  # a warning above the results ("" for none)
    learningCurveChanged = Signal(object)  # a LearningCurveResult or None
    explanationsChanged = Signal()
    predictionsChanged = Signal(object)  # the models' answers for new texts (NewTextPredictions), or None
    findingsChanged = Signal(object)  # the shares of the categories in the predicted texts (Findings), or None
    runStateChanged = Signal(str)  # "idle", "running", "stopping", "finished" …
    chosenModelChanged = Signal(str)  # the model whose details the Results step shows
    codingsChanged = Signal()  # a text was coded, skipped, flagged, or a coding undone
    codebookChanged = Signal()  # the categories' definitions and examples
    codingsEdited = Signal()  # the researcher coded, skipped, flagged or undid (not: a project was opened)
    codebookEdited = Signal()

    # what one step asks of the others
    stepWanted = Signal(int)
    fileWanted = Signal(object, object, object, object, object)  # path, sheet, mapping, test file, fixes
    tableWanted = Signal(object, object, object, object)  # a LoadedTable already read, mapping, test file, fixes
    specWanted = Signal(object)  # an ExperimentSpec whose models and settings the Models step takes over
    runWanted = Signal(object)  # an ExperimentSpec to run
    documentsWanted = Signal(object)  # a DocumentFilter for the Documents step
    cellWanted = Signal(str, object, object)  # model, your coding, the model's answer (a confusion-matrix cell)
    transformerGridWanted = Signal(dict)  # learning rates and epochs the Transformer should try
    codingCheckWanted = Signal()  # "Check my codings": the Coding step lists the codings the models doubt
    statusMessage = Signal(str)
    errorRaised = Signal(object, str)  # an error, and what was being done

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.table = None  # LoadedTable: the study's table as read (never modified)
        self.frame: pd.DataFrame | None = None
        self.mapping = ColumnMapping()
        self.data_spec: DataSpec | None = None
        self.report = None  # HealthReport for the current column roles; None while it is made
        self.test_frame: pd.DataFrame | None = None  # a separate file of test texts
        self.test_count: int | None = None  # its coded texts
        self.spec: ExperimentSpec | None = None  # the whole study as set up on the Models step
        self.spec_notes = ""  # what the Models step could not take over from an opened study, in words
        self.cluster = ClusterSpec()  # an opened study file's [cluster] (for "Prepare for a cluster…")
        self.where = WhereChoice(self)  # this computer or a Dask scheduler; both the Models and Run steps show it
        self.result = None  # ExperimentResult shown on Results, Documents and Predict
        self.model_folders: dict[str, Path] = {}  # its trained models' folders, by model name
        self.results_note = ""
        self.chosen_model = ""
        self.learning_curve = None
        self.explained_documents: list = []  # "Explain all": one explanation per test document
        self.predictions = None  # NewTextPredictions: the trained models' answers for new texts
        self.predicted_table: pd.DataFrame | None = None  # the texts they answered, as read
        self.predicted_source = ""  # the file those texts came from ("": the table's own uncoded rows)
        self.predicted_sheet: str | None = None
        self.predicted_columns: list[str] = []  # the column(s) that held the texts
        self.predictions_restored = False  # the predictions came with an opened project (not just made)
        self.kept_findings = None  # KeptFindings an opened project showed, until the Findings step measures again
        self.findings = None  # Findings of the Findings step (for the methods appendix)
        self.findings_choice: dict = {}  # what the Findings step measures: source, group, drawn per group (kept)
        self.run_state = "idle"
        self.codebook = Codebook()  # the categories with their definitions and example texts
        self.codings = CodingLog()  # every coding made in TextLab, in order (the file is never changed)
        self.coding_texts: pd.DataFrame | None = None  # a second file of texts to code, as read

    # -- the data ---------------------------------------------------------------------------------------
    def set_data(self, **changes: Any) -> None:
        """The Data step's current choice (any of ``DATA_FIELDS``); one ``dataChanged`` for them all."""
        unknown = set(changes) - set(DATA_FIELDS)
        if unknown:
            raise TypeError(f"not a part of the study's data: {', '.join(sorted(unknown))}")
        new_table = "table" in changes and changes["table"] is not self.table
        other_file = new_table and (self.table is None or changes["table"] is None
                                    or changes["table"].path != self.table.path)
        if "table" in changes and "frame" not in changes:
            changes["frame"] = changes["table"].frame if changes["table"] is not None else None
        for name, value in changes.items():
            setattr(self, name, value)
        if other_file and (len(self.codings) or self.codebook.categories or self.coding_texts is not None):
            self.set_codebook(Codebook())  # codings belong to the table they were made on
            self.set_codings(CodingLog())
        if new_table and self.table is not None:
            self._results_follow_table()
            self.tableChanged.emit(self.table)
        self.dataChanged.emit()

    def study_table(self) -> tuple[pd.DataFrame | None, ColumnMapping | None]:
        """The study's table and column roles (None, None before a table)."""
        return (self.frame, self.mapping) if self.frame is not None else (None, None)

    def study_tables(self) -> tuple[pd.DataFrame | None, ColumnMapping | None, pd.DataFrame | None]:
        """The table, its column roles and the separate test table (or None)."""
        if self.frame is None:
            return None, None, None
        return self.frame, self.mapping, self.test_frame

    def not_ready_reason(self) -> str:
        """Why the data cannot be used for a study yet ("" when it can)."""
        return not_ready_reason(self.data_spec, self.report)

    # -- the study --------------------------------------------------------------------------------------
    def set_spec(self, spec: ExperimentSpec | None) -> None:
        self.spec = spec
        self.specChanged.emit()

    def study_spec(self) -> ExperimentSpec | None:
        """The study as set up now: the Data step's choices with the Models step's models."""
        if self.spec is not None:
            return self.spec
        if self.data_spec is None:
            return None
        return ExperimentSpec(data=self.data_spec, name=Path(self.data_spec.source).name.split(".")[0])

    def set_run_state(self, state: str) -> None:
        if state != self.run_state:
            self.run_state = state
            self.runStateChanged.emit(state)

    def has_run(self) -> bool:
        return self.run_state != "idle"

    # -- the result -------------------------------------------------------------------------------------
    def set_result(self, result, folders: dict[str, Path] | None = None) -> None:  # noqa: ANN001 — ExperimentResult
        """Show ``result`` (with its trained models' folders) on every step; None clears it."""
        self.result = result
        self.model_folders = dict(folders or {}) if result is not None else {}
        self.explained_documents = []
        self.learning_curve = None
        self.chosen_model = ""
        self.predictions, self.predicted_table = None, None
        self._set_results_note("")
        self.resultChanged.emit(result)

    def clear_result(self) -> None:
        if self.result is not None or self.model_folders:
            self.set_result(None)

    @property
    def has_result(self) -> bool:
        return self.result is not None

    def model_folder(self, model) -> Path | None:  # noqa: ANN001 — a ModelResult
        return self.model_folders.get(model.name)

    def test_metadata(self) -> pd.DataFrame | None:
        """The table's other columns (party, year …), one row per test text of the result shown; None
        when the table is not there or no longer matches the result."""
        from guiapp.core.experiment.results.tested_texts import metadata_of_test_texts

        if self.result is None:
            return None
        frame, mapping, test_frame = self.study_tables()
        return metadata_of_test_texts(self.result, frame, mapping, test_frame)

    def choose_model(self, name: str) -> None:
        """The model whose details are shown (kept in projects)."""
        if name != self.chosen_model:
            self.chosen_model = name
            self.chosenModelChanged.emit(name)

    def set_learning_curve(self, curve) -> None:  # noqa: ANN001 — a LearningCurveResult
        if curve is self.learning_curve:
            return
        self.learning_curve = curve
        self.learningCurveChanged.emit(curve)

    def set_explained_documents(self, documents: list) -> None:
        self.explained_documents = list(documents)
        self.explanationsChanged.emit()

    def set_findings(self, findings) -> None:  # noqa: ANN001 — a Findings or None
        self.findings = findings
        self.findingsChanged.emit(findings)

    def set_predictions(self, predictions, table: pd.DataFrame | None, *, source: str = "",
                        sheet: str | None = None, text_columns: list[str] | tuple = (),
                        restored: bool = False) -> None:
        """The models' answers (NewTextPredictions) for the texts of ``table``, read from ``source`` (a
        file; "" for the table's own uncoded rows); None, None clears them. ``restored``: they come with
        an opened project rather than from predicting now."""
        self.predictions, self.predicted_table = predictions, table
        self.predicted_source, self.predicted_sheet, self.predicted_columns = source, sheet, list(text_columns)
        self.predictions_restored = restored and predictions is not None
        self.predictionsChanged.emit(predictions)

    def _set_results_note(self, text: str) -> None:
        if text != self.results_note:
            self.results_note = text
            self.resultsNoteChanged.emit(text)

    def _results_follow_table(self) -> None:
        """A table was shown: keep the results made from it, label them when the file changed since
        (Reload), clear them when the table is another one."""
        if self.result is None:
            return
        keep, note = results_note_for_table(self.result, self.table)
        if keep:
            self._set_results_note(note)
        else:
            self.clear_result()

    def result_is_of_study(self, spec: ExperimentSpec, source: Path) -> bool:
        recorded = self.result.study_source if self.result is not None else None
        return recorded is not None and recorded.study_name == spec.name and recorded.is_file(source)

    # -- coding ---------------------------------------------------------------------------------------------
    def set_codebook(self, codebook: Codebook) -> None:
        self.codebook = codebook
        self.codebookChanged.emit()

    def edit_codebook(self, codebook: Codebook) -> None:
        """The researcher changed the codebook on the Coding step."""
        if codebook.to_dict() != self.codebook.to_dict():
            self.set_codebook(codebook)
            self.codebookEdited.emit()

    def set_codings(self, codings: CodingLog, coding_texts: pd.DataFrame | None = None) -> None:
        """Another record of codings (an opened project's); ``coding_texts``: its second file of texts."""
        self.codings, self.coding_texts = codings, coding_texts
        self.codingsChanged.emit()

    def codings_changed(self) -> None:
        """The Coding step added to (or undid in) ``codings``: every step that counts codings follows."""
        self.codingsChanged.emit()
        self.codingsEdited.emit()

    def team(self, first_coder: str = ""):  # noqa: ANN201 — a Team
        """The project's coding team, made on first use and kept with the codings (so the project
        saves it): whoever coded before the team existed becomes its first coder (else
        ``first_coder``, the name the Coding step had)."""
        from guiapp.core.coding.team import Team, check_coder_name
        from guiapp.core.errors import UserError

        log = self.codings
        if log.team is None:
            team = Team()
            earlier = [entry.coder for entry in log.entries_of()] or ([first_coder] if first_coder.strip() else [])
            for name in dict.fromkeys(earlier):
                try:
                    team.add_coder(check_coder_name(name, team.coders))
                except UserError:  # an empty or doubled name of old codings is no coder
                    continue
            log.team = team
        return log.team

    def coded_texts_here(self) -> int:
        """Texts coded in TextLab (by the first coder, in the table and in a second file)."""
        return sum(len(self.codings.latest(source)) for source in SOURCES)

    def coded_mapping(self, mapping: ColumnMapping | None = None) -> ColumnMapping:
        """The column roles a study runs with: the Data step's (``mapping``, by default the session's),
        and — when the table has no category column but texts were coded in TextLab — the new column
        that holds those codings."""
        from guiapp.core.coding.codings import category_column, label_set_mapping

        mapping = self.mapping if mapping is None else mapping
        if mapping.multi_label and self.frame is not None:  # coded sets: a column for each new category
            return label_set_mapping(self.frame, mapping, self.codings)
        if mapping.category_column or self.frame is None or not self.coded_texts_here():
            return mapping
        return replace(mapping, category_column=category_column(self.frame, mapping))

    def study_table_with_codings(self, mapping: ColumnMapping | None = None) -> pd.DataFrame | None:
        """The table a study runs on (a copy; neither file is changed): the file's codings with the
        ones made in TextLab applied, and the coded texts of a second file added after its rows."""
        from guiapp.core.coding.codings import with_codings
        from guiapp.core.coding.second_file import with_second_file_codings

        if self.frame is None or not self.coded_texts_here():
            return self.frame
        mapping = self.coded_mapping(mapping)
        study = with_codings(self.frame, mapping, self.codings)
        return with_second_file_codings(study, mapping, self.codings, self.coding_texts)

    def table_now(self):  # noqa: ANN201 — a CurrentTable, or None before a table with column roles
        """The table as it is now — the file's codings with TextLab's applied, the Data step's
        fixes applied, the categories left out set aside (``core/coding/current_table.py``): what
        every step reads."""
        from guiapp.core.coding.current_table import current_table

        if self.frame is None or self.mapping is None:
            return None
        return current_table(self.frame, self.mapping, self.codings,
                             self.data_spec.category_fixes if self.data_spec is not None else None)

    def uncoded_table(self) -> tuple[pd.DataFrame | None, ColumnMapping | None]:
        """The table with TextLab's codings and its column roles: its uncoded rows are the texts
        nobody has coded, in the file or here (what Predict offers, as the Data step counts them)."""
        now = self.table_now()
        return (now.frame, now.mapping) if now is not None else (None, None)

    def set_coding_texts(self, coding_texts: pd.DataFrame | None) -> None:
        """A second file of texts to code (its text columns under the study's names), or None."""
        self.coding_texts = coding_texts
        self.codingsChanged.emit()
        self.codingsEdited.emit()  # kept in the project at once

    def check_codings(self) -> None:
        """Show the codings the models doubt on the Coding step."""
        from guiapp.ui.common.step_order import CODING_STEP as CODING

        self.go_to(CODING)
        self.codingCheckWanted.emit()

    # -- what one step asks of the others ---------------------------------------------------------------
    def go_to(self, step: int) -> None:
        self.stepWanted.emit(step)

    def say(self, text: str) -> None:
        self.statusMessage.emit(text)

    def report_error(self, error: BaseException, doing: str) -> None:
        self.errorRaised.emit(error, doing)

    def open_file(self, path: Path, sheet: str | None = None, mapping: ColumnMapping | None = None,
                  test_file: tuple[str, str | None] | None = None, fixes=None) -> None:  # noqa: ANN001
        """Read a table on the Data step (with an opened study's column roles, test file and fixes)."""
        self.fileWanted.emit(Path(path), sheet, mapping, test_file, fixes)

    def show_table(self, table, mapping: ColumnMapping, test_file=None, fixes=None) -> None:  # noqa: ANN001
        """Show a table that is already read (a project's copy) on the Data step."""
        self.tableWanted.emit(table, mapping, test_file, fixes)

    def load_spec(self, spec: ExperimentSpec) -> str:
        """The Models step takes over ``spec``'s models and settings; returns what it could not, in words."""
        self.spec_notes = ""
        self.specWanted.emit(spec)
        return self.spec_notes

    def run(self, spec: ExperimentSpec) -> None:
        self.runWanted.emit(spec)

    def show_documents(self, flt) -> None:  # noqa: ANN001 — a DocumentFilter
        self.documentsWanted.emit(flt)

    def show_cell(self, model: str, human: int | str, predicted: int | str) -> None:
        self.cellWanted.emit(model, human, predicted)

    def extend_transformer_grid(self, grid: dict) -> None:
        self.transformerGridWanted.emit(grid)

    # -- projects ---------------------------------------------------------------------------------------
    def capture_project(self, ui_state: dict):  # noqa: ANN201 — a Project, or None before a table
        """Everything the user would lose on closing: data, study, results, trained models, view."""
        from guiapp.core.explain.cache import cache_files, explanations_folder
        from guiapp.core.project.format import Project

        from guiapp.core.findings.kept_findings import KeptFindings
        from guiapp.core.predict.predicted_texts import PredictedTexts

        spec = self.study_spec()
        if self.table is None or spec is None:
            return None
        result = self.result
        predicted = None
        if result is not None and self.predictions is not None and self.predicted_table is not None:
            predicted = PredictedTexts(self.predictions, self.predicted_table, self.predicted_source,
                                       self.predicted_sheet, list(self.predicted_columns))
        findings = self.kept_findings
        if self.findings is not None:  # the group they measured is theirs, whatever was picked since
            findings = KeptFindings(self.findings, {**_plain_choice(self.findings_choice),
                                                    "group": self.findings.group_name or ""})
        if findings is not None and predicted is None and findings.choice.get("source") == "predicted":
            findings = None  # findings of predicted texts that are no longer there
        return Project(
            spec=spec,
            table=self.table.frame,
            test_table=self.test_frame if spec.data.test_source else None,
            learning_curve=self.learning_curve if result is not None else None,
            result=result,
            model_folders=dict(self.model_folders) if result is not None else {},
            ui_state={**ui_state, "results_model": (self.chosen_model or None) if result is not None else None,
                      "findings": dict(self.findings_choice)},
            explanations=cache_files(explanations_folder(result)) if result is not None else {},
            source_sha256=self.table.sha256,
            source_name=self.table.path.name,
            codebook=self.codebook,
            codings=self.codings,
            coding_texts=self.coding_texts,
            predicted=predicted,
            findings=findings,
        )

    def restore(self, project, table, test_file: tuple[str, str | None] | None) -> None:  # noqa: ANN001
        """Fill the session with ``project`` (its ``table`` already read); every step follows."""
        from guiapp.core.explain.cache import explanations_folder, restore_cache_files

        spec = project.spec
        self.findings_choice = _plain_choice(project.ui_state.get("findings"))
        self.kept_findings = project.findings
        self.show_table(table, spec.data.mapping, test_file, spec.data.category_fixes)
        self.load_spec(spec)
        self.set_codebook(project.codebook)
        self.set_codings(project.codings, project.coding_texts)
        if project.result is None:
            self.clear_result()
            self._restore_findings(project)
            return
        restore_cache_files(explanations_folder(project.result), project.explanations)
        self.set_result(project.result, project.model_folders)
        if project.learning_curve is not None:
            self.set_learning_curve(project.learning_curve)
        chosen = project.ui_state.get("results_model")
        if isinstance(chosen, str):
            self.choose_model(chosen)
        kept = project.predicted
        if kept is not None:
            self.set_predictions(kept.predictions, kept.table, source=kept.source, sheet=kept.sheet,
                                 text_columns=kept.text_columns, restored=True)
        self._restore_findings(project)

    def _restore_findings(self, project) -> None:  # a Project
        """The findings an opened project kept: the methods appendix has them at once, and the Findings
        step shows them until it has measured again."""
        if project.findings is not None:
            self.set_findings(project.findings.findings)


def _plain_choice(choice: object) -> dict:
    """The Findings step's choice as a project kept it: names and ticks, nothing else."""
    from guiapp.core.findings.kept_findings import plain_choice

    return plain_choice(choice)
