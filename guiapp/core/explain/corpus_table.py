"""The words a model relies on for each category, over many documents."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class CorpusWord:
    """One word's part in one category's decisions, over the explained documents."""

    category: str
    word: str  # as the researcher reads it (the most frequent written form)
    mean_score: float  # mean attribution toward the category over the documents that hold the word
    occurrences: int  # how often the word occurs in the explained documents
    documents: int  # in how many of them
    coefficient: float | None = None  # linear models: the model's own weight for the word's feature


@dataclass
class CorpusWords:
    """Per category, the words with the largest mean attributions of one model and method."""

    model: str
    method: str
    n_documents: int
    categories: list[str]
    rows: list[CorpusWord] = field(default_factory=list)

    def for_category(self, category: str) -> list[CorpusWord]:
        return [row for row in self.rows if row.category == category]
