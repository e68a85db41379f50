"""What a table gives the findings without a study: the table itself is the corpus — its coded and
uncoded texts — and the quick model, cross-fitted on the coded ones, predicts every text.

The coded texts are the file's codings and those made on the Coding step. The file's are taken as a
random sample of the table; a text the Coding step drew where its model was unsure is weighted by the
recorded chance with which it was drawn (the Coding step's draws), so the shares stay unbiased
however the texts were chosen. A researcher who drew the file's codings at random within each group
of a column (so many per party) can say so: the groups are then weighted by their size.
Where a text can have several categories, each category is its own yes/no question
(``label_set_table.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pandas as pd

from guiapp.core.errors import DataError
from guiapp.core.events import EventCallback, ignore_events
from guiapp.core.findings.designs import RandomSample, Stratified
from guiapp.core.findings.from_study import group_names
from guiapp.core.findings.inputs import CodedSample

MIN_CODED = 10  # fewer coded texts leave nothing to cross-fit a model on


@dataclass(frozen=True)
class TableFindingsInputs:
    """The arguments of ``estimate_findings`` and ``regress`` for a table's own texts."""

    categories: tuple[str, ...]
    probabilities: np.ndarray  # every text of the table × categories, cross-fitted
    corpus: pd.DataFrame  # the table's rows (for groups and the regression)
    coded: CodedSample  # the coded texts, with their corpus positions
    design: object  # RandomSample or CodingStepDraws
    excluded: tuple[str, ...] = ()  # columns never offered for groups (the texts, the codings)
    notes: tuple[str, ...] = ()
    # a text can have several categories: the coded texts' 0/1 rows (``probabilities`` are then each
    # category's own chance, and each category is a yes/no question: ``several_categories.py``)
    coded_categories: np.ndarray | None = None
    source: ClassVar[str] = "table"  # the corpus: the table's own texts

    @property
    def chosen_by_coding_step(self) -> bool:
        """Whether some coded texts were drawn by the Coding step (the draws' design)."""
        return not isinstance(self.design, RandomSample)

    def columns(self) -> list[str]:
        """The table's columns shares can be given per (not the texts, not the codings)."""
        return [c for c in self.corpus.columns if c not in self.excluded]

    def groups(self, column: str) -> list[str]:
        if column not in self.corpus.columns:
            raise DataError(f"The table has no column “{column}”.", "Choose one of its columns.")
        return group_names(self.corpus[column])

    def estimate(self, column: str | None = None, *, stratified: bool = False, reference: str | None = None,
                 all_pairs: bool = False, on_event: EventCallback = ignore_events):  # noqa: ANN201 — a Findings
        """The shares among the table's texts, per value of ``column`` when one is named;
        ``stratified``: the coded texts were drawn at random within each group of ``column``. The
        differences compare each group with ``reference`` (a group's name), every pair with
        ``all_pairs``, else each group with the largest."""
        from guiapp.core.findings.findings import estimate_findings

        groups = self.groups(column) if column else None
        design = self.design
        if stratified:
            if groups is None:
                raise DataError("The coded texts can only be weighted per group once a column is chosen.",
                                "Choose the column whose groups the texts were drawn from under “Per group”.")
            if self.chosen_by_coding_step:
                raise DataError("Some coded texts were chosen on the Coding step, not drawn per group.",
                                "Untick “drawn per group”: the Coding step's own chances weigh them.")
            design = Stratified(groups)
        if self.coded_categories is not None:
            from guiapp.core.findings.several_categories import estimate_each

            found = estimate_each(self.probabilities, self.categories, self.coded, self.coded_categories, design,
                                  groups=groups, group_name=column or None, reference=reference or None,
                                  all_pairs=all_pairs, on_event=on_event)
        else:
            found = estimate_findings(self.probabilities, self.categories, self.coded, design, groups=groups,
                                      group_name=column or None, reference=reference or None, all_pairs=all_pairs,
                                      on_event=on_event)
        # what the table's coding says (a team's draw, categories not measured) goes with the findings (the workbook)
        from dataclasses import replace

        return replace(found, warnings=tuple(dict.fromkeys([*self.notes, *found.warnings])))

    def regress(self, formula: str, kind: str = "logistic"):  # noqa: ANN201 — a Regression
        """A regression of a category on the table's columns (``formula``: "economy ~ party + year")."""
        from guiapp.core.findings.regression import regress

        if self.coded_categories is not None:
            from guiapp.core.findings.several_categories import regress_one

            return regress_one(formula, self.corpus, self.probabilities, self.categories, self.coded,
                               self.coded_categories, self.design, kind)
        return regress(formula, self.corpus, self.probabilities, self.categories, self.coded, self.design, kind=kind)


