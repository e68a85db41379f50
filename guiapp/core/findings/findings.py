"""The one entry point: the share of each category in the corpus and per group, with intervals that
carry the model's mistakes, the differences between groups, the naive count and the coded texts
alone beside them — the estimator chosen by how the coded texts were chosen (the design).

=========================  ===================================================================
design                     estimator
=========================  ===================================================================
RandomSample               prediction-powered inference (PPI++, power-tuned) for the corpus
Stratified                 design-based supervised learning (DSL), stratified weights
KnownProbabilities         DSL with weights 1/π
CodingStepDraws            design-based estimate for sequential draws (``sequential.py``)
SeparateSample             PPI++ for an i.i.d. sample outside the corpus (``ppi_iid.py``)
OtherCorpus                prior-shift quantification (``quantification.py``)
=========================  ===================================================================
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np
from scipy.stats import norm

from guiapp.core.errors import DataError
from guiapp.core.events import EventCallback, ignore_events
from guiapp.core.findings import ppi_iid
from guiapp.core.findings.design_weights import weighting_for
from guiapp.core.findings.designs import (
    CodingStepDraws,
    KnownProbabilities,
    OtherCorpus,
    RandomSample,
    SeparateSample,
    Stratified,
    check_design,
)
from guiapp.core.findings.group_floor import (
    design_factor,
    design_factors,
    floor_variance,
    model_moments,
    moderation,
    pooled_ratio,
    variance_weights,
)
from guiapp.core.findings.inputs import (
    Checked,
    CodedSample,
    check_inputs,
    check_level,
    group_labels,
)
from guiapp.core.findings.naive import filled_in, wilson
from guiapp.core.findings.records import (
    Difference,
    Findings,
    NoSuchGroup,
    Share,
    comparison_of,
    group_pairs,
    sum_note,
)
from guiapp.core.findings.shares import (
    Estimate,
    difference_variance,
    in_group,
    quantile,
    score_interval,
    whole_corpus,
)

MIN_CODED = 30  # fewer coded texts in a group: its interval is rough (a warning)
MIN_OF_CATEGORY = 5  # fewer coded texts of a category in a group: its interval leans on the other groups
LOW_POWER = 0.5  # a tuned λ below this is worth a sentence


def estimate_findings(probabilities: np.ndarray, categories: Sequence[str], coded: CodedSample,
                      design: object = RandomSample(), *, groups: Sequence | None = None,
                      group_name: str | None = None, level: float = 0.95, power_tuning: bool = True,
                      min_coded: int = MIN_CODED, reference: object | None = None, all_pairs: bool = False,
                      bootstrap_replicates: int = 500, seed: int = 0,
                      on_event: EventCallback = ignore_events) -> Findings:
    """The findings for the corpus whose texts have ``probabilities`` (N × K, columns in
    ``categories`` order), from the ``coded`` texts chosen as ``design`` says. ``groups``: one value
    per corpus text (a metadata column) for shares per group and differences between groups —
    against ``reference`` when given, else against the largest group (every pair with ``all_pairs``). ``power_tuning``: PPI++'s λ (False: λ = 1, plain DSL/PPI)."""
    level = check_level(level)
    check_design(design, coded.in_corpus)
    check_comparison(groups, reference)
    if isinstance(design, OtherCorpus):
        from guiapp.core.findings.quantified_findings import quantified_findings

        return quantified_findings(probabilities, categories, coded, design, groups=groups, group_name=group_name,
                                   level=level, min_coded=min_coded, reference=reference, all_pairs=all_pairs,
                                   replicates=bootstrap_replicates, seed=seed, on_event=on_event)
    checked = check_inputs(probabilities, categories, coded)
    estimator: _Estimator = (_Iid(checked, power_tuning, coded.groups) if isinstance(design, SeparateSample)
                             else _Designed(checked, design, power_tuning))
    hard, soft = filled_in(checked.f_model, checked.y, checked.positions)
    warnings = list(estimator.warnings)
    overall = estimator.overall()
    if power_tuning and overall.power < LOW_POWER:
        warnings.append(f"The model's predictions add little here (power λ = {overall.power:.2f}): the shares "
                        "rest mostly on the coded texts.")
    corpus_warning = _few_warning(overall.n_coded, min_coded, None)
    if corpus_warning:
        warnings.append(corpus_warning)
    everything = np.ones(checked.n_texts, dtype=bool)
    shares = _shares(None, checked.categories, overall, estimator.coded_only(None), hard, soft, everything,
                     level, corpus_warning, None)
    differences: list[Difference] = []
    names: tuple[str, ...] = ()
    if groups is not None:
        members, names = estimator.groups(groups)
        ratio, factors = estimator.pooled_floor(members, overall.power)
        estimates = {}
        too_few = []
        for g, name in enumerate(names):
            estimate = estimator.group(members, g, overall.power)
            if estimate.n_coded < 2:
                too_few.append(f"“{name}” ({estimate.n_coded})")
            else:
                estimate = replace(estimate, spread=ratio * factors[g])
            estimates[name] = estimate
        _moderate(estimator, members, names, estimates)
        if len(too_few) == len(names):
            raise DataError("Every group has fewer than two coded texts, so no group's share can be given an "
                            "interval.", "Code at least two texts of each group (30 or more for a useful interval), "
                            "or choose a column with fewer values.")
        if too_few:
            warnings.append(f"{len(too_few)} group{'s have' if len(too_few) > 1 else ' has'} fewer than two coded "
                            "texts and get no share of their own: " + ", ".join(too_few[:8])
                            + (" …" if len(too_few) > 8 else "") + ". Code a few of their texts to see them.")
        thin: list[tuple[str, str, int]] = []
        for g, name in enumerate(names):
            if estimates[name].n_coded < 2:
                continue
            warning = _few_warning(estimates[name].n_coded, min_coded, name)
            if warning:
                warnings.append(warning)
            of_text = members.of_text == g
            alone = estimator.coded_only((members, g))
            alone = replace(alone, spread=np.ones(len(checked.categories)) * estimator.factor(alone, members, g))
            of_category = estimator.coded_counts(members, g)
            thin.extend((name, checked.categories[k], int(of_category[k]))
                        for k in np.flatnonzero(of_category < MIN_OF_CATEGORY))
            shares.extend(_shares(name, checked.categories, estimates[name], alone, hard, soft, of_text, level,
                                  warning, of_category))
        if thin:
            warnings.append(_thin_warning(thin, len(checked.categories) * sum(
                1 for name in names if estimates[name].n_coded >= 2)))
        index = {name: g for g, name in enumerate(names)}
        names = tuple(name for name in names if estimates[name].n_coded >= 2)
        if reference is not None and str(reference) in index and str(reference) not in names:
            raise NoSuchGroup(f"The group “{reference}” has fewer than two coded texts, so it has no share to compare "
                              "the other groups with.",
                              "Choose another group to compare with (or the largest), or code a few texts of "
                              f"“{reference}”.")
        differences = _differences(estimator, names, index, estimates, members, hard, checked.categories, level,
                                   reference, all_pairs)
    note = sum_note(shares, several=False)
    if note:
        warnings.append(note)
    return Findings(checked.categories, tuple(shares), tuple(differences), estimator.method, estimator.key,
                    design.assumption, level, checked.n_texts, checked.n_coded,  # type: ignore[attr-defined]
                    group_name, names, overall.power if estimator.tuned else None, tuple(warnings),
                    comparison_of(reference, all_pairs) if differences else "")


