"""The table as it is now — the one rule every step reads: the file's codings, with the codings made
in TextLab applied (the latest coding of a row wins), the Data step's category fixes applied (merged
spellings, trimmed spaces), and the categories left out of the study set aside.

- :func:`current_categories`: row → category as it is now, from the file's codings and the record
  (what the Coding step's quick model learns from, and which categories it offers as keys).
- :func:`current_table`: the whole table as it is now (:class:`CurrentTable`): the table a study
  runs on (file + TextLab codings, as the Results step counts them), each row's category after the
  fixes, which rows are left out, which are coded in TextLab, and which have no category at all
  (what Predict's "uncoded rows" and the Data step count).

A row whose category is left out is *coded* (it is not offered to code again, nor predicted as
uncoded) but takes part in nothing the study measures, wherever its category came from — the file
or a coding made in TextLab.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from guiapp.core.coding.coding_record import Row, row_label
from guiapp.core.coding.codings import CodingLog, category_column, with_codings
from guiapp.core.study.category_fixes import CategoryFixes
from guiapp.core.study.mapping import ColumnMapping
from guiapp.core.tables.cell_values import category_labels

if TYPE_CHECKING:  # pandas loads with the first table
    import pandas as pd


def fixed_category(label: str | None, fixes: CategoryFixes | None) -> str | None:
    """The category ``label`` becomes under the Data step's fixes (None: uncoded or left out)."""
    if label is None:
        return None
    return label if fixes is None or fixes.is_empty() else fixes.fix(label)


def left_out_names(fixes: CategoryFixes | None) -> frozenset[str]:
    """The categories left out of the study on the Data step."""
    return frozenset(fixes.leave_out) if fixes is not None else frozenset()


@dataclass(frozen=True)
class CurrentCategories:
    """Row → category as it is now (left-out rows not among them), and the rows left out."""

    categories: dict[Row, str]
    left_out: dict[Row, str]  # row → the category (after merging) that is left out
    from_log: frozenset[Row]  # rows whose category comes from a coding made in TextLab


def current_categories(file_categories: Mapping, log: CodingLog | None = None,
                       fixes: CategoryFixes | None = None, source: str = "table") -> CurrentCategories:
    """The categories of the rows of ``source`` as they are now: ``file_categories`` (row → the
    file's category; none for a second file) with the latest coding of each row in ``log`` applied,
    then the fixes; rows of a left-out category are set aside in ``left_out``."""
    merged: dict[Row, str] = {}
    if source == "table":
        merged = {row_label(row): str(category) for row, category in file_categories.items() if category is not None}
    logged = log.categories_by_row(source) if log is not None else {}
    merged.update(logged)
    categories: dict[Row, str] = {}
    left_out: dict[Row, str] = {}
    for row, label in merged.items():
        fixed = fixed_category(label, fixes)
        if fixed is not None:
            categories[row] = fixed
        else:
            left_out[row] = label if fixes is None else fixes.merge.get(label, label)
    return CurrentCategories(categories, left_out, frozenset(logged))


@dataclass(frozen=True, eq=False)
class CurrentTable:
    """The table as it is now (see the module docstring)."""

    frame: pd.DataFrame  # the table a study runs on: the file's codings with TextLab's applied (not fixed)
    mapping: ColumnMapping  # its column roles (a new category column when the file had none)
    categories: pd.Series  # each row's category after the fixes; None: uncoded or left out
    left_out: pd.Series  # True: coded with a category left out of the study
    coded_here: pd.Series  # True: the row's category comes from a coding made in TextLab

    @property
    def coded(self) -> pd.Series:
        """True for the rows the study learns from: a category, not left out."""
        return self.categories.notna()

    @property
    def uncoded(self) -> pd.Series:
        """True for the rows with no category at all (neither in the file nor in TextLab)."""
        return self.categories.isna() & ~self.left_out

    @property
    def n_left_out(self) -> int:
        return int(self.left_out.sum())

    def uncoded_rows(self) -> pd.DataFrame:
        """The rows with a text but no category, as Predict offers them ("the N uncoded rows")."""
        from guiapp.core.predict.new_texts import uncoded_rows

        return uncoded_rows(self.frame, self.mapping)

    def measured_log(self, log: CodingLog, fixes: CategoryFixes | None = None) -> CodingLog:
        """``log`` as the findings read it: the codings' categories after ``fixes`` (a coding of a
        left-out category counts as no coding), and no entry of a row left out now."""
        from dataclasses import replace

        gone = {row_label(row) for row in self.left_out.index[self.left_out.to_numpy()]}
        team = log.team
        if team is not None:  # a team's adjudications follow the fixes too (one of a left-out category goes)
            team = team.copy()
            team.adjudications = {key: replace(adjudication, category=fixed_category(adjudication.category, fixes))
                                  for key, adjudication in team.adjudications.items()
                                  if fixed_category(adjudication.category, fixes) is not None
                                  and not (key[0] == "table" and key[1] in gone)}
        return CodingLog((replace(entry, category=fixed_category(entry.category, fixes), previous=None)
                          for entry in log.entries if entry.source != "table" or entry.row not in gone),
                         team=team, history=log.history)

    def measured(self) -> pd.DataFrame:
        """The table without the rows of left-out categories, its category column holding the
        categories after the fixes (what the findings measure as the corpus)."""
        kept = self.frame.loc[~self.left_out.to_numpy()].copy()
        if self.mapping.category_column is not None and self.mapping.category_column in kept.columns:
            kept[self.mapping.category_column] = self.categories[~self.left_out].astype(object).to_numpy()
        return kept


def current_table(frame: pd.DataFrame, mapping: ColumnMapping, log: CodingLog | None = None,
                  fixes: CategoryFixes | None = None) -> CurrentTable:
    """``frame`` as it is now, with the record ``log`` and the Data step's ``fixes`` (see the module
    docstring). ``frame`` is not changed. :class:`DataError` when the log names rows the table
    does not have (it was coded on another table)."""
    import pandas as pd

    log = log if log is not None else CodingLog()
    coded_here = bool(log.categories_by_row("table")) or bool(log.label_sets_by_row("table"))
    if mapping.multi_label and coded_here:  # a column for each new category, or a new listing column
        from guiapp.core.coding.codings import label_set_mapping

        mapping = label_set_mapping(frame, mapping, log)
    elif mapping.category_column is None and not mapping.multi_label and coded_here:
        from dataclasses import replace

        mapping = replace(mapping, category_column=category_column(frame, mapping))
    table = with_codings(frame, mapping, log) if coded_here else frame
    column = mapping.category_column
    if column is None or column not in table.columns:
        empty = pd.Series(None, index=table.index, dtype=object)
        no = pd.Series(False, index=table.index)
        return CurrentTable(table, mapping, empty, no, no.copy())
    labels = category_labels(table[column])
    logged = set(log.categories_by_row("table"))
    here = pd.Series([row_label(row) in logged for row in table.index], index=table.index, dtype=bool)
    if fixes is None or fixes.is_empty():
        return CurrentTable(table, mapping, labels, pd.Series(False, index=table.index), here)
    uniques = {label: fixed_category(label, fixes) for label in labels.dropna().unique()}
    fixed = labels.map(uniques, na_action="ignore")
    left_out = labels.notna() & fixed.isna()
    return CurrentTable(table, mapping, fixed.astype(object).where(fixed.notna(), None), left_out, here)
