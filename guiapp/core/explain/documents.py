"""The test documents of a study with every model's answer, and fast filters and sorting over them.

The Documents step lets a researcher read the texts behind the numbers: "which texts did the model
get wrong?", "what did it put in Health that I coded Economy?". :class:`DocumentsTable` turns an
:class:`ExperimentResult` into column arrays (one entry per test document), so that
:func:`matching_rows` and :func:`sort_rows` are a handful of numpy/pandas operations, not a Python
loop: a study with 100,000 test documents still filters in milliseconds while the user types.
Texts are compared lower-case and without accents ("economie" finds "Économie").

Where a text can have several categories, the coding and each model's answer are 0/1 rows (one
column per category): a model's answer is right when its set of categories is exactly the coded
set, and the filters also ask for one category's mistakes ("missed economy": coded but not
predicted; "wrongly economy": predicted but not coded).
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from guiapp.core.experiment.results.experiment_result import ExperimentResult
from guiapp.core.study.label_sets import LIST_SEPARATOR, NO_CATEGORY  # a text coded, or predicted, with no category

if TYPE_CHECKING:  # pandas loads on first use, not when the window opens
    import pandas as pd

# the combining accents NFKD splits off letters ("é" -> "e" + U+0301)
_ACCENTS = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")

# sort keys: fixed names, or a prefix and the model's / metadata column's name
ROW, ID, TEXT, HUMAN = "row", "id", "text", "human"
PREDICTED, CONFIDENCE, CORRECT, METADATA = "predicted:", "confidence:", "correct:", "metadata:"


def fold(text: str) -> str:
    """Lower case without accents, so that a search finds "Économie" when the user types "economie"."""
    if text.isascii():
        return text.lower()
    return _ACCENTS.sub("", unicodedata.normalize("NFKD", text)).casefold()


def format_value(value: Any) -> str:
    """A metadata value as the spreadsheet shows it: 2021.0 -> "2021", missing -> ""."""
    import pandas as pd
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA or value is pd.NaT:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)




def category_names(row: np.ndarray, categories: list[str]) -> list[str]:
    """The names of the categories a 0/1 row holds, in category order."""
    return [categories[index] for index in np.flatnonzero(row)]


def label_text(names: list[str]) -> str:
    """A set of categories in one cell: "economy; health", or :data:`NO_CATEGORY`."""
    return LIST_SEPARATOR.join(names) if names else NO_CATEGORY


@dataclass(frozen=True, eq=False)
class ModelAnswers:
    """One finished model's answer for every test document (arrays in document order)."""

    name: str
    # category index; where a text can have several categories a bool matrix (documents × categories)
    predicted: np.ndarray
    # probability the model gave its answer; NaN where it gave none. Several categories per text: the
    # probability it gave its least sure yes-or-no (p for a category it gave, 1 − p for one it did not)
    confidence: np.ndarray
    correct: np.ndarray  # bool: the answer is the category (the set of categories) the user coded

    @property
    def has_confidence(self) -> bool:
        return bool(np.isfinite(self.confidence).any())

    @property
    def multi_label(self) -> bool:
        return self.predicted.ndim == 2


@dataclass(frozen=True)
class Answer:
    """One model's answer for one document, for the reading pane."""

    model: str
    category: str  # several categories per text: "economy; health", or NO_CATEGORY
    confidence: float | None
    correct: bool
    missed: tuple[str, ...] = ()  # coded but not given (several categories per text)
    wrongly: tuple[str, ...] = ()  # given but not coded


@dataclass(frozen=True)
class Document:
    """Everything known about one test document."""

    index: int  # position among the test documents
    row: int  # spreadsheet row
    id: Any
    text: str
    human: str  # the category the user coded; several per text: "economy; health", or NO_CATEGORY
    answers: list[Answer]
    metadata: dict[str, Any]
    coded: tuple[str, ...] = ()  # several categories per text: the coded ones (empty for none)


