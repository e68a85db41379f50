"""Groups of similar texts in the pool of uncoded texts, found once and reused for every choice.

k-means on the texts' sentence embeddings, scaled to unit length first so that "similar" means
the cosine similarity these embeddings are made for. The embeddings of a pool do not change when
the quick model is retrained, so the groups are found once per pool (or once per retraining, if
the caller prefers) and the diversity strategy reuses them for every choice: a choice itself then
costs only a few vectorised sums. scikit-learn's ``KMeans`` finds the groups on at most 10,000
texts of the pool (a random sample when the pool is larger: the groups of a large sample are the
groups of the pool), and every text then joins the group with the nearest centre — a few seconds
for 100,000 texts on two cores.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

from guiapp.core.errors import DataError

#: The groups are found on at most this many texts; the others join the nearest group.
MOST_TEXTS_TO_FIT = 10_000
#: The most groups a pool is split into by default.
MOST_CLUSTERS = 50


def default_cluster_count(n_texts: int) -> int:
    """About √n / 2 groups, at least 2 and at most 50: 5 for 100 texts, 15 for 1,000, 50 from
    10,000 on. Enough groups to spread the choices over the kinds of texts in the pool, few
    enough that each holds texts worth choosing from."""
    if n_texts < 2:
        return 1
    return int(min(MOST_CLUSTERS, max(2, round(math.sqrt(n_texts) / 2)), n_texts))


@dataclass(frozen=True)
class PoolClusters:
    """The group of each text of the pool (``labels[i]`` for pool position ``i``)."""

    labels: np.ndarray  # (n_pool,) int, 0 … n_clusters - 1, every group non-empty
    n_clusters: int

    @classmethod
    def fit(cls, embeddings: np.ndarray, n_clusters: int | None = None, seed: int = 0) -> PoolClusters:
        """Split the pool into groups of similar texts (k-means on unit-length embeddings)."""
        vectors = np.asarray(embeddings, dtype=np.float32)
        if vectors.ndim != 2 or vectors.shape[0] == 0:
            raise DataError(
                "The texts to code have no sentence embeddings to group them by.",
                "Compute the sentence embeddings of the uncoded texts first, or choose another way "
                "to pick the next text.",
            )
        if not np.all(np.isfinite(vectors)):
            raise DataError(
                "Some sentence embeddings of the texts to code are not numbers.",
                "Compute the embeddings again; if it happens again, report the texts involved.",
            )
        n_texts = vectors.shape[0]
        k = default_cluster_count(n_texts) if n_clusters is None else int(n_clusters)
        if k < 1:
            raise DataError("The number of groups must be at least 1.", "Choose 1 or more groups.")
        k = min(k, n_texts)
        if k == 1:
            return cls(labels=np.zeros(n_texts, dtype=np.intp), n_clusters=1)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        vectors = vectors / np.where(norms > 0, norms, 1.0)
        labels = _kmeans_labels(vectors, k, seed)
        # Identical texts can leave a group empty; number the groups that hold texts 0 … k - 1.
        used, labels = np.unique(labels, return_inverse=True)
        return cls(labels=labels.astype(np.intp).ravel(), n_clusters=int(used.size))

    def check(self, n_pool: int) -> None:
        """Raise a readable error when these groups were found for another pool."""
        if self.labels.shape != (n_pool,):
            raise DataError(
                f"The groups of similar texts were found for {self.labels.shape[0]} texts, "
                f"but the pool now has {n_pool}.",
                "Group the texts again after the pool changed (new file or new rows).",
            )

    def sizes(self) -> np.ndarray:
        """How many texts of the pool each group holds."""
        return np.bincount(self.labels, minlength=self.n_clusters)


def _kmeans_labels(vectors: np.ndarray, k: int, seed: int) -> np.ndarray:
    from sklearn.cluster import KMeans
    from sklearn.exceptions import ConvergenceWarning

    sample = vectors
    if vectors.shape[0] > MOST_TEXTS_TO_FIT:
        rng = np.random.default_rng(seed)
        sample = vectors[rng.choice(vectors.shape[0], MOST_TEXTS_TO_FIT, replace=False)]
    with warnings.catch_warnings():
        # Fewer distinct texts than groups (duplicates) only means some groups stay empty.
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = KMeans(n_clusters=k, random_state=seed, n_init=1, max_iter=100).fit(sample)
    return np.asarray(model.predict(vectors))
