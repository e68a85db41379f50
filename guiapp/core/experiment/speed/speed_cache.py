"""Speeds measured on this computer, kept in the cache folder so estimates need no re-measuring.

One JSON file, ``<cache>/speeds.json``: per machine identity (processor, cores, GPU), per key
("embed:all-MiniLM-L6-v2", "fit:svm:bow", "finetune:all-MiniLM-L6-v2:gpu") a value and when it
was measured. A value older than :data:`MAX_AGE_DAYS`, or measured on another machine (a new
processor, a GPU added), is not used: it is measured again. Everything here is cheap (no torch).
"""

from __future__ import annotations

import json
import os
import platform
import time
from pathlib import Path

from guiapp.core import locations
from guiapp.core.atomic import write_text_atomic

VERSION = 2  # 2: the fit factors are against the constants re-measured with benchmarks/bench_estimates.py
MAX_AGE_DAYS = 30.0


def speeds_file() -> Path:
    return locations.cache_dir() / "speeds.json"


def _cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine_identity(gpu: str | None = None) -> str:
    """Processor model, number of cores, operating system and the GPU (None: processor only)."""
    return f"{_cpu_name()} | {os.cpu_count()} cores | {platform.system()} {platform.machine()} | gpu: {gpu or 'none'}"


_MEMO: dict[str, tuple[tuple[int, int], dict]] = {}  # path -> (mtime, size), data: estimates read often


def _load() -> dict:
    path = speeds_file()
    try:
        stat = path.stat()
        stamp = (stat.st_mtime_ns, stat.st_size)
        memo = _MEMO.get(str(path))
        if memo is not None and memo[0] == stamp:
            return json.loads(json.dumps(memo[1]))
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not (isinstance(data, dict) and data.get("version") == VERSION):
        return {}
    _MEMO[str(path)] = (stamp, data)
    return json.loads(json.dumps(data))


def read_speed(key: str, identity: str, now: float | None = None) -> float | None:
    """The value measured for ``key`` on this machine, or None (never measured, or stale)."""
    entry = _load().get("machines", {}).get(identity, {}).get(key)
    if not isinstance(entry, dict):
        return None
    value, measured = entry.get("value"), entry.get("measured")
    if not isinstance(value, int | float) or not isinstance(measured, int | float) or value <= 0:
        return None
    if (now if now is not None else time.time()) - measured > MAX_AGE_DAYS * 86400:
        return None
    return float(value)


def write_speeds(values: dict[str, float], identity: str, now: float | None = None) -> None:
    """Record measured values (atomic write; a failure to write only costs a re-measurement)."""
    data = _load() or {"version": VERSION}
    machine = data.setdefault("machines", {}).setdefault(identity, {})
    stamp = now if now is not None else time.time()
    for key, value in values.items():
        machine[key] = {"value": float(value), "measured": stamp}
    try:
        write_text_atomic(speeds_file(), json.dumps(data, indent=1, sort_keys=True))
    except OSError:
        pass
