"""The loop the Coding step drives, simulated with a coder who answers the true category: every
suggestion is an uncoded text drawn with a recorded probability that is exactly the strategy's,
texts coded or skipped never come again, the quick model is retrained every few codings and the
rounds feed the stop signal, the doubted codings name rows, and a second file of texts works as
the pool."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd
import pytest

from guiapp.core.coding.coding_loop import (
    CodingLoop,
    CodingReview,
    RoundResult,
    Suggestion,
)
from guiapp.core.coding.codings import CodingLog
from guiapp.core.coding.quick_model import EMBEDDINGS, FeatureCache
from guiapp.core.coding.strategies import selection_distribution
from guiapp.core.errors import DataError
from tests.core.synthetic_texts import TOPIC_WORDS, coded_texts


def corpus(n: int = 300, seed: int = 3, n_file: int = 4) -> tuple[pd.DataFrame, dict, list]:
    """A table whose first ``n_file`` rows the file codes (one per category at least); the rest
    is the pool. Returns the table (text, label = the truth), the file's codings, the pool rows."""
    frame = coded_texts(n, shares=(0.5, 0.3, 0.2), seed=seed)
    firsts = [int(frame.index[frame["label"] == label][0]) for label in ("health", "defence")]
    rows = list(dict.fromkeys(firsts + list(range(n_file))))[:max(n_file, 2)]
    file_categories = {row: str(frame.at[row, "label"]) for row in rows}
    pool = [row for row in frame.index if row not in file_categories]
    return frame, file_categories, pool


def table_loop(frame: pd.DataFrame, pool: list, **options) -> CodingLoop:
    return CodingLoop(pool, frame.loc[pool, "text"], table_texts=frame["text"], **options)


def code(log: CodingLog, suggestion: Suggestion, category: str | None) -> None:
    log.record(suggestion.row, category, coder="simulated", chosen_by=suggestion.choice.strategy,
               probability=suggestion.choice.probability, source=suggestion.source)


def expected_distribution(loop: CodingLoop, strategy: str, log: CodingLog, file_categories: dict,
                          counts: dict) -> np.ndarray:
    """The strategy's distribution, computed here from what the loop shows (not from its plan)."""
    taken = {entry.row for entry in log if entry.source == loop.source}
    if loop.source == "table":
        taken |= set(file_categories)
    exclude = [i for i, row in enumerate(loop.pool.rows) if row in taken]
    return selection_distribution(strategy, loop.pool.n_pool, probabilities=loop.probabilities,
                                  categories=loop.categories or None, clusters=loop.groups,
                                  coded_counts=counts, exclude=exclude, settings=loop.settings)


def simulate(loop: CodingLoop, truth: dict, file_categories: dict, n: int, log: CodingLog | None = None):
    """Code ``n`` suggestions with the true category, retraining when the loop asks; check each."""
    log = log or CodingLog()
    seen: set = set()
    applied, strategies = 0, []
    for _ in range(n):
        if loop.needs_retraining(log, file_categories):
            loop.apply(loop.retrain(log, file_categories))
            applied += 1
        table = {**file_categories, **log.categories_by_row("table")}
        counts = Counter([*table.values(), *log.categories_by_row("second file").values()])
        suggestion = loop.next_text(log, file_categories)
        assert suggestion is not None
        assert suggestion.row in loop.pool.rows
        assert loop.source != "table" or suggestion.row not in file_categories
        assert suggestion.row not in seen
        assert suggestion.text == loop.pool.texts[suggestion.choice.position]
        assert loop.pool.rows[suggestion.choice.position] == suggestion.row
        assert suggestion.choice.probability > 0
        expected = expected_distribution(loop, suggestion.choice.strategy, log, file_categories, counts)
        assert suggestion.choice.probability == pytest.approx(expected[suggestion.choice.position], rel=1e-12)
        assert suggestion.reason
        strategies.append((suggestion.choice.strategy, suggestion.reason))
        seen.add(suggestion.row)
        code(log, suggestion, truth[suggestion.row])
    return log, applied, strategies


