"""The basic bag of words: which words (or word pairs, or character pieces) each text contains.

Follows the reference protocol's "Basic BOW" (a quanteda-like pipeline): tokens, optional
removal of punctuation/numbers/symbols and stop words, lowercase, Snowball stems, word n-grams,
trimming by document share, then binary, count or tf-idf weights. Columns are the kept terms in
alphabetical order, as in scikit-learn's ``CountVectorizer``.

Fast path for cross-validation: :meth:`BagOfWords.prepare` tokenises and stems every text once
and counts all terms; :meth:`~BagOfWords.fit_prepared` only computes document shares (and idf)
on the fold's rows; :meth:`~BagOfWords.transform_prepared` slices rows and columns. The result
is bit-identical to ``fit(texts[rows]).transform(texts[other])``.
"""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from guiapp.core.errors import UserError
from guiapp.core.events import EventCallback, Progress, ignore_events
from guiapp.core.features import checks
from guiapp.core.features.base import PreparedRepresentation
from guiapp.core.features.bow_choices import ANALYZERS, WEIGHTINGS
from guiapp.core.features.stemming import check_stem_language, stem_map
from guiapp.core.features.stop_words import stop_word_set
from guiapp.core.features.tokens import (
    WORD,
    as_text_list,
    char_wb_ngrams,
    count_matrix,
    removed_kinds,
    select_columns,
    tokenize,
    word_ngrams,
)

if TYPE_CHECKING:
    import scipy.sparse as sp

_PROGRESS_EVERY = 500


@dataclass(eq=False)
class BowPrepared:
    """Term counts of every text over the full sorted vocabulary (picklable)."""

    counts: sp.csr_matrix
    terms: list[str]
    settings: tuple[Any, ...]
    key: str = field(default_factory=lambda: uuid.uuid4().hex)
    _lookup: dict[str, int] | None = field(default=None, repr=False)

    @property
    def n_texts(self) -> int:
        return int(self.counts.shape[0])

    def columns_of(self, terms: Sequence[str]) -> np.ndarray:
        """The column of each term in :attr:`counts`, -1 where a term does not occur."""
        if self._lookup is None:
            self._lookup = {term: i for i, term in enumerate(self.terms)}
        get = self._lookup.get
        return np.fromiter((get(term, -1) for term in terms), dtype=np.int64, count=len(terms))

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_lookup"] = None
        return state


