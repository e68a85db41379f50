"""The quick model the Findings step cross-fits on a table's texts: what it reads of each text and
how it turns that into probabilities.

A share's interval narrows by as much of the category's variance as the model's probabilities
explain, so the Findings step uses a model chosen for that, not the Coding step's quick model
(which is chosen for speed while the researcher codes, and whose defaults the Coding step keeps):

- it reads each text twice: its **sentence embedding** (the bundled all-MiniLM-L6-v2, as the
  Coding step's "embeddings" model) and its **bag of words with every word kept** (the basic bag
  of words, but without dropping the words found in more than a third of the texts — on short
  texts such as tweets those common words are often the most telling ones);
- on each it fits a logistic regression (categories weighted inversely to their codings, as the
  Coding step's models; C = 10 on the unit-length embeddings, C = 1 on the words), and a text's
  probabilities are the **mean of the two models' probabilities**.

Chosen by the validity simulation ``benchmarks/bench_findings_corpora.py`` against the Coding step's
SVM on the default bag of words, the same bag of words with every word kept, word pairs, tf-idf
weights, other regularisations, logistic regression alone on either reading, and both readings in
one model; the same choice for both of its corpora (tweets, bill titles). See docs/findings.md.

Embedding is the slow part the first time (minutes for tens of thousands of texts on a laptop's
CPU); the embeddings are cached per text, so the Coding step's and the next run's are reused.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from guiapp.core.coding.quick_model import (
    BAG_OF_WORDS,
    EMBEDDINGS,
    LOGISTIC_C,
    FeatureCache,
    pool_features,
    stratified_folds,
)
from guiapp.core.errors import DataError
from guiapp.core.events import EventCallback, Progress, ignore_events, sub_progress
from guiapp.core.findings.cross_fitting import (
    FOLDS,
    CrossFitted,
    cross_fitted_probabilities,
)
from guiapp.core.stats.agreement import sorted_categories

FINDINGS_KIND = "embeddings and words"
#: The kind in a researcher's words: (name on screen, one-sentence tooltip).
FINDINGS_KIND_WORDS = (
    "Sentence embeddings and words",
    ("The mean of two quick models: one reads each text's meaning through a small language model, "
     "the other which words it contains."),
)
EMBEDDINGS_C = LOGISTIC_C  # the Coding step's embeddings model: unit-length vectors need little shrinking
WORDS_C = 1.0
WORDS_MAX_SHARE = 1.0  # keep every word, however common
EMBEDDING_SHARE = 0.85  # of the progress bar: embedding is the slow part the first time


def findings_bag_of_words() -> Any:
    """The bag of words the Findings step reads: the basic one with every word kept."""
    from guiapp.core.features.bow import BagOfWords

    return BagOfWords(max_df=WORDS_MAX_SHARE)


@dataclass(frozen=True)
class FindingsFeatures:
    """What the Findings step's model reads of each text: one row per text in both parts.
    Indexing by rows (``features[rows]``) gives the same rows of both."""

    embeddings: np.ndarray  # n × d sentence embeddings (float32)
    words: Any  # n × V sparse bag of words (binary, every word kept)

    @property
    def shape(self) -> tuple[int, int]:
        return (self.embeddings.shape[0], self.embeddings.shape[1] + self.words.shape[1])

    def __getitem__(self, rows: Any) -> FindingsFeatures:
        return FindingsFeatures(self.embeddings[rows], self.words[rows])

    def __len__(self) -> int:
        return int(self.embeddings.shape[0])


def findings_features(texts: Sequence[str], *, cache: FeatureCache | None = None, embeddings: Any = None,
                      on_event: EventCallback = ignore_events) -> FindingsFeatures:
    """The features of every text (one row per text, in order) the Findings step cross-fits on.
    ``cache``: where features are kept (default: the one the Coding step uses too, so texts it
    embedded are not embedded again); ``embeddings``: a configured ``SentenceEmbeddings``
    (default: the bundled model)."""
    from guiapp.core.features.tokens import as_text_list

    texts = as_text_list(texts)
    on_event(Progress(0.0, "Reading the texts' meaning", 0, len(texts)))
    vectors = pool_features(EMBEDDINGS, texts, cache, representation=embeddings,
                            on_event=sub_progress(on_event, 0.0, EMBEDDING_SHARE))
    on_event(Progress(EMBEDDING_SHARE, "Reading the texts' words", 0, len(texts)))
    words = pool_features(BAG_OF_WORDS, texts, cache, representation=findings_bag_of_words(),
                          on_event=sub_progress(on_event, EMBEDDING_SHARE, 1.0))
    on_event(Progress(1.0, "Reading the texts' words", len(texts), len(texts)))
    return FindingsFeatures(np.asarray(vectors), words)


class FindingsModel:
    """The mean of two logistic regressions' probabilities, one on the sentence embeddings and
    one on the words (see the module docstring). ``fit``/``predict_proba`` as the quick model's."""

    def __init__(self, *, seed: int = 0) -> None:
        self.seed = seed
        self.categories: list[str] = []

    def fit(self, features: FindingsFeatures, labels: Sequence[str],
            categories: Sequence[str] | None = None) -> FindingsModel:
        labels = [str(label) for label in labels]
        if not labels:
            raise DataError("The model needs at least one coded text.", "Code a text first.")
        if len(features) != len(labels):
            raise DataError(f"There are {len(features):,} texts but {len(labels):,} codings.",
                            "Give one coding per text.")
        self.categories = list(categories) if categories is not None else sorted_categories(labels)
        present = sorted_categories(labels)
        self._columns = np.array([self.categories.index(c) for c in present], dtype=np.intp)
        index = {category: i for i, category in enumerate(present)}
        y = np.array([index[label] for label in labels], dtype=np.intp)
        self._models: list[Any] = []
        if len(present) == 1:  # a fold with one category only: that category, with certainty
            return self
        from sklearn.exceptions import ConvergenceWarning
        from threadpoolctl import threadpool_limits

        # one thread: small fits are slower with more; a fit stopped at its iteration limit still
        # gives usable probabilities, and the estimate corrects their mistakes anyway
        with threadpool_limits(limits=1), warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            self._models = [self._logistic(EMBEDDINGS_C).fit(features.embeddings, y),
                            self._logistic(WORDS_C).fit(features.words, y)]
        return self

    def _logistic(self, c: float) -> Any:
        from sklearn.linear_model import LogisticRegression

        return LogisticRegression(C=c, max_iter=1000, class_weight="balanced", random_state=self.seed)

    def predict_proba(self, features: FindingsFeatures) -> np.ndarray:
        """(n_texts, len(categories)) probabilities, rows summing to 1."""
        if not self.categories:
            raise RuntimeError("FindingsModel must be fitted before predict_proba")
        out = np.zeros((len(features), len(self.categories)))
        if len(features) == 0:
            return out
        if not self._models:
            out[:, self._columns[0]] = 1.0
            return out
        from threadpoolctl import threadpool_limits

        with threadpool_limits(limits=1):
            embedded, worded = self._models
            out[:, self._columns] = (embedded.predict_proba(features.embeddings)
                                     + worded.predict_proba(features.words)) / 2
        return out


