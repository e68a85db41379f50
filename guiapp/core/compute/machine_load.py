"""How busy this computer is with other programs, so that an expected time can allow for it.

The load is read from the operating system: the number of processes running or waiting for a
processor, averaged over the last minute (``os.getloadavg``, Linux and macOS), or, where that is
missing (Windows), the share of the processor in use now (``psutil``). What TextLab's own window
takes is small and counted with the rest. When neither can be read, the estimate says so instead of
pretending the computer is idle.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

BUSY_FLOOR = 0.25  # cores' worth of other work below which the computer counts as idle
MAX_SLOWDOWN = 10.0


@dataclass(frozen=True)
class MachineLoad:
    cores: int
    busy: float | None  # cores' worth of work other programs keep busy; None: it could not be read

    @property
    def known(self) -> bool:
        return self.busy is not None

    def slowdown(self) -> float:
        """How many times longer a job that wants every core takes while the others share them too
        (1 when idle or unknown)."""
        if self.busy is None or self.busy < BUSY_FLOOR:
            return 1.0
        return min(1.0 + self.busy / max(self.cores, 1), MAX_SLOWDOWN)

    def describe(self) -> str:
        """The clause the expected time carries: "" when the computer is idle."""
        if self.busy is None:
            return ("if nothing else runs (how busy this computer is could not be read; other programs would make "
                    "it slower)")
        if self.busy < BUSY_FLOOR:
            return ""
        share = min(self.busy, float(self.cores))
        return (f"allowing for other programs, which keep {share:.1f} of its {self.cores} cores busy and make it "
                f"take {self.slowdown():.1f} times as long")


def read_load() -> MachineLoad:
    """This computer's load now (see the module docstring)."""
    return MachineLoad(os.cpu_count() or 1, system_load())


def system_load() -> float | None:
    """Cores' worth of work running or waiting now (None: it cannot be read here)."""
    try:
        return max(0.0, float(os.getloadavg()[0]))
    except (AttributeError, OSError):
        pass
    try:
        import psutil

        return float(psutil.cpu_percent(interval=0.1)) / 100.0 * (os.cpu_count() or 1)
    except (ImportError, OSError, RuntimeError):
        return None
