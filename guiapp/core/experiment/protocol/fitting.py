"""Fitting one classifier setting and scoring it: the unit of work of a grid search.

Runs in the engine's worker processes as well as in-process, so it imports only numpy,
scikit-learn and XGBoost (never torch or Qt). For XGBoost, settings that differ only in the
number of trees share one fit: the first 50 trees of a 250-tree model *are* the 50-tree model
(no subsampling, fixed seed), so predictions are taken with ``iteration_range``. SVM settings
with the same kernel share one kernel matrix (``svm_kernels.py``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from guiapp.core.experiment.scores.metrics import macro_f1
from guiapp.core.experiment.protocol.per_category import PerCategoryClassifier, fit_per_category
from guiapp.core.experiment.protocol.svm_kernels import can_share_kernel, score_svm_settings
from guiapp.core.models.conventional import Params, make_classifier

Check = Callable[[], None]


def group_points(classifier: str, points: list[Params]) -> list[list[int]]:
    """Indices of grid points that share work: XGBoost settings that differ only in the number
    of trees share a fit; SVM settings with the same kernel share its dot products."""
    if classifier not in ("xgboost", "svm"):
        return [[index] for index in range(len(points))]
    groups: dict[tuple, list[int]] = {}
    for index, point in enumerate(points):
        if classifier == "svm":
            key: tuple = (point["kernel"],)
        else:
            key = tuple(sorted((name, value) for name, value in point.items() if name != "n_estimators"))
        groups.setdefault(key, []).append(index)
    return list(groups.values())


class _CheckCallback:
    """An XGBoost training callback that lets the engine cancel between boosting rounds."""

    def __new__(cls, check: Check):  # built lazily so importing this module stays light
        from xgboost.callback import TrainingCallback

        class CheckEachRound(TrainingCallback):
            def after_iteration(self, model, epoch, evals_log) -> bool:
                check()
                return False

        return CheckEachRound()


class CalibratedSVM:
    """An SVM whose predictions are its own decisions, with Platt-calibrated probabilities.

    scikit-learn 1.9 deprecates ``SVC(probability=True)`` in favour of
    ``CalibratedClassifierCV(SVC(), ensemble=False)``; with ``ensemble=False`` the final SVC is
    fitted on all training texts with the chosen setting — the very model that was tuned — so
    the predicted category stays the SVM's decision, and the calibrated probabilities come from
    internal 5-fold cross-validation. (In rare close calls the most probable category can then
    differ from the predicted one, as with ``SVC(probability=True)``.)
    """

    def __init__(self, params: Params, seed: int) -> None:
        self.params, self.seed = params, seed

    def fit(self, X, y: np.ndarray) -> CalibratedSVM:
        from sklearn.calibration import CalibratedClassifierCV
        from sklearn.model_selection import StratifiedKFold

        smallest = int(np.bincount(y)[np.unique(y)].min())
        folds = StratifiedKFold(n_splits=max(2, min(5, smallest)), shuffle=True, random_state=self.seed)
        svm = make_classifier("svm", self.params, self.seed)
        if smallest < 2:  # too few texts of a category to calibrate: decisions only
            self.svm_, self.calibrated_ = svm.fit(X, y), None
            return self
        self.calibrated_ = CalibratedClassifierCV(svm, ensemble=False, cv=folds).fit(X, y)
        self.svm_ = self.calibrated_.calibrated_classifiers_[0].estimator
        return self

    def predict(self, X) -> np.ndarray:
        return self.svm_.predict(X)

    def predict_proba(self, X) -> np.ndarray:
        if self.calibrated_ is None:
            raise AttributeError("no probabilities")
        return self.calibrated_.predict_proba(X)


def fit_classifier(
    classifier: str,
    params: Params,
    seed: int,
    n_threads: int,
    X,
    y: np.ndarray,
    check: Check | None = None,
    probabilities: bool = False,
    oversampling: float | None = None,
):
    """A fitted classifier. Labels are re-coded to 0..m-1 for XGBoost and mapped back on predict.

    ``probabilities`` asks for calibrated probabilities where the classifier has none of its own
    (the SVM, see :class:`CalibratedSVM`); used for the final model only.

    ``y`` as a 0/1 matrix (texts × categories: a text can have several) gives one classifier per
    category (``per_category.py``); ``oversampling`` is then the ratio each category's smaller side
    grows to, drawn for that category alone (single-label studies oversample rows beforehand).
    """
    if np.ndim(y) == 2:
        return _fit_per_category(classifier, params, seed, n_threads, X, y, check, probabilities, oversampling)
    present = np.unique(y)
    if classifier == "svm" and probabilities:
        model = CalibratedSVM(params, seed).fit(X, y)
        model.textlab_classes_ = present
        return model
    model = make_classifier(classifier, params, seed, n_threads)
    if classifier == "xgboost":
        if check is not None:
            model.set_params(callbacks=[_CheckCallback(check)])
        model.fit(X, np.searchsorted(present, y))
        model.set_params(callbacks=None)
    else:
        model.fit(X, y)
    model.textlab_classes_ = present  # category index of each model class
    return model


def _fit_per_category(classifier: str, params: Params, seed: int, n_threads: int, X, Y: np.ndarray,
                      check: Check | None, probabilities: bool, oversampling: float | None) -> PerCategoryClassifier:
    sampler = None
    if oversampling is not None:
        from guiapp.core.experiment.protocol.resampling import oversampled_rows

        def sampler(labels: np.ndarray) -> np.ndarray:
            return oversampled_rows(labels, oversampling, seed)

    def fit_one(rows: np.ndarray, labels: np.ndarray):
        return fit_classifier(classifier, params, seed, n_threads, X[rows], labels, check, probabilities)

    return fit_per_category(Y, fit_one, sampler, check)


def predict(model, X, n_trees: int | None = None) -> np.ndarray:
    """The decisions: a category index per text, or for a model with one classifier per category a
    0/1 matrix (texts × categories)."""
    if isinstance(model, PerCategoryClassifier):
        return model.predict(X, n_trees)
    if n_trees is not None:
        coded = model.predict(X, iteration_range=(0, n_trees))
    else:
        coded = model.predict(X)
    if hasattr(model, "get_booster"):
        return model.textlab_classes_[np.asarray(coded, dtype=int)]
    return np.asarray(coded)


def predict_proba(model, X, n_categories: int) -> np.ndarray | None:
    """Probabilities per category (columns in category order), or None if the model has none."""
    if not hasattr(model, "predict_proba"):
        return None
    try:
        partial = model.predict_proba(X)
    except AttributeError:  # SVC without probability estimates
        return None
    if isinstance(model, PerCategoryClassifier):  # each category's own chance, already in category order
        return partial
    full = np.zeros((partial.shape[0], n_categories))
    full[:, model.textlab_classes_] = partial
    return full


def fit_and_score(
    classifier: str,
    points: list[Params],
    seed: int,
    n_threads: int,
    X_train,
    y_train: np.ndarray,
    X_valid,
    y_valid: np.ndarray,
    check: Check | None = None,
    oversampling: float | None = None,
) -> list[tuple[float, float]]:
    """Fit the group's settings on the training part, score on the validation fold.

    Returns ``(macro-F1, fit seconds)`` per setting, in the order given. ``oversampling``: see
    :func:`fit_classifier` (studies where a text can have several categories).
    """
    if classifier == "svm" and np.ndim(y_train) == 1 and can_share_kernel(X_train):
        return score_svm_settings(points, seed, X_train, y_train, X_valid, y_valid, check)
    if classifier == "xgboost" and len(points) > 1:
        largest = max(points, key=lambda point: point["n_estimators"])
        start = time.perf_counter()
        model = fit_classifier(classifier, largest, seed, n_threads, X_train, y_train, check, oversampling=oversampling)
        seconds = time.perf_counter() - start
        results = []
        for point in points:
            predicted = predict(model, X_valid, n_trees=point["n_estimators"])
            share = point["n_estimators"] / largest["n_estimators"]
            results.append((macro_f1(y_valid, predicted), seconds * share))
        return results
    results = []
    for point in points:
        if check is not None:
            check()
        start = time.perf_counter()
        model = fit_classifier(classifier, point, seed, n_threads, X_train, y_train, check, oversampling=oversampling)
        seconds = time.perf_counter() - start
        results.append((macro_f1(y_valid, predict(model, X_valid)), seconds))
    return results


def task_result(args: tuple[Any, ...]) -> list[tuple[float, float]]:
    """Picklable entry point for worker processes: ``fit_and_score(*args)``."""
    return fit_and_score(*args)


def fitted_probabilities(args: tuple[Any, ...]) -> np.ndarray:
    """Picklable entry point: fit ``(classifier, params, seed, n_threads, X_train, y_train)`` with
    probabilities and return them for ``X_valid`` (columns in category order; a classifier without
    probabilities puts all weight on its decision)."""
    classifier, params, seed, n_threads, X_train, y_train, X_valid, n_categories, *rest = args
    oversampling = rest[0] if rest else None
    model = fit_classifier(classifier, params, seed, n_threads, X_train, y_train, probabilities=True,
                           oversampling=oversampling)
    probabilities = predict_proba(model, X_valid, n_categories)
    if probabilities is None and np.ndim(y_train) == 2:  # decisions count as certain
        return predict(model, X_valid).astype(float)
    if probabilities is None:
        probabilities = np.zeros((X_valid.shape[0], n_categories))
        probabilities[np.arange(X_valid.shape[0]), predict(model, X_valid)] = 1.0
    return probabilities
