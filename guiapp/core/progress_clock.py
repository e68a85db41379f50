"""Time left for a running job, robust to slow-downs, bursts and other programs on the processor.

The naive estimate, ``elapsed × (1 − done) / done``, creeps upward for minutes when the work gets
slower than it was at the start (longest texts first, another program starts) and jumps about
when progress comes in bursts. :class:`TimeLeftClock` instead

- measures the speed over the *recent* past: work done and time spent both decay with a half-life
  (``half_life`` seconds), so a burst counts as the work it is and an older speed fades out;
- shows a value that counts down by itself between reports, and only follows the new estimate
  upward when it stays more than ``rise_margin`` above the shown value for ``rise_hold`` seconds
  (so a few slow seconds never make the time left climb), and then not again for ``rise_hold``;
- while little of the work is done, leans on the expected time the study was planned with
  (``reset(now, expected=…)``), blending in the measured speed as the work goes on;
- lets a stall (no progress for longer than the usual gap) raise the estimate only as the whole
  run's average speed says, never by an extrapolation from a faded recent speed;
- rises at most ``max_rise`` times the shown value at once, so a slow stretch makes the time left
  climb in steps rather than jump from 35 s to 5 min;
- says when it is unsure (:attr:`TimeLeftClock.uncertain`: early, during a stall, just after a
  rise, or while recent estimates disagree), which :func:`describe_time_left` words as
  "about 5 min left (a rough guess)";
- rounds what it shows (:func:`describe_time_left`: "about 3 min left").

It is pure (the caller passes the clock time), so tests feed it synthetic timelines.
"""

from __future__ import annotations

import math


