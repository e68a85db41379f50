"""Faster answers from a Transformer on the processor, used only where they are the same answers.

On the processor (CPU), a Transformer answers faster in 16-bit ``bfloat16`` numbers — on processors
that compute them natively (Intel AVX512-BF16 or AMX, AMD Zen 4, Arm's BF16) — than in the usual
32-bit numbers: the bundled MiniLM's matrix products ran 2.1 times as fast, its answers 1.6 to 2.2
times, while int8 (torch's or ONNX Runtime's) changed answers and ONNX Runtime in 32-bit or
``torch.compile`` gained less; docs/inference-speed.md has the numbers. 16-bit numbers round differently, so a model answers that
way only after its answers were compared with exact ones:

- A model's first call compares both ways on ``CHECK_TEXTS`` texts: its own texts, topped up with
  real texts shipped with TextLab when it has fewer (the bundled example's bill titles), so that
  every answer of the model follows one verdict from the first call on. If the fast answers keep
  within the limits of ``answer_agreement.py`` (same category — for a multi-label model, the same
  categories at a probability of 0.5 — for ≥ 99.5 % of texts, probabilities within 0.02, embeddings'
  cosine ≥ 0.999) and come at least ``MIN_SPEEDUP`` times faster, the model answers the fast way
  from then on (the compared texts too); otherwise exactly, with a line in the log that says why. The verdict is kept per model, torch version and computer
  (``answer_verdicts.py``): it is made once, and the same texts get the same answers in every
  later session (only "not faster", which a busy moment can cause, is measured again next session).
- Every later call still compares one text in ``SPOT_SHARE`` both ways. When the fast answers leave
  the limits, that call's answers are all computed again exactly, the log says so, and the model
  answers exactly from then on.

``TEXTLAB_FAST_INFERENCE`` decides: unset or ``auto`` as above; ``0`` (``off``) always exact;
``1`` (``on``) the fast way wherever the answers agree, even if not faster (tests, measurements).
A study switches it off per Transformer with ``mixed_precision = false``. On a graphics card
nothing here applies: there the Transformer's own mixed precision is used.
"""

from __future__ import annotations

import logging
import math
import os
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Any

import numpy as np

from guiapp.core.events import EventCallback, Log
from guiapp.core.models.transformers.answer_agreement import ENOUGH_TEXTS, Tally
from guiapp.core.models.transformers.answer_verdicts import (
    Verdict,
    read_verdict,
    verdict_key,
    weights_digest,
    write_verdict,
)

VARIABLE = "TEXTLAB_FAST_INFERENCE"
MODE = "bfloat16"
CHECK_TEXTS = ENOUGH_TEXTS  # texts compared both ways before a model answers the fast way
SPOT_SHARE = 1 / 256  # afterwards, this share of each call's texts is still compared
MIN_SPEEDUP = 1.2  # the fast way must be at least this much faster (automatic mode)
SMALLEST_HIDDEN = 128  # smaller models spend their time outside the arithmetic: nothing to gain
COMPARE_CHUNK = 64  # texts answered both ways in turn while the speed is measured
FAST_BATCH = 32  # texts per batch on the fast path (the activations stay in the processor's cache)

_OFF, _ON = {"0", "off", "no", "false"}, {"1", "on", "yes", "true"}
_logger = logging.getLogger(__name__)

#: ``run(indices, fast, counted)`` → the answers (one row per index, in that order); ``counted``
#: says whether these texts count for the progress shown (the comparison's second run does not).
Run = Callable[[np.ndarray, bool, bool], np.ndarray]


def switch() -> str:
    """``TEXTLAB_FAST_INFERENCE`` as "auto", "off" or "on" (an unknown value counts as "auto")."""
    value = os.environ.get(VARIABLE, "").strip().lower()
    return "off" if value in _OFF else "on" if value in _ON else "auto"


@cache
def native_bfloat16() -> bool | None:
    """Whether the processor computes bfloat16 natively: True/False where the system says, else None."""
    if sys.platform.startswith("linux"):
        try:
            with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as handle:
                for line in handle:
                    if line.lower().startswith(("flags", "features")):
                        flags = set(line.split(":", 1)[1].split())
                        return bool(flags & {"avx512_bf16", "amx_bf16", "bf16"})
        except OSError:
            return None
        return None
    if sys.platform == "darwin":
        import subprocess

        try:
            answer = subprocess.run(["sysctl", "-n", "hw.optional.arm.FEAT_BF16"], capture_output=True,
                                    text=True, timeout=5, check=False).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return None
        return answer == "1" if answer in ("0", "1") else None
    return None


def fast_dtype() -> Any:
    """The torch type of the fast answers (for ``torch.autocast``)."""
    import torch

    return torch.bfloat16


@dataclass
class _Check:
    """What one process knows about one model's fast answers."""

    verdict: Verdict | None
    tally: Tally
    exact_seconds: float = 0.0
    fast_seconds: float = 0.0
    announced: bool = False
    lock: threading.Lock = field(default_factory=threading.Lock)


