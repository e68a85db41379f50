"""How well a whole team of coders agrees: two to many coders, each coding some of the texts,
nominal categories, and optionally a reference coding (the adjudicated one) to hold each coder
against.

:func:`team_agreement` takes the team's codings (any shape :mod:`team_table` reads: a texts ×
coders DataFrame with gaps, {coder: category} per text, or one record per coding) and gives:

- **Krippendorff's alpha** (nominal; :mod:`agreement`) over every text coded by two coders or
  more, missing codings allowed, and **per category**: each category as its own present/absent
  coding (did the coder put the text in this category or not).
- **Fleiss' kappa** (Fleiss 1971, "Measuring nominal scale agreement among many raters"; the same
  as statsmodels' ``fleiss_kappa``), which needs every text coded by the same number of coders:
  it uses the texts coded by the most common number of coders (two or more) and says in words which
  texts it left out.
- **Cohen's kappa for every pair of coders** over the texts both coded, with the number of such
  texts (:meth:`TeamAgreement.kappa_matrix` lays them out as a coders × coders table).
- **Each coder against the reference**: the share of texts where the coder chose the reference's
  category (accuracy) and Cohen's kappa, over the texts both coded.
- **The disagreements**: every text whose coders chose different categories, with each coder's
  category (and the reference's, if there is one).
- **Alpha per label** when each coding carries one (e.g. the codebook version it was made under):
  alpha over the codings with that label only, to show whether a revision helped.

Where a coder may give a text several categories (a set of them), :func:`team_category_agreement`
gives alpha of each category as present/absent and their mean over the categories where alpha is
defined (as :mod:`agreement_categories` does for two codings); :func:`team_agreement` refuses such
codings in words, since its coefficients compare one category per text.

Every coefficient has a percentile bootstrap interval over the texts (:mod:`agreement_intervals`;
whole texts drawn with replacement, seeded, so the same call gives the same intervals). Assumes
the texts are a random sample of those the coding is meant for, texts are independent and coders
work independently; categories are unordered. The result is a frozen dataclass whose
:meth:`TeamAgreement.to_dict` holds plain values only (None where a coefficient cannot be
computed), ready for a results file.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from itertools import combinations
from typing import Any

import numpy as np

from guiapp.core.errors import UserError
from guiapp.core.stats.agreement import alpha_from_counts, alpha_from_sums, cohen_kappa, sorted_categories, value_counts
from guiapp.core.stats.agreement_intervals import (
    bootstrap_alpha_from_counts,
    bootstrap_kappa,
    check_bootstrap,
    interval_of,
)
from guiapp.core.stats.bootstrap_draws import resample_weights
from guiapp.core.stats.team_table import TeamTable, plain, team_table

NO_INTERVAL = (float("nan"), float("nan"))


@dataclass(frozen=True)
class CategoryAlpha:
    """Alpha of one category coded as present/absent, and how many codings put texts in it."""

    category: Any
    alpha: float
    interval: tuple[float, float]
    n_codings: int


@dataclass(frozen=True)
class FleissKappa:
    """Fleiss' kappa over the ``n_texts`` texts coded by ``coders_per_text`` coders each."""

    kappa: float
    interval: tuple[float, float]
    coders_per_text: int
    n_texts: int
    n_left_out: int
    note: str


@dataclass(frozen=True)
class PairKappa:
    """Cohen's kappa between two coders over the ``n_shared`` texts both coded."""

    coder_a: Any
    coder_b: Any
    n_shared: int
    share_agreeing: float
    kappa: float
    interval: tuple[float, float]


@dataclass(frozen=True)
class CoderVersusReference:
    """One coder against the reference coding over the ``n_texts`` texts both coded."""

    coder: Any
    n_texts: int
    accuracy: float
    accuracy_interval: tuple[float, float]
    kappa: float
    kappa_interval: tuple[float, float]


@dataclass(frozen=True)
class Disagreement:
    """A text whose coders chose different categories: coder → category, and the reference's."""

    unit: Any
    codes: dict
    reference: Any = None


@dataclass(frozen=True)
class LabelAlpha:
    """Alpha over the codings that carry one label (e.g. one codebook version)."""

    label: Any
    n_texts: int
    n_codings: int
    alpha: float
    interval: tuple[float, float]


