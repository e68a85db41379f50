"""ERASER comprehensiveness and sufficiency on a model whose probabilities are known by hand."""

from __future__ import annotations

import pytest

from guiapp.core.explain.attribution import LINEAR_EXACT, OCCLUSION, Attribution
from guiapp.core.explain.faithfulness import faithfulness, faithfulness_of_documents, mean_faithfulness
from guiapp.core.explain.words import split_words
from tests.core.explain.conventional_samples import KeywordModel

TEXT = "A great and good bill."


def attribution(text: str, scores: dict[str, float], method: str = OCCLUSION) -> Attribution:
    words = split_words(text)
    return Attribution(model="keyword model", method=method, method_sentence="", target=1, target_name="yes",
                       words=words, scores=[scores.get(w.text, 0.0) for w in words], probability=0.9,
                       scale="probability")


def test_removing_or_keeping_the_top_words():
    model = KeywordModel()
    explained = attribution(TEXT, {"great": 0.7, "good": 0.2, "bill": -0.1})
    one = faithfulness(model, TEXT, explained, k=1)
    assert len(model.calls) == 1 and model.calls[0] == [TEXT, "A and good bill.", "great"]  # one batched call
    assert one.words == ["great"] and one.category == "yes" and one.k == 1
    assert (one.probability, one.without_top, one.only_top) == pytest.approx((0.9, 0.6, 0.9))
    assert one.comprehensiveness == pytest.approx(0.3) and one.sufficiency == pytest.approx(0.0)
    two = faithfulness(model, TEXT, explained, k=5)  # only words pushing toward the category count
    assert two.words == ["great", "good"]
    assert (two.without_top, two.only_top) == pytest.approx((0.2, 0.9))
    assert two.comprehensiveness == pytest.approx(0.7)
    assert "from 0.90 to 0.20" in two.sentence()


def test_a_wrong_explanation_scores_badly():
    wrong = attribution(TEXT, {"bill": 0.9, "A": 0.5})
    record = faithfulness(KeywordModel(), TEXT, wrong, k=2)
    assert record.comprehensiveness == pytest.approx(0.0)  # the model did not need these words
    assert record.sufficiency == pytest.approx(0.7)  # and they are not enough: 0.9 → 0.2


def test_many_documents_in_batches_and_their_means():
    model = KeywordModel()
    texts = [TEXT, "Good bill.", "A bill."] * 15
    explained = [attribution(t, {"great": 0.7, "good": 0.2, "Good": 0.2}) for t in texts]
    records = faithfulness_of_documents(model, texts, explained, k=1)
    assert len(model.calls) == 2 and len(model.calls[0]) == 3 * 32  # 32 documents per call
    assert records[:3] == [faithfulness(KeywordModel(), t, a, k=1) for t, a in zip(texts[:3], explained[:3],
                                                                                  strict=True)]
    linear = [attribution(TEXT, {"great": 0.7}, method=LINEAR_EXACT)]
    means = mean_faithfulness([*zip(explained, records, strict=True),
                               *zip(linear, faithfulness_of_documents(model, [TEXT], linear), strict=True)])
    assert [(m.method, m.n_documents, m.k) for m in means] == [(OCCLUSION, 45, 1), (LINEAR_EXACT, 1, 5)]
    # TEXT: 0.9 → 0.6; "Good bill.": 0.6 → 0.2; "A bill.": nothing to remove
    assert means[0].comprehensiveness == pytest.approx((0.3 + 0.4 + 0.0) / 3)
    assert means[0].sufficiency == pytest.approx((0.0 + 0.0 + 0.0) / 3)
