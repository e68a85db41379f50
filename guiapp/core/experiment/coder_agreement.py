"""Every model of a study against several human coders, when the table counts the coders per
category (:mod:`guiapp.core.experiment.coder_columns` finds those columns).

:func:`test_text_rows` picks the table's rows of the study's test texts (``result.test_rows`` are
spreadsheet rows: row ``r`` sits at position ``r`` minus the table's first row of data; in the separate test file when the study
used one). :func:`models_versus_coders` runs :func:`comparisons.human_agreement` for each finished
model, best first, with the study's number of resamples and seed.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from guiapp.core.events import Progress
from guiapp.core.experiment.comparisons import (
    DEFAULT_SAMPLES,
    LEVEL,
    HumanAgreement,
    compared_models,
    human_agreement,
)
from guiapp.core.experiment.results import ExperimentResult
from guiapp.core.experiment.subgroup_scores import _positions, _source_table


@dataclass(frozen=True)
class ModelVersusCoders:
    """One model's :class:`HumanAgreement`, with the columns it was measured against."""

    model: str
    columns: list[str]
    agreement: HumanAgreement

    def to_dict(self) -> dict:
        return {"model": self.model, "columns": list(self.columns)} | self.agreement.to_dict()


def test_text_rows(result: ExperimentResult, table: pd.DataFrame, test_table: pd.DataFrame | None = None
                   ) -> pd.DataFrame:
    """The rows of the study's test texts, in the order of ``result.test_true`` (DataError when the
    table is not the one the study was run on)."""
    source = _source_table(result, table, test_table)
    return source.iloc[_positions(result, source)].reset_index(drop=True)


def models_versus_coders(
    result: ExperimentResult, rows: pd.DataFrame, columns: list[str], *, samples: int | None = None,
    seed: int | None = None, level: float = LEVEL, on_event=None,  # noqa: ANN001 — a core callback
) -> list[ModelVersusCoders]:
    """:func:`human_agreement` of every finished model (best first) on the test rows ``rows``;
    ``columns`` hold the coders' counts in the study's category order."""
    protocol = result.protocol
    samples = int(samples or protocol.samples(DEFAULT_SAMPLES))
    seed = int(protocol.seed or 0 if seed is None else seed)
    if len(rows) != len(result.test_true):
        raise ValueError(f"{len(rows):,} rows given for {len(result.test_true):,} test texts.")
    models = compared_models(result)
    found = []
    for done, model in enumerate(models):
        if on_event is not None:
            on_event(Progress(done / max(1, len(models)), f"Comparing {model.name} with your coders"))
        found.append(ModelVersusCoders(model.name, list(columns), human_agreement(
            rows, columns, [int(v) for v in model.predictions], samples=samples, seed=seed, level=level)))
    return found