@dataclass(frozen=True)
class TeamAgreement:
    """The agreement of a team of coders; see the module's docstring for each part."""

    coders: list
    categories: list
    n_texts: int
    n_texts_compared: int
    n_codings: int
    texts_per_coder: list[int]  # in the order of ``coders``
    alpha: float
    alpha_interval: tuple[float, float]
    per_category: list[CategoryAlpha]
    fleiss: FleissKappa | None
    pairs: list[PairKappa]
    against_reference: list[CoderVersusReference]
    disagreements: list[Disagreement]
    by_label: list[LabelAlpha]
    notes: list[str] = field(default_factory=list)
    level: float = 0.95
    samples: int = 1000

    def kappa_matrix(self) -> tuple[list[list[float]], list[list[int]]]:
        """Coders × coders: Cohen's kappa of each pair (NaN on the diagonal and where two coders
        share fewer than two texts) and the number of texts each pair shares (a coder's own
        number of texts on the diagonal)."""
        index = {c: i for i, c in enumerate(self.coders)}
        size = len(self.coders)
        kappas = [[float("nan")] * size for _ in range(size)]
        shared = [[0] * size for _ in range(size)]
        for pair in self.pairs:
            i, j = index[pair.coder_a], index[pair.coder_b]
            kappas[i][j] = kappas[j][i] = pair.kappa
            shared[i][j] = shared[j][i] = pair.n_shared
        for i, count in enumerate(self.texts_per_coder):
            shared[i][i] = count
        return kappas, shared

    def to_dict(self) -> dict[str, Any]:
        """Plain values for a results file: lists for tuples, None for NaN."""
        return _plain_json(asdict(self))


