"""Is the best model really better, and how closely does each model agree with the human coding?

From a study's :class:`ExperimentResult`, with the tests of :mod:`guiapp.core.stats`:

- **On the test texts** (:func:`test_set_comparisons`): McNemar's test for every pair of finished
  models, Holm-corrected over all m·(m-1)/2 pairs. Every model predicts the same test texts, so
  every pair can be compared this way. In a study where a text can have several categories a text
  is seldom plainly right or wrong, so the pairs are compared instead by a paired bootstrap of the
  difference in test macro-F1 (:func:`guiapp.core.stats.paired_tests.paired_bootstrap_macro_f1`;
  the study's resamples and seed), Holm-corrected the same way.
- **Across the cross-validation folds** (:func:`fold_comparisons`): Nadeau & Bengio's corrected
  resampled t-test on the chosen setting's per-fold macro-F1. The test needs the *same* folds for
  both models. The conventional models of one study share them (one stratified k-fold split of the
  training texts, from the study's seed), and so does a Transformer tuned by cross-validation. A
  Transformer tuned on one validation split has a single score, and a combined model's scores come
  from learning the combination on the out-of-fold texts, not from the study's folds: pairs with
  such a model are skipped, with the reason (:class:`SkippedPair`). Holm's correction is over the
  pairs that were tested. Per fold, ``n_test`` is the training texts / k and ``n_train`` the rest.
- **Agreement with the human coding** (:func:`agreement_with_coding`): Cohen's kappa and
  Krippendorff's alpha (nominal; the model and the coding as two coders) on the test texts, with
  percentile bootstrap intervals over the test texts, seeded by the study's seed. When a text can
  have several categories: per category (each a yes/no coding) and their mean over the categories
  (:mod:`guiapp.core.stats.agreement_categories`).
- :func:`headline`: the one to three sentences a researcher needs first.
- :func:`human_agreement`: for sheets with per-coder counts per category (as in Davidson et al.
  2017), the model against the majority of the coders beside how well one coder agrees with the
  others (:mod:`guiapp.core.stats.coder_counts`).

Assumptions are those of the tests: independent test texts never used for training or tuning.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field

import numpy as np

from guiapp.core.experiment.results.experiment_result import ExperimentResult, ModelResult
from guiapp.core.experiment.scores.thresholds import indicator
from guiapp.core.stats.agreement import alpha_from_counts, cohen_kappa, krippendorff_alpha
from guiapp.core.stats.agreement_categories import category_agreement
from guiapp.core.stats.agreement_intervals import bootstrap_alpha, bootstrap_alpha_from_counts, bootstrap_kappa
from guiapp.core.stats.coder_counts import model_versus_coders
from guiapp.core.stats.fold_interval import fold_sizes
from guiapp.core.stats.pairwise import (
    PairComparison,
    compare_across_folds,
    compare_on_test_set,
    compare_on_test_set_by_bootstrap,
    is_bootstrap,
)
from guiapp.core.stats.plain_record import PlainRecord
from guiapp.core.stats.wording import describe_comparison, format_p

ALPHA = 0.05  # a difference is "clear" when the Holm-corrected p-value is below this
LEVEL = 0.95
DEFAULT_SAMPLES = 1000
ABOUT_THE_SAME = 0.02  # model and human shares closer than this are called "about as often"
MULTI_LABEL_TEST_NOTE = (
    "A text can have several categories in this study, so a model is seldom simply right or wrong about a text: "
    "the pairs are compared on the test texts by a paired bootstrap of the difference in macro-F1 ({samples:,} "
    "resamples of the test texts, both models scored on the same ones), not by McNemar's test.")


@dataclass(frozen=True)
class SkippedPair(PlainRecord):
    """A pair the fold test could not compare, and why (in plain words)."""

    model_a: str
    model_b: str
    reason: str


@dataclass(frozen=True)
class CategoryAgreement:
    """One model against the human coding of the test texts for one category (a text in it or not),
    in a study where a text can have several categories."""

    category: str
    n_coded: int  # test texts coded with the category
    n_predicted: int  # test texts the model put in it
    share_agreeing: float  # share of test texts where model and coding agree on this category
    kappa: float
    kappa_interval: tuple[float, float]
    alpha: float  # Krippendorff's alpha, nominal (two values); NaN when neither used the category
    alpha_interval: tuple[float, float]

    def to_dict(self) -> dict:
        data = asdict(self)
        data["kappa_interval"] = list(self.kappa_interval)
        data["alpha_interval"] = list(self.alpha_interval)
        return data


@dataclass(frozen=True)
class ModelAgreement:
    """One model against the human coding of the test texts. When a text can have several
    categories, ``per_category`` holds each category's agreement, ``kappa`` and ``alpha`` are their
    means over the categories where they are defined (intervals from the same resamples), and
    ``share_agreeing`` is the share of test texts whose categories the model got exactly."""

    model: str
    n_texts: int
    share_agreeing: float  # share of test texts where the model chose the coded category
    kappa: float
    kappa_interval: tuple[float, float]
    alpha: float
    alpha_interval: tuple[float, float]
    level: float
    samples: int
    seed: int
    per_category: tuple[CategoryAgreement, ...] = ()

    @property
    def multi_label(self) -> bool:
        return bool(self.per_category)

    def to_dict(self) -> dict:
        data = asdict(self)
        data["kappa_interval"] = list(self.kappa_interval)
        data["alpha_interval"] = list(self.alpha_interval)
        if self.per_category:
            data["per_category"] = [item.to_dict() for item in self.per_category]
        else:  # single-label agreement keeps its format
            del data["per_category"]
        return data


@dataclass(frozen=True)
class ModelComparisons:
    """Everything :func:`compare_models` found, with the sentences to show."""

    test_set: list[PairComparison]
    test_set_sentences: list[str]
    folds: list[PairComparison]
    fold_sentences: list[str]
    skipped_fold_pairs: list[SkippedPair]
    agreement: list[ModelAgreement]
    headline: list[str]
    alpha: float = ALPHA
    fold_excluded: dict[str, str] = field(default_factory=dict)  # model -> why it is not compared on folds
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {
            "alpha": self.alpha,
            "headline": list(self.headline),
            "test_set": [c.to_dict() | {"sentence": s} for c, s in zip(self.test_set, self.test_set_sentences,
                                                                          strict=True)],
            "folds": [c.to_dict() | {"sentence": s} for c, s in zip(self.folds, self.fold_sentences, strict=True)],
            "skipped_fold_pairs": [s.to_dict() for s in self.skipped_fold_pairs],
            "agreement": [a.to_dict() for a in self.agreement],
            "fold_excluded": dict(self.fold_excluded),
            "notes": list(self.notes),
        }


def compared_models(result: ExperimentResult) -> list[ModelResult]:
    """The finished models with a prediction for every test text, best test macro-F1 first (the
    order of the pairs: A is the one ranked higher)."""
    n = len(result.test_true)
    return [model for model in result.ranked() if len(model.predictions) == n]


def _right(result: ExperimentResult, model: ModelResult) -> np.ndarray:
    return np.asarray(model.predictions) == np.asarray(result.test_true)


def coded_matrix(result: ExperimentResult) -> np.ndarray:
    """The coding of the test texts as a texts × categories 0/1 table (several categories per text)."""
    return indicator(result.test_true, len(result.categories))


def predicted_matrix(result: ExperimentResult, model: ModelResult) -> np.ndarray:
    """A model's categories for the test texts as a texts × categories 0/1 table (several per text)."""
    return indicator(model.predictions, len(result.categories))