def _moderate(estimator: _Estimator, members: _Members, names: tuple[str, ...], estimates: dict) -> None:
    """Each group's own degrees of freedom per category and the floor's prior degrees of freedom, fitted
    over every group and category (``group_floor.py``), set on the estimates in place."""
    floored = [(g, name) for g, name in enumerate(names) if estimates[name].spread is not None]
    if not floored:
        return
    found = [estimates[name] for _, name in floored]
    degrees, prior = moderation([estimator.group_residuals(e, members, g) for (g, _), e in zip(floored, found)],
                                np.array([min(e.effective_n, e.n_coded) for e in found]),
                                np.array([estimator.coded_counts(members, g) for g, _ in floored]),
                                np.array([e.own_variance for e in found]),
                                np.array([floor_variance(e.shares, e.spread) for e in found]))
    for (_, name), df in zip(floored, degrees):
        estimates[name] = replace(estimates[name], own_df=df, prior_df=prior)


def check_comparison(groups: Sequence | None, reference: object | None) -> None:
    """A group to compare with needs groups."""
    if groups is None and reference is not None and str(reference) != "":
        raise DataError(f"There are no groups to compare with “{reference}”: no column of groups is chosen.",
                        "Choose the column whose groups to compare (per group, --by), or leave out the group "
                        "to compare with.")