_CHECKS: dict[str, _Check] = {}
_CHECKS_LOCK = threading.Lock()


@dataclass(frozen=True)
class FastPath:
    """A model whose answers may come the fast way: its verdict key, kind of answers, and whether
    the switch asks for the fast way even where it is not faster."""

    key: str
    kind: str
    forced: bool = False

    def uses_fast(self, verdict: Verdict | None) -> bool:
        return verdict is not None and verdict.same_answers and (self.forced or verdict.speedup >= MIN_SPEEDUP)


def fast_path_for(net: Any, kind: str, device_type: str, allowed: bool = True) -> FastPath | None:
    """The fast path for ``net`` (a torch model on ``device_type``), or None where answers stay exact:
    switched off, not on the processor, a processor without native bfloat16, or a model too small
    to gain anything (the last two only in automatic mode)."""
    mode = switch()
    if mode == "off" or not allowed or device_type != "cpu":
        return None
    if mode == "auto":
        hidden = getattr(getattr(net, "config", None), "hidden_size", None)
        if native_bfloat16() is False or not isinstance(hidden, int) or hidden < SMALLEST_HIDDEN:
            return None
    return FastPath(verdict_key(weights_digest(net), kind, MODE), kind, forced=mode == "on")


def extra_texts(path: FastPath | None, n: int) -> list[str]:
    """Texts to answer after a call's ``n`` texts so that a model's first call completes its check:
    real texts shipped with TextLab (the bundled example's bill titles). Empty once the model's
    verdict is known, for an empty call, or when the call alone has enough texts."""
    if path is None or n == 0:
        return []
    check = _check_for(path)
    with check.lock:
        missing = 0 if check.verdict is not None else CHECK_TEXTS - check.tally.compared - n
    return reference_texts(missing) if missing > 0 else []


def answer(run: Run, n: int, path: FastPath | None, on_event: EventCallback,
           lengths: np.ndarray | None = None, own: int | None = None) -> np.ndarray:
    """The answers for texts ``0 … own-1`` of ``n`` (``own`` defaults to ``n``; the others are
    :func:`extra_texts`, only compared): exactly (``path`` None), or the checked fast way.
    ``lengths`` (tokens per text) lets the comparison go longest texts first, as the answers do.

    Once a model answers the fast way, every text gets its fast answer (those compared too), so
    that the same texts get the same answers whichever call compared them; until then (a check
    still short of texts), and after a failed comparison, every text gets its exact answer."""
    own = n if own is None else own
    everything = np.arange(own)
    if path is None or own == 0:
        return run(everything, False, True)
    check = _check_for(path)
    with check.lock:
        verdict = check.verdict
    if verdict is not None and not path.uses_fast(verdict):
        return run(everything, False, True)
    if verdict is None:  # still being checked: compare first (with the extra texts), then answer the rest
        extra = np.arange(own, n)
        own_sample = _sample(own, max(CHECK_TEXTS - check.tally.compared - len(extra), 1))
        exact, fast = _compare(run, np.concatenate([own_sample, extra]), lengths, check, path, on_event)
        use_fast = _uses_fast(check, path)
        rest = np.setdiff1d(everything, own_sample, assume_unique=True)
        out = _rows(own, exact)
        out[own_sample] = (fast if use_fast else exact)[:len(own_sample)]
        if len(rest):
            out[rest] = run(rest, use_fast, True)
        return out
    _announce(check, path, on_event)  # known to be the same answers: answer fast, compare a few
    sample = _sample(own, math.ceil(own * SPOT_SHARE))
    rest = np.setdiff1d(everything, sample, assume_unique=True)
    fast_rest = run(rest, True, True) if len(rest) else None
    exact, fast = _compare(run, sample, lengths, check, path, on_event)
    use_fast = _uses_fast(check, path)
    out = _rows(own, exact)
    out[sample] = fast if use_fast else exact
    if fast_rest is not None:
        out[rest] = fast_rest if use_fast else run(rest, False, False)
    return out


@cache
def _example_titles() -> tuple[str, ...]:
    """The bundled example study's texts (US bill titles) in a fixed shuffled order; empty if the
    example cannot be read."""
    try:
        import pandas as pd

        from guiapp.core.locations import example_path

        titles = pd.read_excel(example_path(), engine="calamine", usecols=["Title"])["Title"]
    except (OSError, ValueError, ImportError, KeyError):
        return ()
    titles = [str(t) for t in titles.dropna() if str(t).strip()]
    order = np.random.default_rng(0).permutation(len(titles))
    return tuple(titles[i] for i in order)


def reference_texts(count: int) -> list[str]:
    """``count`` real texts shipped with TextLab for a model's check (fewer if there are fewer)."""
    return list(_example_titles()[:max(count, 0)])


def _uses_fast(check: _Check, path: FastPath) -> bool:
    with check.lock:
        return path.uses_fast(check.verdict)


