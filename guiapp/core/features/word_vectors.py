"""Averaged word vectors: each text becomes the mean of the GloVe vectors of its words.

Follows the reference protocol's "GloVe representation": a word counts only if it has a vector
and occurs at least ``min_count`` times in the texts the model learns from; every occurrence
counts towards the mean; a text without such a word gets a vector of zeros. A hashtag without
a vector of its own uses its word's ("#android" → "android"), and a contraction without one
counts as the parts GloVe was trained on ("don't" → "do" + "n't", "i'm" → "i" + "'m").

Fast path: :meth:`AveragedWordVectors.prepare` tokenises every text once and counts, per text,
the words that have a vector; :meth:`~AveragedWordVectors.fit_prepared` decides which words are
frequent enough in the fold; :meth:`~AveragedWordVectors.transform_prepared` is one sparse ×
dense product. The result is bit-identical to ``fit(texts[rows]).transform(texts[other])``.

Saved state (:meth:`~AveragedWordVectors.to_state`): the kept words and their vectors, plus the
other words of the vector file that decide a fallback (a hashtag or contraction that has a
vector of its own is not split), so a saved model gives the same numbers without the file.
"""

from __future__ import annotations

import hashlib
import json
import os
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from guiapp.core.errors import UserError
from guiapp.core.events import EventCallback, Progress, ignore_events
from guiapp.core.features import checks
from guiapp.core.features.base import PreparedRepresentation
from guiapp.core.features.tokens import (
    TAG,
    WORD,
    as_text_list,
    removed_kinds,
    select_columns,
    tokenize,
)
from guiapp.core.features.word_vector_files import (
    BUNDLED_VECTORS,
    WordVectors,
    open_word_vectors,
)

if TYPE_CHECKING:
    import scipy.sparse as sp

_PROGRESS_EVERY = 500


@dataclass(eq=False)
class VectorsPrepared:
    """Per text, how often each word with a vector occurs (picklable)."""

    counts: sp.csr_matrix  # texts × local words, int32
    vector_ids: np.ndarray  # the row in the vectors of each local word, increasing
    settings: tuple[Any, ...]
    source_id: str
    key: str = field(default_factory=lambda: uuid.uuid4().hex)

    @property
    def n_texts(self) -> int:
        return int(self.counts.shape[0])


