"""Every model of a study against several human coders, when the table counts the coders per
category (:mod:`guiapp.core.experiment.scores.coder_columns` finds those columns).

:func:`test_text_rows` picks the table's rows of the study's test texts (``result.test_rows`` are
spreadsheet rows: row ``r`` sits at position ``r`` minus the table's first row of data; in the separate test file when the study
used one). :func:`models_versus_coders` runs :func:`comparisons.human_agreement` for each finished
model, best first, with the study's number of resamples and seed.

In a study where a text can have several categories, counts of coders per category do not say how
many coders looked at a text (several can tick several categories), so a majority and the coders'
agreement cannot be read from them: :func:`models_versus_coders` refuses in words
(:data:`MULTI_LABEL_REFUSAL`). The models' agreement with the coding, per category, is
:func:`guiapp.core.experiment.scores.comparisons.agreement_with_coding`.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from guiapp.core.errors import DataError
from guiapp.core.events import Progress
from guiapp.core.experiment.scores.comparisons import (
    DEFAULT_SAMPLES,
    LEVEL,
    HumanAgreement,
    compared_models,
    human_agreement,
)
from guiapp.core.experiment.results.experiment_result import ExperimentResult
from guiapp.core.experiment.scores.subgroup_scores import _positions, _source_table


MULTI_LABEL_REFUSAL = (
    "In this study a text can have several categories, so counting the coders who chose each category does not say "
    "how many coders read each text: the models cannot be held against single coders that way.",
    "Read each model's agreement with your coding per category (Krippendorff's alpha per category) instead.",
)


def why_not_against_coders(result: ExperimentResult) -> str | None:
    """Why the models of ``result`` cannot be held against counts of coders, in words (None when they can)."""
    return MULTI_LABEL_REFUSAL[0] if result.multi_label else None


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
    ``columns`` hold the coders' counts in the study's category order. DataError for a study where a
    text can have several categories (module docstring)."""
    if result.multi_label:
        raise DataError(*MULTI_LABEL_REFUSAL)
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