# ---------------------------------------------------------------------- estimators
class _Members:
    """Group index of each corpus text and of each coded text."""

    def __init__(self, of_text: np.ndarray, of_coded: np.ndarray) -> None:
        self.of_text, self.of_coded = of_text, of_coded
        self.variance_weights: np.ndarray | None = None  # see _Designed._variance_weights


class _Estimator:
    method = ""
    key = ""
    tuned = False
    warnings: list[str]

    def overall(self) -> Estimate: ...
    def coded_only(self, where: tuple[_Members, int] | None) -> Estimate: ...
    def groups(self, values: Sequence) -> tuple[_Members, tuple[str, ...]]: ...
    def group(self, members: _Members, g: int, power: float) -> Estimate: ...
    def difference_variance(self, first: Estimate, second: Estimate) -> np.ndarray: ...
    def pooled_floor(self, members: _Members, power: float) -> tuple[np.ndarray, np.ndarray]:
        """The pooled floor's r (K) and a (groups × K), see ``group_floor.py``."""

    def factor(self, estimate: Estimate, members: _Members | None = None, g: int = 0) -> float:
        """a_g of group ``g`` of ``members`` (the whole corpus when None), see ``group_floor.py``."""

    def group_residuals(self, estimate: Estimate, members: _Members, g: int) -> np.ndarray:
        """The linearised residuals of group ``g``'s coded texts (their rows of ``estimate``)."""
        return estimate.residuals[members.of_coded == g]

    def coded_counts(self, members: _Members, g: int) -> np.ndarray:
        """How many coded texts of group ``g`` are coded in each category."""
        return self.checked.y[members.of_coded == g].sum(axis=0)  # type: ignore[attr-defined]


class _Designed(_Estimator):
    """Coded texts of the corpus, weighted by the design."""

    def __init__(self, checked: Checked, design: object, tune: bool) -> None:
        self.checked, self.tune = checked, tune
        self.weighting = weighting_for(design, checked)
        self.warnings = list(self.weighting.warnings)
        self.tuned = tune
        self.method, self.key = _method(design, tune)

    def overall(self) -> Estimate:
        return whole_corpus(self.checked, self.weighting, self.tune)

    def coded_only(self, where: tuple[_Members, int] | None) -> Estimate:
        if where is None:
            everything = np.ones(self.checked.n_texts, dtype=bool)
            alone = in_group(self.checked, self.weighting, everything, np.ones(self.checked.n_coded, dtype=bool),
                             False, model=False)
            if alone.score is None:  # no score interval for this design: Wilson's on the effective number
                alone = replace(alone, spread=np.ones(len(self.checked.categories)) * self.factor(alone))
            return alone
        members, g = where
        return in_group(self.checked, self.weighting, members.of_text == g, members.of_coded == g, False,
                        model=False)

    def groups(self, values: Sequence) -> tuple[_Members, tuple[str, ...]]:
        found = group_labels(values, self.checked.n_texts, "texts of the corpus")
        assert found is not None and self.checked.positions is not None
        of_text, names = found
        return _Members(of_text, of_text[self.checked.positions]), names

    def group(self, members: _Members, g: int, power: float) -> Estimate:
        return in_group(self.checked, self.weighting, members.of_text == g, members.of_coded == g, self.tune,
                        power=power)

    def difference_variance(self, first: Estimate, second: Estimate) -> np.ndarray:
        return difference_variance(self.weighting, first, second)

    def pooled_floor(self, members: _Members, power: float) -> tuple[np.ndarray, np.ndarray]:
        c = self.checked
        sizes = _sizes(members)
        factors = design_factors(self.weighting.weights, model_moments(c.f_coded, power), members.of_coded, sizes)
        return pooled_ratio(c.y, c.f_coded, power, self.weighting.weights, members.of_coded, factors, sizes), factors

    def factor(self, estimate: Estimate, members: _Members | None = None, g: int = 0) -> float:
        if members is None:
            members = _Members(np.zeros(self.checked.n_texts, dtype=np.intp),
                               np.zeros(self.checked.n_coded, dtype=np.intp))
        if members.variance_weights is None:
            members.variance_weights = variance_weights(self.weighting.weights, members.of_coded, _sizes(members))[1]
        # no model: the coded texts' own weights, Kish's effective number (1/n_eff − 1/N_g)
        return float(members.variance_weights[members.of_coded == g].sum()) / max(estimate.n_texts, 1) ** 2


