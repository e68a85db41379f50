"""The engine's worker processes end with their parent, also when it is killed outright (SIGKILL):
by the kernel's parent-death signal when the pool was started from the main thread (Linux), and by
each worker's watchdog thread otherwise (the app starts pools from its worker threads)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

psutil = pytest.importorskip("psutil")

BUSY_PARENT = """
import os, sys, threading, time
from guiapp.core.compute import process_pool

def busy(seconds):
    end = time.time() + seconds
    while time.time() < end:
        pass
    return os.getpid()

def start():
    executor = process_pool.pool(2)
    futures = [executor.submit(busy, 60) for _ in range(2)]
    print(" ".join(str(pid) for pid in executor._processes), flush=True)
    return futures

if sys.argv[1] == "thread":
    box = []
    thread = threading.Thread(target=lambda: box.append(start()))
    thread.start()
    thread.join()
else:
    start()
time.sleep(120)
"""


def alive(pids: list[int]) -> list[int]:
    found = []
    for pid in pids:
        try:
            if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                found.append(pid)
        except psutil.NoSuchProcess:
            pass
    return found


@pytest.mark.skipif(os.name != "posix", reason="the watchdog reads os.getppid(), which changes on POSIX only")
@pytest.mark.parametrize("started_from", ["main", "thread"])
def test_busy_workers_end_soon_after_their_parent_is_killed(started_from) -> None:
    parent = subprocess.Popen([sys.executable, "-c", BUSY_PARENT, started_from], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True)
    try:
        workers = [int(pid) for pid in parent.stdout.readline().split()]
        assert len(workers) == 2 and alive(workers) == workers
        time.sleep(1.0)  # the workers have run their initializer and are computing
        assert alive(workers) == workers
    finally:
        parent.send_signal(signal.SIGKILL)
        parent.wait()
    deadline = time.monotonic() + 5
    while alive(workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert alive(workers) == []