def test_a_simulated_coder_gets_uncoded_texts_with_recorded_probabilities_and_rounds_accumulate() -> None:
    frame, file_categories, pool = corpus()
    truth = frame["label"].to_dict()
    loop = table_loop(frame, pool, retrain_every=10, seed=1)
    log, applied, strategies = simulate(loop, truth, file_categories, 60)
    assert len(log) == 60 and all(entry.probability > 0 for entry in log)
    # random until two categories have five codings each, then where the model is least sure
    assert strategies[0][0] == "random" and "Chosen at random" in strategies[0][1]
    assert strategies[-1][0] == "uncertainty"
    assert any("unsure between" in reason for strategy, reason in strategies if strategy == "uncertainty")
    # retrained at the start (the file codes two categories) and every 10 codings since
    assert applied == len(loop.rounds) == 6
    coded = [r.n_coded for r in loop.rounds]
    assert coded == [len(file_categories) + 10 * i for i in range(6)]
    assert loop.probabilities.shape == (len(pool), len(loop.categories))
    np.testing.assert_allclose(loop.probabilities.sum(axis=1), 1.0)
    reading = loop.stop_reading()
    assert reading.n_coded == tuple(coded)
    assert len(reading.changed_share) == len(reading.oof_macro_f1) == len(loop.rounds)
    assert reading.changed_share[0] is None and all(0 <= s <= 1 for s in reading.changed_share[1:])
    assert reading.oof_macro_f1[-1] > 0.5  # the quick model learns the topics
    assert reading.sentence


def test_retraining_reads_the_loop_without_changing_it_until_applied() -> None:
    frame, file_categories, pool = corpus()
    loop = table_loop(frame, pool)
    assert loop.needs_retraining(CodingLog(), file_categories)
    result = loop.retrain(CodingLog(), file_categories)
    assert isinstance(result, RoundResult)
    assert loop.rounds == () and loop.probabilities is None
    suggestion = loop.next_text(CodingLog(), file_categories)
    assert suggestion.choice.strategy == "random"
    overtaken = loop.retrain(CodingLog(), file_categories)
    assert loop.apply(result)
    assert len(loop.rounds) == 1 and loop.probabilities is result.probabilities
    assert not loop.needs_retraining(CodingLog(), file_categories)
    assert not loop.apply(overtaken)  # started before the round now current
    assert len(loop.rounds) == 1 and loop.probabilities is result.probabilities
    other = table_loop(frame, pool)
    with pytest.raises(ValueError):
        other.apply(result)
    # a later session goes on with the same stop set and rounds
    later = table_loop(frame, pool, rounds=loop.rounds, stop_set_rows=loop.stop_set_rows)
    assert later.stop_set_rows == loop.stop_set_rows
    assert later.apply(later.retrain(CodingLog(), file_categories))
    assert len(later.stop_reading().changed_share) == 2 and later.stop_reading().changed_share[1] == 0.0
    with pytest.raises(DataError, match="watches"):
        table_loop(frame, pool[1:], stop_set_rows=[pool[0]])


def test_skipped_and_coded_rows_never_come_again_and_undo_brings_a_row_back() -> None:
    frame, file_categories, pool = corpus(n=40)
    loop = table_loop(frame, pool, strategy="random")
    log = CodingLog()
    seen = []
    while (suggestion := loop.next_text(log, file_categories)) is not None:
        assert suggestion.row not in seen
        seen.append(suggestion.row)
        code(log, suggestion, None if len(seen) % 2 else str(frame.at[suggestion.row, "label"]))
    assert sorted(seen) == sorted(pool)
    assert len(log.skipped()) == (len(pool) + 1) // 2
    last = log.undo()
    suggestion = loop.next_text(log, file_categories)
    assert suggestion is not None and suggestion.row == last.row
    assert suggestion.choice.probability == pytest.approx(1.0)
    code(log, suggestion, None)
    assert loop.next_text(log, file_categories) is None
    with pytest.raises(DataError, match="coded or skipped"):
        loop.plan(log, file_categories)


def test_strategies_that_need_a_model_choose_at_random_until_there_is_one_and_say_so() -> None:
    frame, _, pool = corpus()
    only_health = {row: "health" for row in frame.index[frame["label"] == "health"][:6]}
    pool = [row for row in frame.index if row not in only_health]
    loop = table_loop(frame, pool, strategy="uncertainty")
    assert not loop.needs_retraining(CodingLog(), only_health)  # one category: nothing to learn
    with pytest.raises(DataError, match="two categories"):
        loop.retrain(CodingLog(), only_health)
    suggestion = loop.next_text(CodingLog(), only_health)
    assert suggestion.choice.strategy == "random"
    assert "at least 2 categories" in suggestion.reason
    assert suggestion.choice.probability == pytest.approx(1 / len(pool))
    both = {**only_health, pool[0]: "energy"}
    assert loop.needs_retraining(CodingLog(), both)
    waiting = loop.next_text(CodingLog(), both)
    assert waiting.choice.strategy == "random" and "until the model has learned" in waiting.reason