class _Iid(_Estimator):
    """Coded texts outside the corpus, a random sample of the same kind of texts (PPI++)."""

    def __init__(self, checked: Checked, tune: bool, coded_groups: Sequence | None) -> None:
        self.checked, self.tune = checked, tune
        self.coded_groups = coded_groups
        self.warnings = []
        self.tuned = tune
        self.method, self.key = _method(SeparateSample(), tune)
        if checked.n_coded < 2:
            raise DataError("An interval needs at least two coded texts.", "Code more texts, drawn at random.")

    def overall(self) -> Estimate:
        c = self.checked
        return ppi_iid.shares(c.y, c.f_coded, c.f_model, self.tune)

    def coded_only(self, where: tuple[_Members, int] | None) -> Estimate:
        if where is None:
            return ppi_iid.coded_only(self.checked.y)
        members, g = where
        return ppi_iid.coded_only(self.checked.y[members.of_coded == g])

    def groups(self, values: Sequence) -> tuple[_Members, tuple[str, ...]]:
        """Groups of the corpus texts and of the coded texts, named alike; a value only the coded
        texts have is no group of the corpus (those coded texts count in no group)."""
        if self.coded_groups is None:
            raise DataError("The coded texts' values of the group column are not given.",
                            "The coded texts are not part of the corpus, so their groups must be given too "
                            "(the same column in the coded texts).")
        n, n_coded = self.checked.n_texts, self.checked.n_coded
        corpus_values, coded_values = list(values), list(self.coded_groups)
        if len(corpus_values) != n or len(coded_values) != n_coded:
            raise DataError(f"There are {len(corpus_values):,} group values for {n:,} texts of the corpus and "
                            f"{len(coded_values):,} for {n_coded:,} coded texts.",
                            "Give one value of the group column for each text.")
        found = group_labels(corpus_values + coded_values, n + n_coded, "texts")
        assert found is not None
        index, names = found
        present = np.unique(index[:n])
        keep = np.full(len(names), -1, dtype=np.intp)
        keep[present] = np.arange(len(present))
        return _Members(keep[index[:n]], keep[index[n:]]), tuple(names[int(g)] for g in present)

    def group(self, members: _Members, g: int, power: float) -> Estimate:
        c = self.checked
        in_coded = members.of_coded == g
        if in_coded.sum() < 2:
            k = c.y.shape[1]
            return Estimate(np.full(k, np.nan), np.full((k, k), np.nan), np.zeros((0, k)), 1.0,
                            int((members.of_text == g).sum()), int(in_coded.sum()))
        return ppi_iid.shares(c.y[in_coded], c.f_coded[in_coded], c.f_model[members.of_text == g], self.tune,
                              lam=power)

    def difference_variance(self, first: Estimate, second: Estimate) -> np.ndarray:
        return np.diag(first.covariance + second.covariance)

    def group_residuals(self, estimate: Estimate, members: _Members, g: int) -> np.ndarray:
        return estimate.residuals  # the group's own coded texts only

    def pooled_floor(self, members: _Members, power: float) -> tuple[np.ndarray, np.ndarray]:
        c = self.checked
        sizes, coded = _sizes(members), np.bincount(members.of_coded[members.of_coded >= 0], minlength=0)
        coded = np.pad(coded, (0, max(0, len(sizes) - len(coded))))
        factors = np.array([design_factor(int(coded[g]), int(sizes[g]), outside=True) for g in range(len(sizes))])
        ratio = pooled_ratio(c.y, c.f_coded, power, np.ones(c.n_coded), members.of_coded)
        return ratio, np.repeat(factors[:, None], len(ratio), axis=1)

    def factor(self, estimate: Estimate, members: _Members | None = None, g: int = 0) -> float:
        # the coded texts are outside the corpus: the group's share among its own texts (1/n + 1/N)
        return design_factor(estimate.n_coded, estimate.n_texts, outside=True)


