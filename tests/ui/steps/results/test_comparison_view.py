"""The comparison view: headline sentences, one row per pair of models, agreement per model."""

from __future__ import annotations

import pytest

from guiapp.core.experiment.scores.comparisons import compare_models
from guiapp.ui.steps.results.comparison_view import ComparisonView
from tests.ui.helpers import save_screenshot
from tests.ui.sample_results import sample_result


@pytest.fixture
def view(qtbot):
    widget = ComparisonView()
    qtbot.addWidget(widget)
    widget.resize(1000, 900)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def test_shows_the_headline_and_one_row_per_pair(qtbot, view) -> None:
    result = sample_result()  # five models, one failed: four finished, six pairs
    view.set_result(result)
    finished = [m.name for m in result.ranked()]
    expected = compare_models(result)

    assert view.headline.isVisible()
    assert view.headline_text() == "\n".join(expected.headline)
    assert view.headline_text().startswith(f"{finished[0]} has the highest macro-F1 on the test texts")

    rows = view.pairs_table.rows()
    assert len(rows) == 6
    assert [(r[0], r[1]) for r in rows] == [(c.model_a, c.model_b) for c in expected.test_set]
    first = expected.test_set[0]
    assert rows[0][2:4] == [f"{first.n_only_a_right:,}", f"{first.n_only_b_right:,}"]
    assert rows[0][6] in {"A agrees more often", "B agrees more often", "No clear difference"}
    assert view.pairs_table.item(0, 6).toolTip() == expected.test_set_sentences[0]
    assert "1,335 test texts" in view.pairs_caption.plain_text()
    assert "Holm correction" in view.pairs_caption.plain_text()

    agreement = view.agreement_table.rows()
    assert [r[0] for r in agreement] == finished
    kappa = expected.agreement[0]
    assert agreement[0][2] == f"{kappa.kappa:.2f}  ({kappa.kappa_interval[0]:.2f} to {kappa.kappa_interval[1]:.2f})"
    assert "Cohen's kappa" in view.agreement_caption.plain_text()

    qtbot.wait(20)
    view.resize(1000, view.layout().totalHeightForWidth(1000))
    qtbot.wait(20)
    save_screenshot(view, "widget_comparison_view_1000")


def test_clear_empties_the_view(view) -> None:
    view.set_result(sample_result())
    view.clear()
    assert view.pairs_table.rowCount() == 0 and view.agreement_table.rowCount() == 0
    assert not view.pairs_table.isVisible()
    assert view.comparisons is None
    assert "No study results yet" in view.headline_text()


def test_one_finished_model_has_no_pairs(view) -> None:
    result = sample_result(models=[("bow", "svm", 0.7), ("bow", "naive_bayes", None)])
    view.set_result(result)
    assert "Only one model finished" in view.headline_text()
    assert view.pairs_table.rowCount() == 0 and not view.pairs_table.isVisible()
    assert view.agreement_table.rowCount() == 1 and view.agreement_table.isVisible()


def test_set_coders_shows_the_models_against_the_coders(qtbot, view) -> None:
    import numpy as np
    import pandas as pd

    result = sample_result()
    view.set_result(result)
    assert not view.coders_table.isVisible()  # only with coder counts
    truth = np.asarray(result.test_true, dtype=int)
    k = len(result.categories)
    counts = np.zeros((len(truth), k), dtype=int)
    counts[np.arange(len(truth)), truth] = 2
    counts[np.arange(len(truth)), (truth + np.arange(len(truth)) % 2) % k] += 1  # a third coder, agreeing half the time
    columns = [f"votes {c}" for c in result.categories]
    rows = pd.DataFrame(counts, columns=columns)
    view.set_coders(rows, columns)
    qtbot.waitUntil(lambda: view.coders_table.rowCount() > 0, timeout=20000)
    assert view.coders_table.isVisible() and view.coders_title.text() == "Does the model code like another coder?"
    shown = view.coders_table.rows()
    assert [r[0] for r in shown] == [m.name for m in result.ranked()]
    first = view.coders[0].agreement
    assert shown[0][1] == f"{first.model_agrees_with_majority:.0%} of texts"
    assert shown[0][4] == first.sentence and "one coder agrees with the others" in first.sentence
    assert "votes" in view.coders_caption.plain_text()
    view.clear()
    assert view.coders_table.rowCount() == 0 and not view.coders_table.isVisible()
