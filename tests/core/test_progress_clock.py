"""The time-left clock on synthetic progress timelines: steady, slowed down 2× midway, bursty."""

from __future__ import annotations

import pytest

from guiapp.core.progress_clock import TimeLeftClock, describe_time_left, round_seconds

STEP = 0.5  # seconds between reports (the worker throttles to ~10 a second; the UI ticks)


def run(speed, total_work: float = 1.0, step: float = STEP, clock: TimeLeftClock | None = None):
    """Feed ``clock`` a timeline where ``speed(t)`` is the work done per second at time t.
    Returns [(t, shown, true_left)] with the true time left computed from the timeline itself."""
    clock = clock or TimeLeftClock()
    clock.reset(0.0)
    t, done, rows, fractions = 0.0, 0.0, [], []
    while done < total_work:
        t += step
        done = min(total_work, done + speed(t, done) * step)
        fractions.append((t, done / total_work))
    end = t
    for t, fraction in fractions:
        rows.append((t, clock.update(t, fraction), end - t))
    return rows


def rises(rows):
    shown = [(t, s) for t, s, _ in rows if s is not None]
    return [(t1, s0, s1) for (_, s0), (t1, s1) in zip(shown, shown[1:], strict=False) if s1 > s0 + 1e-9]


def test_steady_work_counts_down_and_never_climbs():
    rows = run(lambda t, done: 1 / 300)  # five minutes of even work
    assert rises(rows) == []
    for t, shown, true_left in rows:
        if t > 10:
            assert shown == pytest.approx(true_left, abs=0.05 * 300)


def test_slowing_down_by_half_midway_climbs_rarely_and_converges():
    # another program starts after 100 s and halves the speed: 200 s of work becomes 300 s
    rows = run(lambda t, done: 1 / 200 if t < 100 else 1 / 400)
    up = rises(rows)
    assert 1 <= len(up) <= 4
    times = [t for t, _, _ in up]
    assert all(later - earlier >= 8.0 for earlier, later in zip(times, times[1:], strict=False))
    assert all(t > 100 + 8.0 for t in times)  # never before the slower speed has lasted a while
    for t, shown, true_left in rows:
        if 100 + 60 <= t <= 280:  # a minute after the slow-down the shown time is close to the truth
            assert shown == pytest.approx(true_left, rel=0.25, abs=5)


def test_bursty_progress_does_not_make_the_time_left_climb():
    # a fold finishes every 12 s (nothing in between), 25 folds
    def speed(t, done):
        return (1 / 25) / STEP if round(t / STEP) % round(12 / STEP) == 0 else 0.0

    rows = run(speed)
    for t, s0, s1 in rises(rows):
        assert s1 <= s0 * 1.3 + 5, (t, s0, s1)
    assert len(rises(rows)) <= 2
    for t, shown, true_left in rows:
        if t > 60:
            assert shown == pytest.approx(true_left, rel=0.3, abs=15)


