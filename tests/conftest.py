"""Test setup shared by the whole suite: headless Qt, leaked-thread check, shared data paths."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
import threading
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
# One compute thread per test process (torch, BLAS, OpenMP; set before any of them is imported). On a
# busy 2-core machine two threads wait for each other at every small matrix product: fine-tuning a
# model took 10-30 times longer (300 s instead of 12 s) than on one thread. Override to measure.
os.environ.setdefault("OMP_NUM_THREADS", "1")
# Exact Transformer answers, whatever the processor: whether 16-bit answers are used depends on a speed
# check, which a busy machine can tip. The fast path's own tests switch it on themselves.
os.environ.setdefault("TEXTLAB_FAST_INFERENCE", "0")
# TextLab's own folders (caches, saved models of runs, autosaves) live in a folder of this test run,
# never in the user's; within one run the caches still work (sentence embeddings, word vectors).
_RUN_FOLDER = Path(tempfile.mkdtemp(prefix="textlab-tests-"))
atexit.register(shutil.rmtree, _RUN_FOLDER, ignore_errors=True)
os.environ.setdefault("TEXTLAB_CACHE_DIR", str(_RUN_FOLDER / "cache"))
os.environ.setdefault("TEXTLAB_DATA_DIR", str(_RUN_FOLDER / "data"))

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"
FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture
def shared_data() -> Path:
    """The real corpora in ../shared/data; the test is skipped on a clone without them."""
    if not SHARED_DATA.is_dir():
        pytest.skip("../shared/data is not present (the real corpora sit beside the repository, not in it)")
    return SHARED_DATA


@pytest.fixture
def fixtures_dir() -> Path:
    return FIXTURES


# The engine's process pool (loky's reusable executor) keeps a manager thread while its worker
# processes idle, so the next grid search starts without spawning; it is not a leaked job.
_POOL_THREADS = ("ExecutorManagerThread", "QueueFeederThread")


def _live_threads() -> set[threading.Thread]:
    return {
        t for t in threading.enumerate() if t.is_alive() and not t.daemon and not t.name.startswith(_POOL_THREADS)
    }


@pytest.fixture(autouse=True)
def idle_computer(monkeypatch):
    """Expected times read this computer's load (``core/compute/machine_load.py``); tests see an idle
    one, so what they assert does not depend on what else runs here (a test may set a load of its own)."""
    from guiapp.core.compute import machine_load

    monkeypatch.setattr(machine_load, "system_load", lambda: 0.0)


@pytest.fixture(autouse=True)
def no_leaked_threads():
    """Fail a test that leaves a Python thread or a TextLab worker thread running."""
    before = _live_threads()
    yield
    try:
        from guiapp.workers.registry import running_workers
    except ImportError:  # workers not importable in a pure-core environment
        running = []
    else:
        running = running_workers(wait_ms=3000)
    leaked = [t for t in _live_threads() - before if t.is_alive()]
    for thread in leaked:
        thread.join(timeout=3)
    leaked = [t.name for t in leaked if t.is_alive()]
    assert not running, f"test leaked running worker threads: {running}"
    assert not leaked, f"test leaked running threads: {leaked}"
