"""When coding more is unlikely to change the results: the stop signal shown while a researcher codes.

**Stabilising predictions** (Bloodgood & Vijay-Shanker 2009, "A Method for Stopping Active Learning
Based on Stabilizing Predictions and the Need for User-Adjustable Stopping", CoNLL): draw once a
fixed sample of uncoded texts, the *stop set*; after every retraining of the quick model (a *round*)
predict a category for each of its texts and compare with the round before. When successive models
agree on nearly every text, more coding hardly moves the model any more. Bloodgood & Vijay-Shanker
stop when Cohen's κ between successive rounds, averaged over the last three, exceeds 0.99; here the
rule is worded as a researcher reads it, the share of stop-set texts whose predicted category changed,
and it must stay below ``threshold`` (1 %) in **each** of the last ``window`` (3) rounds. κ is
reported beside it.

**Gain of agreement with the coding**: a model can settle while it still learns from new codings
(it agrees with itself but not yet with the coder). So the reading also follows the out-of-fold
macro-F1 of every round, and holds the stop back while that rose by more than ``f1_threshold``
(1 point) over the last ``window`` rounds. Out-of-fold F1 on a few hundred codings is noisy; the
window's net gain, not a single step, is what counts.

The stop set is kept even when some of its texts get coded later: the rule compares models, and
the texts only serve as a fixed place to look.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from guiapp.core.errors import DataError
from guiapp.core.stats.agreement import cohen_kappa

STOP_SET_SIZE = 1000
STOP_THRESHOLD = 0.01  # the usual share of changed answers below which a round counts as settled


@dataclass(frozen=True)
class Round:
    """One retraining of the quick model, as seen on the stop set.

    ``stop_set_predictions`` holds one predicted category per stop-set text, in the stop set's order:
    category names (see :meth:`from_probabilities`; they stay comparable when a category is added)
    or indices into a category list that does not change between rounds.
    """

    n_coded: int
    stop_set_predictions: np.ndarray
    oof_macro_f1: float | None = None

    @classmethod
    def from_probabilities(cls, n_coded: int, probabilities: np.ndarray, categories: Sequence[str],
                           oof_macro_f1: float | None = None) -> Round:
        """The round of a model whose ``probabilities`` (stop-set texts × ``categories``) are given."""
        probabilities = np.asarray(probabilities, dtype=float)
        if probabilities.ndim != 2 or probabilities.shape[1] != len(categories):
            raise DataError(
                f"The stop-set probabilities have shape {probabilities.shape}, but there are {len(categories)} categories.",
                "Give one row per stop-set text and one column per category, in the categories' order.",
            )
        names = np.asarray([str(c) for c in categories], dtype=object)
        predictions = names[probabilities.argmax(axis=1)] if len(probabilities) else np.asarray([], dtype=object)
        return cls(n_coded, predictions, oof_macro_f1)

    def to_dict(self) -> dict:
        return {"n_coded": int(self.n_coded),
                "stop_set_predictions": [_plain(v) for v in np.asarray(self.stop_set_predictions).tolist()],
                "oof_macro_f1": None if self.oof_macro_f1 is None else float(self.oof_macro_f1)}

    @classmethod
    def from_dict(cls, data: dict) -> Round:
        try:
            f1 = data.get("oof_macro_f1")
            return cls(int(data["n_coded"]), np.asarray(data["stop_set_predictions"], dtype=object),
                       None if f1 is None else float(f1))
        except (KeyError, TypeError, ValueError) as error:
            raise DataError("A saved round of the stop signal cannot be read.",
                            "The project file may be damaged; the stop signal starts again with the next retraining.",
                            details=repr(error)) from None


@dataclass(frozen=True)
class StopReading:
    """What the rounds so far say about stopping, with one value per round for a chart.

    ``changed_share[i]`` and ``kappa[i]`` compare round ``i`` with round ``i - 1`` (None for the first
    round and where the two rounds watched stop sets of different sizes); ``f1_gain[i]`` is the change
    of out-of-fold macro-F1 from round ``i - 1`` (None where either is unknown).
    """

    should_stop: bool
    sentence: str
    state: str  # "not yet" | "changing" | "rising" | "stable"
    n_coded: tuple[int, ...] = ()
    changed_share: tuple[float | None, ...] = ()
    kappa: tuple[float | None, ...] = ()
    oof_macro_f1: tuple[float | None, ...] = ()
    f1_gain: tuple[float | None, ...] = field(default=())


def draw_stop_set(pool_rows: Sequence, size: int = STOP_SET_SIZE, seed: int = 0) -> list:
    """The fixed sample of uncoded texts the stop signal watches: ``size`` rows of the pool drawn
    at random (seeded, so the same pool gives the same stop set), or the whole pool when it is
    smaller; kept in the pool's order. Rows, not positions: they stay valid as the pool shrinks."""
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 1:
        raise DataError(f"The stop set cannot have {size!r} texts.", "Give a whole number of texts, 1 or more.")
    rows = list(pool_rows)
    if len(rows) <= size:
        return rows
    chosen = np.sort(np.random.default_rng(seed).choice(len(rows), size=int(size), replace=False))
    return [rows[i] for i in chosen]