def _plain_json(value: Any) -> Any:
    """``value`` (from ``asdict``) with lists for tuples and sets, Python scalars, None for NaN."""
    if isinstance(value, dict):
        return {_plain_json(k) if not isinstance(k, (str, int)) else k: _plain_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain_json(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return [_plain_json(v) for v in sorted_categories(value)]
    value = plain(value)
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _counts_of(table: TeamTable, categories: list) -> np.ndarray:
    counts, _ = value_counts(table.reliability_data(), categories)
    return counts


def _alpha_with_interval(counts: np.ndarray, samples: int, seed: int, level: float) -> tuple[float, tuple]:
    alpha = alpha_from_counts(counts)
    pairable = counts.sum(axis=1) >= 2
    if not math.isfinite(alpha) or pairable.sum() < 2:
        return alpha, NO_INTERVAL
    return alpha, bootstrap_alpha_from_counts(counts[pairable], samples, seed, level)


def _is_several(value: Any) -> bool:
    return isinstance(value, (set, frozenset, list, tuple))


def _as_set(value: Any) -> frozenset:
    """A coding as the set of categories it gives the text (one category: a set of one)."""
    return frozenset(value) if _is_several(value) else frozenset([value])


def _finite_mean(values: np.ndarray) -> np.ndarray:
    """The mean over the last axis of the defined (finite) values; NaN where none is."""
    finite = np.isfinite(values)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(finite.any(axis=-1), np.where(finite, values, 0.0).sum(axis=-1) / finite.sum(axis=-1), np.nan)


def _category_alphas(present: np.ndarray, coded: np.ndarray, categories: list, samples: int, seed: int,
                     level: float) -> tuple[list[CategoryAlpha], float, tuple[float, float]]:
    """Alpha of each category as present/absent, from how many coders put each text in each category
    (``present``, texts × categories) out of how many coded it (``coded``), and the mean over the
    categories where alpha is defined; one set of resamples over the texts gives every interval."""
    pairable = coded >= 2
    yes, m = present[pairable].astype(float), coded[pairable].astype(float)
    k = len(categories)
    values = np.stack([m[:, None] - yes, yes], axis=-1)  # texts × categories × (absent, present)
    diagonal = (values * (values - 1)).sum(axis=-1) / np.maximum(m - 1, 1)[:, None]
    alphas = np.asarray(alpha_from_sums(values.sum(axis=0), diagonal.sum(axis=0)), dtype=float).reshape(k)
    intervals, mean_interval = [NO_INTERVAL] * k, NO_INTERVAL
    if len(m) >= 2 and k:
        check_bootstrap(samples, level, len(m))
        columns = np.concatenate([values.reshape(len(m), 2 * k), diagonal], axis=1)
        resampled = np.empty((samples, k))
        for start, stop, weights in resample_weights(np.random.default_rng(seed), len(m), samples):
            sums = weights @ columns
            resampled[start:stop] = alpha_from_sums(sums[:, : 2 * k].reshape(-1, k, 2), sums[:, 2 * k:])
        intervals = [interval_of(resampled[:, c], level) if math.isfinite(alphas[c]) else NO_INTERVAL
                     for c in range(k)]
        mean_interval = interval_of(_finite_mean(resampled), level)
    per_category = [CategoryAlpha(category, float(alphas[c]), intervals[c], int(present[:, c].sum()))
                    for c, category in enumerate(categories)]
    return per_category, float(_finite_mean(alphas)), mean_interval


def _check_categories(table: TeamTable, reference: dict, categories: list | None) -> list:
    found = sorted_categories([c for row in table.codes for v in row if v is not None for c in _as_set(v)]
                              + list(reference.values()))
    if categories is None:
        return found
    categories = [plain(c) for c in categories]
    unknown = [v for v in found if v not in categories]
    if unknown:
        shown = ", ".join(str(v) for v in unknown[:5])
        raise UserError(f"Some codings use categories that are not in the codebook: {shown}.",
                        "Correct these codings or add the categories to the codebook.")
    return categories


def fleiss_kappa_of_counts(counts: np.ndarray, samples: int = 1000, seed: int = 0,
                           level: float = 0.95) -> tuple[float, tuple[float, float]]:
    """Fleiss' kappa of per-text counts (texts × categories) that all sum to the same number of
    coders m ≥ 2, with its bootstrap interval over the texts: P_u = (Σ_c n_uc² - m) / (m (m - 1)),
    p_c = Σ_u n_uc / (N m), κ = (mean P_u - Σ_c p_c²) / (1 - Σ_c p_c²). NaN when all codings
    fall in one category."""
    counts = np.asarray(counts, dtype=float)
    m = counts.sum(axis=1)
    if len(counts) == 0 or (m != m[0]).any() or m[0] < 2:
        raise ValueError("Fleiss' kappa needs texts that were all coded by the same number (two or more) of coders.")
    m = float(m[0])
    per_text = np.column_stack([((counts**2).sum(axis=1) - m) / (m * (m - 1)), counts])

    def kappa(sums: np.ndarray, n: np.ndarray) -> np.ndarray:
        observed = sums[..., 0] / n
        shares = sums[..., 1:] / (n[..., None] * m)
        expected = (shares**2).sum(axis=-1)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(expected < 1, (observed - expected) / (1 - expected), np.nan)

    value = float(kappa(per_text.sum(axis=0), np.asarray(float(len(counts)))))
    if len(counts) < 2 or not math.isfinite(value):
        return value, NO_INTERVAL
    check_bootstrap(samples, level, len(counts))
    kappas = np.empty(samples)
    rng = np.random.default_rng(seed)
    for start, stop, weights in resample_weights(rng, len(counts), samples):
        kappas[start:stop] = kappa(weights @ per_text, weights.sum(axis=1))
    return value, interval_of(kappas, level)


def _fleiss(counts: np.ndarray, samples: int, seed: int, level: float) -> FleissKappa | None:
    m = counts.sum(axis=1).astype(int)
    sizes, how_many = np.unique(m[m >= 2], return_counts=True)
    if len(sizes) == 0:
        return None
    chosen = int(sizes[how_many == how_many.max()].max())  # the most common number of coders; the larger on a tie
    kept = m == chosen
    kappa, interval = fleiss_kappa_of_counts(counts[kept], samples, seed, level)
    left = [f"{_texts(n)} coded by {_coders(size)}" for size, n in
            zip(*np.unique(m[~kept & (m > 0)], return_counts=True), strict=True)]
    note = f"Fleiss' kappa uses the {_texts(int(kept.sum()))} coded by {chosen} coders each"
    note += (f"; it leaves out {', '.join(left)}, since it needs the same number of coders on every text "
             "(alpha uses every text coded by two coders or more)." if left else ".")
    return FleissKappa(kappa, interval, chosen, int(kept.sum()), int((~kept & (m > 0)).sum()), note)


def _texts(n: int) -> str:
    return f"{n:,} text" if n == 1 else f"{n:,} texts"


def _coders(n: int) -> str:
    return "one coder only" if n == 1 else f"{n} coders"


def _share_interval(agree: np.ndarray, samples: int, seed: int, level: float) -> tuple[float, float]:
    if len(agree) < 2:
        return NO_INTERVAL
    check_bootstrap(samples, level, len(agree))
    shares = np.empty(samples)
    for start, stop, weights in resample_weights(np.random.default_rng(seed), len(agree), samples):
        shares[start:stop] = weights @ agree / len(agree)
    return interval_of(shares, level)


def _kappa_with_interval(a: list, b: list, samples: int, seed: int, level: float) -> tuple[float, tuple]:
    if len(a) < 2:  # one shared text says nothing about agreement beyond chance
        return float("nan"), NO_INTERVAL
    kappa = cohen_kappa(a, b)
    return kappa, (bootstrap_kappa(a, b, samples, seed, level) if math.isfinite(kappa) else NO_INTERVAL)


def _pairs(table: TeamTable, samples: int, seed: int, level: float) -> list[PairKappa]:
    pairs = []
    for i, j in combinations(range(len(table.coders)), 2):
        both = [(row[i], row[j]) for row in table.codes if row[i] is not None and row[j] is not None]
        a, b = [x for x, _ in both], [y for _, y in both]
        kappa, interval = _kappa_with_interval(a, b, samples, seed, level)
        share = float(np.mean([x == y for x, y in both])) if both else float("nan")
        pairs.append(PairKappa(table.coders[i], table.coders[j], len(both), share, kappa, interval))
    return pairs


def _against_reference(table: TeamTable, reference: dict, samples: int, seed: int,
                       level: float) -> list[CoderVersusReference]:
    results = []
    for j, coder in enumerate(table.coders):
        both = [(row[j], reference[u]) for u, row in zip(table.units, table.codes, strict=True)
                if row[j] is not None and u in reference]
        a, b = [x for x, _ in both], [y for _, y in both]
        agree = np.array([x == y for x, y in both], dtype=float)
        accuracy = float(agree.mean()) if both else float("nan")
        kappa, kappa_interval = _kappa_with_interval(a, b, samples, seed, level)
        results.append(CoderVersusReference(coder, len(both), accuracy, _share_interval(agree, samples, seed, level),
                                            kappa, kappa_interval))
    return results


def _disagreements(table: TeamTable, reference: dict) -> list[Disagreement]:
    found = []
    for index, unit in enumerate(table.units):
        codes = table.coded(index)
        if len(set(codes.values())) > 1:
            found.append(Disagreement(unit, codes, reference.get(unit)))
    return found


def _by_label(table: TeamTable, categories: list, samples: int, seed: int, level: float) -> list[LabelAlpha]:
    if table.labels is None:
        return []
    labels = sorted_categories([v for row in table.labels for v in row if v is not None])
    results = []
    for label in labels:
        codes = tuple(tuple(code if lab == label else None for code, lab in zip(row, lab_row, strict=True))
                      for row, lab_row in zip(table.codes, table.labels, strict=True))
        counts = _counts_of(TeamTable(table.units, table.coders, codes), categories)
        m = counts.sum(axis=1)
        alpha, interval = _alpha_with_interval(counts, samples, seed, level)
        results.append(LabelAlpha(label, int((m >= 2).sum()), int(m.sum()), alpha, interval))
    return results


def team_agreement(codings: Any, reference: Any = None, *, labels: Any = None, categories: list | None = None,
                   coders: list | None = None, samples: int = 1000, seed: int = 0,
                   level: float = 0.95) -> TeamAgreement:
    """The team's agreement (see the module's docstring). ``codings``: a :class:`TeamTable` or
    any shape :func:`team_table.team_table` reads; ``reference``: text → category (a dict or a
    pandas Series), e.g. the adjudicated coding; ``labels``: one label per coding (see
    :mod:`team_table`); ``categories``: the codebook's categories in its order (by default those
    used, sorted); ``coders``: the team in its order."""
    table = codings if isinstance(codings, TeamTable) else team_table(codings, labels, coders)
    reference = {} if reference is None else {plain(u): plain(v) for u, v in dict(reference).items()}
    reference = {u: v for u, v in reference.items() if v is not None}
    if reference and not set(reference) & set(table.units):
        raise UserError("The reference coding names none of the coded texts.",
                        "Check that the reference coding and the team's codings use the same keys for the texts.")
    if len(table.coders) < 2:
        raise UserError("Agreement needs at least two coders; this team's codings come from "
                        f"{len(table.coders)}.", "Let a second coder code some of the same texts.")
    if any(_is_several(v) for row in table.codes for v in row):
        raise UserError("Alpha, Fleiss' kappa and the coders' kappas compare one category per text, but some "
                        "coders gave a text several categories.",
                        "Where a text can have several categories, measure agreement per category: each "
                        "category as its own yes/no question.")
    categories = _check_categories(table, reference, categories)
    counts = _counts_of(table, categories)
    m = counts.sum(axis=1)
    compared = int((m >= 2).sum())
    if compared < 2:
        raise UserError(f"Agreement needs at least two texts coded by two coders or more; this team has {compared}.",
                        "Let more than one coder code the same texts (the overlap of the assignment).")
    notes = []
    if (m == 1).any():
        single = int((m == 1).sum())
        notes.append(f"{_texts(single)} coded by one coder only {'is' if single == 1 else 'are'} left out of "
                     "alpha and the kappas between coders: one coding alone says nothing about agreement.")
    alpha, alpha_interval = _alpha_with_interval(counts, samples, seed, level)
    if not math.isfinite(alpha):
        notes.append("Every coding is in one category, so agreement beyond chance cannot be computed.")
    per_category, _, _ = _category_alphas(counts, m, categories, samples, seed, level)
    return TeamAgreement(
        coders=list(table.coders), categories=categories, n_texts=int((m > 0).sum()), n_texts_compared=compared,
        n_codings=int(m.sum()), texts_per_coder=[sum(row[j] is not None for row in table.codes)
                                                 for j in range(len(table.coders))],
        alpha=alpha, alpha_interval=alpha_interval, per_category=per_category,
        fleiss=_fleiss(counts, samples, seed, level), pairs=_pairs(table, samples, seed, level),
        against_reference=_against_reference(table, reference, samples, seed, level) if reference else [],
        disagreements=_disagreements(table, reference), by_label=_by_label(table, categories, samples, seed, level),
        notes=notes, level=level, samples=samples,
    )


@dataclass(frozen=True)
class TeamCategoryAgreement:
    """The agreement of a team whose coders may give a text several categories: alpha of each
    category as present/absent and their mean over the categories where it is defined."""

    coders: list
    categories: list
    n_texts: int
    n_texts_compared: int
    n_codings: int
    per_category: list[CategoryAlpha]
    mean_alpha: float
    mean_alpha_interval: tuple[float, float]
    disagreements: list[Disagreement]
    notes: list[str] = field(default_factory=list)
    level: float = 0.95
    samples: int = 1000

    def to_dict(self) -> dict[str, Any]:
        """Plain values for a results file: lists for tuples and sets, None for NaN."""
        return _plain_json(asdict(self))


def team_category_agreement(codings: Any, *, categories: list | None = None, coders: list | None = None,
                            samples: int = 1000, seed: int = 0, level: float = 0.95) -> TeamCategoryAgreement:
    """Agreement per category for a team whose codings are sets (or lists) of categories, one per
    coder and text (a single category counts as a set of one); a text coded with no category by a
    coder is an empty set, which says "none of them" (a gap is None). Texts coded by fewer than two
    coders are left out; a disagreement is a text whose coders gave different sets."""
    table = codings if isinstance(codings, TeamTable) else team_table(codings, coders=coders)
    if len(table.coders) < 2:
        raise UserError("Agreement needs at least two coders; this team's codings come from "
                        f"{len(table.coders)}.", "Let a second coder code some of the same texts.")
    categories = _check_categories(table, {}, categories)
    index = {c: i for i, c in enumerate(categories)}
    present = np.zeros((len(table.units), len(categories)))
    coded = np.array([sum(v is not None for v in row) for row in table.codes], dtype=float)
    for u, row in enumerate(table.codes):
        for code in row:
            for category in _as_set(code) if code is not None else ():
                present[u, index[category]] += 1
    compared = int((coded >= 2).sum())
    if compared < 2:
        raise UserError(f"Agreement needs at least two texts coded by two coders or more; this team has {compared}.",
                        "Let more than one coder code the same texts (the overlap of the assignment).")
    per_category, mean, mean_interval = _category_alphas(present, coded, categories, samples, seed, level)
    notes = [f"No alpha for {c.category}: every coder put every text in it, or none did." for c in per_category
             if not math.isfinite(c.alpha)]
    disagreements = []
    for u, unit in enumerate(table.units):
        given = {coder: _as_set(v) for coder, v in table.coded(u).items()}
        if len(set(given.values())) > 1:
            disagreements.append(Disagreement(unit, given))
    return TeamCategoryAgreement(
        coders=list(table.coders), categories=categories, n_texts=int((coded > 0).sum()), n_texts_compared=compared,
        n_codings=int(coded.sum()), per_category=per_category, mean_alpha=mean, mean_alpha_interval=mean_interval,
        disagreements=disagreements, notes=notes, level=level, samples=samples,
    )
