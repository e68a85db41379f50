"""What computer and software a replication package was written on: TextLab's version, Python, the
operating system, the processor, the graphics card (when PyTorch sees one) and the version of every
installed Python distribution — as JSON for a reviewer and as a lock file (``name==version`` per
line) with which ``pip install -r requirements.txt`` rebuilds the same libraries.

The processor's name comes from the operating system without running other programs: Linux's
``/proc/cpuinfo``, else what Python's ``platform`` knows.
"""

from __future__ import annotations

import os
import platform
import re
import sys
from importlib import metadata
from typing import Any

from guiapp import __version__

TEXTLAB_DISTRIBUTION = "textlab"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


def installed_distributions() -> dict[str, str]:
    """Every installed distribution's name → version, sorted by name (case ignored); a distribution
    installed twice counts once, as Python imports the first it finds."""
    found: dict[str, tuple[str, str]] = {}
    for distribution in metadata.distributions():
        try:
            name, version = distribution.metadata["Name"], distribution.version
        except (KeyError, TypeError, ValueError):
            continue
        if not name or not version or not _NAME.match(str(name)):
            continue
        key = _canonical(str(name))
        found.setdefault(key, (str(name), str(version)))
    return dict(sorted(found.values(), key=lambda item: _canonical(item[0])))


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def processor_name() -> str:
    """The processor's model in words ("Intel(R) Xeon(R) …"), or the machine type when unknown."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as info:
            for line in info:
                key, _, value = line.partition(":")
                if key.strip() in ("model name", "Model", "Hardware") and value.strip():
                    return value.strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def memory_bytes() -> int | None:
    """The computer's memory in bytes, where the system says (POSIX); None elsewhere."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):
        return None


def graphics() -> dict[str, Any]:
    """PyTorch's view of the graphics card: its version, CUDA's, and the card's name (None without
    one); an empty dict when PyTorch is not installed or cannot be loaded."""
    try:
        import torch
    except Exception:  # noqa: BLE001 — a broken PyTorch install only means no card is described
        return {}
    described: dict[str, Any] = {"torch": str(torch.__version__), "cuda": torch.version.cuda or None, "gpu": None}
    try:
        if torch.cuda.is_available():
            described["gpu"] = torch.cuda.get_device_name(0)
            described["gpu_count"] = torch.cuda.device_count()
    except Exception:  # noqa: BLE001 — a driver that fails to answer: no card
        described["gpu"] = None
    return described


def describe_environment(run_environment: dict[str, Any] | None = None) -> dict[str, Any]:
    """The environment here, as ``environment/environment.json`` holds it; ``run_environment`` is
    what the study's run recorded (``ExperimentResult.environment``), kept beside it."""
    return {
        "textlab": __version__,
        "python": sys.version.split()[0],
        "python_implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "system": platform.system(),
        "machine": platform.machine(),
        "processor": processor_name(),
        "cpu_count": os.cpu_count(),
        "memory_bytes": memory_bytes(),
        "graphics": graphics(),
        "distributions": installed_distributions(),
        "recorded_by_the_run": dict(run_environment or {}),
    }


def requirements_text(distributions: dict[str, str]) -> str:
    """A lock file for pip: ``name==version`` per line. TextLab itself is named in a comment (it is
    installed as its own README says, not from this list)."""
    lines = [
        "# The Python libraries of the computer that wrote this replication package, each at its version.",
        "# Rebuild them in a fresh environment with:  python -m pip install -r requirements.txt",
    ]
    for name, version in distributions.items():
        if _canonical(name) == TEXTLAB_DISTRIBUTION:
            lines.append(f"# {name}=={version}  (TextLab itself: install this version as its README says)")
        else:
            lines.append(f"{name}=={version}")
    return "\n".join(lines) + "\n"
