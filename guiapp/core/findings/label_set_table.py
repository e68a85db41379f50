"""The Findings of a table's own codings where a text can have several categories: each category
is its own yes/no question — the share of the table's texts that have it, with an interval.

The coded texts are the file's (its category columns, or the column that lists each text's
categories) and those coded on the Coding step (one coder's sets, or a team's resolved ones); the
design is the one of one category per text (``coding_design.py``: the file's codings as a random
sample of the table, the Coding step's and a team's draws weighted by the chance they were drawn
with). For each category the quick model is cross-fitted on the coded texts' yes or no (the
texts' words and embeddings are computed once), so every text of the table gets its own chance of
having the category; ``several_categories.py`` then estimates each category on its own. The
shares add up to more than 100 % when texts have several categories. A category with too few
coded texts that have it (or too few without it) to cross-fit is left out and said so in words.
The Data step's fixes apply to the categories' names: merged spellings count as one, a category
left out is taken out of every text's set.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from guiapp.core.errors import DataError
from guiapp.core.events import EventCallback, ignore_events, sub_progress

YES, NO = "yes", "no"


def label_set_table_inputs(frame: pd.DataFrame, mapping, log=None, *, categories=None, fixes=None,  # noqa: ANN001
                           cache=None, min_coded: int = 10, on_event: EventCallback = ignore_events) -> dict:
    """The table ``frame`` as the corpus of a study where a text can have several categories
    (``mapping.multi_label``), coded by the file and the Coding step's record ``log``; for each
    category the quick model's cross-fitted chance of every text. ``categories``: the preferred
    order (the codebook's); coded categories it lacks follow, sorted; fewer than ``min_coded``
    coded texts are refused. Gives the fields of ``from_table.TableFindingsInputs``. Runs for
    seconds to minutes."""
    from guiapp.core.coding.codings import CodingLog, file_label_sets
    from guiapp.core.findings.coding_design import design_from_log
    from guiapp.core.findings.cross_fitting import FOLDS, cross_fitted_probabilities
    from guiapp.core.findings.designs import RandomSample
    from guiapp.core.findings.inputs import CodedSample
    from guiapp.core.findings.quick_features import FINDINGS_KIND, FindingsModel, _checked, findings_features
    from guiapp.core.predict.new_texts import texts_of

    if frame is None or len(frame) == 0:
        raise DataError("There is no table to measure.", "Open your table on the Data step.")
    log = log if log is not None else CodingLog()
    own = replace(mapping, category_columns=[c for c in mapping.category_columns if c in frame.columns])
    if own.category_column is not None and own.category_column not in frame.columns:
        own = replace(own, category_column=None)
    in_file = {row: _fixed(labels, fixes) for row, labels in file_label_sets(frame, own).items()}
    logged = design_from_log(log, in_file, list(frame.index), sets=True)
    table_entries = [entry for entry in log.entries_of() if entry.source == "table"]
    design = logged.design if table_entries else RandomSample()
    sets = [_fixed(labels, fixes) for labels in logged.labels]
    if len(sets) < min_coded:
        raise DataError(f"Only {len(sets):,} texts of the table are coded: too few to measure the quick model's "
                        "mistakes.",
                        f"Code at least {min_coded} texts (a few hundred give useful intervals) on the Coding step.")
    coded_names = set(name for labels in sets for name in labels)
    if not coded_names:
        raise DataError("No coded text has any category yet.", "Code texts with their categories on the Coding step.")
    order = [str(c) for c in (categories or ()) if str(c) in coded_names]
    order += sorted(coded_names - set(order))
    notes: list[str] = []
    named = dict.fromkeys(str(c) for c in [*(categories or ()), *own.category_columns])
    never = [name for name in named if name not in coded_names and _fixed((name,), fixes)]
    if never:
        notes.append("No coded text has " + ", ".join(f"“{name}”" for name in never[:5])
                     + (" …" if len(never) > 5 else "") + ", so its share is not measured; code texts that have it.")
    if len(table_entries) < len(log.entries_of()):
        notes.append("Codings of a second file are not texts of this table and are left out here.")
    notes.extend(logged.team_notes())
    texts = texts_of(frame, mapping)
    features = findings_features(texts, cache=cache, on_event=sub_progress(on_event, 0.0, 0.5))
    positions = logged.positions
    corpus_columns, coded_columns, kept = [], [], []
    for k, name in enumerate(order):
        answers = [YES if name in labels else NO for labels in sets]
        part = sub_progress(on_event, 0.5 + 0.5 * k / len(order), 0.5 + 0.5 * (k + 1) / len(order))
        try:
            checked_positions, checked_answers, columns = _checked(len(texts), positions, answers, [YES, NO], 0)
            fitted = cross_fitted_probabilities(FINDINGS_KIND, features, checked_positions, checked_answers,
                                                categories=columns, folds=FOLDS, seed=0, on_event=part,
                                                model=lambda fold_seed: FindingsModel(seed=fold_seed))
        except DataError:
            have = answers.count(YES)
            notes.append(f"“{name}” is left out: {have:,} of the {len(sets):,} coded texts have it and "
                         f"{len(sets) - have:,} do not, too few of one kind to measure the quick model's mistakes "
                         f"on it. Code more texts {'that have it' if have < len(sets) - have else 'without it'}.")
            continue
        corpus_columns.append(fitted.corpus[:, 0])
        coded_columns.append(fitted.coded[:, 0])
        kept.append(name)
    if not kept:
        raise DataError("No category has enough coded texts with it and without it to measure the quick model's "
                        "mistakes.", f"Code at least {2 * FOLDS} texts that have each category and as many that "
                        "do not (a few hundred give useful intervals).")
    several = np.array([[1 if name in labels else 0 for name in kept] for labels in sets], dtype=np.uint8)
    probabilities = np.column_stack(corpus_columns)
    coded_probabilities = np.column_stack(coded_columns)
    first = [kept[int(np.argmax(row))] if row.any() else kept[0] for row in several]  # only to count; rows decide
    coded = CodedSample(first, coded_probabilities, positions)
    excluded = tuple(str(c) for c in [*mapping.text_columns, mapping.category_column, *mapping.category_columns]
                     if c is not None)
    return {"categories": tuple(kept), "probabilities": probabilities, "corpus": frame.reset_index(drop=True),
            "coded": coded, "design": design, "excluded": excluded, "notes": tuple(notes), "coded_categories": several}


def _fixed(labels: tuple[str, ...], fixes) -> tuple[str, ...]:  # noqa: ANN001 — CategoryFixes or None
    """A text's categories after the Data step's fixes (merged spellings as one, left-out ones taken out)."""
    if fixes is None or fixes.is_empty():
        return tuple(labels)
    fixed = (fixes.fix(label) for label in labels)
    return tuple(dict.fromkeys(label for label in fixed if label is not None))
