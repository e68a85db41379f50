"""What a study gives the findings: the corpus a trained model predicted (the Predict step's table)
and the coded texts that correct its counts — the study's **test texts**, which that very model never
learned from, with its probabilities for them and their coding.

The test texts were drawn at random from the study's coded texts, so they are a random sample of the
same kind of texts as the corpus when the coded texts are (``SeparateSample``: prediction-powered
inference for an i.i.d. sample). Texts the Coding step chose where its model was unsure are not a
random sample: :func:`findings_inputs` says so in ``notes``. Their metadata (for shares per group
and the regression) comes from the study's table, or from its separate test file.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import ClassVar

import numpy as np
import pandas as pd

from guiapp.core.errors import DataError
from guiapp.core.events import EventCallback, ignore_events
from guiapp.core.findings.designs import OtherCorpus, SeparateSample
from guiapp.core.findings.inputs import CodedSample
from guiapp.core.tables.rows import spreadsheet_rows

MODEL_GUIDED = ("uncertainty", "diversity")
LANGUAGE_MODEL = "codebook_llm"  # a language model with your codebook (its results' representation)  # ways the Coding step chooses that are not a random sample


@dataclass(frozen=True)
class StudyFindingsInputs:
    """The arguments of ``estimate_findings`` and ``regress`` for one model of a study."""

    model: str
    categories: tuple[str, ...]
    probabilities: np.ndarray  # the corpus texts with a prediction × categories
    corpus: pd.DataFrame  # those texts' rows of the predicted table (for groups and the regression)
    coded: CodedSample  # the test texts
    notes: tuple[str, ...] = ()
    design: SeparateSample = SeparateSample()
    # a text can have several categories: the test texts' 0/1 rows (``probabilities`` are then each
    # category's own chance, and every category is estimated on its own: ``several_categories.py``)
    coded_categories: np.ndarray | None = None
    model_note: str = ""  # what the findings say of the model (a language model's labels are never the truth)
    source: ClassVar[str] = "predicted"  # the corpus: texts the model predicted on the Predict step

    def groups(self, column: str) -> tuple[list, list]:
        """The values of ``column`` for the corpus texts and for the coded texts (strings; missing: "(empty)")."""
        if column not in self.corpus.columns:
            raise DataError(f"The predicted texts have no column “{column}”.", "Choose one of their columns.")
        if self.coded.metadata is None or column not in self.coded.metadata.columns:
            raise DataError(f"The study's test texts have no column “{column}”, so their coding cannot correct the "
                            "shares per group.", "Choose a column that your coded table has too.")
        return group_names(self.corpus[column]), group_names(self.coded.metadata[column])

    def estimate(self, column: str | None = None, *, elsewhere: bool = False, reference: str | None = None,
                 all_pairs: bool = False, on_event: EventCallback = ignore_events):  # noqa: ANN201 — a Findings
        """The shares in the corpus, per value of ``column`` when one is named; ``elsewhere``: the corpus
        comes from another time or source than the coded texts (prior-shift quantification). The
        differences compare each group with ``reference`` (a group's name), every pair with
        ``all_pairs``, else each group with the largest."""
        from guiapp.core.findings.findings import estimate_findings

        coded, groups = self.coded, None
        if column:
            groups, coded_groups = self.groups(column)
            coded = replace(coded, groups=coded_groups)
        design = OtherCorpus() if elsewhere else self.design
        compare = {"reference": reference or None, "all_pairs": all_pairs}
        if self.coded_categories is not None:
            from guiapp.core.findings.several_categories import estimate_each

            found = estimate_each(self.probabilities, self.categories, coded, self.coded_categories, design,
                                  groups=groups, group_name=column or None, **compare, on_event=on_event)
        else:
            found = estimate_findings(self.probabilities, self.categories, coded, design, groups=groups,
                                      group_name=column or None, **compare, on_event=on_event)
        return replace(found, model_note=self.model_note) if self.model_note else found

    def regress(self, formula: str, kind: str = "logistic"):  # noqa: ANN201 — a Regression
        """A regression of a category on the corpus's columns (``formula``: "economy ~ party + year")."""
        from guiapp.core.findings.regression import regress

        if self.coded_categories is not None:
            from guiapp.core.findings.several_categories import regress_one

            return regress_one(formula, self.corpus, self.probabilities, self.categories, self.coded,
                               self.coded_categories, self.design, kind)
        return regress(formula, self.corpus, self.probabilities, self.categories, self.coded, self.design, kind=kind)

    def columns(self) -> list[str]:
        """Columns both the corpus and the test texts have (what shares can be given per)."""
        metadata = self.coded.metadata
        return [c for c in self.corpus.columns if metadata is not None and c in metadata.columns]


def findings_inputs(result, model: str, predictions, predicted_table: pd.DataFrame,
                    study_table: pd.DataFrame | None, test_table: pd.DataFrame | None = None,
                    log=None) -> StudyFindingsInputs:
    """The corpus ``predicted_table`` as ``model`` predicted it (``predictions``, the Predict step's) and
    the study's test texts with that model's probabilities. ``study_table``/``test_table``: where the
    test texts' other columns are looked up; ``log``: the Coding step's record (to say whether the
    coded texts are a random sample). :class:`DataError` when the model did not predict the corpus or
    has no test probabilities."""
    if model not in predictions.models:
        raise DataError(f"{model} has not predicted these texts.", "Predict them with it on the Predict step first.")
    answers = predictions.predictions[predictions.models.index(model)]
    by_name = {m.name: m for m in result.models}
    tested = by_name.get(model)
    if tested is None or tested.probabilities is None or not result.test_true:
        raise DataError(f"The study kept no test answers of {model}, so its mistakes cannot be measured.",
                        "Run the study again; every model's answers for the test texts are kept.")
    categories = tuple(str(c) for c in result.categories)
    columns = [list(answers.categories).index(c) if c in answers.categories else None for c in categories]
    if any(c is None for c in columns):
        raise DataError(f"{model} predicts other categories than the study's.", "Predict the texts again with it.")
    probabilities = np.asarray(answers.probabilities, dtype=float)[:, columns]
    usable = ~np.isnan(probabilities).any(axis=1)  # empty texts have no answer
    test_probabilities = np.asarray(tested.probabilities, dtype=float)
    several = None
    if result.multi_label:  # each test text's categories as a 0/1 row; each category's own chance stays as it is
        several = np.zeros((len(result.test_true), len(categories)), dtype=np.uint8)
        for row, coded in enumerate(result.test_true):
            several[row, list(coded)] = 1
        labels = [categories[int(np.argmax(row))] for row in several]  # only to count them; the rows decide
    else:
        labels = [categories[int(i)] for i in result.test_true]
    metadata = _test_metadata(result, study_table, test_table, len(labels))
    corpus = predicted_table.loc[usable].reset_index(drop=True)
    if metadata is not None:
        corpus, metadata = _aligned(corpus, metadata)
    notes = []
    if not usable.all():
        notes.append(f"{int((~usable).sum()):,} empty texts have no answer and are left out.")
    guided = _guided_codings(log)
    if guided:
        notes.append(f"{guided:,} of your codings were chosen by the Coding step where its model was unsure, so the "
                     "coded texts are not a simple random sample: these intervals assume they are. Measure your "
                     "table instead to weigh them by the chance with which they were chosen.")
    note = model_note(tested, by_name)
    if several is not None:
        return StudyFindingsInputs(model, categories, probabilities[usable], corpus,
                                   CodedSample(labels, test_probabilities, None, metadata=metadata), tuple(notes),
                                   coded_categories=several, model_note=note)
    return StudyFindingsInputs(
        model, categories, probabilities[usable] / probabilities[usable].sum(axis=1, keepdims=True),
        corpus,
        CodedSample(labels, test_probabilities / test_probabilities.sum(axis=1, keepdims=True), None,
                    metadata=metadata),
        tuple(notes), model_note=note)


def model_note(model, by_name: dict | None = None) -> str:  # noqa: ANN001 — a ModelResult
    """What the findings say of ``model``: that a language model's labels (or a combination's that
    includes one) enter the shares only as a model's predictions, corrected by the coded texts, never as
    the truth; "" for other models."""
    from guiapp.core.findings.records import LANGUAGE_MODEL_NOTE

    if model.representation == LANGUAGE_MODEL:
        return LANGUAGE_MODEL_NOTE
    combination = model.combination
    parts = [by_name.get(name) for name in combination.parts] if combination is not None and by_name else []
    if any(part is not None and part.representation == LANGUAGE_MODEL for part in parts):
        return ("The model combines a language model given the codebook with other models: its labels entered these "
                "shares only as a model's predictions, corrected by the coded texts as every model's are, and were "
                "never used as the true categories.")
    return ""


def _test_metadata(result, study_table: pd.DataFrame | None, test_table: pd.DataFrame | None,
                   n: int) -> pd.DataFrame | None:
    """The rows of the test texts (their other columns), found by their spreadsheet row numbers."""
    separate_file = bool(result.test_rows_in) and not result.test_rows_in.startswith("sheet")
    source = test_table if separate_file else study_table
    if source is None or len(result.test_rows) != n:
        return None
    by_row = dict(zip(spreadsheet_rows(source).tolist(), range(len(source)), strict=True))
    positions = [by_row.get(int(row)) for row in result.test_rows]
    if any(p is None for p in positions):
        return None
    return source.iloc[positions].reset_index(drop=True)


def _aligned(corpus: pd.DataFrame, metadata: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The columns both tables have, of one kind in both: numbers where both hold numbers (a year read
    as text from a CSV and as a number from a workbook), else text."""
    corpus, metadata = corpus.copy(), metadata.copy()
    for column in [c for c in corpus.columns if c in metadata.columns]:
        a, b = corpus[column], metadata[column]
        if a.dtype == b.dtype:
            continue
        numbers = pd.to_numeric(a, errors="coerce"), pd.to_numeric(b, errors="coerce")
        if all(n.notna().sum() == v.notna().sum() for n, v in zip(numbers, (a, b), strict=True)):
            corpus[column], metadata[column] = numbers
        else:
            corpus[column] = a.astype("string")
            metadata[column] = b.astype("string")
    return corpus, metadata


def _guided_codings(log) -> int:
    if log is None:
        return 0
    return sum(1 for entry in log.latest().values() if entry.chosen_by in MODEL_GUIDED)


def group_names(values: pd.Series | Sequence) -> list[str]:
    return ["(empty)" if pd.isna(v) or str(v).strip() == "" else str(v) for v in values]
