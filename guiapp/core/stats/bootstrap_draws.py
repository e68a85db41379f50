"""Bootstrap resamples as weights: how often each text (or coded unit) was drawn in each resample,
in chunks of resamples small enough to keep memory flat. A statistic that is a sum over the texts
is then one matrix product per chunk (the weights × the texts' values) instead of a loop."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

_CELLS_PER_CHUNK = 2_000_000


def resample_weights(rng: np.random.Generator, n_texts: int, samples: int) -> Iterator[tuple[int, int, np.ndarray]]:
    """Yield (start, stop, weights) for chunks of resamples: ``weights[s, i]`` is how often text i
    was drawn in resample ``start + s`` (``n_texts`` draws with replacement per resample)."""
    chunk = max(1, _CELLS_PER_CHUNK // max(n_texts, 1))
    for start in range(0, samples, chunk):
        stop = min(samples, start + chunk)
        draws = rng.integers(0, n_texts, size=(stop - start, n_texts))
        offsets = (np.arange(stop - start) * n_texts)[:, None]
        weights = np.bincount((draws + offsets).ravel(), minlength=(stop - start) * n_texts)
        yield start, stop, weights.reshape(stop - start, n_texts).astype(float)
