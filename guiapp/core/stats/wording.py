"""Plain-language sentences for a comparison of two models, for a reader who is not a statistician.

A difference is called clear when the Holm-corrected p-value is below ``alpha`` (default 0.05).
"No clear difference" is never worded as "equally good": a test that finds nothing does not show
equality (absence of evidence is not evidence of absence; Altman & Bland 1995, BMJ 311:485).
p-values are written as people read them: "p < 0.001" when tiny, otherwise two significant
digits, with more digits only where rounding would put the number on the wrong side of ``alpha``.
A coefficient is written with its interval, or alone when the interval cannot be computed.
"""

from __future__ import annotations

import math

from guiapp.core.stats.pairwise import PairComparison, is_bootstrap

SMALLEST_SHOWN = 0.001


def format_p(p: float, alpha: float | None = None) -> str:
    """``"p = 0.04"``, ``"p < 0.001"``; never rounds across ``alpha`` (0.0496 → "p = 0.0496")."""
    if p < SMALLEST_SHOWN:
        return f"p < {SMALLEST_SHOWN:g}"
    for digits in range(2, 6):
        shown = float(f"{p:.{digits}g}")
        if alpha is None or (shown < alpha) == (p < alpha):
            break
    return f"p = {_plain(shown)}"


def with_interval(value: float, interval: tuple[float, float], digits: int = 2,
                  template: str = "{value}  ({low} to {high})") -> str:
    """A coefficient and its interval as a reader sees them ("0.71  (0.65 to 0.77)"; the console
    passes its own ``template``): "–" when the coefficient cannot be computed (e.g. one category
    only), the value alone when its interval cannot."""
    if not math.isfinite(value):
        return "–"
    low, high = interval
    if not (math.isfinite(low) and math.isfinite(high)):
        return f"{value:.{digits}f}"
    return template.format(value=f"{value:.{digits}f}", low=f"{low:.{digits}f}", high=f"{high:.{digits}f}")


def _plain(number: float) -> str:
    text = f"{number:.6f}".rstrip("0").rstrip(".")
    return text or "0"


def _comparisons(n: int) -> str:
    return "" if n == 1 else f", Holm-corrected for {n:,} comparisons"


def describe_comparison(c: PairComparison, alpha: float = 0.05, score_name: str = "macro-F1") -> str:
    """One or two sentences for a test-set (McNemar; paired bootstrap when a text can have several
    categories) or fold (corrected t-test) comparison."""
    test = "McNemar's test" if c.n_only_a_right is not None else "corrected resampled t-test"
    clear = c.p_holm < alpha
    p = format_p(c.p_holm, alpha)
    if is_bootstrap(c):
        return _bootstrap_sentence(c, clear, p)
    if c.n_only_a_right is not None:
        return _test_set_sentence(c, clear, p, test)
    return _fold_sentence(c, clear, p, test, score_name)


def _test_set_sentence(c: PairComparison, clear: bool, p: str, test: str) -> str:
    only_a, only_b = c.n_only_a_right, c.n_only_b_right
    if clear and only_a != only_b:
        better, worse, n_better, n_worse = (
            (c.model_a, c.model_b, only_a, only_b) if only_a > only_b else (c.model_b, c.model_a, only_b, only_a)
        )
        return (
            f"{better} agrees with your coding more often than {worse} (on {n_better:,} vs {n_worse:,} "
            f"of {c.n_texts:,} test texts where only one of them was right); if both were equally good, "
            f"a difference this large would arise by chance with probability {p} ({test}{_comparisons(c.n_comparisons)})."
        )
    return (
        f"No clear difference between {c.model_a} and {c.model_b}: of {c.n_texts:,} test texts, {only_a:,} were "
        f"right only with {c.model_a} and {only_b:,} only with {c.model_b}, and a difference this large could "
        f"easily arise by chance ({p}, {test}{_comparisons(c.n_comparisons)}). This does not show that they are "
        f"equally good; more test texts might reveal a difference."
    )


def _bootstrap_sentence(c: PairComparison, clear: bool, p: str) -> str:
    test = f"paired bootstrap over the test texts{_comparisons(c.n_comparisons)}"
    return _difference_sentence(c, clear, p, c.mean_difference or 0.0, f"on the {c.n_texts:,} test texts",
                                "macro-F1", test, on_average="", more="; more test texts might reveal a difference")


def _fold_sentence(c: PairComparison, clear: bool, p: str, test: str, score_name: str) -> str:
    return _difference_sentence(c, clear, p, c.mean_difference, "across the cross-validation folds", score_name,
                                f"{test}{_comparisons(c.n_comparisons)}", on_average=" on average", more="")


def _difference_sentence(c: PairComparison, clear: bool, p: str, difference: float, where: str, score_name: str,
                         test: str, *, on_average: str, more: str) -> str:
    """The sentence for a difference in a score with its interval: which model scores higher
    ``where`` when the difference is clear, else that no clear difference was found."""
    interval = f"{c.level:.0%} interval {c.ci_low:+.3f} to {c.ci_high:+.3f}"
    if clear and difference != 0:
        better, worse = (c.model_a, c.model_b) if difference > 0 else (c.model_b, c.model_a)
        return (
            f"{better} scores higher than {worse} {where} ({score_name} {abs(difference):.3f} higher{on_average}; "
            f"{c.model_a} minus {c.model_b}: {interval}); if both were equally good, a difference this large "
            f"would arise by chance with probability {p} ({test})."
        )
    return (
        f"No clear difference between {c.model_a} and {c.model_b} {where} ({score_name} of {c.model_a} minus "
        f"{c.model_b}: {difference:+.3f}{on_average}, {interval}; {p}, {test}). This does not show that they are "
        f"equally good{more}."
    )