def table_findings_inputs(frame: pd.DataFrame, mapping, log=None, *, categories=None, fixes=None, cache=None,
                          on_event: EventCallback = ignore_events) -> TableFindingsInputs:
    """The table ``frame`` as the corpus (``mapping``: its column roles), coded by its own category
    column and the Coding step's record ``log``; the quick model's cross-fitted probabilities of every
    text. ``categories``: the preferred order (e.g. the codebook's); coded categories it lacks follow, sorted.
    ``fixes``: the Data step's fixes of the categories (merged spellings; texts of a category left out
    of the study are not measured).
    Runs for seconds to minutes (the words or embeddings of every text, five fits): call it in a job."""
    from guiapp.core.coding.codings import CodingLog, file_categories
    from guiapp.core.coding.current_table import current_table
    from guiapp.core.findings.coding_design import design_from_log
    from guiapp.core.findings.quick_features import findings_probabilities
    from guiapp.core.predict.new_texts import texts_of

    if frame is None or len(frame) == 0:
        raise DataError("There is no table to measure.", "Open your table on the Data step.")
    if mapping.multi_label:  # each category its own yes/no question
        from guiapp.core.findings.label_set_table import label_set_table_inputs

        return TableFindingsInputs(**label_set_table_inputs(frame, mapping, log, categories=categories, fixes=fixes,
                                                            cache=cache, min_coded=MIN_CODED, on_event=on_event))
    notes: list[str] = []
    now = current_table(frame, mapping, log, fixes)  # file + TextLab's codings − fixes − left-out categories
    if now.n_left_out:
        notes.append(f"{now.n_left_out:,} texts of categories left out on the Data step are not measured.")
    in_file = file_categories(frame, mapping)  # the rows the file codes (a random sample of the table)
    mapping, frame = now.mapping, now.measured()
    file_coded = {row: now.categories[row] for row in in_file if not now.left_out[row]}
    log = now.measured_log(log if log is not None else CodingLog(), fixes)
    logged = design_from_log(log, file_coded, list(frame.index))
    table_entries = [entry for entry in log.entries_of() if entry.source == "table"]
    design = logged.design if table_entries else RandomSample()
    if not len(logged.labels) and now.n_left_out:  # the cause is the categories left out, not too little coding
        from guiapp.core.study.left_out_words import BRING_BACK, every_category_left_out

        names = sorted(fixes.leave_out) if fixes is not None else []
        raise DataError(every_category_left_out(names, now.n_left_out), BRING_BACK)
    if len(logged.labels) < MIN_CODED:
        raise DataError(f"Only {len(logged.labels):,} texts of the table are coded: too few to measure the "
                        "quick model's mistakes.",
                        f"Code at least {MIN_CODED} texts (a few hundred give useful intervals) on the Coding step.")
    if len(table_entries) < len(log.entries_of()):
        notes.append("Codings of a second file are not texts of this table and are left out here.")
    notes.extend(logged.team_notes())
    coded_categories = set(logged.labels)
    order = [c for c in (categories or ()) if c in coded_categories]
    order += sorted(coded_categories - set(order))
    texts = texts_of(frame, mapping)
    fitted = findings_probabilities(texts, logged.positions, logged.labels, categories=order, cache=cache,
                                    on_event=on_event)
    excluded = tuple(str(c) for c in [*mapping.text_columns, mapping.category_column] if c is not None)
    coded = CodedSample(list(logged.labels), fitted.coded, logged.positions)
    return TableFindingsInputs(tuple(fitted.categories), fitted.corpus, frame.reset_index(drop=True),
                               coded, design, excluded, tuple(notes))