def test_noisy_speed_with_another_program_on_and_off_climbs_rarely():
    import random

    rng = random.Random(7)
    factors = [rng.choice([1.0, 0.5, 0.8, 1.2]) for _ in range(100)]
    rows = run(lambda t, done: factors[int(t // 10) % 100] / 400 * rng.uniform(0.3, 1.7))
    up = rises(rows)
    assert len(up) <= 12  # at most about once every 40 s over a ~7 minute run
    times = [t for t, _, _ in up]
    assert all(later - earlier >= 8.0 for earlier, later in zip(times, times[1:], strict=False))


def test_speeding_up_follows_the_estimate_down():
    # longest texts first: the work gets faster as it goes
    rows = run(lambda t, done: (1 + 3 * done) / 240)
    assert rises(rows) == []
    assert rows[-1][1] == 0.0


def test_a_stall_does_not_climb_until_it_lasts():
    clock = TimeLeftClock()
    clock.reset(0.0)
    for i in range(1, 41):  # 20 s of steady work to 20 %
        shown = clock.update(i * STEP, i * 0.005)
    assert shown == pytest.approx(80, rel=0.05)
    values = [clock.update(20 + i * STEP, None) for i in range(1, 14)]  # 6.5 s with no progress
    assert all(b <= a for a, b in zip(values, values[1:], strict=False))


def test_nothing_is_shown_before_the_first_second_or_first_progress():
    clock = TimeLeftClock()
    clock.reset(0.0)
    assert clock.update(0.5, 0.1) is None
    assert clock.update(2.0, 0.0) is None or clock.update(2.0, 0.0) >= 0
    assert TimeLeftClock().update(5.0, 0.0) is None
    assert clock.update(3.0, 1.0) == 0.0


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(None, ""), (1, "almost done"), (42, "about 40 s left"), (61, "about 1 min left"),
     (185, "about 3 min left"), (1420, "about 25 min left"), (5400, "about 1.5 h left"), (7300, "about 2 h left")],
)
def test_time_left_is_rounded_in_plain_words(seconds, text):
    assert describe_time_left(seconds) == text


def test_rounding_steps():
    assert round_seconds(12) == 10
    assert round_seconds(2) == 5
    assert round_seconds(150) == 120
    assert round_seconds(1000) == 900


def _fast_then_stalled_then_slow(clock: TimeLeftClock) -> list[tuple[float, float | None, bool]]:
    """The walk's run: a quick model to 80 % in 40 s, a long piece with no progress for 60 s, then the
    last 20 % over 120 s. Returns (t, shown, uncertain) every half second."""
    clock.reset(0.0)
    rows, t = [], 0.0
    while t < 220:
        t += STEP
        fraction = 0.02 * t if t <= 40 else (0.8 if t <= 100 else 0.8 + 0.2 * (t - 100) / 120)
        rows.append((t, clock.update(t, min(fraction, 1.0)), clock.uncertain))
    return rows


def test_a_stall_after_quick_work_makes_the_time_left_climb_in_steps_not_leap():
    rows = _fast_then_stalled_then_slow(TimeLeftClock())
    shown = [(t, value) for t, value, _ in rows if value is not None]
    for (_, before), (t, after) in zip(shown, shown[1:], strict=False):
        assert after <= max(2.0 * before, before + 10.0) + 1e-6, (t, before, after)
    at_stall_start = next(value for t, value in shown if t >= 40)
    assert at_stall_start < 30
    during = [value for t, value in shown if 40 <= t <= 100]
    assert max(during) < 5 * 60  # the stall alone never makes it "5 min"


def test_the_time_left_says_it_is_a_rough_guess_during_a_stall_and_after_a_rise():
    rows = _fast_then_stalled_then_slow(TimeLeftClock())
    assert all(uncertain for t, _, uncertain in rows if 50 <= t <= 100)
    assert not any(uncertain for t, _, uncertain in rows if 15 <= t <= 38)  # steady work: a firm estimate
    assert describe_time_left(300, uncertain=True) == "about 5 min left (a rough guess)"


def test_the_expected_time_steers_the_first_estimates_then_the_measured_speed_takes_over():
    def first_and_late(expected):
        clock = TimeLeftClock()
        clock.reset(0.0, expected=expected)
        shown = {}
        for i in range(1, 401):  # 10 % in the first 4 s, then 90 % over 196 s: 200 s in all
            t = i * STEP
            fraction = 0.1 * t / 4 if t <= 4 else 0.1 + 0.9 * (t - 4) / 196
            shown[t] = clock.update(t, min(fraction, 1.0))
        return shown[4.0], shown[150.0]

    early_blind, late_blind = first_and_late(None)
    early_told, late_told = first_and_late(200.0)
    assert early_blind < 60  # the quick start alone promises under a minute
    assert early_told > 120  # the plan's 200 s keeps it honest
    assert late_told == pytest.approx(50, abs=10) and late_blind == pytest.approx(50, abs=10)
