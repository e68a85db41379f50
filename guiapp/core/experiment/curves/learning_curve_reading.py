"""A learning curve read in plain words: would more coded texts still help, and for which categories?

**Still rising?** The gain in mean test macro-F1 over the last doubling of the training texts —
from the largest size to the largest size at most about half as big (within 5%, so that 320 counts
as half of 639; or, when there is none, the size
before it, with the gain scaled to one doubling, i.e. divided by log2 of the ratio of the sizes) —
is read by one rule, :func:`trend_of`, that the plain reading here and the methods appendix share:

- a gain of less than ``WORTH_A_DOUBLING`` (0.01 macro-F1 per doubling) either way is too small
  to matter: "levelling off", whatever the spread;
- a larger gain is "rising" when the change between the two sizes exceeds the spread between
  repeats — half the min–max range over the repeats, the larger of the two sizes', and never less
  than ``MIN_NOISE`` (0.005 macro-F1) — and "unclear" when it does not (the curve cannot tell);
- a larger loss beyond the spread is "falling"; within it, "levelling off".

The spread is quoted per doubling (divided by the doublings between the two sizes), next to the
gain. With one repeat there is no spread and only ``MIN_NOISE`` is used. This is a rule of thumb
for a handful of repeats, not a test: the repeats share one test set, so their spread understates
the uncertainty of the level, though not of the change between sizes, which is what is read here.

**Which categories would gain most?** Per category, the least-squares slope of its mean F1 against
log2(size) over the last (up to) three sizes: the F1 gained per doubling of the coded texts. The
categories with the largest slopes of at least ``WORTH_A_DOUBLING`` are named. Such a gain comes from coding more texts *at
random*; coding more texts of that category specifically is a further, usually cheaper, step.

A language model with your codebook has a curve over the examples per category it is shown (k)
instead: the same rule reads its last doubling of k, and the reading says what the examples added
to its score without any (:func:`read_examples_curve`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from guiapp.core.experiment.curves.learning_curve_results import LearningCurveResult, ModelCurve

MIN_NOISE = 0.005
WORTH_A_DOUBLING = 0.01  # macro-F1 per doubling of the coded texts below which a gain is too small to matter
SLOPE_SIZES = 3  # the last sizes the category slopes are fitted on
HALF_TOLERANCE = 1.05  # "at most half as big", allowing for sizes rounded to round numbers (320 of 639)
RISING, LEVELLING_OFF, FALLING, UNCLEAR, TOO_SHORT = "rising", "levelling off", "falling", "unclear", "too short"


@dataclass
class CurveReading:
    """What one model's curve says, as numbers and in words."""

    model: str
    trend: str  # "rising" | "levelling off" | "falling" | "unclear" | "too short" (:func:`trend_of`)
    gain_per_doubling: float | None
    spread: float | None  # the spread between draws, in macro-F1 (module docstring)
    from_size: int | None
    to_size: int | None
    category_slopes: dict[str, float]  # F1 per doubling over the last sizes
    words: str
    spread_per_doubling: float | None = None  # the spread divided by the doublings from from_size to to_size


def trend_of(gain_per_doubling: float, spread_per_doubling: float) -> str:
    """The one rule for reading a curve's last doubling (module docstring): "rising", "levelling
    off", "falling" or "unclear", from the gain in macro-F1 per doubling of the coded texts and the
    spread between draws, also per doubling."""
    if abs(gain_per_doubling) < WORTH_A_DOUBLING:
        return LEVELLING_OFF
    if gain_per_doubling > 0:
        return RISING if gain_per_doubling > spread_per_doubling else UNCLEAR
    return FALLING if -gain_per_doubling > spread_per_doubling else LEVELLING_OFF


def gain_words(trend: str, gain: float, spread: float, step: str) -> str:
    """The gain and its uncertainty as the rule reads them: "+0.006 macro-F1 per doubling from 320
    to 639 coded texts, less than 0.01 per doubling: too small to matter (draws spread ±0.005)"."""
    number = f"{gain:+.3f} macro-F1 per doubling {step}"
    noise = f"the draws spread ±{spread:.3f}"
    if trend == LEVELLING_OFF and abs(gain) < WORTH_A_DOUBLING:
        return f"{number}, less than {WORTH_A_DOUBLING:.2f} per doubling: too small to matter ({noise})"
    if trend == LEVELLING_OFF:
        return f"{number}, a loss within the spread between draws (±{spread:.3f}): no gain"
    if trend == RISING:
        return f"{number}, more than the spread between draws (±{spread:.3f})"
    if trend == UNCLEAR:
        return f"{number}, but within the spread between draws (±{spread:.3f})"
    return f"{number}, beyond the spread between draws of ±{spread:.3f}"


