"""How many threads torch uses for a long computation on the CPU: the cores that are free now.

torch runs each operation on one OpenMP thread per core, and the threads wait for each other at
the end of every operation. When other programs keep the cores busy, one of torch's threads is
always waiting for the processor while the others spin until it comes back: fine-tuning measured
13 times slower on 2 busy cores. One thread per *free* core avoids that, so a long job asks a
:class:`CpuThreads` (``with CpuThreads() as threads: … threads.tick()``):

- the cores this process may use: its CPU affinity, capped by a container's CPU quota;
- how much of those cores other programs used over the last seconds: the cores' busy time
  (``/proc/stat``, or psutil elsewhere) less this process's own CPU time;
- threads = cores − other programs' busy cores, rounded, at least 1 and at most torch's own count
  (or ``TEXTLAB_CPU_THREADS``, which also pins it: then nothing is measured).

The choice is made when the job starts (from the seconds before it: loading the model, reading
the texts) and again every few seconds while it runs (:meth:`CpuThreads.tick`, cheap enough for
every step); the count torch had is restored when the job ends. Results do not depend on the count
beyond the last digits of floating-point sums.
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Self

import torch

PIN_VARIABLE = "TEXTLAB_CPU_THREADS"
RECHECK_SECONDS = 4.0  # how often a running job looks again
SHORTEST_WINDOW = 0.5  # seconds of measurement needed before a choice is trusted
REMEMBERED_SECONDS = 60.0  # a job too short to measure starts from the last measurement this recent

_last_seen: tuple[float, float] | None = None  # (time.monotonic(), other programs' busy cores)


@dataclass(frozen=True)
class Sample:
    """Busy seconds of the allowed cores and of this process, at one moment."""

    at: float  # time.monotonic()
    cores_busy: float | None  # None where the busy time cannot be read
    own: float


def pinned_threads() -> int | None:
    """The thread count set in ``TEXTLAB_CPU_THREADS`` (a whole number ≥ 1), else None."""
    value = os.environ.get(PIN_VARIABLE, "").strip()
    return int(value) if value.isdigit() and int(value) >= 1 else None


def allowed_cpus() -> list[int]:
    """The processors this process may run on (all of them where the system cannot say)."""
    try:
        return sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        pass
    try:
        import psutil

        return sorted(psutil.Process().cpu_affinity())
    except (ImportError, AttributeError, OSError, Exception):  # noqa: BLE001 - psutil's own errors
        return list(range(os.cpu_count() or 1))


def quota_cores(root: Path = Path("/sys/fs/cgroup")) -> float | None:
    """The CPU quota of this process's container in cores (cgroup v2 ``cpu.max``), else None."""
    try:
        quota, period = (root / "cpu.max").read_text(encoding="ascii").split()[:2]
        return None if quota == "max" else max(int(quota) / int(period), 1.0)
    except (OSError, ValueError):
        return None


def usable_cores() -> int:
    """How many cores this process may use: its affinity, capped by a container's quota."""
    cores = len(allowed_cpus())
    quota = quota_cores()
    return max(1, min(cores, int(quota + 0.5)) if quota is not None else cores)


def choose(cores: int, others_busy: float, ceiling: int) -> int:
    """Threads for ``cores`` usable cores of which other programs keep ``others_busy`` busy."""
    return max(1, min(ceiling, cores, int(cores - others_busy + 0.5)))


def _proc_stat_busy(cpus: list[int], path: str = "/proc/stat") -> float | None:
    """Seconds the given processors have been busy since boot (Linux), else None."""
    try:
        with open(path, encoding="ascii") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return None
    wanted = {f"cpu{i}" for i in cpus}
    ticks = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    busy = 0
    found = False
    for line in lines:
        name, _, rest = line.partition(" ")
        if name in wanted:
            values = [int(x) for x in rest.split()]
            busy += sum(values[:8]) - values[3] - values[4]  # all but idle and waiting for disks
            found = True
    return busy / ticks if found else None


