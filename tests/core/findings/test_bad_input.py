"""Bad input is a DataError that says what is wrong and what to do."""

from __future__ import annotations

import numpy as np
import pytest

from guiapp.core.errors import DataError
from guiapp.core.findings import (
    CodedSample,
    CodingStepDraws,
    KnownProbabilities,
    OtherCorpus,
    RandomSample,
    SeparateSample,
    Step,
    Stratified,
    estimate_findings,
)

CATS = ("a", "b")
CORPUS = np.column_stack([np.linspace(0.1, 0.9, 50), 1 - np.linspace(0.1, 0.9, 50)])


def coded(n: int = 10) -> CodedSample:
    return CodedSample(["a", "b"] * (n // 2), CORPUS[:n], list(range(n)))


def test_no_coded_texts():
    with pytest.raises(DataError, match="no coded texts") as error:
        estimate_findings(CORPUS, CATS, CodedSample([], np.zeros((0, 2)), []))
    assert "Code a random sample" in error.value.hint


def test_probabilities_must_sum_to_one():
    bad = CORPUS.copy()
    bad[3] = [0.5, 0.7]
    with pytest.raises(DataError, match="do not sum to one") as error:
        estimate_findings(bad, CATS, coded())
    assert "text 4 sums to 1.2000" in error.value.message
    with pytest.raises(DataError, match="missing or negative"):
        estimate_findings(np.where(CORPUS > 0.85, np.nan, CORPUS), CATS, coded())
    with pytest.raises(DataError, match="shape"):
        estimate_findings(CORPUS[:, :1], CATS, coded())


@pytest.mark.parametrize("pi", [0.0, -0.1, 1.5, float("nan")])
def test_coding_chances_outside_zero_one(pi):
    chances = [0.5] * 10
    chances[2] = pi
    with pytest.raises(DataError, match=r"outside \(0, 1\]"):
        estimate_findings(CORPUS, CATS, coded(), KnownProbabilities(chances))


def test_draw_probabilities_outside_zero_one():
    steps = tuple(Step(i, 0.1) for i in range(9)) + (Step(9, 0.0),)
    with pytest.raises(DataError, match=r"outside \(0, 1\]"):
        estimate_findings(CORPUS, CATS, coded(), CodingStepDraws((), steps))


def test_a_stratum_without_coded_texts():
    strata = ["x"] * 25 + ["y"] * 25
    with pytest.raises(DataError, match="No text was coded in the group y"):
        estimate_findings(CORPUS, CATS, coded(), Stratified(strata))


def test_coded_texts_the_design_does_not_account_for():
    with pytest.raises(DataError, match="neither coded in the file nor shown"):
        estimate_findings(CORPUS, CATS, coded(), CodingStepDraws((0, 1), (Step(2, 0.1),)))
    with pytest.raises(DataError, match="already coded"):
        estimate_findings(CORPUS, CATS, coded(), CodingStepDraws((0, 1), (Step(1, 0.1),)))


def test_unknown_categories_and_mismatched_rows():
    with pytest.raises(DataError, match="does not know: c"):
        estimate_findings(CORPUS, CATS, CodedSample(["a", "c"], CORPUS[:2], [0, 1]))
    with pytest.raises(DataError, match="cross-fitted probabilities for"):
        estimate_findings(CORPUS, CATS, CodedSample(["a", "b"], CORPUS[:3], [0, 1]))
    with pytest.raises(DataError, match="outside the corpus"):
        estimate_findings(CORPUS, CATS, CodedSample(["a", "b"], CORPUS[:2], [0, 50]))
    with pytest.raises(DataError, match="coded twice"):
        estimate_findings(CORPUS, CATS, CodedSample(["a", "b"], CORPUS[:2], [3, 3]))
    with pytest.raises(DataError, match="named twice"):
        estimate_findings(CORPUS, ("a", "a"), coded())


def test_design_and_coded_texts_must_agree_on_where_the_coded_texts_are():
    with pytest.raises(DataError, match="places in the corpus are not given"):
        estimate_findings(CORPUS, CATS, CodedSample(["a", "b"], CORPUS[:2]), RandomSample())
    with pytest.raises(DataError, match="design says they are not"):
        estimate_findings(CORPUS, CATS, coded(), SeparateSample())
    with pytest.raises(DataError, match="does not say how"):
        estimate_findings(CORPUS, CATS, coded(), "random")
    with pytest.raises(DataError, match="no way to adjust"):
        OtherCorpus("guess")


@pytest.mark.parametrize("level", [0.2, 1.0, "high"])
def test_level(level):
    with pytest.raises(DataError, match="level"):
        estimate_findings(CORPUS, CATS, coded(), level=level)


def test_one_coded_text_is_too_few():
    with pytest.raises(DataError, match="at least two coded texts"):
        estimate_findings(CORPUS, CATS, CodedSample(["a"], CORPUS[:1], [0]))
    with pytest.raises(DataError, match="group values"):
        estimate_findings(CORPUS, CATS, coded(), groups=["x"] * 10)
