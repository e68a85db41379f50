"""The machine-learning libraries that background jobs share are imported by one job at a time.

Two threads importing scikit-learn for the first time at once can meet in its circular imports:
Python then hands one of them a half-initialised module ("cannot import name 'clone' from partially
initialized module 'sklearn.base'"), and that job fails — a data check that never finishes while the
quick model trains, say. So before its call, every job that may use them takes a lock and imports
them (the first does the work, about two seconds; the others find them loaded). A job that reads a
file and touches none of them says so (``Worker(..., light=True)``) and starts at once.

PyTorch is among them although a bag-of-words job never calls it: scikit-learn's list of estimators
(which saving a model with skops walks) imports it, and PyTorch's initialisation crashes the process
when the GUI thread collects garbage at that moment. So it is imported here, first, with the
garbage collector paused.
"""

from __future__ import annotations

import gc
import importlib
import threading

SHARED = (  # PyTorch, and the parts of scikit-learn and SciPy the core's jobs use
    "torch", "scipy.sparse", "scipy.stats", "sklearn.base", "sklearn.utils", "sklearn.metrics", "sklearn.model_selection",
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
            collecting = gc.isenabled()
            gc.disable()  # no collection by another thread while PyTorch initialises
            try:
                for name in SHARED:
                    importlib.import_module(name)
            finally:
                if collecting:
                    gc.enable()
            _loaded = True
