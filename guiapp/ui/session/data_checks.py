"""Whether results and saved studies still belong to the table shown, in words."""

from __future__ import annotations

from pathlib import Path

from guiapp.core.study.spec import DataSpec
from guiapp.core.study.table_changes import TableChanges


def not_ready_reason(data: DataSpec | None, report) -> str:  # noqa: ANN001 — a HealthReport or None
    """Why the data cannot be used for a study yet ("" when it can)."""
    if data is None:
        return "Open your coded texts on the Data step first."
    if not (data.mapping.category_column or data.mapping.category_columns):
        return "Choose a category column on the Data step first."
    if report is None:
        return "Wait until the check of your data on the Data step has finished."
    if report.verdict == "not_ready":
        return "Fix the problems marked in red on the Data step first."
    return ""


def results_note_for_table(result, table) -> tuple[bool, str]:  # noqa: ANN001 — ExperimentResult, LoadedTable
    """(keep the results, the note to show above them) once ``table`` is shown: results made from
    this very file are kept; from an earlier version of the same file, kept with a note; from
    another file, not kept."""
    recorded = result.study_source
    sha = recorded.sha256
    if sha and table.sha256 and sha == table.sha256:
        return True, ""
    if not recorded.is_file(table.path):
        return False, ""
    if not (sha and table.sha256):
        return True, ""
    rows = recorded.rows
    then = f" ({rows:,} rows)" if isinstance(rows, int) else ""
    return True, (f"These results were computed on an earlier version of {table.path.name}{then}; the file now has "
                  f"{len(table.frame):,} rows. Run the study again to include the changes.")


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


def data_path_stem(source: str) -> Path:
    """``/a/study.textlab.xlsx`` → ``/a/study``: the name a study's other files start with."""
    path = Path(source)
    return path.with_name(path.name.split(".")[0])