def _sizes(members: _Members) -> np.ndarray:
    """The number of corpus texts in each group."""
    return np.bincount(members.of_text[members.of_text >= 0]).astype(np.float64)


# ---------------------------------------------------------------------- building the record
def _shares(group: str | None, categories: tuple[str, ...], estimate: Estimate, coded_only: Estimate,
            hard: np.ndarray, soft: np.ndarray, of_text: np.ndarray, level: float,
            warning: str, of_category: np.ndarray | None) -> list[Share]:
    naive = hard[of_text].mean(axis=0)
    naive_low, naive_high = wilson(naive, int(of_text.sum()), level)
    probabilistic = soft[of_text].mean(axis=0)
    se = estimate.standard_errors
    low, high = _interval(estimate, level)
    coded_low, coded_high = _interval(coded_only, level)
    out = []
    for k, category in enumerate(categories):
        note = warning
        if of_category is not None and of_category[k] < MIN_OF_CATEGORY:
            note = " ".join(part for part in (warning, _thin_cell(int(of_category[k]), group)) if part)
        out.append(Share(group, category, _clip(estimate.shares[k]), _clip(low[k]), _clip(high[k]), float(se[k]),
                         float(naive[k]), float(naive_low[k]), float(naive_high[k]), float(probabilistic[k]),
                         _clip(coded_only.shares[k]), _clip(coded_low[k]), _clip(coded_high[k]), estimate.n_texts,
                         estimate.n_coded, note))
    return out


def _thin_cell(count: int, group: str | None) -> str:
    texts = "no coded text" if count == 0 else f"only {count} coded text{'s' if count > 1 else ''}"
    return (f"The group “{group}” holds {texts} of this category: its interval rests on the model's mistakes "
            "in all groups and is wide.")


def _thin_warning(thin: list[tuple[str, str, int]], cells: int) -> str:
    """One sentence on the (group, category) shares resting on fewer than MIN_OF_CATEGORY coded texts."""
    examples = ", ".join(f"“{category}” in “{group}” ({count})" for group, category, count in thin[:3])
    return (f"{len(thin):,} of {cells:,} shares per group rest on fewer than {MIN_OF_CATEGORY} coded texts of their "
            f"category in their group (for example {examples}{' …' if len(thin) > 3 else ''}): their intervals "
            "lean on the model's mistakes in all groups and are wide (marked ⚠). Code more texts of these groups "
            "and categories, or choose a column with fewer groups.")


def _interval(estimate: Estimate, level: float) -> tuple[np.ndarray, np.ndarray]:
    """The score interval of a random sample, else the estimate ± the quantile (normal, or t on the
    effective number of coded texts) times the standard error."""
    z = quantile(level, float("inf"))
    found = score_interval(estimate, z)
    if found is None:
        half = quantile(level, estimate.effective_n) * estimate.standard_errors
        found = estimate.shares - half, estimate.shares + half
    return estimate.widened(*found, level)


