"""The engine's worker processes: fits run there so that Cancel can stop them at once.

One pool of the engine's own (loky, the process pool behind joblib) serves every grid search and
final fit of a study; idle workers exit after two minutes. It is not loky's process-wide reusable
executor: joblib's ``Parallel`` reuses that one and expects its own bookkeeping on it, so sharing
it made any later ``joblib.Parallel(backend="loky")`` in the same process fail. Callers wait for results in short slices and
report progress between them, so a Cancel raised by the progress callback takes effect within
``POLL_SECONDS``; the pool's processes are then killed rather than waited for.

Workers end with their parent, also when it is killed outright (SIGKILL, a crash, the task manager),
so no orphan keeps computing for minutes. Each worker's initializer starts a watchdog thread that
exits the worker once its parent is gone (POSIX reparents an orphan, so ``os.getppid()`` changes;
checked every ``WATCHDOG_SECONDS``). On Linux the worker also asks the kernel to kill it when its
parent dies (``prctl(PR_SET_PDEATHSIG, SIGKILL)``), which is immediate; the kernel ties that to the
parent *thread* that started the worker, so it is asked for only when pool and workers are started
from the main thread (the command line), not from the app's short-lived worker threads, whose end
would otherwise kill a pool meant to be reused. On Windows ``os.getppid()`` does not change when the
parent dies; there loky's workers notice the closed pipe only between tasks. A terminal's Ctrl-C
goes to the parent only (workers start with SIGINT blocked and then ignore it); the parent's
KeyboardInterrupt then kills them like a Cancel.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, wait
from contextlib import contextmanager
from typing import Any

POLL_SECONDS = 0.2
IDLE_TIMEOUT_SECONDS = 120
WATCHDOG_SECONDS = 0.2

_POOL: Any = None
_POOL_MAIN_THREAD = False  # whether _POOL was started from the main thread
_POOL_LOCK = threading.Lock()


def pool(n_jobs: int):
    """The engine's pool with ``n_jobs`` workers: the running one when it fits, else a new one."""
    global _POOL, _POOL_MAIN_THREAD
    from joblib.externals.loky import ProcessPoolExecutor

    main_thread = threading.current_thread() is threading.main_thread()
    with _POOL_LOCK:
        current = _POOL
        usable = (current is not None and current._max_workers == n_jobs and _POOL_MAIN_THREAD == main_thread
                  and not current._flags.shutdown and not current._flags.broken)
        if not usable:
            if current is not None:
                current.shutdown(wait=True, kill_workers=True)
            with _ctrl_c_held_back():  # the workers and loky's helper processes start with it blocked
                _POOL = ProcessPoolExecutor(max_workers=n_jobs, timeout=IDLE_TIMEOUT_SECONDS,
                                            initializer=end_with_parent, initargs=(os.getpid(), main_thread))
                _POOL._ensure_executor_running()  # start the workers now rather than at the first submit
            _POOL_MAIN_THREAD = main_thread
        return _POOL


@contextmanager
def _ctrl_c_held_back():
    """Processes started inside begin with SIGINT blocked (a signal mask is inherited), so a
    terminal's Ctrl-C reaches the parent only, which then stops its workers (as the standard
    library's resource tracker does); otherwise a worker still starting up prints a traceback."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def end_with_parent(parent_pid: int, kernel_signal: bool = False) -> None:
    """In a worker process: exit when the process ``parent_pid`` ends (see the module docstring);
    leave Ctrl-C to the parent, also for a worker that loky starts later without the mask."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if kernel_signal:
        _ask_kernel_for_sigkill_when_parent_dies()
    if os.getppid() != parent_pid:  # the parent died before we got here
        os._exit(1)
    thread = threading.Thread(target=_watch_parent, args=(parent_pid,), name="textlab-parent-watchdog", daemon=True)
    thread.start()


def _watch_parent(parent_pid: int) -> None:
    while os.getppid() == parent_pid:
        time.sleep(WATCHDOG_SECONDS)
    os._exit(1)


def _ask_kernel_for_sigkill_when_parent_dies() -> None:
    import sys

    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        pr_set_pdeathsig = 1
        ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, int(signal.SIGKILL), 0, 0, 0)
    except (OSError, AttributeError):  # no prctl: the watchdog still ends the worker
        pass


def shutdown() -> None:
    """Stop the engine's workers (they also exit by themselves when idle)."""
    global _POOL
    with _POOL_LOCK:
        if _POOL is not None:
            _POOL.shutdown(wait=True)
            _POOL = None


def kill(executor) -> None:
    """Stop the workers now (after Cancel or an error); the next call starts a fresh pool."""
    executor.shutdown(wait=True, kill_workers=True)


def wait_some(pending: dict[Future, Any], tick: Callable[[], None]) -> list[Future]:
    """The futures that finished within one slice; ``tick`` (which may raise Cancelled) runs after it."""
    done, _ = wait(list(pending), timeout=POLL_SECONDS, return_when=FIRST_COMPLETED)
    tick()
    return list(done)


def call(n_jobs: int, tick: Callable[[], None], fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` in a worker process, calling ``tick`` every slice while it runs."""
    executor = pool(n_jobs)
    finished = False
    try:
        future = executor.submit(fn, *args)
        pending = {future: None}
        while not wait_some(pending, tick):
            pass
        value = future.result()
        finished = True
        return value
    finally:
        if not finished:
            kill(executor)


def map_calls(n_jobs: int, tick: Callable[[int], None], fn: Callable[[Any], Any], arguments: list[Any]) -> list[Any]:
    """``[fn(a) for a in arguments]``, in worker processes when ``n_jobs`` > 1 (at most one call per
    worker in flight, so a Cancel raised by ``tick`` only has running calls to stop). ``tick`` gets
    the number of calls finished so far."""
    if n_jobs <= 1 or len(arguments) <= 1:
        values = []
        for argument in arguments:
            tick(len(values))
            values.append(fn(argument))
        return values
    executor = pool(n_jobs)
    values: list[Any] = [None] * len(arguments)
    queue = list(reversed(range(len(arguments))))
    pending: dict[Future, int] = {}
    finished = False
    try:
        while queue or pending:
            while queue and len(pending) < n_jobs:
                index = queue.pop()
                pending[executor.submit(fn, arguments[index])] = index
            for future in wait_some(pending, lambda: tick(len(arguments) - len(queue) - len(pending))):
                values[pending.pop(future)] = future.result()
        finished = True
        return values
    finally:
        if not finished:
            kill(executor)
