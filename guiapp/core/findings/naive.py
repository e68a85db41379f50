"""The naive answers, shown beside the corrected ones for contrast.

- **Classify and count**: every text counts with its predicted category (a coded text of the
  corpus with its coding) and the shares are the counts over N, with the usual binomial interval
  (Wilson's) — as if the predictions were codings. It ignores the model's mistakes: biased
  whenever the model errs more in one direction than the other, and its interval far too narrow.
- **Probabilistic classify and count**: the mean of the predicted probabilities.
"""

from __future__ import annotations

import numpy as np
from scipy.stats import norm


def filled_in(f_model: np.ndarray, y: np.ndarray, positions: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """(one-hot predicted category, probabilities) of each corpus text, the coded texts of the
    corpus taking their coding."""
    hard = np.zeros_like(f_model)
    hard[np.arange(f_model.shape[0]), f_model.argmax(axis=1)] = 1.0
    soft = f_model.copy()
    if positions is not None:
        hard[positions] = y
        soft[positions] = y
    return hard, soft


def wilson(shares: np.ndarray, n: int, level: float) -> tuple[np.ndarray, np.ndarray]:
    """Wilson's interval of binomial proportions ``shares`` out of ``n``."""
    z = norm.ppf(0.5 + level / 2)
    if n <= 0:
        return np.full_like(shares, np.nan), np.full_like(shares, np.nan)
    centre = (shares + z**2 / (2 * n)) / (1 + z**2 / n)
    half = z * np.sqrt(shares * (1 - shares) / n + z**2 / (4 * n**2)) / (1 + z**2 / n)
    return np.clip(centre - half, 0, 1), np.clip(centre + half, 0, 1)
