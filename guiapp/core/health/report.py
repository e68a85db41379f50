"""The data-health report: is a table of coded texts ready for model comparison, and if not, why.

CONTRACT (dataclasses fixed):

``compute_health(frame, mapping, *, n_folds=5, fixes=None, test_share=0.3, seed=20210401,
token_counter=None, on_event=ignore_events)`` maps the table
(``guiapp.core.study.mapping.apply_mapping``, with the study's category ``fixes`` applied exactly
as a run applies them) and returns a :class:`HealthReport`. Training texts per category are
counted as the run counts them: the split column's non-test rows, or — without one — the rows
left after the study's seeded stratified hold-out of ``test_share`` (``test_share=None``: the
test texts come from a separate file, every coded row trains). A category with fewer training
texts than ``n_folds`` is an error, because the run would stop there.
``token_counter`` is a callable ``(texts: list[str], on_event) -> (list[int], tokenizer_name)``
(see ``guiapp.core.health.token_lengths``); None means "use the default Transformer tokenizer", and if
that cannot be loaded ``tokens`` is None and an info issue says so. Reports progress; cancellable.
It raises :class:`~guiapp.core.errors.DataError` only when the mapping cannot be applied at all
(no text column, unknown column, a column in two roles); everything else becomes an issue.

Row numbers in the report are positions in the loaded table (0-based); the spreadsheet row a
user sees is ``position + first_row`` (see :meth:`HealthReport.spreadsheet_row`). ``HealthIssue.count`` is the total
number of affected rows (``rows`` keeps at most 10,000 of them); for an issue without rows it
counts the items its title names (categories, numbers …).

Issue codes (severity):
  errors    no_rows, no_category_column, no_coded_texts, every_category_left_out, one_category, all_texts_empty, small_categories,
            split_values, split_no_train, text_column_numbers (a text column of 80% or more
            numbers or dates)
  warnings  text_column_numbers (50% or more), empty_texts, category_spelling, category_spaces, numeric_measurement,
            date_categories, too_many_categories, conflicting_duplicates, duplicate_texts,
            split_missing, split_no_test, test_only_categories, duplicate_ids, unmatched_fixes (a category
            fix that names no category of the table),
            long_texts (when at least 25% of the texts are longer than 512 tokens)
  info      uncoded_rows, left_out_rows, rare_categories, numeric_categories, short_texts, long_texts,
            missing_ids, token_lengths_unavailable

Several categories per text (``mapping.multi_label``): the category findings come from
``label_set_issues`` — per category, in the same codes where they mean the same (no_coded_texts,
one_category, small_categories, rare_categories, uncoded_rows, unmatched_fixes …) and a few of
their own (category_values for indicator cells that are not 1/0, which never stops the report,
empty_categories, common_categories, left_out_categories, no_category_texts, averaged_values);
``categories`` counts the coded texts that have each category, and ``label_health`` holds the
per category counts, the most frequent combinations and the co-occurrence matrix.

Limits: ``categories`` lists at most 10,000 categories (largest first); ``duplicate_groups``
keeps at most 1,000 groups (conflicting first, then the largest) of at most 1,000 rows each;
token lengths are measured on a seeded random sample of 20,000 texts when there are more
(``LengthStats.sampled``). The work is split over ``health_lengths``, ``health_checks``,
``health_categories`` and ``duplicates``.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from guiapp.core.errors import UserError
from guiapp.core.events import EventCallback, Log, Progress, ignore_events, sub_progress
from guiapp.core.health.findings import HealthIssue, HealthReport, LengthStats
from guiapp.core.health.token_lengths import DEFAULT_MAX_TOKENS, count_tokens
from guiapp.core.study.category_fixes import CategoryFixes
from guiapp.core.study.label_sets import LabelValueError
from guiapp.core.study.mapping import ColumnMapping, apply_mapping, split_labels
from guiapp.core.tables.rows import row_origin

if TYPE_CHECKING:  # pandas loads on first use, not when the window opens
    import pandas as pd

TokenCounter = Callable[[list[str], EventCallback], tuple[list[int], str]]
"""``(texts, on_event) -> (token count per text, tokenizer name)``."""


_ORDER = {"error": 0, "warning": 1, "info": 2}


def compute_health(
    frame: pd.DataFrame,
    mapping: ColumnMapping,
    *,
    n_folds: int = 5,
    fixes: CategoryFixes | None = None,
    test_share: float | None = 0.3,
    seed: int = 20210401,
    token_counter: TokenCounter | None = None,
    on_event: EventCallback = ignore_events,
) -> HealthReport:
    """Check a table of coded texts; see the module docstring.

    Raises :class:`~guiapp.core.errors.DataError` when the mapping itself cannot be applied (no
    text column, unknown column, a column in two roles); everything else becomes an issue.
    """
    # Imported here: these modules build the dataclasses above (no import cycle).
    from guiapp.core.health import categories as health_categories
    from guiapp.core.health import checks as health_checks
    from guiapp.core.health import duplicates, text_kinds
    from guiapp.core.health import lengths as health_lengths

    if n_folds < 2:
        raise ValueError(f"n_folds must be at least 2, not {n_folds}")
    started = time.perf_counter()
    on_event(Progress(0.0, "Reading your choice of columns"))
    fixes = fixes or CategoryFixes()
    label_error: LabelValueError | None = None
    try:
        mapped = apply_mapping(frame, mapping, fixes)
    except LabelValueError as error:  # category cells that are not 1/0: a finding, the rest is still checked
        label_error = error
        mapped = apply_mapping(frame, dataclasses.replace(mapping, category_columns=[]), fixes)
    coded = mapped.frame
    left_out = mapped.left_out.to_numpy(dtype=bool) if mapped.left_out is not None else np.zeros(len(coded), bool)
    n_rows = len(coded)
    if n_rows == 0:
        issue = health_checks.make_issue(
            "error", "no_rows", "The table has no rows",
            "Only the column names were found; there are no texts below them.",
            "Check that you chose the right file and sheet, and that the texts start in the "
            "row below the column names.",
        )
        on_event(Progress(1.0, "Checked the table"))
        return HealthReport(0, 0, 0, 0, n_folds, (), (), None, None, None, (issue,), category_fixes=fixes,
                            first_row=row_origin(frame).first_row)

    issues: list[HealthIssue] = []
    measures = health_lengths.measure_texts(coded["text"], sub_progress(on_event, 0.02, 0.3))
    on_event(Progress(0.3, "Counting the categories"))
    split = coded["split"].to_numpy()
    # as the run: rows marked test are the test texts, all others (also an empty split cell) train
    train_mask = split != "test" if mapping.split_column else np.ones(n_rows, dtype=bool)
    data = None
    label_health = None
    if mapping.multi_label and (mapping.category_columns or mapping.category_column is not None):
        from guiapp.core.health.label_set_issues import label_set_findings
        found_sets = label_set_findings(mapped.label_sets, label_error, mapping, frame, train_mask, ~measures.empty,
                                        fixes, n_folds, test_share, seed)
        data, label_health = found_sets.data, found_sets.health
        category_codes, labels = found_sets.set_codes, found_sets.set_labels
        issues += found_sets.issues
    elif mapping.category_column is None or mapping.multi_label:
        issues.append(health_checks.make_issue(
            "error", "no_category_column", "No column with categories is chosen",
            "To compare models, TextLab needs your coding: the category of each coded text.",
            "Tick the columns that mark each category, or choose the column that lists each text's categories."
            if mapping.multi_label else "Choose the column that holds your categories.",
        ))
        category_codes, labels = np.full(n_rows, -1, dtype=np.int64), []
    else:
        data = health_checks.category_data(
            coded["category"], train_mask, mapping.category_column,
            frame[mapping.category_column].dtype,
        )
        data.left_out = left_out
        held_out = ""
        if not mapping.split_column and test_share is not None:
            held_out = health_categories.hold_out_like_the_run(data, ~measures.empty, test_share, seed)
        category_codes, labels = data.codes, data.labels
        issues += health_categories.category_issues(data, n_rows, n_folds, bool(mapping.split_column), held_out)
        issues += health_categories.unmatched_fix_issues(fixes, frame[mapping.category_column])
        if left_out.any():
            issues.append(health_checks.make_issue(
                "info", "left_out_rows",
                f"{health_checks.plural(int(left_out.sum()), 'coded text')} left out",
                "You chose to leave out "
                + health_checks.listing([health_checks.quoted(label) for label in fixes.leave_out], 10)
                + ". Their texts are not used to train or test the models; your spreadsheet is unchanged.",
                "Undo the fix above the findings to use them again.",
                left_out,
            ))
    n_coded = int((category_codes >= 0).sum())
    issues += health_lengths.text_issues(measures, category_codes >= 0, mapping.text_columns)
    issues += text_kinds.numeric_text_issues(frame, mapping.text_columns)
    found = duplicates.find_duplicates(
        measures.trimmed, measures.empty, category_codes, labels, sub_progress(on_event, 0.4, 0.55)
    )
    issues += found.issues
    on_event(Progress(0.55, "Checking the split and ID columns"))
    if mapping.split_column:
        source = frame[mapping.split_column].set_axis(coded.index)
        split_labels_, unknown = split_labels(source)
        issues += health_checks.split_issues(mapping.split_column, split_labels_, unknown, source, data)
    if mapping.id_column:
        issues += health_checks.id_issues(mapping.id_column, coded["id"])
    nonempty = ~measures.empty
    words = health_lengths.length_stats(measures.words[nonempty], "words")

    tokens, tokenizer, token_issues = _measure_tokens(
        coded["text"], nonempty, token_counter, sub_progress(on_event, 0.6, 0.98)
    )
    issues += token_issues

    issues.sort(key=lambda issue: _ORDER[issue.severity])
    report = HealthReport(
        n_rows=n_rows,
        n_coded=n_coded,
        n_uncoded=n_rows - n_coded - int(left_out.sum()),
        n_empty_texts=int(measures.empty.sum()),
        n_folds=n_folds,
        categories=health_checks.category_counts(data, n_folds) if data is not None else (),
        duplicate_groups=found.groups,
        words=words,
        tokens=tokens,
        tokenizer_name=tokenizer,
        issues=tuple(issues),
        n_repeated_texts=found.n_repeated,
        n_left_out=int(left_out.sum()),
        category_fixes=fixes,
        first_row=row_origin(frame).first_row,
        label_health=label_health,
    )
    seconds = time.perf_counter() - started
    on_event(Log(f"Checked {health_checks.plural(n_rows, 'row')} in {seconds:.1f} s."))
    on_event(Progress(1.0, "Checked the table"))
    return report


def _measure_tokens(
    texts: pd.Series,
    nonempty: np.ndarray,
    token_counter: TokenCounter | None,
    on_event: EventCallback,
) -> tuple[LengthStats | None, str | None, list[HealthIssue]]:
    """Token lengths of the non-empty texts (a seeded sample of 20,000 on large tables)."""
    from guiapp.core.health import checks as health_checks
    from guiapp.core.health import lengths as health_lengths

    on_event(Progress(0.0, "Measuring the texts in tokens"))
    if not nonempty.any():
        return None, None, []
    positions, sampled = health_lengths.sample_positions(nonempty)
    chosen = texts.iloc[positions].tolist()
    try:
        if token_counter is None:
            counts, tokenizer = count_tokens(chosen, on_event)
        else:
            counts, tokenizer = token_counter(chosen, on_event)
    except Exception as exc:  # the default tokenizer is missing or broken: report, go on
        if token_counter is not None:
            raise
        message = exc.message if isinstance(exc, UserError) else str(exc)
        message = message if message.endswith((".", "!", "?")) else message + "."
        return None, None, [health_checks.make_issue(
            "info", "token_lengths_unavailable", "Text lengths in tokens could not be measured",
            f"The Transformer tokenizer could not be used: {message} Everything else in this "
            "report is complete.",
            exc.hint if isinstance(exc, UserError) and exc.hint else "Reinstall TextLab.",
        )]
    token_counts = np.asarray(counts, dtype=np.int64)
    stats = health_lengths.length_stats(token_counts, "tokens", limit=DEFAULT_MAX_TOKENS, sampled=sampled)
    if stats is None:
        return None, tokenizer, []
    return stats, tokenizer, health_lengths.token_issues(stats, positions, token_counts, tokenizer)
