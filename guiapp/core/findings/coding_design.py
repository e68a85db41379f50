"""The design of the Coding step, read from its record (:class:`CodingLog`) and the table's own
codings: which texts the file had coded (taken as a random sample of the table), and every text
TextLab showed, in order, with the probability it was drawn with.

A row's first entry in the record says how it was chosen (a strategy with a probability: drawn;
anything else — "in order", a review — chosen by hand); its latest coding says its category (a
review that changed it counts); a row shown and never coded was skipped. Rows of the file with a
category are the file's codings, even when a coding in TextLab changed their category. A second
coder's codings are a record apart and are not read.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from guiapp.core.coding.coding_record import row_label
from guiapp.core.coding.codings import CodingLog
from guiapp.core.coding.strategies import STRATEGIES
from guiapp.core.errors import DataError
from guiapp.core.findings.designs import CodingStepDraws, Step


@dataclass(frozen=True)
class LoggedCodings:
    """The Coding step's design and the coded texts it gives (corpus positions and categories)."""

    design: CodingStepDraws
    positions: np.ndarray
    labels: tuple[str, ...]
    n_skipped: int
    n_by_hand: int


def design_from_log(log: CodingLog, file_categories: Mapping, corpus_rows: Sequence, *,
                    source: str = "table") -> LoggedCodings:
    """The design of texts coded in the file and in TextLab's Coding step. ``corpus_rows``: the row
    (the table's index label) of each corpus text, in corpus order; ``file_categories``: row → the
    category the file gives it (rows without one left out or None). ``source="second file"``: the
    corpus is the second file the Coding step drew from (it has no codings of its own)."""
    place: dict = {}
    for position, row in enumerate(corpus_rows):
        key = row_label(row)
        if key in place:
            raise DataError(f"The row {key!r} appears twice in the corpus.", "Give each row of the table once.")
        place[key] = position
    initial: dict = {}
    if source == "table":
        for row, category in file_categories.items():
            if category is None or (isinstance(category, float) and category != category) or category == "":
                continue
            key = row_label(row)
            if key not in place:
                raise DataError(f"The file's coding of row {key!r} is for a text that is not in the corpus.",
                                "Measure the shares in the table the texts were coded in.")
            initial[key] = str(category)
    latest = log.categories_by_row(source)
    steps: list[Step] = []
    shown: dict = {}
    for entry in log.entries_of():
        if entry.source != source or entry.row in initial or entry.row in shown:
            continue
        if entry.row not in place:
            raise DataError(f"Row {entry.row!r}, coded in TextLab, is not in the corpus.",
                            "Measure the shares in the table the texts were coded in.")
        drawn = entry.chosen_by in STRATEGIES and entry.probability is not None
        shown[entry.row] = True
        steps.append(Step(place[entry.row], float(entry.probability) if drawn else None))  # type: ignore[arg-type]
    labels = dict(initial)
    for row, category in latest.items():
        if row in initial or row in shown:
            labels[row] = category
    positions = np.array([place[row] for row in labels], dtype=np.intp)
    coded = set(positions.tolist())
    n_skipped = sum(1 for step in steps if step.probability is not None and step.position not in coded)
    n_by_hand = sum(1 for step in steps if step.probability is None)
    design = CodingStepDraws(tuple(place[row] for row in initial), tuple(steps))
    return LoggedCodings(design, positions, tuple(labels.values()), n_skipped, n_by_hand)