@dataclass(kw_only=True, repr=False, eq=False)
class AveragedWordVectors(PreparedRepresentation):
    """Mean word vector per text (see the module docstring); scikit-learn compatible: the options
    below are its constructor's keyword arguments."""

    fitted_attribute = "kept_vector_ids_"

    vectors: str = BUNDLED_VECTORS
    min_count: int = 3
    lowercase: bool = True
    remove_punctuation: bool = True
    remove_numbers: bool = False

    def validate(self) -> None:
        """UserError with a plain sentence if an option has a wrong type or value."""
        if not isinstance(self.vectors, str | os.PathLike) or not str(self.vectors).strip():
            raise UserError(
                f"“Word vectors” must be {BUNDLED_VECTORS!r} or the path of a word vector file, "
                f"not {self.vectors!r}."
            )
        checks.check_int("Minimum number of occurrences", self.min_count, 1)
        checks.check_bool("Lowercase", self.lowercase)
        checks.check_bool("Remove punctuation", self.remove_punctuation)
        checks.check_bool("Remove numbers", self.remove_numbers)

    def prepare_settings(self) -> tuple[Any, ...]:
        """The options that :meth:`prepare` depends on."""
        return (str(self.vectors), self.lowercase, self.remove_punctuation, self.remove_numbers)

    def _vectors(self, on_event: EventCallback = ignore_events) -> WordVectors:
        saved = getattr(self, "_saved_vectors_", None)
        if saved is not None:  # opened from a model folder: the kept words' own vectors
            return saved
        return open_word_vectors(self.vectors, on_event=on_event)

    # ---------------------------------------------------------------------- fast path
    def prepare(
        self, texts: Sequence[str], on_event: EventCallback = ignore_events
    ) -> VectorsPrepared:
        """Tokenise every text once and count its words that have a vector."""
        import scipy.sparse as sp

        self.validate()
        texts = as_text_list(texts)
        vectors = self._vectors(on_event)
        index = vectors.index
        drop = removed_kinds(remove_punctuation=self.remove_punctuation,
                             remove_numbers=self.remove_numbers, remove_symbols=False)
        total = len(texts)
        ids: list[int] = []
        indptr = [0]
        known: dict[tuple[str, int], list[int]] = {}
        for i, text in enumerate(texts):
            if i % _PROGRESS_EVERY == 0:
                on_event(Progress(i / max(total, 1), f"Looking up word vectors: {i:,} of {total:,}",
                                  i, total))
            for token in tokenize(text, lowercase=self.lowercase):
                if token[1] not in drop:
                    rows = known.get(token)
                    if rows is None:
                        rows = known[token] = vector_rows(token[0], token[1], index)
                    ids.extend(rows)
            indptr.append(len(ids))
        on_event(Progress(1.0, f"Looking up word vectors: {total:,} of {total:,}", total, total))
        vector_ids, local = np.unique(np.asarray(ids, dtype=np.int64), return_inverse=True)
        counts = sp.csr_matrix(
            (np.ones(len(ids), dtype=np.int32), local.astype(np.int32).ravel(),
             np.asarray(indptr, dtype=np.int64)),
            shape=(total, len(vector_ids)),
        )
        counts.sum_duplicates()
        return VectorsPrepared(counts, vector_ids, self.prepare_settings(), vectors.source_id)

    def fit_prepared(
        self, prepared: VectorsPrepared, rows: np.ndarray | None = None
    ) -> AveragedWordVectors:
        """Keep the words that occur at least ``min_count`` times in these rows."""
        self.validate()
        vectors = self._vectors()
        self._check_prepared(prepared, vectors)
        rows = _rows(prepared, rows)
        if rows.size == 0:
            raise UserError("There are no texts to learn the words from.")
        sub = prepared.counts[rows]
        occurrences = np.bincount(sub.indices, weights=sub.data, minlength=prepared.vector_ids.size)
        local = np.flatnonzero((occurrences > 0) & (occurrences >= self.min_count))
        if local.size == 0:
            raise UserError(
                f"No word with a word vector occurs at least {self.min_count} times in the texts.",
                "Lower the minimum number of occurrences, check the language of the word vectors, "
                "or use more texts.",
            )
        self.kept_vector_ids_ = prepared.vector_ids[local]
        self.n_words_kept_ = int(local.size)
        self.n_features_out_ = vectors.dim
        self.vectors_id_ = vectors.source_id
        self._fit_key_ = prepared.key
        self._fit_local_ = local
        return self

    def transform_prepared(
        self, prepared: VectorsPrepared, rows: np.ndarray | None = None
    ) -> np.ndarray:
        """The mean vector (float64, dense) of each of these rows."""
        self.require_fitted("transform")
        vectors = self._vectors()
        self._check_prepared(prepared, vectors)
        if vectors.source_id != self.vectors_id_:
            raise ValueError("the word vectors changed since this representation was fitted")
        if prepared.key == self._fit_key_:
            local = self._fit_local_
        else:
            local = np.flatnonzero(np.isin(prepared.vector_ids, self.kept_vector_ids_))
        counts = select_columns(prepared.counts[_rows(prepared, rows)], local, local.size)
        table = np.asarray(vectors.matrix[prepared.vector_ids[local]], dtype=np.float64)
        sums = np.asarray(counts @ table, dtype=np.float64).reshape(counts.shape[0], vectors.dim)
        n_words = np.asarray(counts.sum(axis=1), dtype=np.float64).ravel()
        out = np.zeros_like(sums)
        has_words = n_words > 0
        out[has_words] = sums[has_words] / n_words[has_words, None]
        return out

    # ---------------------------------------------------------------------- feature names
    def feature_names(self) -> list[str]:
        """"dim 1", "dim 2", … (the vector dimensions have no meaning of their own)."""
        return [f"dim {i}" for i in range(1, self.n_features_out_ + 1)]

    # ---------------------------------------------------------------------- saved state
    def to_state(self) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        """Options, the kept words with their vectors, and the other words that matter.

        A token counts as its own vector when it has one, else as its hashtag word or its
        contraction parts (:func:`vector_rows`); so the words of the file that are not kept
        still decide: a hashtag of a kept word, words with an apostrophe, and — when a kept
        word can end a contraction ("'s", "n't") — every word of the file, since any word
        can begin one.
        """
        self.require_fitted("it is saved")
        vectors = self._vectors()
        kept_ids = np.asarray(self.kept_vector_ids_, dtype=np.int64)
        kept_words = vectors.words[kept_ids].tolist()
        kept = set(kept_words)
        is_kept = np.zeros(len(vectors.words), dtype=bool)
        is_kept[kept_ids] = True
        others = vectors.words[~is_kept].tolist()
        if not any(word == "n't" or word.startswith("'") for word in kept):
            others = [word for word in others
                      if "'" in word or "’" in word or (word.startswith("#") and word[1:] in kept)]
        state = {"options": self.options_state(), "kept_words": kept_words, "other_words": others,
                 "source_vectors_id": str(getattr(self, "source_vectors_id_", self.vectors_id_))}
        table = np.ascontiguousarray(vectors.matrix[kept_ids])
        return state, {"kept_vectors": table}

    @classmethod
    def from_state(cls, state: dict[str, Any], arrays: dict[str, np.ndarray]) -> AveragedWordVectors:
        representation = cls.from_options(state["options"])
        kept_words, others = state["kept_words"], state["other_words"]
        table = arrays.get("kept_vectors")
        words = [*kept_words, *others] if isinstance(kept_words, list) and isinstance(others, list) else []
        if (not kept_words or not all(isinstance(word, str) for word in words)
                or len(set(words)) != len(words)
                or table is None or table.ndim != 2 or table.shape[0] != len(kept_words)
                or table.shape[1] == 0 or table.dtype.kind != "f"):
            raise ValueError("the saved word vectors do not fit together")
        digest = hashlib.sha256(json.dumps(words).encode())
        digest.update(str(table.dtype).encode() + table.tobytes())
        matrix = np.zeros((len(words), table.shape[1]), dtype=table.dtype)  # untouched rows stay virtual
        matrix[: len(kept_words)] = table
        saved = WordVectors(np.asarray(words, dtype=object), matrix, f"saved:{digest.hexdigest()[:32]}")
        n_kept = len(kept_words)
        representation._saved_vectors_ = saved
        representation.kept_vector_ids_ = np.arange(n_kept, dtype=np.int64)  # same order as before
        representation.n_words_kept_ = n_kept
        representation.n_features_out_ = saved.dim
        representation.vectors_id_ = saved.source_id
        representation.source_vectors_id_ = str(state["source_vectors_id"])
        representation._fit_key_ = None  # no prepared data is the one it was fitted on
        representation._fit_local_ = None
        return representation

    def _check_prepared(self, prepared: VectorsPrepared, vectors: WordVectors) -> None:
        if (not isinstance(prepared, VectorsPrepared)
                or prepared.settings != self.prepare_settings()
                or prepared.source_id != vectors.source_id):
            raise ValueError("this prepared data was made with other word vector settings")


def vector_rows(token: str, kind: int, index: dict[str, int]) -> list[int]:
    """The vector rows a token counts as: itself, else its hashtag word or contraction parts."""
    row = index.get(token)
    if row is not None:
        return [row]
    if kind == TAG and token.startswith("#"):
        row = index.get(token[1:])
        return [] if row is None else [row]
    if kind == WORD and ("'" in token or "’" in token):
        plain = token.replace("’", "'")
        if plain in index:
            return [index[plain]]
        cut = len(plain) - 3 if plain.endswith("n't") else plain.find("'")
        parts = [part for part in (plain[:cut], plain[cut:]) if part]
        if all(part in index for part in parts):
            return [index[part] for part in parts]
    return []


def _rows(prepared: VectorsPrepared, rows: np.ndarray | None) -> np.ndarray:
    if rows is None:
        return np.arange(prepared.n_texts)
    return np.asarray(rows, dtype=np.intp)