def _resampling(result: ExperimentResult, samples: int | None, seed: int | None) -> tuple[int, int]:
    """The number of bootstrap resamples and the seed: the study's unless given."""
    protocol = result.protocol
    return int(samples or protocol.samples(DEFAULT_SAMPLES)), int(protocol.seed or 0 if seed is None else seed)


def test_set_comparisons(
    result: ExperimentResult, samples: int | None = None, seed: int | None = None, level: float = LEVEL
) -> list[PairComparison]:
    """McNemar's test for every pair of finished models (Holm over all pairs); [] with fewer than two.
    When a text can have several categories: the paired bootstrap of the difference in macro-F1 over
    the test texts (the study's resamples and seed unless ``samples``/``seed`` are given)."""
    models = compared_models(result)
    if len(models) < 2:
        return []
    if result.multi_label:
        samples, seed = _resampling(result, samples, seed)
        return compare_on_test_set_by_bootstrap(
            coded_matrix(result), {model.name: predicted_matrix(result, model) for model in models},
            samples, seed, level)
    return compare_on_test_set({model.name: _right(result, model) for model in models})


def study_folds(result: ExperimentResult) -> int | None:
    """The study's number of cross-validation folds (the most common count when the spec lacks it)."""
    folds = result.protocol.folds
    if folds:
        return folds
    counts = Counter(len(m.cv_scores) for m in compared_models(result) if len(m.cv_scores) >= 2)
    return counts.most_common(1)[0][0] if counts else None


