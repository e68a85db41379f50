"""Where a study's test texts sit in the tables the researcher has open.

``result.test_rows`` are spreadsheet rows of the study's table, or of its separate test file when
the study had one. :func:`table_of_test_texts` picks that table; :func:`metadata_of_test_texts` gives the
table's other columns (party, year …) for each test text, in the order of ``result.test_true``,
so the Documents step can filter the texts by them.
"""

from __future__ import annotations

import pandas as pd

from guiapp.core.experiment.results.experiment_result import ExperimentResult
from guiapp.core.study.mapping import ColumnMapping
from guiapp.core.tables.rows import positions_of_rows


def table_of_test_texts(result: ExperimentResult, table: pd.DataFrame | None,
                 test_table: pd.DataFrame | None = None) -> pd.DataFrame | None:
    """The table the test texts came from: the test file when the study used one and it is open,
    else the study's table."""
    return test_table if result.test_split.from_test_file and test_table is not None else table


def metadata_of_test_texts(result: ExperimentResult, table: pd.DataFrame | None, mapping: ColumnMapping | None,
                           test_table: pd.DataFrame | None = None) -> pd.DataFrame | None:
    """The columns of the table that are not the texts, the coding or the ID (which has a column of
    its own), one row per test text in the result's order; None when the table is not here, has no
    such column, or no longer holds the test texts' rows (the table changed since the study ran)."""
    if table is None or mapping is None:
        return None
    source = table_of_test_texts(result, table, test_table)
    assert source is not None
    positions = positions_of_rows(source, result.test_rows).tolist()
    if not positions or min(positions) < 0 or max(positions) >= len(source):
        return None
    used = {*mapping.text_columns, mapping.category_column, mapping.id_column}
    columns = [column for column in source.columns if column not in used]
    return source.iloc[positions][columns].reset_index(drop=True) if columns else None
