"""The regression of a category on metadata columns: with perfect predictions it is statsmodels'
regression of the true categories; formulas, missing values and bad input."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
import statsmodels.formula.api as smf

from guiapp.core.errors import DataError
from guiapp.core.findings import (
    CodedSample,
    CodingStepDraws,
    OtherCorpus,
    RandomSample,
    SeparateSample,
    Step,
    formula_for,
    regress,
)

CATS = ("economy", "health", "other")


def _corpus(seed: int = 0, n: int = 1500):
    rng = np.random.default_rng(seed)
    data = pd.DataFrame({"party": rng.choice(["D", "R"], n), "year": rng.integers(2000, 2020, n),
                         "vote share": rng.random(n)})
    logit = -1.0 + 0.8 * (data["party"] == "R") + 0.05 * (data["year"] - 2010)
    economy = rng.random(n) < 1 / (1 + np.exp(-logit))
    labels = np.where(economy, "economy", rng.choice(["health", "other"], n))
    return data, labels


def _perfect(labels) -> np.ndarray:
    return np.array([[float(label == c) for c in CATS] for label in labels])


@pytest.mark.parametrize("kind", ["logistic", "linear"])
def test_perfect_predictions_give_statsmodels_on_the_true_labels(kind):
    data, labels = _corpus()
    probabilities = _perfect(labels)
    positions = np.random.default_rng(1).choice(len(labels), 200, replace=False)
    coded = CodedSample(labels[positions].tolist(), probabilities[positions], positions)
    result = regress("economy ~ party + year", data, probabilities, CATS, coded, RandomSample(), kind=kind)
    frame = data.assign(y=(labels == "economy").astype(float))
    model = smf.logit if kind == "logistic" else smf.ols
    reference = model("y ~ party + year", frame).fit(cov_type="HC0", disp=0) if kind == "logistic" else \
        model("y ~ party + year", frame).fit(cov_type="HC0")
    assert [c.term for c in result.coefficients] == list(reference.params.index)
    assert [c.estimate for c in result.coefficients] == pytest.approx(reference.params.to_numpy(), rel=1e-6)
    assert [c.standard_error for c in result.coefficients] == pytest.approx(reference.bse.to_numpy(), rel=1e-5)
    assert result.n_texts == len(labels) and result.n_coded == 200
    party = result.coefficient("party[T.R]")
    assert party.low < party.estimate < party.high and party.p_value < 0.001


def test_pseudo_outcomes_correct_a_biased_model():
    data, labels = _corpus(2, n=3000)
    rng = np.random.default_rng(3)
    truth = _perfect(labels)
    biased = 0.5 * truth + 0.5 * rng.dirichlet([1, 1, 1], size=len(labels))
    biased[:, 0] *= np.where(data["party"] == "R", 0.5, 1.0)  # the model misses economy among R
    biased /= biased.sum(axis=1, keepdims=True)
    positions = rng.choice(len(labels), 600, replace=False)
    coded = CodedSample(labels[positions].tolist(), biased[positions], positions)
    corrected = regress("economy ~ party", data, biased, CATS, coded, kind="linear").coefficient("party[T.R]")
    true_effect = sm.OLS((labels == "economy").astype(float),
                         sm.add_constant((data["party"] == "R").astype(float))).fit().params.iloc[1]
    naive_effect = sm.OLS(biased[:, 0], sm.add_constant((data["party"] == "R").astype(float))).fit().params.iloc[1]
    assert corrected.low <= true_effect <= corrected.high
    assert not corrected.low <= naive_effect <= corrected.high


def test_missing_metadata_rows_are_left_out_with_a_warning():
    data, labels = _corpus(4)
    data.loc[data.index[:50], "party"] = None
    probabilities = _perfect(labels)
    coded = CodedSample(labels[:300].tolist(), probabilities[:300], np.arange(300))
    result = regress("economy ~ party", data, probabilities, CATS, coded, kind="linear")
    assert result.n_texts == len(labels) - 50 and result.n_coded == 250
    assert any("50 texts are left out" in warning for warning in result.warnings)


def test_formula_for_quotes_names_and_reads_quoted_outcomes():
    assert formula_for("economy", ["party", "vote share"]) == "economy ~ party + Q('vote share')"
    data, labels = _corpus(5)
    probabilities = _perfect(labels)
    coded = CodedSample(labels[:300].tolist(), probabilities[:300], np.arange(300))
    result = regress('"economy" ~ `vote share`', data, probabilities, CATS, coded, kind="linear")
    assert [c.term for c in result.coefficients] == ["Intercept", "Q('vote share')"]
    frame = result.to_frame()
    assert list(frame.columns[:3]) == ["term", "estimate", "standard error"]
    logistic = regress(formula_for("economy", ["party"]), data, probabilities, CATS, coded).to_frame()
    assert "odds ratio" in logistic.columns


def test_sequential_design_regression_runs_with_its_weights():
    data, labels = _corpus(6, n=400)
    probabilities = _perfect(labels)
    steps = tuple(Step(i, 1 / (400 - i)) for i in range(60))
    coded = CodedSample(labels[:60].tolist(), probabilities[:60], np.arange(60))
    result = regress("economy ~ party", data, probabilities, CATS, coded, CodingStepDraws((), steps), kind="linear")
    assert result.n_coded == 60 and len(result.coefficients) == 2


def test_separate_sample_needs_the_coded_texts_columns():
    data, labels = _corpus(7)
    probabilities = _perfect(labels)
    coded = CodedSample(labels[:300].tolist(), probabilities[:300])
    with pytest.raises(DataError, match="metadata columns are not given"):
        regress("economy ~ party", data.iloc[300:], probabilities[300:], CATS, coded, SeparateSample())
    with_metadata = CodedSample(coded.labels, coded.probabilities, metadata=data.iloc[:300])
    result = regress("economy ~ party", data.iloc[300:], probabilities[300:], CATS, with_metadata, SeparateSample(),
                     kind="linear")
    assert result.n_coded == 300 and "prediction-powered" in result.method


@pytest.mark.parametrize(("formula", "message"), [
    ("party + year", "not a regression formula"),
    ("sport ~ party", "not one of the categories"),
    ("economy ~ ", "names no column"),
    ("economy ~ colour", "cannot be read"),
])
def test_bad_formulas_say_what_is_wrong(formula, message):
    data, labels = _corpus(8, n=300)
    probabilities = _perfect(labels)
    coded = CodedSample(labels[:100].tolist(), probabilities[:100], np.arange(100))
    with pytest.raises(DataError, match=message):
        regress(formula, data, probabilities, CATS, coded)


def test_other_corpus_has_no_regression():
    data, labels = _corpus(9, n=300)
    probabilities = _perfect(labels)
    with pytest.raises(DataError, match="only the shares"):
        regress("economy ~ party", data, probabilities, CATS, CodedSample(labels[:50].tolist(), probabilities[:50]),
                OtherCorpus())