def fold_problem(model: ModelResult, folds: int | None) -> str | None:
    """Why the model's fold scores cannot be compared with the others' (None when they can), in a
    few words that fit after the model's name ("… is a combined model: …")."""
    if model.representation == "combined":
        return ("a combined model: its fold scores come from learning the combination on the out-of-fold "
                "texts, not from the study's folds")
    if len(model.cv_scores) == 1:
        return "tuned on one validation split, so it has only one score"
    if len(model.cv_scores) < 2:
        return "without fold scores"
    if folds is not None and len(model.cv_scores) != folds:
        return f"scored on {len(model.cv_scores)} folds, not on the study's {folds}"
    return None


def fold_comparisons(
    result: ExperimentResult, level: float = LEVEL
) -> tuple[list[PairComparison], list[SkippedPair]]:
    """The corrected resampled t-test for every pair of models scored on the study's own folds
    (Holm over those pairs), and the pairs that had to be skipped, with the reason."""
    models = compared_models(result)
    folds = study_folds(result)
    problems = {model.name: fold_problem(model, folds) for model in models}
    usable = [model for model in models if problems[model.name] is None]
    skipped = []
    for i, a in enumerate(models):
        for b in models[i + 1:]:
            reasons = [f"{m.name} is {problems[m.name]}" for m in (a, b) if problems[m.name]]
            if reasons:
                skipped.append(SkippedPair(a.name, b.name, "; ".join(reasons)))
    n_train = result.test_split.n_train or 0
    if len(usable) < 2 or not folds or n_train < folds:
        if len(usable) >= 2:
            skipped += [SkippedPair(a.name, b.name, "the number of training texts is not known")
                        for i, a in enumerate(usable) for b in usable[i + 1:]]
        return [], skipped
    comparisons = compare_across_folds(
        {model.name: model.cv_scores for model in usable}, *fold_sizes(n_train, folds), level
    )
    return comparisons, skipped


def agreement_with_coding(
    result: ExperimentResult, samples: int | None = None, seed: int | None = None, level: float = LEVEL
) -> list[ModelAgreement]:
    """Cohen's kappa and Krippendorff's alpha of every finished model with the human coding of the
    test texts, with bootstrap intervals (the study's number of resamples and seed by default).
    When a text can have several categories: per category and their mean (:class:`ModelAgreement`)."""
    samples, seed = _resampling(result, samples, seed)
    if result.multi_label:
        return [_agreement_per_category(result, model, samples, seed, level) for model in compared_models(result)]
    truth = [int(v) for v in result.test_true]
    rows = []
    for model in compared_models(result):
        predicted = [int(v) for v in model.predictions]
        enough = len(truth) >= 2
        rows.append(ModelAgreement(
            model=model.name,
            n_texts=len(truth),
            share_agreeing=float(np.mean(np.asarray(predicted) == np.asarray(truth))) if truth else float("nan"),
            kappa=cohen_kappa(truth, predicted) if truth else float("nan"),
            kappa_interval=bootstrap_kappa(truth, predicted, samples, seed, level) if enough else (np.nan, np.nan),
            alpha=krippendorff_alpha([truth, predicted]) if truth else float("nan"),
            alpha_interval=bootstrap_alpha([truth, predicted], samples, seed, level) if enough else (np.nan, np.nan),
            level=level,
            samples=samples,
            seed=seed,
        ))
    return rows


def _agreement_per_category(
    result: ExperimentResult, model: ModelResult, samples: int, seed: int, level: float
) -> ModelAgreement:
    """Alpha and kappa of each category (a text in it or not) and their means, with intervals."""
    truth, predicted = coded_matrix(result), predicted_matrix(result, model)
    n = len(truth)
    if n == 0:
        nan_pair = (float("nan"), float("nan"))
        return ModelAgreement(model.name, 0, float("nan"), float("nan"), nan_pair, float("nan"), nan_pair, level,
                              samples, seed)
    found = category_agreement(truth, predicted, samples, seed, level)
    per_category = tuple(
        CategoryAgreement(name, int(truth[:, k].sum()), int(predicted[:, k].sum()), found.share_agreeing[k],
                          found.kappa[k], found.kappa_intervals[k], found.alpha[k], found.alpha_intervals[k])
        for k, name in enumerate(result.categories)
    )
    return ModelAgreement(
        model=model.name, n_texts=n, share_agreeing=float(np.all(truth == predicted, axis=1).mean()),
        kappa=found.mean_kappa, kappa_interval=found.mean_kappa_interval,
        alpha=found.mean_alpha, alpha_interval=found.mean_alpha_interval,
        level=level, samples=samples, seed=seed, per_category=per_category,
    )


def _pair(comparisons: list[PairComparison], a: str, b: str) -> PairComparison | None:
    return next((c for c in comparisons if {c.model_a, c.model_b} == {a, b}), None)


