"""The loop the Coding step drives: which text to code next, when to retrain the quick model, what
the rounds say about stopping, and which codings the models doubt. Plain Python, no Qt.

A :class:`CodingLoop` holds the pool of texts to code (the table's uncoded rows or a second file,
see ``coding_pool.py``), their features (computed once, at the first retraining), the quick model's
probabilities for every pool text (kept between retrainings), the fixed stop set and the rounds.

- :meth:`CodingLoop.next_text` draws the next text from the strategy's distribution and returns it
  with the probability it was drawn with and a reason in words. Texts coded or skipped are left out
  by a boolean mask, and the probabilities are the last retraining's, so a suggestion costs a few
  vectorised passes over the pool (tens of milliseconds for 100,000 texts).
- :meth:`CodingLoop.retrain` runs in a background worker: it reads the loop but never changes it,
  and returns a :class:`RoundResult` (the new probabilities, the round for the stop signal, the
  out-of-fold probabilities of the coded texts). The round's agreement with the coding is the
  out-of-fold macro-F1 on the coded texts that stand for the corpus — the file's codings and those
  chosen at random (:func:`representative`) — since the texts chosen where the model is unsure are
  harder than most: scored on them too, the agreement would fall while the model gets better. :meth:`CodingLoop.apply`, on the GUI thread, makes
  it current. While a retraining runs, start no other: ask :meth:`needs_retraining` again once its
  result is applied.
- Before a quick model exists (codings in fewer than two categories) a strategy that needs one
  chooses at random, and the reason says so.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from guiapp.core.coding.coding_pool import TABLE, CodedTexts, CodingPool, text_groups
from guiapp.core.coding.coding_record import SOURCES, Row, row_label
from guiapp.core.coding.codings import CodingLog
from guiapp.core.coding.pool_clusters import PoolClusters
from guiapp.core.coding.quick_model import (
    BAG_OF_WORDS,
    FeatureCache,
    QuickModel,
    check_kind,
    out_of_fold_probabilities,
    pool_features,
)
from guiapp.core.coding.review import review_codings
from guiapp.core.coding.stopping import (
    STOP_SET_SIZE,
    Round,
    StopReading,
    draw_stop_set,
    stop_reading,
)
from guiapp.core.coding.strategies import (
    STRATEGIES,
    Choice,
    SamplingSettings,
    default_strategy,
    draw,
    selection_distribution,
)
from guiapp.core.coding.suggestion_reasons import reason_for
from guiapp.core.errors import DataError
from guiapp.core.events import EventCallback, Progress, ignore_events, sub_progress
from guiapp.core.stats.agreement import sorted_categories
from guiapp.core.stats.classification_scores import macro_f1
from guiapp.core.study.category_fixes import CategoryFixes

AUTO = "auto"  # random until two categories have five codings each, then uncertainty
OOF_FOLDS = 5
MIN_REPRESENTATIVE = 30  # coded texts that stand for the corpus, below which the agreement uses every coded text


@dataclass(frozen=True)
class Suggestion:
    """The text to code next: its row (of ``source``), how it was chosen and why, in words."""

    row: Row
    choice: Choice  # position in the pool, probability it was drawn with, strategy that drew it
    reason: str
    source: str  # "table" | "second file"
    text: str


@dataclass(frozen=True, eq=False)
class RoundResult:
    """What one retraining found (made in a worker; :meth:`CodingLoop.apply` makes it current)."""

    n_coded: int  # coded texts the model learned from
    log_codings: int  # texts coded in the log when the retraining started
    categories: tuple[str, ...]  # the columns of the probabilities
    probabilities: np.ndarray  # pool texts × categories
    round: Round
    coded: CodedTexts
    oof_probabilities: np.ndarray  # coded texts × categories, each from a model that never saw it
    features: Any  # of every text the loop knows (pool first)
    groups: PoolClusters | None  # groups of similar pool texts (for "diversity")
    seconds: float
    loop: object  # the loop that made it
    based_on: int  # the rounds that loop had when the retraining started


@dataclass(frozen=True)
class DoubtedCoding:
    """A coding the models doubt, named by its row."""

    row: Row
    source: str
    text: str
    coded: str
    suggested: str
    confidence: float  # probability of the suggested category
    score: float  # confident learning's quality score of the coding (lower: more doubtful)
    coded_probability: float
    in_file: bool  # the coding is the file's (not changed in TextLab)


@dataclass(frozen=True)
class CodingReview:
    """The doubted codings, most doubtful first, with one sentence for the researcher."""

    doubts: tuple[DoubtedCoding, ...]
    sentence: str
    n_checked: int = 0
    not_checked: tuple[str, ...] = ()


class CodingLoop:
    """The pool of texts to code, its features, the quick model, the strategy, the rounds.

    ``pool_rows``/``pool_texts``: the texts that may be suggested, of ``source`` (``"table"``: give
    the rows the file leaves uncoded, and keep giving the same ones — the loop itself leaves out the
    rows coded or skipped in the log, and the stop set stays the same texts; ``"second file"``: the
    rows of the second file). ``table_texts``: row → text of the table (at least its coded rows, whose
    codings the model learns from); ``second_file_texts``: those of a second file, when the pool is
    the table but the log holds codings of a second file. ``kind``: the quick model's features,
    ``"bag of words"`` or ``"embeddings"`` (kept in ``cache``, by default the program's).
    ``strategy``: ``"auto"`` (random until two categories have five codings each, then
    uncertainty) or one of ``STRATEGIES``. ``rounds`` and ``stop_set_rows``: those of an earlier
    session, to go on with the same stop signal. ``fixes``: the Data step's category fixes; the
    model learns the codings as the table is now (``current_table.py``), so a category left out of
    the study is never learnt nor suggested."""

    def __init__(self, pool_rows: Sequence, pool_texts: Sequence[str], *, source: str = TABLE,
                 table_texts: Mapping | None = None, second_file_texts: Mapping | None = None,
                 kind: str = BAG_OF_WORDS, strategy: str = AUTO, retrain_every: int = 10, seed: int = 0,
                 rounds: Sequence[Round] = (), stop_set_rows: Sequence | None = None,
                 stop_set_size: int = STOP_SET_SIZE,
                 cache: FeatureCache | None = None, representation: Any = None,
                 settings: SamplingSettings | None = None, fixes: CategoryFixes | None = None) -> None:
        self.pool = CodingPool(pool_rows, pool_texts, source=source, table_texts=table_texts,
                               second_file_texts=second_file_texts, fixes=fixes)
        self.kind = check_kind(kind)
        self.set_strategy(strategy)
        if isinstance(retrain_every, bool) or not isinstance(retrain_every, int | np.integer) or retrain_every < 1:
            raise DataError(f"The quick model cannot be retrained every {retrain_every!r} codings.",
                            "Give a whole number of codings, 1 or more (10 is usual).")
        self.retrain_every = int(retrain_every)
        self.seed = seed
        self.settings = settings or SamplingSettings()
        self.settings.check()
        self._cache = cache
        self._representation = representation
        self._rng = np.random.default_rng(seed)
        if stop_set_rows is None:
            stop_set_rows = draw_stop_set(self.pool.rows, stop_set_size, seed)
        self.stop_set_rows = tuple(row_label(row) for row in stop_set_rows)
        positions = [self.pool.position(row, source) for row in self.stop_set_rows]
        if any(position is None or position >= self.pool.n_pool for position in positions):
            raise DataError("Some texts the stop signal watches are not among the texts to code.",
                            "The texts to code have changed; the stop signal starts again with a new set of texts.")
        self._stop_positions = np.array(positions, dtype=np.intp)
        self._rounds: list[Round] = list(rounds)
        self._features: Any = None
        self._groups: PoolClusters | None = None
        self._current: RoundResult | None = None

    # ------------------------------------------------------------------ state
    @property
    def source(self) -> str:
        return self.pool.source

    @property
    def strategy(self) -> str:
        """The strategy the researcher picked: ``"auto"`` or one of ``STRATEGIES``."""
        return self._strategy

    def set_strategy(self, strategy: str) -> None:
        if strategy != AUTO and strategy not in STRATEGIES:
            raise DataError(f"There is no way to choose texts called “{strategy}”.",
                            "Choose one of: " + ", ".join((AUTO, *STRATEGIES)) + ".")
        self._strategy = strategy

    @property
    def rounds(self) -> tuple[Round, ...]:
        return tuple(self._rounds)

    @property
    def probabilities(self) -> np.ndarray | None:
        """The current quick model's probabilities of every pool text (None before a model)."""
        return None if self._current is None else self._current.probabilities

    @property
    def categories(self) -> tuple[str, ...]:
        """The columns of :attr:`probabilities`."""
        return () if self._current is None else self._current.categories

    @property
    def groups(self) -> PoolClusters | None:
        return self._groups

    @property
    def rng(self) -> np.random.Generator:
        """The loop's random draws (a suggestion made beside :meth:`next_text` draws from them too)."""
        return self._rng

    def features(self, on_event: EventCallback = ignore_events) -> Any:
        """The features of the pool's texts, then the others': the last retraining's, else computed
        (kept in the loop's cache). Reads the loop, never changes it."""
        return self._features if self._features is not None else self._compute_features(on_event)

    # ------------------------------------------------------------------ what to code next
    def plan(self, log: CodingLog, file_categories: Mapping) -> tuple[str, np.ndarray, str]:
        """The strategy that would choose now (the researcher's, or the one it falls back to), its
        distribution over the pool (0 for texts coded or skipped), and why it is that strategy (""
        or a key of ``suggestion_reasons.FALLBACKS``)."""
        open_texts = self.pool.open_mask(log, file_categories)
        if not open_texts.any():
            raise DataError("Every text in the pool has been coded or skipped.",
                            "Open a second file of texts to code, or review the codings the models doubt.")
        strategy, distribution, why, _ = self._plan(open_texts, self.pool.coded_counts(log, file_categories))
        return strategy, distribution, why

    def _plan(self, open_texts: np.ndarray, counts: dict[str, int]) -> tuple[str, np.ndarray, str, RoundResult | None]:
        strategy, why = self._resolved(counts)
        current = self._current
        distribution = selection_distribution(
            strategy, self.pool.n_pool, exclude=np.flatnonzero(~open_texts), settings=self.settings,
            probabilities=None if current is None else current.probabilities, clusters=self._groups,
            categories=None if current is None else current.categories, coded_counts=counts)
        return strategy, distribution, why, current

    def is_open(self, row: Row, log: CodingLog, file_categories: Mapping, source: str | None = None) -> bool:
        """Whether the text of ``row`` may still be suggested: a text of the pool, not coded in the
        file, nor coded or skipped in ``log``. A suggestion drawn before the record it is coded into
        (e.g. before an opened project's codings arrived) is stale when this is False."""
        position = self.pool.position(row, source or self.source)
        if position is None or position >= self.pool.n_pool or (source or self.source) != self.source:
            return False
        return bool(self.pool.open_mask(log, file_categories)[position])

    def distribution(self, log: CodingLog, file_categories: Mapping) -> np.ndarray:
        """The probability of each pool text to be suggested next (what :meth:`next_text` draws from)."""
        return self.plan(log, file_categories)[1]

    def next_text(self, log: CodingLog, file_categories: Mapping) -> Suggestion | None:
        """The next text to code, drawn from the strategy's distribution, with the probability it
        was drawn with (None when every pool text has been coded or skipped)."""
        open_texts = self.pool.open_mask(log, file_categories)
        if not open_texts.any():
            return None
        counts = self.pool.coded_counts(log, file_categories)
        strategy, distribution, why, current = self._plan(open_texts, counts)
        position = draw(distribution, self._rng)
        choice = Choice(position=position, probability=float(distribution[position]), strategy=strategy)
        reason = reason_for(strategy, why, None if current is None else current.probabilities[position],
                            () if current is None else current.categories, counts, self._groups)
        return Suggestion(self.pool.rows[position], choice, reason, self.source, self.pool.texts[position])

    def _resolved(self, counts: Mapping[str, int]) -> tuple[str, str]:
        """(strategy, why): why is "" or a key of ``suggestion_reasons.FALLBACKS``."""
        asked = self._strategy
        if asked == AUTO:
            asked = default_strategy(counts)
            if asked == "random":
                return "random", "auto"
        if asked == "random":
            return "random", ""
        if self._current is None:
            return "random", "no model" if sum(1 for n in counts.values() if n) < 2 else "not trained"
        if asked == "diversity" and self._groups is None:
            return "uncertainty", "no groups"
        return asked, ""

    # ------------------------------------------------------------------ retraining
    def needs_retraining(self, log: CodingLog, file_categories: Mapping | None = None) -> bool:
        """Whether to retrain now: ``retrain_every`` texts were coded in the log since the last
        retraining; before the first, as soon as the coded texts (with ``file_categories``, the
        file's) span two categories; and when choosing across kinds of texts still lacks the groups."""
        if self._current is None:
            counts = self.pool.coded_counts(log, file_categories or {})
            return sum(1 for n in counts.values() if n) >= 2
        if self._strategy == "diversity" and self._groups is None:
            return True
        return _log_codings(log) - self._current.log_codings >= self.retrain_every

    def retrain(self, log: CodingLog, file_categories: Mapping, on_event: EventCallback = ignore_events,
                *, categories: Sequence[str] | None = None) -> RoundResult:
        """Fit the quick model on every coded text (the file's codings with the log's applied, and
        the log's codings of a second file), predict the pool, and measure the round: predictions on
        the stop set and out-of-fold macro-F1. Reads the loop, never changes it (runs in a worker).
        ``categories``: the column order (e.g. the codebook's); by default the coded ones, sorted."""
        started = time.perf_counter()
        based_on = len(self._rounds)
        log = CodingLog(log.entries)  # the page may add codings meanwhile
        coded = self.pool.coded(log, dict(file_categories))
        present = sorted_categories(coded.labels)
        if len(present) < 2:
            only = f"all {len(coded):,} are “{present[0]}”" if present else "none are coded yet"
            raise DataError(f"The quick model needs coded texts of at least two categories; {only}.",
                            "Code texts of another category first.")
        features = self._features
        first = features is None
        if first:
            features = self._compute_features(sub_progress(on_event, 0.0, 0.6))
        start = 0.6 if first else 0.0
        labels = list(coded.labels)
        on_event(Progress(start, "Training the quick model on your coded texts"))
        training = features[coded.positions]
        model = QuickModel(self.kind, seed=self.seed).fit(training, labels, categories)
        columns = tuple(model.categories)
        probabilities = model.predict_proba(features[: self.pool.n_pool])
        oof, _ = out_of_fold_probabilities(self.kind, training, labels, OOF_FOLDS, self.seed, categories=columns,
                                           on_event=sub_progress(on_event, start + 0.1 * (1 - start), 0.95))
        f1 = _agreement(coded, oof, columns, log)
        new_round = Round.from_probabilities(len(coded), probabilities[self._stop_positions], columns, f1)
        groups = self._groups
        if groups is None and self._strategy == "diversity" and self.pool.n_pool:
            on_event(Progress(0.95, "Finding groups of similar texts"))
            groups = text_groups(features[: self.pool.n_pool], self.seed)
        on_event(Progress(1.0, "The quick model is ready"))
        return RoundResult(len(coded), _log_codings(log), columns, probabilities, new_round, coded, oof, features,
                           groups, time.perf_counter() - started, self, based_on)

    def _compute_features(self, on_event: EventCallback) -> Any:
        return pool_features(self.kind, list(self.pool.texts), self._cache, representation=self._representation,
                             on_event=on_event)

    def apply(self, result: RoundResult) -> bool:
        """Make a retraining's answers current (on the GUI thread). A result overtaken by another
        retraining applied since it started is left out (False)."""
        if result.loop is not self:
            raise ValueError("this result comes from another coding loop")
        if result.based_on != len(self._rounds):
            return False
        if self._features is None:
            self._features = result.features
        if self._groups is None:
            self._groups = result.groups
        self._current = result
        self._rounds.append(result.round)
        return True

    def stop_reading(self, window: int = 3, threshold: float = 0.01, f1_threshold: float = 0.01) -> StopReading:
        """What the rounds so far say about stopping (see ``stopping.stop_reading``)."""
        return stop_reading(self._rounds, window, threshold, f1_threshold)

    # ------------------------------------------------------------------ doubted codings
    def review(self, log: CodingLog, file_categories: Mapping, on_event: EventCallback = ignore_events, *,
               limit: int | None = None, rank_by: str = "self_confidence") -> CodingReview:
        """The codings the models doubt, from out-of-fold probabilities of every coded text (those of
        the last retraining when the codings have not changed since). Reads the loop, never changes it."""
        log = CodingLog(log.entries)
        coded = self.pool.coded(log, dict(file_categories))
        labels = list(coded.labels)
        present = sorted_categories(labels)
        current = self._current
        if len(present) < 2:
            review = review_codings(labels, np.ones((len(labels), len(present))), present)
        else:
            if current is not None and (current.coded.keys, current.coded.labels) == (coded.keys, coded.labels):
                oof, columns = current.oof_probabilities, list(current.categories)
            else:
                features = self._features if self._features is not None else self._compute_features(
                    sub_progress(on_event, 0.0, 0.5))
                oof, columns = out_of_fold_probabilities(self.kind, features[coded.positions], labels, OOF_FOLDS,
                                                         self.seed, on_event=on_event)
            review = review_codings(labels, oof, columns, limit=limit, rank_by=rank_by)
        doubts = tuple(
            DoubtedCoding(coded.keys[d.position][1], coded.keys[d.position][0],
                          self.pool.texts[coded.positions[d.position]], d.coded, d.suggested, d.confidence,
                          d.score, d.coded_probability, coded.in_file[d.position])
            for d in review.doubts)
        return CodingReview(doubts, review.sentence, review.n_checked, tuple(review.not_checked))


def representative(coded: CodedTexts, log: CodingLog) -> np.ndarray:
    """True for each coded text that stands for the corpus: coded in the file (taken as a sample of it)
    or chosen at random in TextLab. Texts chosen where the model is unsure are harder than most."""
    chosen = {(entry.source, entry.row): entry.chosen_by for entry in log.entries_of()}
    return np.array([in_file or chosen.get(key) == "random" for key, in_file in zip(coded.keys, coded.in_file,
                                                                                      strict=True)], dtype=bool)


def _agreement(coded: CodedTexts, oof: np.ndarray, columns: Sequence[str], log: CodingLog) -> float:
    """Out-of-fold macro-F1 on the coded texts that stand for the corpus (:func:`representative`; every
    coded text while fewer than ``MIN_REPRESENTATIVE`` of them span two categories). Measured on all,
    it would fall as the model-guided choices add the hardest texts, although the model improves."""
    index = {category: i for i, category in enumerate(columns)}
    truth = np.array([index[label] for label in coded.labels])
    predicted = oof.argmax(axis=1)
    mask = representative(coded, log)
    if mask.sum() < MIN_REPRESENTATIVE or len(set(truth[mask].tolist())) < 2:
        mask = np.ones(len(truth), dtype=bool)
    return macro_f1(truth[mask], predicted[mask], len(columns))


def _log_codings(log: CodingLog) -> int:
    """Texts coded in the log (each once, skips left out), of both sources."""
    return sum(len(log.latest(source)) for source in SOURCES)