class TimeLeftClock:
    """Feed it ``update(now, fraction)`` (fraction of the work done, 0–1); it returns the seconds
    left to show, or None while it is too early to say."""

    def __init__(
        self,
        *,
        half_life: float = 10.0,
        rise_margin: float = 0.15,
        rise_hold: float = 8.0,
        min_elapsed: float = 1.0,
        min_fraction: float = 0.005,
        max_rise: float = 2.0,
        trust_fraction: float = 0.3,
    ) -> None:
        self.half_life = half_life
        self.rise_margin = rise_margin
        self.rise_hold = rise_hold
        self.min_elapsed = min_elapsed
        self.min_fraction = min_fraction
        self.max_rise = max_rise
        self.trust_fraction = trust_fraction  # from this share of the work on, the measured speed alone counts
        self.reset()

    def reset(self, now: float | None = None, expected: float | None = None) -> None:
        """Start again (a new job); ``now`` is when it started (else: at the first update);
        ``expected``: the seconds the whole job was expected to take before it started (None: not known)."""
        self._expected = expected if expected is not None and expected > 0 else None
        self._recent: list[float] = []  # the last raw estimates, to see whether they agree
        self._start = now
        self._last_progress = now  # when the fraction last moved
        self._last_fraction = 0.0
        self._work = 0.0  # decayed work done
        self._time = 0.0  # decayed time it took
        self._gap: float | None = None  # typical seconds between two reports that moved the fraction
        self._now = now or 0.0
        self._shown: float | None = None
        self._shown_at = 0.0
        self._above_since: float | None = None
        self._last_rise = -math.inf

    @property
    def raw_seconds(self) -> float | None:
        """The current estimate from the recent speed alone (before smoothing the display).

        Time since the fraction last moved only counts once it is clearly longer than the usual
        gap between moves: progress that comes in bursts (a fold at a time) is not a stall."""
        if self._work <= 0 or self._time <= 0:
            return None
        work, spent = self._work, self._time
        left = 1.0 - self._last_fraction
        pending = self._now - (self._last_progress or self._now)
        if self.stalled:
            # a stall: the recent speed says nothing more; the whole run's average speed, stall included,
            # grows the estimate steadily (a faded recent speed would blow it up)
            elapsed = self._now - (self._start if self._start is not None else self._now)
            measured = max(left * spent / work - pending, left * elapsed / max(self._last_fraction, 1e-9))
        else:
            # within a usual gap, the time since the last move is part of the time left already spent
            measured = max(0.0, left * spent / work - pending)
        return self._with_expected(measured)

    @property
    def stalled(self) -> bool:
        """No progress for clearly longer than the usual gap between two moves."""
        if self._last_progress is None or self._work <= 0:
            return False
        return self._now - self._last_progress > max(2.0 * (self._gap or 0.0), 3.0)

    def _with_expected(self, measured: float) -> float:
        """Early on, the expected time left (scaled to the speed so far when the job runs slower than
        planned) blended with the measured one; from ``trust_fraction`` of the work on, the measured alone."""
        fraction = self._last_fraction
        if self._expected is None or fraction >= self.trust_fraction:
            return measured
        elapsed = self._now - (self._start if self._start is not None else self._now)
        slower = elapsed / (self._expected * fraction) if fraction > 0 else 1.0
        expected_left = self._expected * (1.0 - fraction) * max(1.0, slower)
        weight = fraction / self.trust_fraction
        return weight * measured + (1.0 - weight) * expected_left

    @property
    def uncertain(self) -> bool:
        """Whether the time left is a rough guess: little done without an expected time, a stall, a
        rise in the last half minute, or recent estimates that disagree by more than half."""
        if self._last_fraction >= 1.0:
            return False
        if self._last_fraction < 0.1 and self._expected is None:
            return True
        if self.stalled or self._now - self._last_rise < 30.0:
            return True
        recent = [value for value in self._recent if value > 5.0]
        return len(recent) >= 3 and max(recent) > 1.5 * min(recent)

    def _decay(self, seconds: float) -> float:
        return 0.5 ** (seconds / self.half_life) if self.half_life > 0 else 0.0

    def update(self, now: float, fraction: float | None) -> float | None:
        """Record the progress at ``now`` (None: no new progress, only time passed)."""
        if self._start is None:
            self._start = self._last_progress = now
        self._now = max(self._now, now)
        if fraction is not None and fraction > self._last_fraction:
            fraction = min(float(fraction), 1.0)
            spent = max(0.0, now - (self._last_progress if self._last_progress is not None else now))
            decay = self._decay(spent)
            self._work = self._work * decay + (fraction - self._last_fraction)
            self._time = self._time * decay + spent
            self._gap = spent if self._gap is None else 0.7 * self._gap + 0.3 * spent
            self._last_progress = now
            self._last_fraction = fraction
        if self._last_fraction >= 1.0:
            self._shown, self._shown_at = 0.0, now
            return 0.0
        raw = self.raw_seconds
        if raw is None or now - self._start < self.min_elapsed or self._last_fraction < self.min_fraction:
            return self._countdown(now)
        if fraction is not None:
            self._recent = [*self._recent[-9:], raw]
        return self._show(now, raw)

    def _countdown(self, now: float) -> float | None:
        if self._shown is None:
            return None
        return max(0.0, self._shown - (now - self._shown_at))

    def _show(self, now: float, raw: float) -> float:
        current = self._countdown(now)
        if current is None or raw <= current:
            # first estimate, or the work goes faster than shown: follow it down at once
            self._set(now, raw)
            self._above_since = None
            return raw
        if raw <= current * (1.0 + self.rise_margin) + 1.0:
            # within the margin: keep counting down
            self._above_since = None
            self._set(now, current)
            return current
        if self._above_since is None:
            self._above_since = now
        if now - self._above_since >= self.rise_hold and now - self._last_rise >= self.rise_hold:
            raised = min(raw, max(current * self.max_rise, current + 10.0))  # in steps, never a leap
            self._set(now, raised)
            self._above_since = None
            self._last_rise = now
            return raised
        self._set(now, current)
        return current

    def _set(self, now: float, value: float) -> None:
        self._shown, self._shown_at = value, now


def round_seconds(seconds: float) -> float:
    """Round a time left so the shown value does not flicker: 5 s steps under a minute, whole
    minutes under 10, 5 minutes under an hour, then quarter hours."""
    if seconds < 60:
        return max(5.0, 5.0 * round(seconds / 5.0))
    if seconds < 600:
        return 60.0 * round(seconds / 60.0)
    if seconds < 3600:
        return 300.0 * round(seconds / 300.0)
    return 900.0 * round(seconds / 900.0)


def describe_time_left(seconds: float | None, uncertain: bool = False) -> str:
    """"about 40 s left", "about 3 min left", "about 1.5 h left"; "" when unknown; with
    ``uncertain``, "about 3 min left (a rough guess)"."""
    if seconds is None:
        return ""
    if seconds < 3:
        return "almost done"
    guess = " (a rough guess)" if uncertain else ""
    rounded = round_seconds(seconds)
    if rounded < 60:
        return f"about {rounded:.0f} s left{guess}"
    minutes = rounded / 60
    if minutes < 60:
        return f"about {minutes:.0f} min left{guess}"
    hours = minutes / 60
    return f"about {hours:.1f} h left".replace(".0 h", " h") + guess
