"""What every representation shares: the scikit-learn API built on the engine's fast path.

A representation implements ``prepare`` (per-document work, once per corpus), ``fit_prepared``
(what a fold learns) and ``transform_prepared``, plus ``feature_names``; this base class turns
those into ``fit`` / ``transform`` / ``fit_transform`` / ``get_feature_names_out`` and tells
scikit-learn that the input is a list of strings. ``require_fitted`` refuses to transform or save
a representation that has not learnt yet (its ``fitted_attribute`` is missing).

A fitted representation also gives its learned state for model files (``to_state``: plain JSON
values and named numpy arrays) and is rebuilt from it (``from_state``), without pickle.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin


class PreparedRepresentation(TransformerMixin, BaseEstimator):
    fitted_attribute: str  # an attribute that only a fitted representation has

    def require_fitted(self, before: str) -> None:
        """A RuntimeError unless the representation has been fitted (``before``: what needs it)."""
        if not hasattr(self, self.fitted_attribute):
            raise RuntimeError(f"{type(self).__name__} must be fitted before {before}")

    def fit(self, texts: Sequence[str], y: object = None):
        return self.fit_prepared(self.prepare(texts))

    def transform(self, texts: Sequence[str]):
        return self.transform_prepared(self.prepare(texts))

    def fit_transform(self, texts: Sequence[str], y: object = None, **fit_params: Any):
        prepared = self.prepare(texts)
        return self.fit_prepared(prepared).transform_prepared(prepared)

    def get_feature_names_out(self, input_features: object = None) -> np.ndarray:
        return np.asarray(self.feature_names(), dtype=object)

    # ---------------------------------------------------------------------- saved state
    def to_state(self) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        """The fitted state: JSON-compatible values (``options`` = the constructor's arguments)
        and named numpy arrays; :meth:`from_state` rebuilds an equal representation."""
        raise NotImplementedError

    @classmethod
    def from_state(cls, state: dict[str, Any], arrays: dict[str, np.ndarray]):
        """A fitted representation from :meth:`to_state`'s output; ``ValueError`` if it does not
        fit together (a damaged file)."""
        raise NotImplementedError

    def options_state(self) -> dict[str, Any]:
        """The constructor's arguments as JSON values (sequences become lists, paths strings)."""
        options: dict[str, Any] = {}
        for name, value in self.get_params(deep=False).items():
            if isinstance(value, tuple | list | set | frozenset):
                value = list(value) if not isinstance(value, set | frozenset) else sorted(value)
            elif value is not None and not isinstance(value, bool | int | float | str):
                value = str(value)
            options[name] = value
        return options

    @classmethod
    def from_options(cls, options: Any):
        """A new representation with these saved options, checked (``ValueError``, ``TypeError``
        or ``UserError`` when they are wrong)."""
        if not isinstance(options, dict):
            raise TypeError("the options are not a mapping")
        unknown = set(options) - set(cls._get_param_names())
        if unknown:
            raise ValueError(f"unknown options: {sorted(unknown)}")
        representation = cls(**options)
        representation.validate()
        return representation

    def __sklearn_tags__(self):  # sklearn's Tags object
        tags = super().__sklearn_tags__()
        tags.input_tags.two_d_array = False
        tags.input_tags.string = True
        return tags