def headline(
    result: ExperimentResult,
    test_set: list[PairComparison] | None = None,
    folds: list[PairComparison] | None = None,
    alpha: float = ALPHA,
) -> list[str]:
    """One to three sentences: which model scored best, whether the test texts show it clearly
    better than the runner-up (or cannot separate them; then, if the folds can, what they show),
    and how it stands against the rest."""
    models = compared_models(result)
    if not models:
        return ["No model finished, so there is nothing to compare."]
    best = models[0]
    if len(models) == 1:
        return [f"Only one model finished ({best.name}), so there is no other model to compare it with."]
    second = models[1]
    test_set = test_set_comparisons(result) if test_set is None else test_set
    best_score, second_score = best.test.macro_f1, second.test.macro_f1  # type: ignore[union-attr]
    if best_score >= second_score:
        lines = [(f"{best.name} has the highest macro-F1 on the test texts ({best_score:.2f}); "
                  f"the runner-up is {second.name} ({second_score:.2f}).")]
    else:  # the recommended model (chosen on the training texts) scored lower on the test texts
        lines = [(f"{best.name} is the recommended model ({best_score:.2f} on the test texts); "
                  f"{second.name} scored {second_score:.2f} there.")]
    top = _pair(test_set, best.name, second.name)
    if top is None:
        return lines
    clear = top.p_holm < alpha and _winner(top) is not None
    if clear:
        lines.append(describe_comparison(top, alpha))
    elif is_bootstrap(top):
        lines.append(
            f"The test texts cannot separate the two: the macro-F1 of {top.model_a} minus that of {top.model_b} is "
            f"{top.mean_difference:+.3f} ({top.level:.0%} interval {top.ci_low:+.3f} to {top.ci_high:+.3f}), a "
            f"difference that could easily arise by chance ({format_p(top.p_holm, alpha)}, paired bootstrap over "
            f"the test texts{_holm(top)}). This does not show that they are equally good."
        )
    else:
        lines.append(
            f"The test texts cannot separate the two: {top.n_only_a_right:,} of them were right only with "
            f"{top.model_a} and {top.n_only_b_right:,} only with {top.model_b}, a difference that could easily "
            f"arise by chance ({format_p(top.p_holm, alpha)}, McNemar's test"
            f"{'' if top.n_comparisons == 1 else f', Holm-corrected for {top.n_comparisons:,} comparisons'}). "
            f"This does not show that they are equally good."
        )
    on_folds = _pair(folds or [], best.name, second.name)
    if not clear and on_folds is not None and on_folds.p_holm < alpha and on_folds.mean_difference:
        lines.append(f"Across the cross-validation folds, however: {describe_comparison(on_folds, alpha)}")
        return lines
    rest = [_pair(test_set, best.name, other.name) for other in models[2:]]
    rest = [c for c in rest if c is not None]
    if rest:
        beaten = [c for c in rest if c.p_holm < alpha and _winner(c) == best.name]
        others = "the one other model" if len(rest) == 1 else f"{len(rest)} other models"
        if not beaten:
            lines.append(f"The test texts cannot clearly separate {best.name} from "
                         f"{'the' if len(rest) == 1 else 'any of the'} {others.removeprefix('the ')} either.")
        else:
            share = (others if len(beaten) == len(rest) and len(rest) == 1 else
                     f"all {others}" if len(beaten) == len(rest) else f"{len(beaten)} of the {others}")
            better = ("scores clearly higher than" if result.multi_label
                      else "agrees with your coding clearly more often than")
            lines.append(f"{best.name} {better} {share}.")
    return lines


def _holm(c: PairComparison) -> str:
    return "" if c.n_comparisons == 1 else f", Holm-corrected for {c.n_comparisons:,} comparisons"


def _winner(c: PairComparison) -> str | None:
    if c.n_only_a_right is None:  # the paired bootstrap: the sign of the difference in macro-F1
        if not c.mean_difference:
            return None
        return c.model_a if c.mean_difference > 0 else c.model_b
    if c.n_only_a_right == c.n_only_b_right:
        return None
    return c.model_a if (c.n_only_a_right or 0) > (c.n_only_b_right or 0) else c.model_b


def verdict(c: PairComparison, alpha: float = ALPHA) -> str:
    """A short verdict for a table cell: "A agrees more often", "A scores higher", or no clear difference."""
    if c.p_holm >= alpha:
        return "No clear difference"
    if c.n_only_a_right is not None:
        winner = _winner(c)
        return f"{winner} agrees more often" if winner else "No clear difference"
    if not c.mean_difference:
        return "No clear difference"
    return f"{c.model_a if c.mean_difference > 0 else c.model_b} scores higher"


