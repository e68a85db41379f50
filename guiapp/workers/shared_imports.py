"""The machine-learning libraries that background jobs share are imported by one job at a time.

Two threads importing scikit-learn for the first time at once can meet in its circular imports:
Python then hands one of them a half-initialised module ("cannot import name 'clone' from partially
initialized module 'sklearn.base'"), and that job fails — a data check that never finishes while the
quick model trains, say. So before its call, every job that may use them takes a lock and imports
them (the first does the work, about a second; the others find them loaded). A job that reads a
file and touches none of them says so (``Worker(..., light=True)``) and starts at once.
"""

from __future__ import annotations

import importlib
import threading

SHARED = (  # the parts of scikit-learn and SciPy the core's jobs use
    "scipy.sparse", "scipy.stats", "sklearn.base", "sklearn.utils", "sklearn.metrics", "sklearn.model_selection",
    "sklearn.linear_model", "sklearn.svm", "sklearn.calibration", "sklearn.feature_extraction.text",
    "sklearn.cluster", "sklearn.decomposition", "sklearn.preprocessing",
)
_lock = threading.Lock()
_loaded = False


def import_shared_libraries() -> None:
    """Import :data:`SHARED` unless done; a second caller waits until the first has finished."""
    global _loaded
    if _loaded:
        return
    with _lock:
        if not _loaded:
            for name in SHARED:
                importlib.import_module(name)
            _loaded = True
