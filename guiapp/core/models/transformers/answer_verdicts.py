"""What TextLab found out about a model's faster answers, kept so that it is checked only once.

A verdict says whether a model's faster answers (16-bit numbers on the CPU, see
``fast_inference.py``) were the same answers as the exact ones, on how many texts, and how much
faster they came. It belongs to the model's exact weights, the kind of answers, the way they are
computed and this computer: its key is a SHA-256 over the weights (every tensor's name, type,
shape and bytes), the kind, the mode, torch's version and the processor's name. A new model, a
retrained one, another torch or another computer is checked afresh.

Verdicts live in ``<cache>/fast-answers/<key>.json``, written atomically. A file that cannot be
read or does not hold a verdict is ignored (and written again after the next check), so a
broken file costs one check, never a wrong answer.
"""

from __future__ import annotations

import hashlib
import json
import platform
import threading
import weakref
from dataclasses import asdict, dataclass
from functools import cache
from pathlib import Path
from typing import Any

from guiapp.core import locations
from guiapp.core.atomic import write_text_atomic

FOLDER = "fast-answers"
FORMAT = 1

_DIGESTS: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()
_DIGESTS_LOCK = threading.Lock()


@dataclass(frozen=True)
class Verdict:
    """The outcome of comparing a model's faster answers with its exact ones."""

    same_answers: bool  # the fast answers kept within the limits of ``answer_agreement.py``
    speedup: float  # exact seconds / fast seconds on the compared texts (0: not measured)
    compared: int  # how many texts were compared
    summary: str  # the comparison (or what went wrong) in words

    def to_json(self) -> str:
        return json.dumps({"format": FORMAT, **asdict(self)}, indent=1)

    @classmethod
    def from_json(cls, text: str) -> Verdict | None:
        """The verdict in ``text``; None if it is not one (a damaged or foreign file)."""
        try:
            data = json.loads(text)
        except ValueError:
            return None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            return None
        same, speedup, compared, summary = (data.get(k) for k in ("same_answers", "speedup", "compared", "summary"))
        if not isinstance(same, bool) or isinstance(speedup, bool) or not isinstance(speedup, int | float) \
                or speedup < 0 or speedup != speedup or isinstance(compared, bool) or not isinstance(compared, int) \
                or compared < 0 or not isinstance(summary, str):
            return None
        return cls(same, float(speedup), compared, summary)


def weights_digest(net: Any) -> str:
    """SHA-256 of a torch model's weights and buffers (computed once per model object)."""
    with _DIGESTS_LOCK:
        known = _DIGESTS.get(net)
    if known is not None:
        return known
    import torch

    digest = hashlib.sha256()
    for name, tensor in net.state_dict().items():
        if not isinstance(tensor, torch.Tensor):
            continue
        data = tensor.detach().to("cpu").contiguous()
        digest.update(f"{name}|{data.dtype}|{tuple(data.shape)}\n".encode())
        digest.update(data.reshape(-1).view(torch.uint8).numpy().tobytes() if data.numel() else b"")
    value = digest.hexdigest()
    with _DIGESTS_LOCK:
        _DIGESTS[net] = value
    return value


@cache
def processor_name() -> str:
    """The processor's model name ("Intel(R) Xeon(R) Platinum 8481C"), or the machine type."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as handle:
            for line in handle:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def verdict_key(digest: str, kind: str, mode: str) -> str:
    """The key of a verdict: the weights, the kind of answers, the mode, torch and the processor."""
    import torch

    parts = {"weights": digest, "kind": kind, "mode": mode, "torch": torch.__version__,
             "processor": processor_name(), "format": FORMAT}
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def verdict_path(key: str) -> Path:
    return locations.cache_dir() / FOLDER / f"{key}.json"


def read_verdict(key: str) -> Verdict | None:
    """The stored verdict for ``key``; None if there is none or its file is broken."""
    try:
        text = verdict_path(key).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    return Verdict.from_json(text)


def write_verdict(key: str, verdict: Verdict) -> bool:
    """Store ``verdict`` atomically; False if the cache folder cannot be written (then the model is
    checked again in the next session, nothing else changes)."""
    try:
        write_text_atomic(verdict_path(key), verdict.to_json())
    except OSError:
        return False
    return True


__all__ = ["FOLDER", "Verdict", "processor_name", "read_verdict", "verdict_key", "verdict_path", "weights_digest",
           "write_verdict"]