def findings_probabilities(texts: Sequence[str], positions: Sequence[int], labels: Sequence[str], *,
                           categories: Sequence[str] | None = None, cache: FeatureCache | None = None,
                           seed: int = 0, embeddings: Any = None,
                           on_event: EventCallback = ignore_events) -> CrossFitted:
    """The Findings step's cross-fitted probabilities of every text: ``texts`` is the corpus (every
    text whose share is measured), ``positions`` the corpus positions of the coded texts and
    ``labels`` their categories; ``categories`` the column order (default: the coded categories
    sorted). The coded texts' rows come from fold models that did not see them, the other texts'
    from the mean of the fold models (see ``cross_fitting.py``). Raises DataError, with what to
    do, when the codings cannot be cross-fitted."""
    from guiapp.core.features.tokens import as_text_list

    texts = as_text_list(texts)
    positions, labels, columns = _checked(len(texts), positions, labels, categories, seed)
    features = findings_features(texts, cache=cache, embeddings=embeddings,
                                 on_event=sub_progress(on_event, 0.0, 0.8))
    return cross_fitted_probabilities(FINDINGS_KIND, features, positions, labels, categories=columns,
                                      folds=FOLDS, seed=seed, on_event=sub_progress(on_event, 0.8, 1.0),
                                      model=lambda fold_seed: FindingsModel(seed=fold_seed))


def _checked(n_texts: int, positions: Sequence[int], labels: Sequence[str], categories: Sequence[str] | None,
             seed: int) -> tuple[np.ndarray, list[str], list[str]]:
    """The coded texts' positions, labels and the column order, or a DataError saying what is wrong."""
    if n_texts == 0:
        raise DataError("There are no texts to measure.", "Open a table with a text column.")
    raw = np.asarray(positions)
    if raw.size and (raw.dtype.kind not in "iu" and not np.all(np.mod(raw.astype(float), 1) == 0)):
        raise DataError("The coded texts' positions are not whole numbers.",
                        "Give each coded text's row number in the table, counting from 0.")
    positions = raw.astype(np.intp).ravel()
    if any(label is None or (isinstance(label, float) and np.isnan(label)) or label == "" for label in labels):
        raise DataError("Some coded texts have an empty category.", "Leave out texts without a coding.")
    labels = [str(label) for label in labels]
    if len(positions) != len(labels):
        raise DataError(f"There are {len(positions):,} coded texts but {len(labels):,} codings.",
                        "Give one coding per coded text.")
    if len(positions) and (positions.min() < 0 or positions.max() >= n_texts):
        raise DataError(f"A coded text's position lies outside the {n_texts:,} texts.",
                        "Give each coded text's row number in the table, counting from 0.")
    if len(np.unique(positions)) != len(positions):
        raise DataError("A text is coded twice.", "Keep one coding per text (its latest).")
    present = sorted_categories(labels)
    if len(present) < 2:
        only = f" (“{present[0]}”)" if present else ""
        raise DataError(f"Every coded text has the same category{only}: the model cannot learn to tell "
                        "categories apart, so its mistakes cannot be measured.",
                        "Code texts of at least two categories.")
    if categories is None:
        columns = list(present)
    else:
        columns = [str(c) for c in categories]
        if len(set(columns)) != len(columns):
            raise DataError("A category is named twice.", "Name each category once.")
        unknown = sorted_categories(set(labels) - set(columns))
        if unknown:
            raise DataError("Codings use categories that are not among the categories given: "
                            + ", ".join(unknown[:5]) + ".", "Add them to the categories, or leave the order out.")
    folds = stratified_folds(labels, FOLDS, seed)
    smallest = int(np.bincount(folds).min())
    if smallest < 2:
        n_folds = int(folds.max()) + 1
        raise DataError(f"Only {len(labels):,} coded texts: the model's mistakes are measured on {n_folds} parts of "
                        "them in turn, and each part needs at least two coded texts.",
                        f"Code at least {2 * FOLDS} texts, several of each category (a few hundred give "
                        "useful intervals).")
    return positions, labels, columns
