"""The agreement of a whole coding team against the krippendorff package, Krippendorff's published
example, statsmodels' Fleiss' kappa and scikit-learn's Cohen's kappa; and a simulated team of three
coders with known error rates, whose accuracy and alpha must come out as simulated."""

from __future__ import annotations

import json

import krippendorff
import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

from guiapp.core.errors import UserError
from guiapp.core.stats.agreement import krippendorff_alpha
from guiapp.core.stats.agreement_categories import category_agreement
from guiapp.core.stats.team_agreement import fleiss_kappa_of_counts, team_agreement, team_category_agreement
from guiapp.core.stats.team_table import team_table, team_table_from_records

nan = np.nan
# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C: 4 coders x 12 units,
# nominal alpha = 0.743
KRIPPENDORFF_2011 = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3],
    [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan],
]
CATEGORIES = ["economy", "health", "crime", "culture"]


def as_frame(reliability_data, coders=None) -> pd.DataFrame:
    """Coders × units (Krippendorff's layout) as the texts × coders table a team keeps."""
    data = np.asarray(reliability_data, dtype=float)
    return pd.DataFrame(data.T, columns=coders or [f"coder {i + 1}" for i in range(len(data))])


def random_team(seed: int, coders: int, units: int, categories: int, missing: float) -> np.ndarray:
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, categories, units)
    data = np.where(rng.random((coders, units)) < 0.7, truth, rng.integers(0, categories, (coders, units)))
    return np.where(rng.random((coders, units)) < missing, nan, data.astype(float))


