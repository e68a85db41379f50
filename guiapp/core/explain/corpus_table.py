"""The words a model relies on for each category, over many documents, and how they are ranked.

**Ranking.** A word's *weighted score* is its mean score toward the category (over the documents
that hold it) times log₂(1 + the number of those documents): in one document it counts its mean
once, in 3 documents twice, in 7 three times. A word that pushes a little in many documents can so
outrank one that pushes hard in a few, and a word met in one or two documents no longer tops the
list because one document happened to weigh it heavily.

**Minimum documents.** Only words found in at least ``min_documents`` of the explained documents
are listed (3 by default; the researcher may change it). :class:`CorpusWords` keeps, per category,
the ``top`` best-ranked words for every minimum from 1 to ``MAX_MIN_DOCUMENTS`` (their union, so
each choice shows exactly its own top words without explaining anything again).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

DEFAULT_MIN_DOCUMENTS = 3
MAX_MIN_DOCUMENTS = 50
RANKING = "mean score × log₂(1 + documents)"
RANKING_SENTENCE = (
    "Words are ranked by their weighted score: the mean score times log₂(1 + the number of documents that "
    "hold the word), so a word counts its mean once in 1 document, twice in 3, three times in 7 — a word "
    "that pushes in many documents outranks one that pushes as hard in a few.")


def weighted_score(mean_score: float, documents: int) -> float:
    """The ranking measure (module docstring): ``mean_score × log₂(1 + documents)``."""
    return float(mean_score) * math.log2(1 + max(int(documents), 0))


def minimum_sentence(min_documents: int) -> str:
    """"Only words found in at least 3 of the explained documents are listed." """
    if min_documents <= 1:
        return "Every word of the explained documents is listed, also those found in one document only."
    return f"Only words found in at least {min_documents:,} of the explained documents are listed."


def punctuation_sentence(punctuation: bool) -> str:
    return ("Punctuation is listed too: this model reads it." if punctuation
            else "Punctuation and symbols are left out: this model does not read them.")


@dataclass
class CorpusWord:
    """One word's part in one category's decisions, over the explained documents."""

    category: str
    word: str  # as the researcher reads it (the most frequent written form)
    mean_score: float  # mean attribution toward the category over the documents that hold the word
    occurrences: int  # how often the word occurs in the explained documents
    documents: int  # in how many of them
    coefficient: float | None = None  # linear models: the model's own weight for the word's feature

    @property
    def weighted_score(self) -> float:
        """The ranking measure: mean score × log₂(1 + documents)."""
        return weighted_score(self.mean_score, self.documents)


def ranked(rows: list[CorpusWord]) -> list[CorpusWord]:
    """Largest weighted score first; ties by word."""
    return sorted(rows, key=lambda row: (-row.weighted_score, row.word.casefold(), row.word))


@dataclass
class CorpusWords:
    """Per category, the best-ranked words of one model and method (module docstring)."""

    model: str
    method: str
    n_documents: int
    categories: list[str]
    rows: list[CorpusWord] = field(default_factory=list)
    min_documents: int = DEFAULT_MIN_DOCUMENTS  # the minimum shown unless the researcher picks another
    top: int | None = None  # words per category and minimum (None: all)
    punctuation: bool = False  # punctuation and symbols listed (the model reads them)

    def for_category(self, category: str, min_documents: int | None = None) -> list[CorpusWord]:
        """The category's words found in at least ``min_documents`` documents (default: the
        table's own minimum), best-ranked first, at most ``top`` of them."""
        least = self.min_documents if min_documents is None else int(min_documents)
        found = ranked([row for row in self.rows if row.category == category and row.documents >= least])
        return found if self.top is None else found[:self.top]

    def shown_rows(self, min_documents: int | None = None) -> list[CorpusWord]:
        """Every category's words as :meth:`for_category` gives them, category by category."""
        return [row for category in self.categories for row in self.for_category(category, min_documents)]

    def method_note(self, min_documents: int | None = None) -> str:
        """How the words were chosen and ranked, in plain words (for the view and the exports)."""
        least = self.min_documents if min_documents is None else int(min_documents)
        return " ".join([minimum_sentence(least), RANKING_SENTENCE, punctuation_sentence(self.punctuation)])


def corpus_words_frame(words: CorpusWords, min_documents: int | None = None):  # noqa: ANN201 - a DataFrame
    """The words as a table for a CSV file: one row per category and word, best-ranked first; the
    ranking column's name says how it is computed."""
    import pandas as pd

    return pd.DataFrame([{
        "category": row.category, "word": row.word, f"weighted score ({RANKING})": row.weighted_score,
        "mean score": row.mean_score, "occurrences": row.occurrences, "documents": row.documents,
        "coefficient": row.coefficient,
    } for row in words.shown_rows(min_documents)],
        columns=["category", "word", f"weighted score ({RANKING})", "mean score", "occurrences", "documents",
                 "coefficient"])
