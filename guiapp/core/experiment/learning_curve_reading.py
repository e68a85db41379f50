"""A learning curve read in plain words: would more coded texts still help, and for which categories?

**Still rising?** The gain in mean test macro-F1 over the last doubling of the training texts —
from the largest size to the largest size at most half as big (or, when there is none, the size
before it, with the gain scaled to one doubling, i.e. divided by log2 of the ratio of the sizes) —
is compared with the spread between repeats: half the min–max range over the repeats, the larger
of the two sizes', and never less than ``MIN_NOISE`` (0.005 macro-F1). A gain above the spread
reads "still rising"; a gain within ±spread "levelling off"; a loss beyond it "falling". With one
repeat there is no spread and only ``MIN_NOISE`` is used. This is a rule of thumb for a handful of
repeats, not a test: the repeats share one test set, so their spread understates the uncertainty of
the level, though not of the change between sizes, which is what is read here.

**Which categories would gain most?** Per category, the least-squares slope of its mean F1 against
log2(size) over the last (up to) three sizes: the F1 gained per doubling of the coded texts. The
categories with the largest positive slopes are named. Such a gain comes from coding more texts *at
random*; coding more texts of that category specifically is a further, usually cheaper, step.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from guiapp.core.experiment.learning_curve_results import LearningCurveResult, ModelCurve

MIN_NOISE = 0.005
SLOPE_SIZES = 3  # the last sizes the category slopes are fitted on


@dataclass
class CurveReading:
    """What one model's curve says, as numbers and in words."""

    model: str
    trend: str  # "rising" | "levelling off" | "falling" | "too short"
    gain_per_doubling: float | None
    spread: float | None
    from_size: int | None
    to_size: int | None
    category_slopes: dict[str, float]  # F1 per doubling over the last sizes
    words: str


def read_curve(curve: ModelCurve, categories: list[str]) -> CurveReading:
    """The reading of one model's curve (see the module docstring)."""
    rows = curve.summary()
    if len(rows) < 2:
        return CurveReading(curve.name, "too short", None, None, None, None, {},
                            f"{curve.name}: one size only, so the curve cannot show whether more coded texts help.")
    last = rows[-1]
    halves = [row for row in rows[:-1] if row.size * 2 <= last.size]
    before = halves[-1] if halves else rows[-2]
    gain = (last.mean - before.mean) / np.log2(last.size / before.size)
    spread = max((last.high - last.low) / 2, (before.high - before.low) / 2, MIN_NOISE)
    trend = "rising" if gain > spread else "falling" if gain < -spread else "levelling off"
    slopes = category_slopes(curve, categories)
    step = f"from {before.size:,} to {last.size:,} coded texts"
    if trend == "rising":
        words = (f"{curve.name} is still rising: {gain:+.3f} macro-F1 per doubling {step}, more than the spread between "
                 f"draws (±{spread:.3f}). More coded texts would likely still help.")
    elif trend == "falling":
        words = (f"{curve.name} fell {step} ({gain:+.3f} macro-F1 per doubling, beyond the spread between draws of "
                 f"±{spread:.3f}); check the setting chosen, which was tuned on another size.")
    else:
        words = (f"{curve.name} is levelling off: {gain:+.3f} macro-F1 per doubling {step}, within the spread between "
                 f"draws (±{spread:.3f}). More coded texts of the same kind would likely help little.")
    gaining = [(name, slope) for name, slope in sorted(slopes.items(), key=lambda item: -item[1]) if slope > MIN_NOISE]
    if gaining:
        named = ", ".join(f"“{name}” ({slope:+.3f} F1 per doubling)" for name, slope in gaining[:2])
        words += f" Categories that would gain most from more coded texts: {named}."
    elif slopes:
        words += " No category's F1 still rises clearly over the last sizes."
    return CurveReading(curve.name, trend, float(gain), float(spread), before.size, last.size, slopes, words)


def category_slopes(curve: ModelCurve, categories: list[str]) -> dict[str, float]:
    """Per category: least-squares slope of the mean F1 against log2(size), last sizes only."""
    rows = curve.summary()[-SLOPE_SIZES:]
    if len(rows) < 2:
        return {}
    x = np.log2([row.size for row in rows])
    means = np.array([row.category_means for row in rows])  # sizes × categories
    slopes = np.polyfit(x, means, 1)[0]
    return {name: round(float(slope), 6) for name, slope in zip(categories, np.atleast_1d(slopes), strict=True)}


def read_curves(result: LearningCurveResult) -> list[CurveReading]:
    """The reading of every model whose curve was drawn."""
    return [read_curve(model, result.categories) for model in result.models if model.ok and model.points]