@dataclass(eq=False)
class DocumentsTable:
    """The test documents as column arrays; build it with :meth:`from_result`."""

    categories: list[str]
    rows: np.ndarray  # spreadsheet row numbers
    ids: np.ndarray  # object
    texts: np.ndarray  # object (str)
    human: np.ndarray  # category index the user coded; several per text: bool (documents × categories)
    models: list[ModelAnswers]
    metadata: pd.DataFrame | None = None
    _cache: dict[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_result(cls, result: ExperimentResult, metadata: pd.DataFrame | None = None) -> DocumentsTable:
        """Finished models only (best first, as on the Results step); a model whose answers do not
        cover every test document is left out. ``metadata`` has one row per test document, in order."""
        n = len(result.test_true)
        k = len(result.categories)
        if result.multi_label:
            human = _indicator(result.test_true, n, k)
        else:
            human = np.asarray(result.test_true, dtype=np.int64).reshape(n)
        texts = np.empty(n, dtype=object)
        if len(result.test_texts) == n:  # a result saved without its texts has none
            texts[:] = ["" if text is None else str(text) for text in result.test_texts]
        else:
            texts[:] = [""] * n
        ids = np.empty(n, dtype=object)
        ids[:] = list(result.test_ids) if len(result.test_ids) == n else [None] * n
        rows = np.asarray(result.test_rows if len(result.test_rows) == n else np.arange(n) + 2, dtype=np.int64)
        models = [answers for model in result.ranked() if (answers := _answers(model, human)) is not None]
        if metadata is not None:
            if len(metadata) != n:
                raise ValueError(f"The extra columns have {len(metadata):,} rows but there are {n:,} test documents.")
            metadata = metadata.reset_index(drop=True)
            metadata.columns = [str(column) for column in metadata.columns]
        return cls(list(map(str, result.categories)), rows, ids, texts, human, models, metadata)

    def __len__(self) -> int:
        return len(self.human)

    @property
    def multi_label(self) -> bool:
        """Whether a text can have several categories (the coding is a 0/1 row per text)."""
        return self.human.ndim == 2

    # ----- looking things up --------------------------------------------------------------------
    def model_names(self) -> list[str]:
        return [model.name for model in self.models]

    def model(self, name: str | None) -> ModelAnswers:
        """The named model's answers; ``None`` means the first (best) model."""
        if not self.models:
            raise ValueError("No model finished, so there are no answers to filter by.")
        if name is None:
            return self.models[0]
        for model in self.models:
            if model.name == name:
                return model
        raise ValueError(f"There is no finished model called {name!r}.")

    def category_index(self, category: str | int) -> int:
        if isinstance(category, (int, np.integer)) and 0 <= category < len(self.categories):
            return int(category)
        if isinstance(category, str) and category in self.categories:
            return self.categories.index(category)
        raise ValueError(f"There is no category {category!r}.")

    def has_ids(self) -> bool:
        return any(value is not None for value in self.ids)

    def metadata_columns(self) -> list[str]:
        return list(self.metadata.columns) if self.metadata is not None else []

    def metadata_text(self, column: str, index: int) -> str:
        return format_value(self.metadata[column].iat[index]) if self.metadata is not None else ""

    def human_label(self, index: int) -> str:
        """The coding of one document as shown: its category, or "economy; health" / NO_CATEGORY."""
        if self.multi_label:
            return label_text(category_names(self.human[index], self.categories))
        return self.categories[int(self.human[index])]

    def human_labels(self) -> list[str]:
        """:meth:`human_label` of every document."""
        if "labels:human" not in self._cache:
            self._cache["labels:human"] = [self.human_label(i) for i in range(len(self))]
        return self._cache["labels:human"]

    def answer_label(self, model: ModelAnswers, index: int) -> str:
        """A model's answer for one document as shown (as :meth:`human_label`)."""
        if model.multi_label:
            return label_text(category_names(model.predicted[index], self.categories))
        return self.categories[int(model.predicted[index])]

    def answer_labels(self, model: ModelAnswers) -> list[str]:
        """:meth:`answer_label` of every document."""
        key = "labels:" + PREDICTED + model.name
        if key not in self._cache:
            self._cache[key] = [self.answer_label(model, i) for i in range(len(self))]
        return self._cache[key]

    def mistakes(self, model: ModelAnswers, index: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """(categories coded but not given, categories given but not coded) for one document."""
        if model.multi_label:
            coded, given = self.human[index], model.predicted[index]
            return (tuple(category_names(coded & ~given, self.categories)),
                    tuple(category_names(given & ~coded, self.categories)))
        coded_index, given_index = int(self.human[index]), int(model.predicted[index])
        if coded_index == given_index:
            return (), ()
        return (self.categories[coded_index],), (self.categories[given_index],)

    def coded_mask(self, category: str | int) -> np.ndarray:
        """The documents coded with ``category`` (several per text: among others; NO_CATEGORY:
        coded with none)."""
        if self.multi_label:
            if category == NO_CATEGORY:
                return ~self.human.any(axis=1)
            return self.human[:, self.category_index(category)].copy()
        return self.human == self.category_index(category)

    def given_mask(self, model: ModelAnswers, category: str | int) -> np.ndarray:
        """The documents ``model`` put in ``category`` (as :meth:`coded_mask`)."""
        if model.multi_label:
            if category == NO_CATEGORY:
                return ~model.predicted.any(axis=1)
            return model.predicted[:, self.category_index(category)].copy()
        return model.predicted == self.category_index(category)

    def document(self, index: int) -> Document:
        answers = []
        for model in self.models:
            missed, wrongly = self.mistakes(model, index) if model.multi_label else ((), ())
            answers.append(Answer(model.name, self.answer_label(model, index),
                                  None if math.isnan(model.confidence[index]) else float(model.confidence[index]),
                                  bool(model.correct[index]), missed, wrongly))
        metadata = {column: self.metadata[column].iat[index] for column in self.metadata_columns()}
        coded = tuple(category_names(self.human[index], self.categories)) if self.multi_label else ()
        return Document(int(index), int(self.rows[index]), self.ids[index], str(self.texts[index]),
                        self.human_label(index), answers, metadata, coded)

    # ----- cached columns for searching and sorting ---------------------------------------------
    def folded_texts(self) -> list[str]:
        """The texts lower-cased without accents, computed on the first search (about a second for
        100,000 long texts with accents; instant for plain ASCII). Python's own substring search
        over a list beats Arrow's here (about 2x)."""
        if "fold:texts" not in self._cache:
            self._cache["fold:texts"] = [fold(text) for text in self.texts]
        return self._cache["fold:texts"]

    def folded_metadata(self, column: str) -> np.ndarray:
        """An extra column's values as shown, lower-cased without accents (object array)."""
        key = "fold:" + METADATA + column
        if key not in self._cache:
            values = self._metadata_column(column)
            folded = np.empty(len(self), dtype=object)
            folded[:] = [fold(format_value(v)) for v in values]
            self._cache[key] = folded
        return self._cache[key]

    def _metadata_column(self, column: str) -> pd.Series:
        if column not in self.metadata_columns():
            raise ValueError(f"There is no extra column {column!r}.")
        return self.metadata[column]  # type: ignore[index]

    def sort_values(self, key: str) -> tuple[np.ndarray, np.ndarray]:
        """(value to sort by as float, missing?) per document, for the column ``key``."""
        if "sort:" + key not in self._cache:
            self._cache["sort:" + key] = self._sort_values(key)
        return self._cache["sort:" + key]

    def _sort_values(self, key: str) -> tuple[np.ndarray, np.ndarray]:
        n = len(self)
        if key == ROW:
            return self.rows.astype(float), np.zeros(n, bool)
        if key == ID:
            return _ranks(self.ids)
        if key == TEXT:  # alphabetical, ignoring case and accents; empty texts last
            folded = np.asarray(self.folded_texts(), dtype=object)
            _, inverse = np.unique(folded, return_inverse=True)
            return inverse.astype(float), folded == ""
        category_ranks = _ranks(np.array([fold(c) for c in self.categories], dtype=object))[0]
        if key == HUMAN:
            if self.multi_label:
                return _label_ranks(self.human_labels()), np.zeros(n, bool)
            return category_ranks[self.human], np.zeros(n, bool)
        for prefix in (PREDICTED, CONFIDENCE, CORRECT):
            if key.startswith(prefix):
                model = self.model(key[len(prefix):])
                if prefix == PREDICTED:
                    if model.multi_label:
                        return _label_ranks(self.answer_labels(model)), np.zeros(n, bool)
                    return category_ranks[model.predicted], np.zeros(n, bool)
                if prefix == CORRECT:
                    return model.correct.astype(float), np.zeros(n, bool)
                missing = np.isnan(model.confidence)
                return np.where(missing, 0.0, model.confidence), missing
        if key.startswith(METADATA):
            return _ranks(self._metadata_column(key[len(METADATA):]).to_numpy(dtype=object))
        raise ValueError(f"Cannot sort by {key!r}.")


def _indicator(lists: list[Any], n: int, k: int) -> np.ndarray:
    """Lists of category indices per text (``[[0, 3], [], [2]]``) as a bool matrix (n × k)."""
    matrix = np.zeros((n, k), dtype=bool)
    for row, indices in enumerate(lists):
        found = [int(index) for index in (indices or []) if 0 <= int(index) < k]
        matrix[row, found] = True
    return matrix


def _label_ranks(labels: list[str]) -> np.ndarray:
    """Sort ranks of cells that list categories: alphabetical, ignoring case and accents."""
    _, inverse = np.unique(np.asarray([fold(label) for label in labels], dtype=object), return_inverse=True)
    return inverse.astype(float)


def _answers(model, human: np.ndarray) -> ModelAnswers | None:
    n = len(human)
    if len(model.predictions) != n:
        return None
    if human.ndim == 2:
        return _several_answers(model, human)
    predicted = np.asarray(model.predictions, dtype=np.int64)
    confidence = np.full(n, np.nan)
    if model.probabilities is not None and len(model.probabilities) == n and n:
        probabilities = np.asarray(model.probabilities, dtype=float)
        if probabilities.ndim == 2 and probabilities.shape[1] > predicted.max(initial=0):
            confidence = probabilities[np.arange(n), predicted]
    return ModelAnswers(model.name, predicted, confidence, predicted == human)


def _several_answers(model, human: np.ndarray) -> ModelAnswers:
    """A model's answers where a text can have several categories: its set per document, right
    when it is exactly the coded set; the confidence is the probability it gave its least sure
    yes-or-no (p for a category it gave, 1 − p for one it left out)."""
    n, k = human.shape
    predicted = _indicator(model.predictions, n, k)
    confidence = np.full(n, np.nan)
    if model.probabilities is not None and len(model.probabilities) == n and n:
        probabilities = np.asarray(model.probabilities, dtype=float)
        if probabilities.shape == (n, k):
            sure = np.where(predicted, probabilities, 1.0 - probabilities)
            with np.errstate(invalid="ignore"):
                confidence = sure.min(axis=1) if k else confidence
    return ModelAnswers(model.name, predicted, confidence, (predicted == human).all(axis=1))


def _ranks(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sort ranks of mixed values: numbers by value, then text (folded); missing flagged."""
    import pandas as pd
    texts = [format_value(v) for v in values]
    missing = np.array([text == "" for text in texts], dtype=bool)
    numbers = pd.to_numeric(pd.Series(texts, dtype=object), errors="coerce").to_numpy(dtype=float)
    is_number = ~np.isnan(numbers)
    ranks = np.zeros(len(values))
    if is_number.any():
        ranks[is_number] = pd.Series(numbers[is_number]).rank(method="dense").to_numpy()
    words = ~is_number & ~missing
    if words.any():
        folded = np.array([fold(text) for text, word in zip(texts, words, strict=True) if word], dtype=object)
        _, inverse = np.unique(folded, return_inverse=True)
        ranks[words] = inverse + 1 + (ranks.max() if is_number.any() else 0)
    return ranks, missing


@dataclass(frozen=True)
class DocumentFilter:
    """What the user wants to read. Empty fields do not restrict; set fields must all hold.

    ``model`` is the model whose answers "only mistakes", "the model's answer" and the confidence
    range use (``None``: the best model). Categories are names. ``confidence`` is (low, high) as
    probabilities from 0 to 1, both included; documents without a confidence never match a range.
    ``text`` is found anywhere in a document, ignoring case and accents.

    Where a text can have several categories, ``human`` keeps the documents coded with that category
    (among others) and ``predicted`` those the model gave it; :data:`NO_CATEGORY` for none. ``missed``
    keeps the documents coded with that category that the model did not give it, ``wrongly`` those
    the model gave it although they were not coded with it.
    """

    model: str | None = None
    errors_only: bool = False
    human: str | None = None
    predicted: str | None = None
    missed: str | None = None
    wrongly: str | None = None
    confidence: tuple[float, float] | None = None
    text: str = ""
    metadata_column: str | None = None
    metadata_value: str = ""
    metadata_mode: Literal["contains", "equals"] = "contains"

    @classmethod
    def cell(cls, model: str | None, human: str, predicted: str) -> DocumentFilter:
        """The documents of one confusion-matrix cell: coded ``human``, answered ``predicted``."""
        return cls(model=model, human=human, predicted=predicted)

    def is_empty(self) -> bool:
        """True when nothing is filtered out (the model alone restricts nothing)."""
        return self == DocumentFilter(model=self.model, metadata_mode=self.metadata_mode)


def matching_rows(table: DocumentsTable, flt: DocumentFilter) -> np.ndarray:
    """Indices (ascending) of the test documents that pass every part of ``flt``."""
    mask = np.ones(len(table), dtype=bool)
    if flt.human is not None:
        mask &= table.coded_mask(flt.human)
    if (flt.errors_only or flt.predicted is not None or flt.confidence is not None or flt.missed is not None
            or flt.wrongly is not None):
        answers = table.model(flt.model)
        if flt.errors_only:
            mask &= ~answers.correct
        if flt.predicted is not None:
            mask &= table.given_mask(answers, flt.predicted)
        if flt.missed is not None:
            mask &= table.coded_mask(flt.missed) & ~table.given_mask(answers, flt.missed)
        if flt.wrongly is not None:
            mask &= table.given_mask(answers, flt.wrongly) & ~table.coded_mask(flt.wrongly)
        if flt.confidence is not None:
            low, high = flt.confidence
            with np.errstate(invalid="ignore"):
                mask &= (answers.confidence >= low) & (answers.confidence <= high)
    if flt.metadata_column and flt.metadata_value.strip():
        mask &= _metadata_mask(table, flt.metadata_column, flt.metadata_value.strip(), flt.metadata_mode)
    query = fold(flt.text.strip())
    if query:  # last, and only over the documents still in: the one part that reads every text
        candidates = np.flatnonzero(mask)
        texts = table.folded_texts()
        found = np.fromiter((query in texts[i] for i in candidates.tolist()), dtype=bool, count=len(candidates))
        return candidates[found]
    return np.flatnonzero(mask)


def _metadata_mask(table: DocumentsTable, column: str, value: str, mode: str) -> np.ndarray:
    import pandas as pd
    folded = table.folded_metadata(column)
    query = fold(value)
    if mode == "contains":
        return np.fromiter((query in text for text in folded), dtype=bool, count=len(folded))
    values = table._metadata_column(column)
    number = pd.to_numeric(pd.Series([value]), errors="coerce").iat[0]
    if pd.api.types.is_numeric_dtype(values) and not pd.isna(number):
        return (values == number).fillna(False).to_numpy(dtype=bool)
    return folded == query


def sort_rows(table: DocumentsTable, rows: np.ndarray, key: str, descending: bool = False) -> np.ndarray:
    """``rows`` (document indices) ordered by the column ``key``; stable, missing values last in
    both directions. Keys: ``ROW``, ``ID``, ``TEXT``, ``HUMAN``, or ``PREDICTED``/``CONFIDENCE``/
    ``CORRECT`` + model name, or ``METADATA`` + column name."""
    rows = np.asarray(rows, dtype=np.int64)
    values, missing = table.sort_values(key)
    keys = values[rows]
    order = np.lexsort((-keys if descending else keys, missing[rows]))
    return rows[order]
