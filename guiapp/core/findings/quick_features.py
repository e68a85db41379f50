"""The quick model the Findings step cross-fits on a table's texts: its features and probabilities."""

from __future__ import annotations

from collections.abc import Sequence

from guiapp.core.coding.quick_model import BAG_OF_WORDS, pool_features
from guiapp.core.events import EventCallback, ignore_events, sub_progress
from guiapp.core.findings.cross_fitting import CrossFitted, cross_fitted_probabilities

FINDINGS_KIND = BAG_OF_WORDS


def findings_features(texts: Sequence[str], *, cache=None, on_event: EventCallback = ignore_events):  # noqa: ANN001, ANN201
    """The features of every text (one row per text) the Findings step cross-fits on."""
    return pool_features(FINDINGS_KIND, list(texts), cache, on_event=on_event)


def findings_probabilities(texts: Sequence[str], positions, labels: Sequence[str], *,  # noqa: ANN001
                           categories: Sequence[str] | None = None, cache=None, seed: int = 0,  # noqa: ANN001
                           on_event: EventCallback = ignore_events) -> CrossFitted:
    """The quick model's cross-fitted probabilities of every text (``positions``/``labels``: the coded ones)."""
    features = findings_features(texts, cache=cache, on_event=sub_progress(on_event, 0.0, 0.4))
    return cross_fitted_probabilities(FINDINGS_KIND, features, positions, labels, categories=categories, seed=seed,
                                      on_event=sub_progress(on_event, 0.4, 1.0))
