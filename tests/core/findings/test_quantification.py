"""Shares of a corpus with no coded texts of its own, adjusted for prior shift."""

from __future__ import annotations

import numpy as np
import pytest

from guiapp.core.errors import DataError
from guiapp.core.events import Cancelled, Progress
from guiapp.core.findings import CodedSample, OtherCorpus, estimate_findings, quantify
from guiapp.core.findings.quantification import adjusted, em_shares, rates

CATS = ("a", "b", "c")


LEARNED = np.array([0.6, 0.3, 0.1])  # the shares of the coded texts the model learned from


def _texts(rng, shares, n, learned=LEARNED):
    """Texts of known categories, each category's texts alike in every corpus (points around its
    centre), and the model's probabilities calibrated to the coded texts' shares."""
    labels = rng.choice(3, size=n, p=shares)
    centres = np.array([[0.0, 0.0], [1.5, 0.0], [0.0, 1.5]])
    points = centres[labels] + rng.normal(0, 1.0, size=(n, 2))
    log_likelihood = -0.5 * ((points[:, None, :] - centres[None]) ** 2).sum(axis=2)
    posterior = np.exp(log_likelihood) * learned
    return labels, posterior / posterior.sum(axis=1, keepdims=True)


def test_adjusted_methods_recover_a_shift_that_counting_misses():
    rng = np.random.default_rng(0)
    coded_labels, coded_probabilities = _texts(rng, LEARNED, 1500)
    _, corpus = _texts(rng, [0.2, 0.3, 0.5], 6000)
    coded = CodedSample([CATS[i] for i in coded_labels], coded_probabilities)
    truth = np.array([0.2, 0.3, 0.5])
    for method in ("pacc", "acc", "sld"):
        result = quantify(corpus, CATS, coded, method=method, bootstrap_replicates=100)
        assert np.all(result.low <= truth) and np.all(truth <= result.high), method
    assert np.abs(result.by_method["sld"] - truth).max() < 0.03  # calibrated probabilities: EM is best
    counted = np.abs(result.by_method["cc"] - truth).max()
    assert counted > 0.1
    assert np.abs(result.by_method["pacc"] - truth).max() < counted / 2
    assert "wording did not change" in result.sentence
    assert quantify(corpus, CATS, coded, bootstrap_replicates=50).estimate == pytest.approx(result.by_method["pacc"])


def test_hand_worked_pieces():
    y = np.eye(2)[[0, 0, 1, 1]]
    predicted = np.eye(2)[[0, 1, 1, 1]]
    m = rates(y, predicted)  # a found half the time, b always
    assert m == pytest.approx(np.array([[0.5, 0.0], [0.5, 1.0]]))
    assert adjusted(m, np.array([0.25, 0.75])) == pytest.approx([0.5, 0.5], abs=1e-6)
    # no shift: the shares the model learned come back
    probabilities = np.array([[0.8, 0.2], [0.4, 0.6], [0.3, 0.7]])
    assert em_shares(probabilities, probabilities.mean(axis=0)) == pytest.approx(probabilities.mean(axis=0))


def test_findings_for_another_corpus_per_group_with_bootstrap_progress():
    rng = np.random.default_rng(1)
    coded_labels, coded_probabilities = _texts(rng, LEARNED, 800)
    labels_x, corpus_x = _texts(rng, [0.2, 0.3, 0.5], 1500)
    labels_y, corpus_y = _texts(rng, [0.6, 0.2, 0.2], 1500)
    corpus = np.vstack([corpus_x, corpus_y])
    groups = ["x"] * 1500 + ["y"] * 1500
    events = []
    found = estimate_findings(corpus, CATS, CodedSample([CATS[i] for i in coded_labels], coded_probabilities),
                              OtherCorpus("acc"), groups=groups, bootstrap_replicates=60, on_event=events.append)
    assert found.method_key == "quantification-acc" and "wording did not change" in found.assumption
    assert found.groups == ("x", "y")
    (difference,) = [d for d in found.differences if d.category == "a"]
    assert difference.low <= 0.2 - 0.6 <= difference.high
    assert any(isinstance(e, Progress) and e.fraction == 1.0 for e in events)

    def cancel(event):
        raise Cancelled()

    with pytest.raises(Cancelled):
        estimate_findings(corpus, CATS, CodedSample([CATS[i] for i in coded_labels], coded_probabilities),
                          OtherCorpus(), bootstrap_replicates=60, on_event=cancel)


def test_bad_quantification_input():
    probabilities = np.full((10, 3), 1 / 3)
    coded = CodedSample(["a", "b"], probabilities[:2])
    with pytest.raises(DataError, match="no way to adjust"):
        quantify(probabilities, CATS, coded, method="magic")
    with pytest.raises(DataError, match="replicates"):
        quantify(probabilities, CATS, coded, bootstrap_replicates=5)
