"""SVM settings scored on one shared kernel matrix.

libsvm's RBF kernel is ``exp(-γ·(|x|² + |y|² − 2·x·y))``; its linear kernel is ``x·y``. Every
setting of a fold with the same kernel uses the same dot products, so they are computed once
(one matrix product) and each setting fits ``SVC(kernel="precomputed")`` — the same
optimisation problem libsvm would solve, with the kernel values it would compute (bag-of-words
dot products are whole numbers, exact in any order), several times faster. Above
``MAX_PRECOMPUTED_ROWS`` training rows the matrix would need too much memory, and the plain
SVC is used.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from guiapp.core.experiment.scores.metrics import macro_f1
from guiapp.core.models.conventional import Params

MAX_PRECOMPUTED_ROWS = 6000  # 6,000² doubles = 288 MB per kernel matrix


def can_share_kernel(X_train) -> bool:
    return X_train.shape[0] <= MAX_PRECOMPUTED_ROWS


def _dots(A, B) -> np.ndarray:
    import scipy.sparse as sp

    product = A @ B.T
    return product.toarray() if sp.issparse(product) else np.asarray(product)


def _squares(X) -> np.ndarray:
    import scipy.sparse as sp

    if sp.issparse(X):
        return np.asarray(X.multiply(X).sum(axis=1)).ravel()
    return np.einsum("ij,ij->i", X, X)


def score_svm_settings(
    points: list[Params],
    seed: int,
    X_train,
    y_train: np.ndarray,
    X_valid,
    y_valid: np.ndarray,
    check: Callable[[], None] | None = None,
) -> list[tuple[float, float]]:
    """``(macro-F1, seconds)`` per SVM setting, all fitted on kernels from one dot product."""
    from sklearn.svm import SVC

    start = time.perf_counter()
    train_dots, valid_dots = _dots(X_train, X_train), _dots(X_valid, X_train)
    train_squares, valid_squares = _squares(X_train), _squares(X_valid)
    shared = (time.perf_counter() - start) / len(points)
    kernels: dict[object, tuple[np.ndarray, np.ndarray]] = {}
    results = []
    for point in points:
        if check is not None:
            check()
        start = time.perf_counter()
        key = point.get("gamma") if point["kernel"] == "rbf" else "linear"
        if key not in kernels:
            if key == "linear":
                kernels[key] = (train_dots, valid_dots)
            else:
                gamma = float(key)
                kernels[key] = (
                    np.exp(-gamma * (train_squares[:, None] + train_squares[None, :] - 2 * train_dots)),
                    np.exp(-gamma * (valid_squares[:, None] + train_squares[None, :] - 2 * valid_dots)),
                )
        train_kernel, valid_kernel = kernels[key]
        model = SVC(kernel="precomputed", C=point["C"], random_state=seed).fit(train_kernel, y_train)
        predicted = model.predict(valid_kernel)
        results.append((macro_f1(y_valid, predicted), time.perf_counter() - start + shared))
    return results
