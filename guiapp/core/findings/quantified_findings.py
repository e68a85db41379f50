"""Findings for a corpus none of whose texts were coded: each group's shares adjusted for prior shift
(``quantification.py``), with percentile bootstrap intervals for the shares and for the differences
between groups (one bootstrap redraws the coded texts and the corpus, so the differences keep the
dependence that the shared coded texts give the groups' estimates)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.stats import norm

from guiapp.core.errors import DataError
from guiapp.core.events import EventCallback
from guiapp.core.findings.designs import OtherCorpus
from guiapp.core.findings.inputs import CodedSample, check_inputs, group_labels
from guiapp.core.findings.naive import wilson
from guiapp.core.findings.quantification import (
    QUANTIFICATION_WORDS,
    bootstrap,
    check_replicates,
    one_hot_predictions,
    point_estimates,
)
from guiapp.core.findings.records import (
    Difference,
    Findings,
    Share,
    comparison_of,
    group_pairs,
)


def quantified_findings(probabilities: np.ndarray, categories: Sequence[str], coded: CodedSample,
                        design: OtherCorpus, *, groups: Sequence | None, group_name: str | None, level: float,
                        min_coded: int, reference: object | None, replicates: int, seed: int, all_pairs: bool = False,
                        on_event: EventCallback) -> Findings:
    replicates = check_replicates(replicates)
    checked = check_inputs(probabilities, categories, CodedSample(coded.labels, coded.probabilities))
    if checked.n_coded < 2:
        raise DataError("Adjusting the shares needs at least two coded texts.", "Code more texts.")
    warnings = []
    if checked.n_coded < min_coded:
        warnings.append(f"Only {checked.n_coded:,} coded texts measure the model's mistakes: the intervals are "
                        f"rough. Code at least {min_coded} texts.")
    n = checked.n_texts
    member_lists = [np.arange(n)]
    names: tuple[str, ...] = ()
    if groups is not None:
        found = group_labels(groups, n, "texts of the corpus")
        assert found is not None
        of_text, names = found
        member_lists += [np.flatnonzero(of_text == g) for g in range(len(names))]
    method = design.method
    draws = bootstrap(checked.f_model, checked.y, checked.f_coded, method, member_lists, replicates, seed, on_event)
    tail = (1 - level) / 2
    hard = one_hot_predictions(checked.f_model)
    coded_share = checked.y.mean(axis=0)
    coded_low, coded_high = wilson(coded_share, checked.n_coded, level)  # 0 of n still has an upper bound
    shares: list[Share] = []
    points = []
    for index, members in enumerate(member_lists):
        point = point_estimates(checked.f_model[members], checked.y, checked.f_coded, methods=(method,))[method]
        points.append(point)
        low, high = np.quantile(draws[:, index], [tail, 1 - tail], axis=0)
        se = draws[:, index].std(axis=0, ddof=1)
        naive = hard[members].mean(axis=0)
        naive_low, naive_high = wilson(naive, len(members), level)
        probabilistic = checked.f_model[members].mean(axis=0)
        group = None if index == 0 else names[index - 1]
        for k, category in enumerate(checked.categories):
            shares.append(Share(group, category, float(point[k]), float(low[k]), float(high[k]), float(se[k]),
                                float(naive[k]), float(naive_low[k]), float(naive_high[k]), float(probabilistic[k]),
                                float(coded_share[k]), float(coded_low[k]), float(coded_high[k]), len(members), 0,
                                ""))
    differences = []
    if len(names) >= 2:
        differences = _differences(names, points[1:], draws[:, 1:], [hard[m].mean(axis=0) for m in member_lists[1:]],
                                   checked.categories, tail, reference, [len(m) for m in member_lists[1:]], all_pairs)
    words = QUANTIFICATION_WORDS[method]
    return Findings(checked.categories, tuple(shares), tuple(differences), words, f"quantification-{method}",
                    design.assumption, level, n, checked.n_coded, group_name, names, None, tuple(warnings),
                    comparison_of(reference, all_pairs) if differences else "")


def _differences(names: tuple[str, ...], points: list[np.ndarray], draws: np.ndarray, naive: list[np.ndarray],
                 categories: tuple[str, ...], tail: float, reference: object | None,
                 sizes: list[int], all_pairs: bool = False) -> list[Difference]:
    index = {name: i for i, name in enumerate(names)}
    pairs = group_pairs(names, reference, lambda name: sizes[index[name]], all_pairs)
    out = []
    for first, second in pairs:
        a, b = index[first], index[second]
        spread = draws[:, a] - draws[:, b]
        low, high = np.quantile(spread, [tail, 1 - tail], axis=0)
        se = spread.std(axis=0, ddof=1)
        for k, category in enumerate(categories):
            value = float(points[a][k] - points[b][k])
            p_value = float(2 * norm.sf(abs(value) / se[k])) if se[k] > 0 else float(value == 0)
            out.append(Difference(category, first, second, value, float(low[k]), float(high[k]), float(se[k]),
                                  p_value, float(naive[a][k] - naive[b][k])))
    return out