def _psutil_busy(cpus: list[int]) -> float | None:
    try:
        import psutil

        per_cpu = psutil.cpu_times(percpu=True)
        return sum(sum(t) - t.idle - getattr(t, "iowait", 0.0) for i, t in enumerate(per_cpu) if i in cpus)
    except (ImportError, AttributeError, OSError, Exception):  # noqa: BLE001 - psutil's own errors
        return None


def take_sample(cpus: list[int]) -> Sample:
    busy = _proc_stat_busy(cpus) if sys.platform.startswith("linux") else _psutil_busy(cpus)
    own = os.times()
    return Sample(time.monotonic(), busy, own.user + own.system)


def others_busy(before: Sample, after: Sample) -> float | None:
    """Cores other programs kept busy between two samples (None if too short or unreadable)."""
    seconds = after.at - before.at
    if before.cores_busy is None or after.cores_busy is None or seconds < SHORTEST_WINDOW:
        return None
    others = (after.cores_busy - before.cores_busy) - (after.own - before.own)
    return max(0.0, others / seconds)


class CpuThreads:
    """Sets torch's thread count to the free cores for a long job and keeps it there (a context
    manager; :meth:`tick` after each step). ``history`` lists (seconds, others' busy cores,
    threads) of every choice, for the log and for tests."""

    def __init__(self, recheck_seconds: float = RECHECK_SECONDS, enabled: bool = True) -> None:
        self.recheck_seconds = recheck_seconds
        self.pinned = pinned_threads()
        self.enabled = enabled or self.pinned is not None
        self.cpus = allowed_cpus()
        self.cores = usable_cores()
        self.history: list[tuple[float, float | None, int]] = []
        self.started = time.monotonic()
        self._window = take_sample(self.cpus) if self.enabled and self.pinned is None else None
        self._previous = torch.get_num_threads()
        self.ceiling = self.pinned or self._previous
        self.threads = self._previous

    def __enter__(self) -> Self:
        self._previous = torch.get_num_threads()
        self.ceiling = self.pinned or self._previous
        self.threads = self._previous
        if self.pinned is not None:
            self._set(self.pinned, None)
        elif self.enabled:
            self.tick(force=True)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.enabled and torch.get_num_threads() != self._previous:
            torch.set_num_threads(self._previous)

    def tick(self, force: bool = False) -> int:
        """Look again if the last look is ``recheck_seconds`` old (or ``force``); the threads now."""
        if self._window is None or not self.enabled:
            return self.threads
        now = time.monotonic()
        if not force and now - self._window.at < self.recheck_seconds:
            return self.threads
        global _last_seen
        sample = take_sample(self.cpus)
        busy = others_busy(self._window, sample)
        if busy is None:  # too short a window to tell: the last measurement if recent, else keep the count
            if force and _last_seen is not None and now - _last_seen[0] < REMEMBERED_SECONDS:
                self._set(choose(self.cores, _last_seen[1], self.ceiling), _last_seen[1])
            return self.threads
        self._window = sample
        _last_seen = (now, busy)
        self._set(choose(self.cores, busy, self.ceiling), busy)
        return self.threads

    def describe(self) -> str:
        """The choices in words, for the log: "2 threads on 2 cores", "1 to 2 threads on 2 cores
        (fewer while other programs kept cores busy)"."""
        counts = [threads for _, _, threads in self.history] or [self.threads]
        low, high = min(counts), max(counts)
        text = f"{low if low == high else f'{low} to {high}'} thread{'s' if high != 1 else ''} on {self.cores} cores"
        if self.pinned is not None:
            return text + f" (set by {PIN_VARIABLE})"
        if low < min(self.ceiling, self.cores):
            text += " (fewer while other programs kept cores busy)"
        return text

    @property
    def slowed(self) -> bool:
        """Whether other programs' work made this job use fewer threads than it could."""
        counts = [threads for _, _, threads in self.history]
        return self.pinned is None and bool(counts) and min(counts) < min(self.ceiling, self.cores)

    def _set(self, threads: int, busy: float | None) -> None:
        if threads != torch.get_num_threads():
            torch.set_num_threads(threads)
        self.threads = threads
        self.history.append((time.monotonic() - self.started, busy, threads))


__all__ = ["PIN_VARIABLE", "CpuThreads", "allowed_cpus", "choose", "others_busy", "quota_cores", "usable_cores"]