def test_choosing_across_groups_of_similar_texts_finds_the_groups_at_retraining() -> None:
    frame, file_categories, pool = corpus()
    truth = frame["label"].to_dict()
    loop = table_loop(frame, pool, strategy="diversity", retrain_every=5)
    _, _, strategies = simulate(loop, truth, file_categories, 12)
    assert loop.groups is not None and loop.groups.labels.shape == (len(pool),)
    assert {strategy for strategy, _ in strategies} == {"diversity"}
    assert "groups of similar texts" in strategies[-1][1]


def test_a_second_file_is_the_pool_while_the_table_codings_still_teach_the_model() -> None:
    frame = coded_texts(200, shares=(0.5, 0.3, 0.2), seed=5)
    table = frame.iloc[:40]
    second = frame.iloc[40:].reset_index(drop=True)  # rows 0 … 159: the same labels as the table's rows
    file_categories = table["label"].to_dict()
    truth = second["label"].to_dict()
    loop = CodingLoop(second.index, second["text"], source="second file", table_texts=table["text"],
                      retrain_every=10)
    log = CodingLog()
    log.record(3, "energy", coder="simulated", chosen_by="review", file_category=file_categories[3])
    assert loop.distribution(log, file_categories)[3] > 0  # the table's row 3 is another text
    _, applied, _ = simulate(loop, truth, file_categories, 25, log)
    assert len([entry for entry in log if entry.source == "second file"]) == 25
    assert applied == len(loop.rounds) == 3
    assert [r.n_coded for r in loop.rounds] == [40, 50, 60]
    result = loop.retrain(log, file_categories)
    assert result.n_coded == 40 + 25
    assert result.probabilities.shape[0] == len(second)
    assert result.coded.keys[:40] == tuple(("table", row) for row in range(40))
    assert result.coded.labels[result.coded.keys.index(("table", 3))] == "energy"  # the log's change counts


def test_review_names_the_rows_of_codings_the_models_doubt() -> None:
    frame = coded_texts(400, shares=(0.5, 0.3, 0.2), seed=7, noise=0.15)
    rng = np.random.default_rng(0)
    file_categories = {row: str(label) for row, label in frame["label"].items() if row < 300}
    flipped = rng.choice(300, 15, replace=False)
    others = {"health": "defence", "defence": "energy", "energy": "health"}
    for row in flipped:
        file_categories[int(row)] = others[file_categories[int(row)]]
    pool = list(range(300, 400))
    loop = table_loop(frame, pool)
    review = loop.review(CodingLog(), file_categories)
    assert isinstance(review, CodingReview) and review.doubts and review.n_checked == 300
    for doubt in review.doubts:
        assert doubt.source == "table" and doubt.in_file
        assert doubt.coded == file_categories[doubt.row] and doubt.suggested != doubt.coded
        assert doubt.text == frame.at[doubt.row, "text"]
    top = [doubt.row for doubt in review.doubts[:10]]
    assert len(set(top) & {int(row) for row in flipped}) >= 7
    # after a retraining on the same codings the review reuses its out-of-fold probabilities
    loop.apply(loop.retrain(CodingLog(), file_categories))
    again = loop.review(CodingLog(), file_categories, limit=5)
    assert [d.row for d in again.doubts] == [d.row for d in review.doubts[:5]]
    # a coding changed in the log is reviewed as the log has it
    log = CodingLog()
    log.record(top[0], others[file_categories[top[0]]], coder="me", chosen_by="review",
               file_category=file_categories[top[0]])
    changed = loop.review(log, file_categories)
    assert all(d.coded == log.categories_by_row().get(d.row, file_categories[d.row]) for d in changed.doubts)


def test_a_fully_coded_table_suggests_nothing_but_its_codings_can_be_checked() -> None:
    frame = coded_texts(200, shares=(0.5, 0.3, 0.2), seed=5, noise=0.1)
    file_categories = {row: str(label) for row, label in frame["label"].items()}
    others = {"health": "defence", "defence": "energy", "energy": "health"}
    flipped = [int(row) for row in np.random.default_rng(1).choice(200, 10, replace=False)]
    for row in flipped:
        file_categories[row] = others[file_categories[row]]
    loop = table_loop(frame, [])
    assert loop.pool.n_pool == 0 and loop.next_text(CodingLog(), file_categories) is None
    assert loop.needs_retraining(CodingLog(), file_categories)
    assert loop.apply(loop.retrain(CodingLog(), file_categories))  # a retraining with nothing to suggest
    review = loop.review(CodingLog(), file_categories)
    assert review.n_checked == 200
    assert len({d.row for d in review.doubts[:10]} & set(flipped)) >= 6