@dataclass(kw_only=True, repr=False, eq=False)
class BagOfWords(PreparedRepresentation):
    """Basic bag of words (see the module docstring); scikit-learn compatible: the options below are
    its constructor's keyword arguments."""

    fitted_attribute = "vocabulary_"

    lowercase: bool = True
    remove_punctuation: bool = False
    remove_numbers: bool = False
    remove_symbols: bool = False
    stem_language: str | None = "english"
    stop_words: str | Sequence[str] | None = None
    min_df: float = 0.001
    max_df: float = 0.33
    weighting: str = "binary"
    ngram_max: int = 1
    analyzer: str = "word"
    char_ngram_min: int = 2
    char_ngram_max: int = 5

    # ----------------------------------------------------------------------- options
    def validate(self) -> None:
        """UserError with a plain sentence if an option has a wrong type or value."""
        for name, label in (
            ("lowercase", "Lowercase"),
            ("remove_punctuation", "Remove punctuation"),
            ("remove_numbers", "Remove numbers"),
            ("remove_symbols", "Remove symbols"),
        ):
            checks.check_bool(label, getattr(self, name))
        check_stem_language(self.stem_language)
        stop_word_set(self.stop_words)
        low = checks.check_share("Minimum share of texts", self.min_df)
        high = checks.check_share("Maximum share of texts", self.max_df)
        if low > high:
            raise UserError(
                f"The minimum share of texts ({checks.percent(low)}) is larger than the maximum "
                f"share ({checks.percent(high)}), so no word could be kept.",
                "Lower the minimum share or raise the maximum share.",
            )
        checks.check_choice("Weighting", self.weighting, WEIGHTINGS)
        checks.check_choice("Analyzer", self.analyzer, ANALYZERS)
        checks.check_int("Longest word sequence (n-gram)", self.ngram_max, 1, 5)
        low_n = checks.check_int("Shortest character piece", self.char_ngram_min, 1, 10)
        high_n = checks.check_int("Longest character piece", self.char_ngram_max, 1, 10)
        if low_n > high_n:
            raise UserError(
                "The shortest character piece is longer than the longest one.",
                "Make the shortest length at most the longest length.",
            )

    def prepare_settings(self) -> tuple[Any, ...]:
        """The options that :meth:`prepare` depends on (a Prepared can be reused across the rest)."""
        stop = self.stop_words
        stop_key = stop if stop is None or isinstance(stop, str) else tuple(sorted(set(stop)))
        common = (self.analyzer, self.lowercase, self.remove_punctuation, self.remove_numbers,
                  self.remove_symbols, stop_key)
        if self.analyzer == "char":
            return (*common, self.char_ngram_min, self.char_ngram_max)
        return (*common, self.stem_language, self.ngram_max)

    # ---------------------------------------------------------------------- analysis
    def analyze_texts(
        self, texts: Sequence[str], on_event: EventCallback = ignore_events
    ) -> list[list[str]]:
        """The terms (stems, n-grams or character pieces) of every text, stems computed once."""
        self.validate()
        drop = removed_kinds(
            remove_punctuation=self.remove_punctuation,
            remove_numbers=self.remove_numbers,
            remove_symbols=self.remove_symbols,
        )
        stop = stop_word_set(self.stop_words)
        total = len(texts)
        docs: list[list[tuple[str, int]]] = []
        for i, text in enumerate(texts):
            if i % _PROGRESS_EVERY == 0:
                on_event(Progress(i / max(total, 1), f"Splitting texts into words: {i:,} of {total:,}",
                                  i, total))
            tokens = tokenize(text, lowercase=self.lowercase)
            docs.append([(tok, kind) for tok, kind in tokens
                         if kind not in drop and not (kind == WORD and stop and tok.lower() in stop)])
        on_event(Progress(1.0, f"Splitting texts into words: {total:,} of {total:,}", total, total))
        if self.analyzer == "char":
            return [self._char_ngrams(text, doc) for text, doc in zip(texts, docs, strict=True)]
        if self.stem_language:
            stems = stem_map((tok for doc in docs for tok, kind in doc if kind == WORD),
                             self.stem_language)
            terms = [[stems[tok] if kind == WORD else tok for tok, kind in doc] for doc in docs]
        else:
            terms = [[tok for tok, _ in doc] for doc in docs]
        return [word_ngrams(doc, self.ngram_max) for doc in terms]

    def build_analyzer(self) -> Callable[[str], list[str]]:
        """A function text → terms, e.g. for ``CountVectorizer(analyzer=...)`` or explanations."""
        return lambda text: self.analyze_texts([text])[0]

    def _char_ngrams(self, text: str, tokens: list[tuple[str, int]]) -> list[str]:
        """Character pieces inside words, like scikit-learn's ``char_wb``.

        Without removal options the (lowercased) text itself is used; when punctuation,
        numbers, symbols or stop words are removed, the kept tokens joined by spaces.
        """
        if self.remove_punctuation or self.remove_numbers or self.remove_symbols or self.stop_words:
            text = " ".join(tok for tok, _ in tokens)
        elif self.lowercase:
            text = text.lower()
        return char_wb_ngrams(text, self.char_ngram_min, self.char_ngram_max)

    # ---------------------------------------------------------------------- fast path
    def prepare(self, texts: Sequence[str], on_event: EventCallback = ignore_events) -> BowPrepared:
        """Tokenise, stem and count every text once (fold-independent work)."""
        terms_per_text = self.analyze_texts(as_text_list(texts), on_event)
        counts, vocabulary = count_matrix(terms_per_text)
        return BowPrepared(counts=counts, terms=vocabulary, settings=self.prepare_settings())

    def fit_prepared(self, prepared: BowPrepared, rows: np.ndarray | None = None) -> BagOfWords:
        """Choose the terms (document shares) and idf from the texts with these row indices."""
        self.validate()
        self._check_prepared(prepared)
        rows = _rows(prepared, rows)
        n_docs = rows.size
        if n_docs == 0:
            raise UserError("There are no texts to learn the words from.")
        sub = prepared.counts[rows]
        doc_freq = np.bincount(sub.indices, minlength=len(prepared.terms))
        keep = (doc_freq > 0) & (doc_freq >= self.min_df * n_docs) & (doc_freq <= self.max_df * n_docs)
        columns = np.flatnonzero(keep)
        if columns.size == 0:
            raise self._nothing_left(bool(doc_freq.any()))
        self.vocabulary_ = [prepared.terms[i] for i in columns]
        self.n_features_out_ = len(self.vocabulary_)
        self.n_texts_fitted_ = int(n_docs)
        self.idf_ = _idf(doc_freq[columns], n_docs) if self.weighting == "tfidf" else None
        self._fit_key_ = prepared.key
        self._fit_columns_ = columns
        return self

    def transform_prepared(self, prepared: BowPrepared, rows: np.ndarray | None = None) -> sp.csr_matrix:
        """The weighted document-term matrix (float64 CSR) of these rows over the fitted terms."""
        from sklearn.preprocessing import normalize

        self.require_fitted("transform")
        self._check_prepared(prepared)
        if prepared.key == self._fit_key_:
            columns = self._fit_columns_
        else:
            columns = prepared.columns_of(self.vocabulary_)
        matrix = select_columns(prepared.counts[_rows(prepared, rows)], columns, len(self.vocabulary_))
        if self.weighting == "binary":
            matrix.data[:] = 1.0
        elif self.weighting == "tfidf":
            matrix.data *= self.idf_[matrix.indices]
            matrix = normalize(matrix, norm="l2", copy=False)
        return matrix

    # ---------------------------------------------------------------------- feature names
    def feature_names(self) -> list[str]:
        """The fitted terms, in column order (n-grams joined by a space)."""
        return list(self.vocabulary_)

    # ---------------------------------------------------------------------- saved state
    def to_state(self) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        """Options, the kept terms and (tf-idf) their idf."""
        self.require_fitted("it is saved")
        state = {"options": self.options_state(), "vocabulary": list(self.vocabulary_),
                 "n_texts_fitted": self.n_texts_fitted_}
        arrays = {} if self.idf_ is None else {"idf": np.asarray(self.idf_, dtype=np.float64)}
        return state, arrays

    @classmethod
    def from_state(cls, state: dict[str, Any], arrays: dict[str, np.ndarray]) -> BagOfWords:
        representation = cls.from_options(state["options"])
        vocabulary = state["vocabulary"]
        if (not isinstance(vocabulary, list) or not vocabulary
                or not all(isinstance(term, str) for term in vocabulary)
                or any(a >= b for a, b in itertools.pairwise(vocabulary))):
            raise ValueError("the vocabulary is not a sorted list of distinct terms")
        idf = arrays.get("idf")
        if (representation.weighting == "tfidf") != (idf is not None) or (
                idf is not None and (idf.dtype != np.float64 or idf.shape != (len(vocabulary),))):
            raise ValueError("the idf weights do not fit the vocabulary")
        representation.vocabulary_ = vocabulary
        representation.n_features_out_ = len(vocabulary)
        representation.n_texts_fitted_ = int(state["n_texts_fitted"])
        representation.idf_ = idf
        representation._fit_key_ = None  # no prepared data is the one it was fitted on
        representation._fit_columns_ = None
        return representation

    # ---------------------------------------------------------------------- helpers
    def _check_prepared(self, prepared: BowPrepared) -> None:
        if not isinstance(prepared, BowPrepared) or prepared.settings != self.prepare_settings():
            raise ValueError("this prepared data was made by a bag of words with other settings")

    def _nothing_left(self, any_term: bool) -> UserError:
        unit = "character piece" if self.analyzer == "char" else "word"
        if not any_term:
            return UserError(
                f"None of the texts contains a {unit} that could be counted.",
                "Check that the text column is the right one, or remove fewer kinds of tokens.",
            )
        return UserError(
            f"No {unit} is left after removing {unit}s in fewer than "
            f"{checks.percent(float(self.min_df))} or more than {checks.percent(float(self.max_df))} "
            "of the texts.",
            "Lower the minimum share or raise the maximum share.",
        )


def _rows(prepared: BowPrepared, rows: np.ndarray | None) -> np.ndarray:
    if rows is None:
        return np.arange(prepared.n_texts)
    return np.asarray(rows, dtype=np.intp)


def _idf(doc_freq: np.ndarray, n_docs: int) -> np.ndarray:
    """Smoothed idf exactly as scikit-learn's ``TfidfTransformer`` computes it."""
    df = doc_freq.astype(np.float64) + 1.0
    idf = np.full_like(df, fill_value=n_docs + 1, dtype=np.float64)
    idf /= df
    np.log(idf, out=idf)
    idf += 1.0
    return idf
