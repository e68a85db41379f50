"""What every representation shares: the scikit-learn API built on the engine's fast path.

A representation implements ``prepare`` (per-document work, once per corpus), ``fit_prepared``
(what a fold learns) and ``transform_prepared``, plus ``feature_names``; this base class turns
those into ``fit`` / ``transform`` / ``fit_transform`` / ``get_feature_names_out`` and tells
scikit-learn that the input is a list of strings.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin


class PreparedRepresentation(TransformerMixin, BaseEstimator):
    def fit(self, texts: Sequence[str], y: object = None):
        return self.fit_prepared(self.prepare(texts))

    def transform(self, texts: Sequence[str]):
        return self.transform_prepared(self.prepare(texts))

    def fit_transform(self, texts: Sequence[str], y: object = None, **fit_params: Any):
        prepared = self.prepare(texts)
        return self.fit_prepared(prepared).transform_prepared(prepared)

    def get_feature_names_out(self, input_features: object = None) -> np.ndarray:
        return np.asarray(self.feature_names(), dtype=object)

    def __sklearn_tags__(self):  # sklearn's Tags object
        tags = super().__sklearn_tags__()
        tags.input_tags.two_d_array = False
        tags.input_tags.string = True
        return tags