def _differences(estimator: _Estimator, names: tuple[str, ...], index: dict[str, int],
                 estimates: dict[str, Estimate], members: _Members, hard: np.ndarray, categories: tuple[str, ...],
                 level: float, reference: object | None, all_pairs: bool = False) -> list[Difference]:
    """Differences between the groups ``names`` (``index``: each group's number in ``members``)."""
    if len(names) < 2:
        return []
    pairs = group_pairs(names, reference, lambda name: estimates[name].n_texts, all_pairs)
    naive = {name: hard[members.of_text == index[name]].mean(axis=0) for name in names}
    out = []
    for first, second in pairs:
        a, b = estimates[first], estimates[second]
        # each group's pooled floor, where it is above the group's own variance, adds to the difference's
        variance = estimator.difference_variance(a, b) + a.pooled_excess + b.pooled_excess
        se = np.sqrt(np.clip(variance, 0.0, None))
        effective = min(a.effective_n, b.effective_n) if a.score is None else float("inf")
        q = quantile(level, effective)
        df = max(effective - 1.0, 1.0)
        for k, category in enumerate(categories):
            value = float(a.shares[k] - b.shares[k])
            p_value = _p_value(value, float(se[k]), df)
            out.append(Difference(category, first, second, value, max(-1.0, value - q * se[k]),
                                  min(1.0, value + q * se[k]), float(se[k]), p_value,
                                  float(naive[first][k] - naive[second][k])))
    return out


def _p_value(value: float, se: float, df: float) -> float:
    """Two-sided p-value of a difference: normal (``df`` infinite) or Student's t."""
    if se <= 0:
        return float(value == 0)
    if not np.isfinite(df):
        return float(2 * norm.sf(abs(value) / se))
    from scipy.stats import t

    return float(2 * t.sf(abs(value) / se, df))


def _few_warning(n_coded: int, min_coded: int, group: str | None) -> str:
    if n_coded >= min_coded:
        return ""
    where = "the corpus" if group is None else f"the group “{group}”"
    return (f"Only {n_coded:,} coded texts in {where}: its interval is rough. Code at least {min_coded} texts "
            "there for a useful one.")


def _clip(value: float) -> float:
    return float(min(1.0, max(0.0, value))) if np.isfinite(value) else float("nan")


def _method(design: object, tune: bool) -> tuple[str, str]:
    tuned = "; with power tuning (PPI++, Angelopoulos, Duchi & Zrnic 2023)" if tune else ""
    if isinstance(design, RandomSample):
        if tune:
            return ("prediction-powered inference with power tuning (PPI++; Angelopoulos et al. 2023): the model's "
                    "predictions for every text, corrected by its mistakes on the coded texts", "ppi")
        return ("design-based supervised learning (Egami et al. 2023): the model's predictions for every text, "
                "corrected by its mistakes on the coded texts", "dsl")
    if isinstance(design, Stratified):
        return ("design-based supervised learning (Egami et al. 2023), each coded text weighted by the inverse "
                "of its group's chance of being coded" + tuned, "dsl-stratified")
    if isinstance(design, KnownProbabilities):
        return ("design-based supervised learning (Egami et al. 2023), each coded text weighted by the inverse "
                "of its chance of being coded" + tuned, "dsl")
    if isinstance(design, CodingStepDraws):
        return ("a design-based estimate for texts drawn one at a time (active statistical inference; Zrnic & "
                "Candès 2024; Egami et al. 2023): each drawn text corrects the model's predictions for the texts "
                "still open, weighted by the inverse of the chance it was drawn with" + tuned, "sequential")
    if tune:
        return ("prediction-powered inference with power tuning (PPI++; Angelopoulos et al. 2023), the coded texts "
                "being a separate random sample of the same kind of texts", "ppi-iid")
    return ("prediction-powered inference (Angelopoulos et al. 2023), the coded texts being a separate random "
            "sample of the same kind of texts", "ppi-iid")
