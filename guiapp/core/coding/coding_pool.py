"""The texts a coding loop knows: the *pool* (the uncoded texts it may suggest, from the table or
from a second file) and the other texts whose codings the quick model learns from (the table's
coded rows). Every text has one place in the loop's feature matrix: the pool first, in its order,
then the others. This module finds the place of a row, the pool texts that may still be suggested
(a boolean mask, so a pool of 100,000 texts costs a few milliseconds), and the coded texts with
their categories — the file's codings with the log's applied, and the log's codings of a second
file — and groups of similar texts of the pool (:func:`text_groups`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from guiapp.core.coding.coding_record import SOURCES, Row, row_label
from guiapp.core.coding.codings import CodingLog
from guiapp.core.coding.current_table import current_categories
from guiapp.core.coding.pool_clusters import MOST_TEXTS_TO_FIT, PoolClusters
from guiapp.core.errors import DataError
from guiapp.core.features.tokens import as_text_list
from guiapp.core.study.category_fixes import CategoryFixes

TABLE, SECOND_FILE = SOURCES
LSA_DIRECTIONS = 64  # directions of the bag of words that groups of similar texts are found in


@dataclass(frozen=True, eq=False)
class CodedTexts:
    """The coded texts the quick model learns from, in a fixed order: table rows first (in the
    order of ``file_categories``, then of the log), then rows of a second file."""

    keys: tuple[tuple[str, Row], ...]  # (source, row) of each coded text
    positions: np.ndarray  # place of each text in the loop's feature matrix
    labels: tuple[str, ...]  # its category
    in_file: tuple[bool, ...]  # True: the category is the file's (no coding in the log)

    def __len__(self) -> int:
        return len(self.keys)

    def counts(self) -> dict[str, int]:
        found: dict[str, int] = {}
        for label in self.labels:
            found[label] = found.get(label, 0) + 1
        return found


class CodingPool:
    """The pool of texts to code and the other texts whose codings count (see the module
    docstring). ``source``: where the pool comes from, ``"table"`` (the table's uncoded rows) or
    ``"second file"``. ``table_texts``: row → text of the table's rows (at least the coded ones);
    ``second_file_texts``: row → text of a second file, needed only when the pool is the table but
    the log holds codings of a second file. The pool may be empty (every text of the table coded):
    then nothing is suggested, but the codings can still be checked. ``fixes``: the Data step's
    category fixes: the coded texts are read as the table is now (``current_table.py``: spellings
    merged, texts of a category left out set aside)."""

    def __init__(self, pool_rows: Sequence, pool_texts: Sequence[str], *, source: str = TABLE,
                 table_texts: Mapping | None = None, second_file_texts: Mapping | None = None,
                 fixes: CategoryFixes | None = None) -> None:
        self.fixes = fixes
        if source not in SOURCES:
            raise DataError(f"Texts to code come from {' or '.join(SOURCES)}, not from “{source}”.",
                            "Choose the table's uncoded rows or a second file of texts.")
        rows = [row_label(row) for row in _values(pool_rows)]
        texts = as_text_list(pool_texts)
        if len(rows) != len(texts):
            raise DataError(f"The pool names {len(rows):,} rows but holds {len(texts):,} texts.",
                            "Give one text for each row of the pool.")
        self.source = source
        self.rows: tuple[Row, ...] = tuple(rows)
        self.n_pool = len(rows)
        self._place: dict[tuple[str, Row], int] = {(source, row): i for i, row in enumerate(rows)}
        if len(self._place) != len(rows):
            raise DataError("A row appears twice among the texts to code.",
                            "Give each row of the pool once (the table's index must not repeat).")
        all_texts = list(texts)
        for other, given in ((TABLE, table_texts), (SECOND_FILE, second_file_texts)):
            if given is None:
                continue
            items = list(given.items())
            other_texts = as_text_list([text for _, text in items])
            for (row, _), text in zip(items, other_texts, strict=True):
                key = (other, row_label(row))
                if key not in self._place:
                    self._place[key] = len(all_texts)
                    all_texts.append(text)
        if not all_texts:
            raise DataError("There are no texts to code.",
                            "Add uncoded rows to the table or open a second file of texts to code.")
        self.texts: tuple[str, ...] = tuple(all_texts)  # the pool's texts, then the others

    # ------------------------------------------------------------------ places
    def position(self, row: Row, source: str = TABLE) -> int | None:
        """The place of a text in the feature matrix (below ``n_pool``: a pool text), or None."""
        return self._place.get((source, row_label(row)))

    def text(self, row: Row, source: str = TABLE) -> str:
        position = self.position(row, source)
        if position is None:
            raise KeyError((source, row))
        return self.texts[position]

    # ------------------------------------------------------------------ what may come next
    def open_mask(self, log: CodingLog, file_categories: Mapping) -> np.ndarray:
        """True for each pool text that may still be suggested: not coded or skipped in the log,
        and (for a pool of the table) not coded in the file."""
        mask = np.ones(self.n_pool, dtype=bool)
        place = self._place
        for entry in log.entries_of():  # the first coding's: a second coder's coding leaves a text open
            if entry.source == self.source:
                position = place.get((entry.source, entry.row))
                if position is not None and position < self.n_pool:
                    mask[position] = False
        if self.source == TABLE:
            for row in file_categories:
                position = place.get((TABLE, row_label(row)))
                if position is not None and position < self.n_pool:
                    mask[position] = False
        return mask

    # ------------------------------------------------------------------ what has been coded
    def coded(self, log: CodingLog, file_categories: Mapping) -> CodedTexts:
        """The file's codings with the log's applied, and the log's codings of a second file.
        :class:`DataError` when a coded text is neither in the pool nor among the texts given."""
        now = current_categories(file_categories, log, self.fixes)
        table = now.categories
        keys: list[tuple[str, Row]] = [(TABLE, row) for row in table]
        labels = list(table.values())
        flags = [row not in now.from_log for row in table]
        for row, category in current_categories({}, log, self.fixes, SECOND_FILE).categories.items():
            keys.append((SECOND_FILE, row))
            labels.append(category)
            flags.append(False)
        positions = [self._place.get(key) for key in keys]
        missing = [key for key, position in zip(keys, positions, strict=True) if position is None]
        if missing:
            raise _missing_texts(missing)
        return CodedTexts(tuple(keys), np.asarray(positions, dtype=np.intp), tuple(labels), tuple(flags))

    def coded_counts(self, log: CodingLog, file_categories: Mapping) -> dict[str, int]:
        """Coded texts per category: the file's codings with the log's applied, and the log's codings
        of a second file, as the table is now (what :meth:`coded` learns from, without looking up
        any text)."""
        table = current_categories(file_categories, log, self.fixes).categories
        second = current_categories({}, log, self.fixes, SECOND_FILE).categories
        counts: dict[str, int] = {}
        for label in [*table.values(), *second.values()]:
            counts[label] = counts.get(label, 0) + 1
        return counts


def _values(rows: Sequence) -> list:
    return rows.tolist() if hasattr(rows, "tolist") else list(rows)


def _missing_texts(missing: list[tuple[str, Row]]) -> DataError:
    shown = ", ".join(f"{row}" for _, row in missing[:5]) + (" …" if len(missing) > 5 else "")
    sources = {source for source, _ in missing}
    where = " and ".join(sorted(sources))
    return DataError(
        f"The texts of {len(missing):,} coded row{'s' if len(missing) != 1 else ''} of the {where} are not "
        f"known to the coding (rows {shown}).",
        "The table or the second file has changed since these texts were coded. Open the project with the "
        "table (and second file) they were coded in.")


def text_groups(pool_features, seed: int = 0) -> PoolClusters:
    """Groups of similar texts of the pool, for choosing across kinds of texts: k-means on the
    sentence embeddings, or — for a bag of words, where computing embeddings of a large pool on a
    laptop would take many minutes — on its latent semantic analysis (the 64 main directions of
    the bag of words, fitted on at most 10,000 texts of the pool)."""
    import scipy.sparse as sp

    if not sp.issparse(pool_features):
        return PoolClusters.fit(np.asarray(pool_features), seed=seed)
    from sklearn.decomposition import TruncatedSVD

    n_texts, n_words = pool_features.shape
    n_components = min(LSA_DIRECTIONS, n_words - 1, n_texts - 1)
    if n_components < 1:  # one word or one text: nothing to group by
        return PoolClusters(labels=np.zeros(n_texts, dtype=np.intp), n_clusters=1)
    rng = np.random.default_rng(seed)
    sample = pool_features
    if n_texts > MOST_TEXTS_TO_FIT:
        sample = pool_features[np.sort(rng.choice(n_texts, MOST_TEXTS_TO_FIT, replace=False))]
    svd = TruncatedSVD(n_components=n_components, random_state=seed).fit(sample)
    return PoolClusters.fit(svd.transform(pool_features), seed=seed)