class TopicEmbeddings:
    """Stands in for the sentence embeddings: how many words of each topic a text has, plus one."""

    def __init__(self) -> None:
        self.embedded: list[str] = []

    def prepare_settings(self) -> tuple:
        return ("topic counts",)

    def prepare(self, texts, on_event):
        self.embedded += texts
        words = [set(TOPIC_WORDS[topic]) for topic in TOPIC_WORDS]

        class Prepared:
            matrix = np.array([[sum(w.strip(".").lower() in topic for w in t.split()) for topic in words] + [1.0]
                               for t in texts], dtype=np.float32)

        return Prepared()


def test_embeddings_are_computed_once_for_every_retraining_and_review() -> None:
    frame, file_categories, pool = corpus(n=150)
    truth = frame["label"].to_dict()
    representation = TopicEmbeddings()
    loop = table_loop(frame, pool, kind=EMBEDDINGS, strategy="diversity", cache=FeatureCache(),
                      representation=representation, retrain_every=5)
    log, applied, strategies = simulate(loop, truth, file_categories, 15)
    loop.review(log, file_categories)
    assert applied == 3 and strategies[-1][0] == "diversity"
    assert sorted(representation.embedded) == sorted(set(frame["text"]))


def test_bad_input_gets_a_message_that_says_what_to_fix() -> None:
    frame, file_categories, pool = corpus(n=30)
    with pytest.raises(DataError, match="one text for each row"):
        CodingLoop(pool, frame.loc[pool[:-1], "text"])
    with pytest.raises(DataError, match="twice"):
        CodingLoop([1, 1], ["a", "b"])
    with pytest.raises(DataError, match="no texts to code"):
        CodingLoop([], [])
    with pytest.raises(DataError, match="no texts to code"):
        CodingLoop([], [], table_texts={})
    with pytest.raises(DataError, match="way to choose"):
        table_loop(frame, pool, strategy="best")
    with pytest.raises(DataError, match="every"):
        table_loop(frame, pool, retrain_every=0)
    with pytest.raises(DataError, match="second file"):
        CodingLoop(pool, frame.loc[pool, "text"], source="another file")
    loop = CodingLoop(pool, frame.loc[pool, "text"])  # the table's coded texts not given
    with pytest.raises(DataError, match="not known"):
        loop.retrain(CodingLog(), file_categories)


def test_the_agreement_of_a_round_is_measured_on_the_texts_that_stand_for_the_corpus() -> None:
    from guiapp.core.coding.coding_loop import _agreement, representative
    from guiapp.core.coding.coding_pool import CodedTexts

    n_file, n_hard = 40, 20
    keys = tuple(("table", row) for row in range(n_file + n_hard + 5))
    labels = tuple(["a", "b"] * ((n_file + n_hard + 5) // 2) + ["a"])
    in_file = tuple([True] * n_file + [False] * (n_hard + 5))
    coded = CodedTexts(keys, np.arange(len(keys)), labels, in_file)
    log = CodingLog()
    for row in range(n_file, n_file + n_hard):
        log.record(row, labels[row], coder="me", chosen_by="uncertainty", probability=0.01)
    for row in range(n_file + n_hard, len(keys)):
        log.record(row, labels[row], coder="me", chosen_by="random", probability=0.001)
    log.record(0, labels[0], coder="you", chosen_by="second coder")  # another record: not the study's coding
    assert representative(coded, log).tolist() == [True] * n_file + [False] * n_hard + [True] * 5
    columns = ["a", "b"]
    right = np.array([[1.0, 0.0] if label == "a" else [0.0, 1.0] for label in labels])
    oof = right.copy()
    oof[n_file:n_file + n_hard] = right[n_file:n_file + n_hard, ::-1]  # the hard texts: all wrong
    assert _agreement(coded, oof, columns, log) == pytest.approx(1.0)
    few = CodedTexts(keys, coded.positions, labels, tuple([True] * 10 + [False] * (len(keys) - 10)))
    assert _agreement(few, oof, columns, CodingLog()) < 1.0  # too few stand for the corpus: every text counts