def compare_models(
    result: ExperimentResult, alpha: float = ALPHA, samples: int | None = None, level: float = LEVEL
) -> ModelComparisons:
    """All comparisons and agreement figures for a study, with their sentences."""
    test_set = test_set_comparisons(result, samples, level=level)
    folds, skipped = fold_comparisons(result, level)
    notes = []
    if result.multi_label and test_set:
        notes.append(MULTI_LABEL_TEST_NOTE.format(samples=_resampling(result, samples, None)[0]))
    if skipped:
        notes.append(f"{len(skipped)} pair{'s' if len(skipped) != 1 else ''} could not be compared across the "
                     "cross-validation folds.")
    return ModelComparisons(
        test_set=test_set,
        test_set_sentences=[describe_comparison(c, alpha) for c in test_set],
        folds=folds,
        fold_sentences=[describe_comparison(c, alpha) for c in folds],
        skipped_fold_pairs=skipped,
        agreement=agreement_with_coding(result, samples, level=level),
        headline=headline(result, test_set, folds, alpha),
        alpha=alpha,
        fold_excluded={m.name: why for m in compared_models(result) if (why := fold_problem(m, study_folds(result)))},
        notes=notes,
    )


@dataclass(frozen=True)
class HumanAgreement:
    """The model against several human coders (per-text counts of coders per category)."""

    n_texts: int
    n_without_majority: int
    model_agrees_with_majority: float
    coder_agrees_with_other_coders: float
    kappa_model_vs_majority: float
    alpha_between_coders: float
    alpha_between_coders_interval: tuple[float, float]
    alpha_with_model_as_coder: float
    sentence: str

    def to_dict(self) -> dict:
        data = asdict(self)
        data["alpha_between_coders_interval"] = list(self.alpha_between_coders_interval)
        return data


def _prediction_indices(predictions, columns: list[str]) -> np.ndarray:
    values = list(predictions)
    if all(isinstance(v, int | np.integer) and not isinstance(v, bool) for v in values):
        return np.asarray(values, dtype=int)
    index = {str(name): i for i, name in enumerate(columns)}
    unknown = sorted({str(v) for v in values} - set(index))
    if unknown:
        raise ValueError(f"The model's categories {unknown[:5]} are not among the coder-count columns {columns}.")
    return np.asarray([index[str(v)] for v in values], dtype=int)


def human_agreement(
    table, coder_count_columns: list[str], predictions, *, samples: int = DEFAULT_SAMPLES, seed: int = 0,
    level: float = LEVEL,
) -> HumanAgreement:
    """How the model's categories compare with several human coders. ``table`` has one row per text
    (a DataFrame or a mapping of columns); ``coder_count_columns`` name the columns holding how many
    coders chose each category, in category order; ``predictions`` give the model's category per row,
    as a number (position in ``coder_count_columns``) or as the column's name."""
    columns = list(coder_count_columns)
    if len(columns) < 2:
        raise ValueError("Name at least two columns with counts of coders, one per category.")
    counts = np.column_stack([np.asarray(table[name], dtype=float) for name in columns])
    predicted = _prediction_indices(predictions, columns)
    found = model_versus_coders(counts, predicted)
    interval = bootstrap_alpha_from_counts(counts, samples, seed, level) if len(counts) >= 2 else (np.nan, np.nan)
    with_model = counts.copy()
    with_model[np.arange(len(counts)), predicted] += 1
    model_share, human_share = found.model_agrees_with_majority, found.coder_agrees_with_other_coders
    if abs(model_share - human_share) < ABOUT_THE_SAME:
        how = "about as often as"
    elif model_share > human_share:
        how = "more often than"
    else:
        how = "less often than"
    sentence = (
        f"The model agrees with the majority of your coders {how} one coder agrees with the others "
        f"({model_share:.2f} vs {human_share:.2f}). Your coders agree with each other with Krippendorff's alpha "
        f"= {found.alpha_between_coders:.2f} ({level:.0%} interval {interval[0]:.2f} to {interval[1]:.2f})."
    )
    return HumanAgreement(
        n_texts=found.n_texts,
        n_without_majority=found.n_without_majority,
        model_agrees_with_majority=model_share,
        coder_agrees_with_other_coders=human_share,
        kappa_model_vs_majority=found.kappa_model_vs_majority,
        alpha_between_coders=found.alpha_between_coders,
        alpha_between_coders_interval=interval,
        alpha_with_model_as_coder=alpha_from_counts(with_model),
        sentence=sentence,
    )
