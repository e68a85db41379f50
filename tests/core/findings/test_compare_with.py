"""The differences between groups compare each group with the group the researcher names, every pair
when asked, else the largest group — through both corpora's ``estimate`` (the table's own texts, a
study's predicted texts), their "drawn per group", "from elsewhere" and several-categories paths."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from guiapp.core.errors import DataError
from guiapp.core.findings import CodedSample, RandomSample
from guiapp.core.findings.from_study import StudyFindingsInputs
from guiapp.core.findings.from_table import TableFindingsInputs
from guiapp.core.findings.records import ALL_PAIRS

CATS = ("economy", "health", "other")
YEARS = [str(y) for y in range(2010, 2016)]  # six years, 2012 the largest


def _texts(seed: int, n: int):
    rng = np.random.default_rng(seed)
    year = rng.choice([int(y) for y in YEARS], size=n, p=[0.12, 0.12, 0.3, 0.12, 0.12, 0.22])
    truth = rng.choice(3, size=n, p=[0.3, 0.2, 0.5])
    probabilities = np.full((n, 3), 0.15)
    probabilities[np.arange(n), truth] = 0.7
    return year, truth, probabilities


def table_inputs(seed: int = 1, n: int = 900, n_coded: int = 300) -> TableFindingsInputs:
    year, truth, probabilities = _texts(seed, n)
    positions = np.random.default_rng(seed + 1).choice(n, n_coded, replace=False)
    coded = CodedSample([CATS[k] for k in truth[positions]], probabilities[positions], positions)
    return TableFindingsInputs(CATS, probabilities, pd.DataFrame({"year": year}), coded, RandomSample())


def study_inputs(seed: int = 2, n: int = 900, n_coded: int = 300, several: bool = False) -> StudyFindingsInputs:
    year, truth, probabilities = _texts(seed, n + n_coded)
    coded = CodedSample([CATS[k] for k in truth[n:]], probabilities[n:], None,
                        metadata=pd.DataFrame({"year": year[n:]}))
    coded_categories = np.eye(3, dtype=np.uint8)[truth[n:]] if several else None
    return StudyFindingsInputs("model", CATS, probabilities[:n], pd.DataFrame({"year": year[:n]}), coded,
                               coded_categories=coded_categories)


def _pairs(findings) -> set[tuple[str, str]]:
    return {(d.group, d.other) for d in findings.differences}


@pytest.mark.parametrize("options", [{}, {"stratified": True}])
def test_the_tables_texts_compared_with_a_named_group_or_every_pair(options):
    inputs = table_inputs()
    largest = inputs.estimate("year", **options)
    assert largest.comparison == "" and largest.largest() == "2012"
    assert _pairs(largest) == {(y, "2012") for y in YEARS if y != "2012"}
    assert "compared with the largest group, “2012”" in largest.comparison_words()

    named = inputs.estimate("year", reference="2015", **options)
    assert _pairs(named) == {(y, "2015") for y in YEARS if y != "2015"}
    assert len(named.differences) == 5 * len(CATS) and named.comparison == "2015"
    assert "compared with “2015”" in named.comparison_words() and "2015" in named.methods_paragraph()
    assert set(named.differences_frame()["compared with"]) == {"2015"}  # the Differences sheet

    every = inputs.estimate("year", all_pairs=True, **options)
    assert len(every.differences) == 15 * len(CATS) and every.comparison == ALL_PAIRS  # 6 × 5 / 2 pairs
    assert "every pair" in every.comparison_words()


def test_the_predicted_texts_compared_with_a_named_group_or_every_pair():
    inputs = study_inputs()
    named = inputs.estimate("year", reference="2011")
    assert _pairs(named) == {(y, "2011") for y in YEARS if y != "2011"}
    every = inputs.estimate("year", all_pairs=True)
    assert len(every.differences) == 15 * len(CATS)
    assert {d.other for d in inputs.estimate("year").differences} == {"2012"}


def test_from_elsewhere_and_several_categories_keep_the_comparison_asked_for():
    elsewhere = study_inputs().estimate("year", elsewhere=True, reference="2013")
    assert elsewhere.method_key.startswith("quantification") and {d.other for d in elsewhere.differences} == {"2013"}
    every = study_inputs().estimate("year", elsewhere=True, all_pairs=True)
    assert len(every.differences) == 15 * len(CATS) and every.comparison == ALL_PAIRS
    several = study_inputs(several=True).estimate("year", reference="2014")
    assert {d.other for d in several.differences} == {"2014"} and several.comparison == "2014"
    assert len(study_inputs(several=True).estimate("year", all_pairs=True).differences) == 15 * len(CATS)


@pytest.mark.parametrize("inputs", [table_inputs, study_inputs])
def test_a_group_that_is_not_one_says_which_groups_there_are(inputs):
    with pytest.raises(DataError) as raised:
        inputs().estimate("year", reference="1999")
    said = str(raised.value)
    assert "no group “1999”" in said and all(f"“{year}”" in said for year in YEARS)
    assert "Choose one of these groups" in said and "largest" in said
    with pytest.raises(DataError, match="no column of groups"):
        inputs().estimate(None, reference="2015")


def test_a_group_with_too_few_coded_texts_cannot_be_compared_with():
    inputs = table_inputs()
    corpus = inputs.corpus.copy()
    lonely = int(np.setdiff1d(np.arange(len(corpus)), inputs.coded.positions)[0])
    corpus.loc[lonely, "year"] = 1990  # one text, none coded
    thin = TableFindingsInputs(CATS, inputs.probabilities, corpus, inputs.coded, inputs.design)
    with pytest.raises(DataError, match="“1990” has fewer than two coded texts"):
        thin.estimate("year", reference="1990")