def forget_checks() -> None:
    """Forget what this process learned about models (the stored verdicts stay): for tests."""
    with _CHECKS_LOCK:
        _CHECKS.clear()


def _check_for(path: FastPath) -> _Check:
    with _CHECKS_LOCK:
        check = _CHECKS.get(path.key)
        if check is None:
            check = _CHECKS[path.key] = _Check(read_verdict(path.key), Tally(path.kind))
        return check


def _sample(n: int, size: int) -> np.ndarray:
    """``size`` of ``n`` texts spread over all of them (the same ones for the same ``n``)."""
    size = min(max(size, 1), n)
    return np.sort(np.random.default_rng(n).choice(n, size=size, replace=False))


def _rows(n: int, like: np.ndarray) -> np.ndarray:
    return np.zeros((n, *like.shape[1:]), dtype=like.dtype)


def _compare(run: Run, sample: np.ndarray, lengths: np.ndarray | None, check: _Check, path: FastPath,
             on_event: EventCallback) -> tuple[np.ndarray, np.ndarray]:
    """Answer ``sample`` exactly and the fast way, add the comparison to the tally, decide or
    revise the verdict; both answers."""
    timing = check.verdict is None
    if timing:  # both ways once on two texts first, so that neither timing holds the warm-up
        run(sample[:2], False, False)
        run(sample[:2], True, False)
    # in turns, a few texts at a time (longest first), so that both ways meet the same load
    order = np.argsort(-lengths[sample], kind="stable") if lengths is not None else np.arange(len(sample))
    chunks = np.array_split(order, max(1, math.ceil(len(order) / COMPARE_CHUNK))) if timing else [order]
    exact = fast = None
    exact_seconds = fast_seconds = 0.0
    for chunk in chunks:
        start = time.perf_counter()
        exact_rows = run(sample[chunk], False, True)
        middle = time.perf_counter()
        fast_rows = run(sample[chunk], True, False)
        exact_seconds += middle - start
        fast_seconds += time.perf_counter() - middle
        if exact is None or fast is None:
            exact, fast = _rows(len(sample), exact_rows), _rows(len(sample), fast_rows)
        exact[chunk], fast[chunk] = exact_rows, fast_rows
    assert exact is not None and fast is not None
    with check.lock:
        check.tally.add(exact, fast)
        problem = check.tally.problem()
        if check.verdict is None:
            check.exact_seconds += exact_seconds
            check.fast_seconds += fast_seconds
            if problem is None and check.tally.compared < CHECK_TEXTS:
                return exact, fast
            speedup = check.exact_seconds / check.fast_seconds if check.fast_seconds > 0 else 0.0
            check.verdict = Verdict(problem is None, round(speedup, 3), check.tally.compared,
                                    problem or check.tally.describe())
            if problem is not None or path.uses_fast(check.verdict):  # "not faster" may be a busy moment:
                write_verdict(path.key, check.verdict)  # kept for this session only, measured again next time
            _tell(on_event, _decided(check.verdict, path), fallback=problem is not None)
            check.announced = True
        elif problem is not None and check.verdict.same_answers:
            check.verdict = replace(check.verdict, same_answers=False, compared=check.tally.compared,
                                    summary=problem)
            write_verdict(path.key, check.verdict)
            _tell(on_event, f"Faster 16-bit answers stopped matching the exact ones ({problem}); these "
                            "answers were computed again in full precision, and this model answers in full "
                            "precision from now on.", fallback=True)
    return exact, fast


def _decided(verdict: Verdict, path: FastPath) -> str:
    if not verdict.same_answers:
        return (f"Faster 16-bit answers were not the same as exact ones ({verdict.summary}): this model "
                "answers in full precision.")
    if not path.uses_fast(verdict):
        return (f"16-bit answers matched the exact ones but were not faster on this computer "
                f"({verdict.speedup:.1f} times): this model answers in full precision.")
    return (f"Answering with 16-bit numbers, {verdict.speedup:.1f} times as fast: checked against full "
            f"precision on {verdict.summary}. {VARIABLE}=0 switches this off.")


def _announce(check: _Check, path: FastPath, on_event: EventCallback) -> None:
    """Say once per process that a model answers the fast way (from a stored verdict)."""
    with check.lock:
        if check.announced or check.verdict is None:
            return
        check.announced = True
        message = _decided(check.verdict, path)
    _tell(on_event, message, fallback=False)


def _tell(on_event: EventCallback, message: str, fallback: bool) -> None:
    on_event(Log(message, "warning" if fallback else "info"))
    (_logger.warning if fallback else _logger.info)(message)


__all__ = ["CHECK_TEXTS", "FAST_BATCH", "MIN_SPEEDUP", "MODE", "SPOT_SHARE", "VARIABLE", "FastPath", "answer",
           "extra_texts", "fast_dtype", "fast_path_for", "forget_checks", "native_bfloat16", "reference_texts",
           "switch"]