def simulate_team(seed: int, n_texts: int, error_rates, n_categories: int = 4, share_coded: float = 0.8):
    """Known codings and coders who each code a random ``share_coded`` of the texts and, with their
    error rate, pick one of the other categories at random: accuracy against the truth is 1 - error."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, n_categories, n_texts)
    rows = [{} for _ in range(n_texts)]
    for number, error in enumerate(error_rates, start=1):
        wrong = rng.random(n_texts) < error
        shift = rng.integers(1, n_categories, n_texts)
        codes = np.where(wrong, (truth + shift) % n_categories, truth)
        for i in np.flatnonzero(rng.random(n_texts) < share_coded):
            rows[i][f"coder {number}"] = CATEGORIES[codes[i]]
    return rows, {i: CATEGORIES[t] for i, t in enumerate(truth)}


def test_alpha_with_gaps_is_krippendorffs_published_example_and_the_krippendorff_package() -> None:
    result = team_agreement(as_frame(KRIPPENDORFF_2011), samples=200)
    assert result.alpha == pytest.approx(0.743, abs=5e-4)
    assert result.n_texts == 12 and result.n_texts_compared == 11 and result.n_codings == 41
    assert result.alpha_interval[0] < result.alpha < result.alpha_interval[1]
    assert "1 text coded by one coder only is left out" in result.notes[0]
    for seed in range(4):
        data = random_team(seed, coders=5, units=80, categories=4, missing=0.35)
        expected = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
        assert team_agreement(as_frame(data), samples=10).alpha == pytest.approx(expected, abs=1e-12)


def test_the_shapes_a_team_keeps_its_codings_in_give_the_same_table() -> None:
    frame = as_frame(KRIPPENDORFF_2011, coders=["Ana", "Ben", "Cem", "Dora"])
    per_text = [{c: v for c, v in row.items() if v == v} for row in frame.to_dict("records")]
    records = [(unit, coder, value) for unit, row in enumerate(per_text) for coder, value in row.items()]
    team = ["Ana", "Ben", "Cem", "Dora"]
    tables = [team_table(frame), team_table(per_text, coders=team), team_table(dict(enumerate(per_text)), coders=team),
              team_table_from_records(records, coders=team)]
    assert all(t.codes == tables[0].codes and t.units == tables[0].units for t in tables)
    assert tables[0].coders == tuple(team)
    assert team_table(per_text).coders == ("Ana", "Ben", "Dora", "Cem")  # in the order they first appear
    assert team_agreement(tables[3], samples=10).alpha == pytest.approx(0.743, abs=5e-4)


def test_alpha_per_category_is_alpha_of_present_or_absent() -> None:
    data = random_team(7, coders=4, units=120, categories=3, missing=0.3)
    result = team_agreement(as_frame(data), samples=50)
    assert [c.category for c in result.per_category] == [0.0, 1.0, 2.0]
    for entry in result.per_category:
        present = np.where(np.isnan(data), nan, (data == entry.category).astype(float))
        expected = krippendorff.alpha(reliability_data=present, level_of_measurement="nominal")
        assert entry.alpha == pytest.approx(expected, abs=1e-12)
        assert entry.n_codings == int((data == entry.category).sum())
        assert entry.interval[0] <= entry.alpha <= entry.interval[1]


def test_fleiss_kappa_equals_statsmodels_on_fully_coded_texts() -> None:
    for seed, coders in ((0, 3), (1, 5)):
        data = random_team(seed, coders=coders, units=150, categories=4, missing=0.0).astype(int)
        expected = fleiss_kappa(aggregate_raters(data.T)[0], method="fleiss")
        result = team_agreement(as_frame(data), samples=200)
        assert result.fleiss.kappa == pytest.approx(expected, abs=1e-12)
        assert result.fleiss.n_texts == 150 and result.fleiss.n_left_out == 0
        assert result.fleiss.note == f"Fleiss' kappa uses the 150 texts coded by {coders} coders each."
        low, high = result.fleiss.interval
        assert low < expected < high and high - low < 0.2


def test_fleiss_kappa_uses_the_most_common_number_of_coders_and_says_which_texts_it_left_out() -> None:
    data = random_team(3, coders=3, units=60, categories=3, missing=0.0)
    data[2, :10] = nan  # ten texts coded by two coders
    data[1:, 10:12] = nan  # two texts coded by one coder
    result = team_agreement(as_frame(data), samples=50)
    kept = data[:, 12:].astype(int)
    assert result.fleiss.kappa == pytest.approx(fleiss_kappa(aggregate_raters(kept.T)[0]), abs=1e-12)
    assert (result.fleiss.coders_per_text, result.fleiss.n_texts, result.fleiss.n_left_out) == (3, 48, 12)
    assert result.fleiss.note == ("Fleiss' kappa uses the 48 texts coded by 3 coders each; it leaves out "
                                  "2 texts coded by one coder only, 10 texts coded by 2 coders, since it needs the same "
                                  "number of coders on every text (alpha uses every text coded by two coders or more).")
    with pytest.raises(ValueError, match="same number"):
        fleiss_kappa_of_counts([[2, 0], [1, 2]])


def test_pairwise_kappa_equals_scikit_learn_over_the_texts_both_coded() -> None:
    data = random_team(11, coders=4, units=200, categories=4, missing=0.4)
    result = team_agreement(as_frame(data), samples=100)
    assert len(result.pairs) == 6
    kappas, shared = result.kappa_matrix()
    for pair in result.pairs:
        i, j = int(pair.coder_a[-1]) - 1, int(pair.coder_b[-1]) - 1
        both = ~np.isnan(data[i]) & ~np.isnan(data[j])
        assert pair.n_shared == both.sum() == shared[i][j] == shared[j][i]
        assert pair.kappa == pytest.approx(cohen_kappa_score(data[i, both], data[j, both]), abs=1e-12)
        assert kappas[i][j] == kappas[j][i] == pair.kappa
        assert pair.share_agreeing == pytest.approx((data[i, both] == data[j, both]).mean())
        assert pair.interval[0] < pair.kappa < pair.interval[1]
    assert [shared[i][i] for i in range(4)] == result.texts_per_coder == list((~np.isnan(data)).sum(axis=1))
    assert all(np.isnan(kappas[i][i]) for i in range(4))


def test_each_coder_against_the_reference_and_the_disagreements_listed() -> None:
    per_text = [{"Ana": "a", "Ben": "a"}, {"Ana": "a", "Ben": "b", "Cem": "b"}, {"Ben": "b", "Cem": "b"},
                {"Ana": "b", "Cem": "a"}, {"Ana": "b", "Ben": "b", "Cem": "b"}, {"Cem": "a"}]
    reference = {0: "a", 1: "b", 3: "a", 4: "b", 5: "a"}  # text 2 not adjudicated
    result = team_agreement(per_text, pd.Series(reference), samples=100)
    assert [(d.unit, d.codes, d.reference) for d in result.disagreements] == [
        (1, {"Ana": "a", "Ben": "b", "Cem": "b"}, "b"), (3, {"Ana": "b", "Cem": "a"}, "a")]
    ana, ben, cem = result.against_reference
    assert (ana.coder, ana.n_texts, ana.accuracy) == ("Ana", 4, 0.5)
    assert ana.kappa == pytest.approx(cohen_kappa_score(["a", "a", "b", "b"], ["a", "b", "a", "b"]))
    assert (ben.n_texts, ben.accuracy, cem.n_texts, cem.accuracy) == (3, 1.0, 4, 1.0)
    assert ana.accuracy_interval[0] < 0.5 < ana.accuracy_interval[1]
    assert ben.accuracy_interval == (1.0, 1.0)
    kappas, shared = result.kappa_matrix()
    assert shared[0] == [4, 3, 3] and shared[1] == [3, 4, 3]
    one_shared = team_agreement([{"A": "a", "B": "b", "C": "a"}, {"A": "b", "C": "b"}, {"B": "a", "C": "b"}], samples=10)
    assert [(p.n_shared, p.share_agreeing) for p in one_shared.pairs] == [(1, 0.0), (2, 1.0), (2, 0.0)]
    assert np.isnan(one_shared.pairs[0].kappa) and all(np.isnan(one_shared.pairs[0].interval))


def test_alpha_per_codebook_version_uses_only_that_versions_codings() -> None:
    first = random_team(5, coders=3, units=100, categories=3, missing=0.2)
    second = np.where(np.isnan(first), nan, first[0])  # after the revision everyone agrees with coder 1
    data = np.concatenate([first, second], axis=1)
    labels = pd.DataFrame([["version 1"] * 3] * 100 + [["version 2"] * 3] * 100, columns=["coder 1", "coder 2", "coder 3"])
    result = team_agreement(as_frame(data), labels=labels, samples=100)
    one, two = result.by_label
    assert one.label == "version 1" and one.alpha == pytest.approx(krippendorff_alpha(first), abs=1e-12)
    assert two.label == "version 2" and two.alpha == pytest.approx(1.0)
    assert one.n_codings == int((~np.isnan(first)).sum())
    assert one.interval[1] < two.alpha
    records = [(u, c, v, "old" if u < 2 else "new") for u, c, v in
               [(0, "A", "x", ), (0, "B", "x"), (1, "A", "x"), (1, "B", "y"), (2, "A", "y"), (2, "B", "y"),
                (3, "A", "x"), (3, "B", "y"), (4, "A", "x"), (4, "B", "x")]]
    by_label = {g.label: g for g in team_agreement(team_table_from_records(records), samples=20).by_label}
    assert (by_label["old"].n_texts, by_label["new"].n_texts, by_label["new"].n_codings) == (2, 3, 6)


def test_too_few_coders_or_texts_and_wrong_codings_are_refused_in_words() -> None:
    with pytest.raises(UserError, match="at least two coders; this team's codings come from 1") as error:
        team_agreement([{"Ana": "a"}, {"Ana": "b"}])
    assert "second coder" in error.value.hint
    with pytest.raises(UserError, match="at least two texts coded by two coders or more; this team has 1"):
        team_agreement([{"Ana": "a", "Ben": "a"}, {"Ana": "b"}, {"Ben": "b"}])
    with pytest.raises(UserError, match="not in the codebook: hte"):
        team_agreement([{"Ana": "hate", "Ben": "hte"}] * 3, categories=["hate", "none"])
    with pytest.raises(UserError, match="Coder Ana coded text 1 more than once"):
        team_table_from_records([(1, "Ana", "a"), (1, "Ana", "b")])
    with pytest.raises(UserError, match="not in the team: Cem"):
        team_table([{"Ana": "a", "Cem": "b"}], coders=["Ana", "Ben"])
    with pytest.raises(UserError, match="reference coding names none of the coded texts"):
        team_agreement([{"Ana": "a", "Ben": "a"}, {"Ana": "b", "Ben": "b"}], reference={"0": "a", "1": "b"})
    with pytest.raises(UserError, match="1 codings have no label"):
        team_table([{"Ana": "a", "Ben": "b"}], labels={(0, "Ana"): "v1"})


def test_one_category_only_gives_no_coefficient_and_a_plain_results_file() -> None:
    result = team_agreement([{"Ana": "a", "Ben": "a"}] * 5, reference={0: "a", 1: "a"}, samples=20)
    assert np.isnan(result.alpha) and "one category" in result.notes[-1]
    as_json = json.loads(json.dumps(result.to_dict(), allow_nan=False))
    assert as_json["alpha"] is None and as_json["alpha_interval"] == [None, None]
    assert as_json["pairs"][0]["n_shared"] == 5 and as_json["disagreements"] == []


def simulation_table(results, error_rates) -> str:
    lines = ["coder    | simulated error | accuracy (95 % interval) | kappa vs truth (95 % interval)"]
    for entry, error in zip(results.against_reference, error_rates, strict=True):
        lines.append(f"{entry.coder} | {error:.0%} | {entry.accuracy:.3f} ({entry.accuracy_interval[0]:.3f} to "
                     f"{entry.accuracy_interval[1]:.3f}) | {entry.kappa:.3f} ({entry.kappa_interval[0]:.3f} to "
                     f"{entry.kappa_interval[1]:.3f})")
    return "\n".join(lines)


def test_a_simulated_team_comes_out_as_simulated_within_its_intervals() -> None:
    error_rates = (0.05, 0.15, 0.30)
    rows, truth = simulate_team(seed=40, n_texts=600, error_rates=error_rates)
    coders = ["coder 1", "coder 2", "coder 3"]
    result = team_agreement(rows, truth, coders=coders, samples=1000, seed=1)
    assert [entry.coder for entry in result.against_reference] == coders
    table = simulation_table(result, error_rates)
    for entry, error in zip(result.against_reference, error_rates, strict=True):
        low, high = entry.accuracy_interval
        assert low <= 1 - error <= high, table
        assert high - low < 0.1, table
    large_rows, _ = simulate_team(seed=41, n_texts=30_000, error_rates=error_rates)
    population_alpha = team_agreement(large_rows, samples=1).alpha
    low, high = result.alpha_interval
    assert low <= population_alpha <= high, f"alpha {result.alpha:.3f} ({low:.3f} to {high:.3f}); " \
                                            f"on 30,000 texts {population_alpha:.3f}\n{table}"
    ranked = [entry.accuracy for entry in result.against_reference]
    assert ranked == sorted(ranked, reverse=True), table
    assert len(result.disagreements) > 0 and result.fleiss.coders_per_text in (2, 3)


def test_several_categories_per_text_are_measured_per_category() -> None:
    rng = np.random.default_rng(9)
    truth = rng.random((150, 3)) < 0.4
    coders = [np.where(rng.random((150, 3)) < 0.15, ~truth, truth) for _ in range(3)]
    gaps = rng.random((3, 150)) < 0.3
    per_text = [{f"coder {j + 1}": {CATEGORIES[c] for c in np.flatnonzero(coders[j][i])}
                 for j in range(3) if not gaps[j, i]} for i in range(150)]
    result = team_category_agreement(per_text, categories=CATEGORIES[:3], samples=200)
    for c, entry in enumerate(result.per_category):
        data = np.where(gaps, nan, np.array([coders[j][:, c] for j in range(3)], dtype=float))
        assert entry.alpha == pytest.approx(krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"))
        assert entry.interval[0] < entry.alpha < entry.interval[1]
    assert result.mean_alpha == pytest.approx(np.mean([e.alpha for e in result.per_category]))
    assert result.mean_alpha_interval[0] < result.mean_alpha < result.mean_alpha_interval[1]
    two = team_category_agreement([{"A": {"x", "y"}, "B": {"x"}}, {"A": set(), "B": set()}, {"A": ["y"], "B": ("y",)}],
                                  categories=["x", "y", "z"], samples=50)
    assert [(d.unit, d.codes) for d in two.disagreements] == [(0, {"A": frozenset({"x", "y"}), "B": frozenset({"x"})})]
    assert two.to_dict()["disagreements"][0]["codes"] == {"A": ["x", "y"], "B": ["x"]}
    assert two.per_category[0].alpha == 1.0 and two.notes == ["No alpha for z: every coder put every text in it, or none did."]
    assert np.isnan(two.per_category[2].alpha) and two.mean_alpha == pytest.approx(np.mean([1.0, two.per_category[1].alpha]))
    with pytest.raises(UserError, match="some coders gave a text several categories"):
        team_agreement(per_text)


def test_two_coders_per_category_agree_with_the_two_coder_measure() -> None:
    rng = np.random.default_rng(2)
    a, b = rng.random((80, 4)) < 0.5, rng.random((80, 4)) < 0.5
    b = np.where(rng.random((80, 4)) < 0.7, a, b)
    per_text = [{"A": {c for c in range(4) if a[i, c]}, "B": {c for c in range(4) if b[i, c]}} for i in range(80)]
    result = team_category_agreement(per_text, categories=[0, 1, 2, 3], samples=300, seed=5)
    expected = category_agreement(a.astype(int), b.astype(int), samples=300, seed=5)
    assert [e.alpha for e in result.per_category] == pytest.approx(expected.alpha)
    assert result.mean_alpha == pytest.approx(expected.mean_alpha)