def stop_reading(rounds: Sequence[Round], window: int = 3, threshold: float = STOP_THRESHOLD,
                 f1_threshold: float = 0.01) -> StopReading:
    """Whether coding more is unlikely to change the results, and one sentence saying so or why not."""
    _check_settings(window, threshold, f1_threshold)
    rounds = list(rounds)
    changed, kappa = _comparisons(rounds)
    f1 = tuple(_f1(r.oof_macro_f1) for r in rounds)
    gain = (None,) + tuple(None if a is None or b is None else b - a for a, b in zip(f1, f1[1:], strict=False))
    series = {"n_coded": tuple(int(r.n_coded) for r in rounds), "changed_share": changed, "kappa": kappa,
              "oof_macro_f1": f1, "f1_gain": gain[: len(rounds)]}

    def reading(should_stop: bool, state: str, sentence: str) -> StopReading:
        return StopReading(should_stop, sentence, state, **series)

    if rounds and len(np.asarray(rounds[-1].stop_set_predictions)) == 0:
        return reading(False, "not yet", "There are no uncoded texts to watch, so TextLab cannot tell whether "
                       "the model's answers have settled.")
    recent = _trailing_comparable(changed)
    if len(recent) < window:
        return reading(False, "not yet", _too_early(len(rounds), len(recent), window))
    last = recent[-window:]
    watched = len(np.asarray(rounds[-1].stop_set_predictions))
    below = f"fewer than {threshold * 100:g} %"
    in_a_row = "the next round changes" if window == 1 else f"{window} rounds in a row each change"
    if last[-1] >= threshold:
        return reading(False, "changing", (
            f"Keep coding: the last round changed the answer for {_percent(last[-1])} of the {watched:,} "
            f"uncoded texts TextLab watches. It suggests stopping once {in_a_row} {below}."))
    if max(last) >= threshold:
        return reading(False, "changing", (
            f"Nearly settled: the last round changed the answer for only {_percent(last[-1])} of the "
            f"{watched:,} uncoded texts TextLab watches, but one of the last {window} rounds changed "
            f"{_percent(max(last))}. Keep coding until {window} rounds in a row each change {below}."))
    last_rounds = "The last round" if window == 1 else f"The last {window} rounds"
    rise = _window_gain(f1, window)
    if rise is not None and rise > f1_threshold:
        return reading(False, "rising", (
            f"The model's answers have settled ({last_rounds.lower()} changed the answer for {below} of the "
            f"uncoded texts), but its agreement with your coding is still rising: macro-F1 went up by "
            f"{_points(rise)} over {'that round' if window == 1 else 'those rounds'}. Coding more may still help."))
    return reading(True, "stable", (
        f"{last_rounds} changed the answer for {below} of the uncoded texts; coding more is unlikely to "
        "change your results much."))


def _check_settings(window: int, threshold: float, f1_threshold: float) -> None:
    if isinstance(window, bool) or not isinstance(window, (int, np.integer)) or window < 1:
        raise DataError(f"The stop signal cannot look at {window!r} rounds.",
                        "Give a whole number of rounds, 1 or more (3 is usual).")
    if not (isinstance(threshold, (int, float)) and 0 < threshold < 1):
        raise DataError(f"The share of changed answers must lie between 0 and 1, not {threshold!r}.",
                        "Give a share such as 0.01 for 1 %.")
    if not (isinstance(f1_threshold, (int, float)) and 0 <= f1_threshold < 1):
        raise DataError(f"The rise of macro-F1 must lie between 0 and 1, not {f1_threshold!r}.",
                        "Give a rise such as 0.01 for one point of macro-F1.")


def _comparisons(rounds: list[Round]) -> tuple[tuple[float | None, ...], tuple[float | None, ...]]:
    changed: list[float | None] = [None] if rounds else []
    kappa: list[float | None] = [None] if rounds else []
    for before, after in zip(rounds, rounds[1:], strict=False):
        a = np.asarray(before.stop_set_predictions)
        b = np.asarray(after.stop_set_predictions)
        if a.shape != b.shape or a.ndim != 1 or len(a) == 0:
            changed.append(None)
            kappa.append(None)
            continue
        changed.append(float(np.mean(a != b)))
        value = cohen_kappa([_plain(v) for v in a.tolist()], [_plain(v) for v in b.tolist()])
        kappa.append(value if math.isfinite(value) else None)
    return tuple(changed), tuple(kappa)


def _trailing_comparable(changed: tuple[float | None, ...]) -> list[float]:
    """The changed shares since the last round that could not be compared with the one before."""
    recent: list[float] = []
    for value in reversed(changed):
        if value is None:
            break
        recent.append(value)
    return recent[::-1]


def _window_gain(f1: tuple[float | None, ...], window: int) -> float | None:
    if len(f1) <= window or f1[-1] is None or f1[-1 - window] is None:
        return None
    return f1[-1] - f1[-1 - window]


def _too_early(n_rounds: int, n_compared: int, window: int) -> str:
    if n_rounds == 0:
        return ("Too early to say when to stop: the model has not been trained yet. TextLab retrains it while "
                "you code and compares each new model with the one before.")
    needed = f"{window + 1} to see whether its answers settle"
    if n_rounds > n_compared + 1:  # an earlier stop set was replaced
        return (f"Too early to say when to stop: TextLab started watching a new set of uncoded texts and has seen "
                f"the model trained {_times(n_compared + 1)} on it so far; it needs {needed}.")
    return (f"Too early to say when to stop: the model has been trained {_times(n_rounds)} so far; TextLab "
            f"needs {needed}.")


def _f1(value: float | None) -> float | None:
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def _plain(value):
    return value.item() if isinstance(value, np.generic) else value


def _percent(share: float) -> str:
    """0.07 → "7 %", 0.004 → "0.4 %", 0.01 → "1 %"."""
    value = share * 100
    if value == 0:
        return "0 %"
    if value >= 10:
        return f"{value:.0f} %"
    shown = math.floor(round(value * 10, 6)) / 10  # cut, never round up across a threshold
    return "fewer than 0.1 %" if shown == 0 else f"{shown:g} %"


def _points(gain: float) -> str:
    value = gain * 100
    return f"{value:.1f} points" if value < 10 else f"{value:.0f} points"


def _times(n: int) -> str:
    return "once" if n == 1 else ("twice" if n == 2 else f"{n} times")
