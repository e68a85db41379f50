"""Cohen's kappa and Krippendorff's nominal alpha against scikit-learn, the krippendorff package and
Krippendorff's published example."""

from __future__ import annotations

import krippendorff
import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from guiapp.core.stats.agreement import (
    alpha_from_counts,
    cohen_kappa,
    krippendorff_alpha,
    value_counts,
)

nan = np.nan
# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C: 4 coders x 12 units,
# nominal alpha = 0.743
KRIPPENDORFF_2011 = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3],
    [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan],
]


def random_codings(seed: int, coders: int, units: int, categories: int, missing: float) -> np.ndarray:
    """Coders who mostly follow a unit's 'true' category, with gaps."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, categories, units)
    data = np.where(rng.random((coders, units)) < 0.7, truth, rng.integers(0, categories, (coders, units)))
    return np.where(rng.random((coders, units)) < missing, nan, data.astype(float))


def test_cohen_kappa_equals_scikit_learn() -> None:
    rng = np.random.default_rng(0)
    for categories in (2, 3, 6):
        a = rng.integers(0, categories, 300)
        b = np.where(rng.random(300) < 0.6, a, rng.integers(0, categories, 300))
        assert cohen_kappa(a, b) == pytest.approx(cohen_kappa_score(a, b))
    words = ["hate", "offensive", "neither"]
    a_words, b_words = [words[i] for i in a % 3], [words[i] for i in b % 3]
    assert cohen_kappa(a_words, b_words) == pytest.approx(cohen_kappa_score(a_words, b_words))


def test_cohen_kappa_edge_cases() -> None:
    assert cohen_kappa([1, 2, 3, 1], [1, 2, 3, 1]) == 1.0
    assert np.isnan(cohen_kappa([1, 1, 1], [1, 1, 1]))  # one category only: undefined
    with pytest.raises(ValueError, match="different numbers"):
        cohen_kappa([1, 2], [1])
    with pytest.raises(ValueError, match="Krippendorff"):
        cohen_kappa([1, None], [1, 2])


def test_alpha_reproduces_krippendorffs_published_example() -> None:
    assert krippendorff_alpha(KRIPPENDORFF_2011) == pytest.approx(0.743, abs=5e-4)
    assert krippendorff_alpha(KRIPPENDORFF_2011) == pytest.approx(
        krippendorff.alpha(KRIPPENDORFF_2011, level_of_measurement="nominal")
    )


@pytest.mark.parametrize(("seed", "coders", "units", "categories", "missing"), [
    (0, 2, 50, 2, 0.0), (1, 3, 200, 3, 0.2), (2, 5, 120, 4, 0.5), (3, 9, 80, 6, 0.7),
])
def test_alpha_equals_the_krippendorff_package_on_random_data_with_gaps(seed, coders, units, categories, missing):
    data = random_codings(seed, coders, units, categories, missing)
    expected = krippendorff.alpha(data, level_of_measurement="nominal")
    assert krippendorff_alpha(data) == pytest.approx(expected, rel=1e-10)


def test_alpha_takes_words_and_none_for_missing_codes() -> None:
    words = {1: "a", 2: "b", 3: "c", 4: "d", 5: "e"}
    as_words = [[None if v != v else words[int(v)] for v in row] for row in KRIPPENDORFF_2011]
    assert krippendorff_alpha(as_words) == pytest.approx(krippendorff_alpha(KRIPPENDORFF_2011))


def test_units_with_one_code_do_not_count_and_perfect_agreement_is_one() -> None:
    data = random_codings(4, 3, 60, 3, 0.1)
    lonely = np.full((3, 1), nan)
    lonely[0, 0] = 2
    assert krippendorff_alpha(np.hstack([data, lonely])) == pytest.approx(krippendorff_alpha(data))
    assert krippendorff_alpha([[1, 2, 3, 1], [1, 2, 3, nan]]) == 1.0
    assert np.isnan(krippendorff_alpha([[1, 1, 1], [1, 1, 1]]))


def test_counts_path_equals_the_coders_matrix_path() -> None:
    data = random_codings(5, 6, 150, 4, 0.3)
    counts, categories = value_counts(data)
    assert categories == [0.0, 1.0, 2.0, 3.0]
    assert counts.sum() == np.count_nonzero(~np.isnan(data))
    assert alpha_from_counts(counts) == pytest.approx(krippendorff_alpha(data))
    assert alpha_from_counts(counts) == pytest.approx(
        krippendorff.alpha(value_counts=counts, level_of_measurement="nominal")
    )


def test_counts_must_be_whole_numbers() -> None:
    with pytest.raises(ValueError, match="whole numbers"):
        alpha_from_counts([[1.5, 2], [0, 3]])
    with pytest.raises(ValueError, match="whole numbers"):
        alpha_from_counts([[-1, 2], [0, 3]])


DAVIDSON_COLUMNS = ["hate_speech", "offensive_language", "neither"]


def davidson_counts(shared_data) -> np.ndarray:
    import pandas as pd

    path = shared_data / "davidson2017_hate_offensive" / "labeled_data.csv"
    if not path.exists():
        pytest.skip("the Davidson et al. (2017) data are not in ../shared/data")
    return pd.read_csv(path, usecols=DAVIDSON_COLUMNS)[DAVIDSON_COLUMNS].to_numpy()


@pytest.mark.shared_data
def test_davidson_counts_give_the_same_alpha_as_the_coders_matrix(shared_data) -> None:
    counts = davidson_counts(shared_data)
    # one row per coder slot: unit u gets counts[u, c] codes c, then gaps up to the largest panel
    slots = counts.sum(axis=1).max()
    matrix = np.full((len(counts), slots), nan)
    for u, row in enumerate(counts):
        codes = np.repeat(np.arange(3), row)
        matrix[u, : len(codes)] = codes
    from_counts = alpha_from_counts(counts)
    assert from_counts == pytest.approx(alpha_from_counts(value_counts(matrix.T)[0]))
    assert from_counts == pytest.approx(krippendorff.alpha(value_counts=counts, level_of_measurement="nominal"))
    assert 0.3 < from_counts < 0.9