def read_curve(curve: ModelCurve, categories: list[str]) -> CurveReading:
    """The reading of one model's curve (see the module docstring)."""
    if curve.over_examples:
        return read_examples_curve(curve, categories)
    rows = curve.summary()
    if len(rows) < 2:
        return CurveReading(curve.name, TOO_SHORT, None, None, None, None, {},
                            f"{curve.name}: one size only, so the curve cannot show whether more coded texts help.")
    before, last, gain, spread, per_doubling, trend = _last_doubling(rows)
    slopes = category_slopes(curve, categories)
    step = f"from {before.size:,} to {last.size:,} coded texts"
    said = gain_words(trend, gain, per_doubling, step)
    if trend == RISING:
        words = f"{curve.name} is still rising: {said}. More coded texts would likely still help."
    elif trend == UNCLEAR:
        words = (f"{curve.name} may still be rising: {said}, so the curve cannot tell whether the gain is real. "
                 "More draws per size would tell; more coded texts may help.")
    elif trend == FALLING:
        words = (f"{curve.name} fell {step} ({gain:+.3f} macro-F1 per doubling, beyond the spread between draws of "
                 f"±{per_doubling:.3f}); check the setting chosen, which was tuned on another size.")
    else:
        words = (f"{curve.name} is levelling off: {said}. More coded texts of the same kind would likely help "
                 "little.")
    gaining = [(name, slope) for name, slope in sorted(slopes.items(), key=lambda item: -item[1])
               if slope >= WORTH_A_DOUBLING]  # the same bar as for the whole curve
    if gaining:
        named = ", ".join(f"“{name}” ({slope:+.3f} F1 per doubling)" for name, slope in gaining[:2])
        words += f" Categories that would gain most from more coded texts: {named}."
    elif slopes:
        words += " No category's F1 still rises clearly over the last sizes."
    return CurveReading(curve.name, trend, float(gain), float(spread), before.size, last.size, slopes, words,
                        float(per_doubling))


def read_examples_curve(curve: ModelCurve, categories: list[str]) -> CurveReading:
    """The reading of a language model's curve over the examples per category it is shown (k): the
    same rule over the last doubling of k (from k = 1 on), and what the examples added to its score
    without any."""
    rows = curve.summary()
    shown = [row for row in rows if row.size > 0]
    none = next((row for row in rows if row.size == 0), None)
    added = ""
    if none is not None and shown:
        best = max(shown, key=lambda row: row.mean)
        added = (f" Without examples (zero-shot) it scored {none.mean:.3f} macro-F1; its best was {best.mean:.3f} "
                 f"with {best.size:,} per category.")
    if len(shown) < 2:
        return CurveReading(curve.name, TOO_SHORT, None, None, None, None, {},
                            f"{curve.name}: too few numbers of examples to tell whether more examples help.{added}")
    before, last, gain, spread, per_doubling, trend = _last_doubling(shown)
    said = gain_words(trend, gain, per_doubling, f"from {before.size:,} to {last.size:,} examples per category")
    if trend == RISING:
        meaning = "more examples in the prompt would likely still help"
    elif trend == UNCLEAR:
        meaning = "the draws of examples differ too much to tell whether more would help"
    elif trend == FALLING:
        meaning = "more examples made it worse (a longer prompt can confuse a small model)"
    else:
        meaning = "more examples in the prompt would likely help little"
    words = (f"{curve.name} learns nothing from the coded texts; over the examples per category it is shown: {said}: "
             f"{meaning}.{added}")
    return CurveReading(curve.name, trend, float(gain), float(spread), before.size, last.size,
                        category_slopes(curve, categories), words, float(per_doubling))


def _last_doubling(rows: list) -> tuple:
    """Over the curve's last doubling of size (its last size and the largest size at most half of it,
    or the one before when none is): the two rows, the gain in macro-F1 per doubling, the spread
    between draws, that spread per doubling, and the trend they make."""
    last = rows[-1]
    halves = [row for row in rows[:-1] if row.size * 2 <= last.size * HALF_TOLERANCE]
    before = halves[-1] if halves else rows[-2]
    doublings = float(np.log2(last.size / before.size))
    gain = (last.mean - before.mean) / doublings
    spread = max((last.high - last.low) / 2, (before.high - before.low) / 2, MIN_NOISE)
    per_doubling = spread / doublings
    return before, last, gain, spread, per_doubling, trend_of(gain, per_doubling)


def category_slopes(curve: ModelCurve, categories: list[str]) -> dict[str, float]:
    """Per category: least-squares slope of the mean F1 against log2(size), last sizes only (a curve
    over examples: from one example per category on)."""
    rows = [row for row in curve.summary() if row.size > 0][-SLOPE_SIZES:]
    if len(rows) < 2:
        return {}
    x = np.log2([row.size for row in rows])
    means = np.array([row.category_means for row in rows])  # sizes × categories
    slopes = np.polyfit(x, means, 1)[0]
    return {name: round(float(slope), 6) for name, slope in zip(categories, np.atleast_1d(slopes), strict=True)}


def read_curves(result: LearningCurveResult) -> list[CurveReading]:
    """The reading of every model whose curve was drawn."""
    return [read_curve(model, result.categories) for model in result.models if model.ok and model.points]
