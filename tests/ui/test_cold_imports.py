"""The window opens without loading the heavy libraries (cold start).

scikit-learn, SciPy, PyTorch, Transformers, XGBoost and Captum take seconds to import; the window
needs none of them until a job runs, so they are imported inside the jobs (or on first use), never
at the top of a module the window imports. pandas and pyarrow load with the first table, and
pyqtgraph with the first chart drawn or shown. ``benchmarks/bench_cold_start.py`` times the start.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys

SCIENCE = ("sklearn", "scipy", "torch", "transformers", "xgboost", "captum")
TABLES_AND_CHARTS = ("pandas", "pyarrow", "pyqtgraph")
HEAVY = SCIENCE + TABLES_AND_CHARTS


def _loaded_after(code: str) -> list[str]:
    probe = f"{code}; import sys; print(sorted(m for m in {HEAVY!r} if m in sys.modules))"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    return ast.literal_eval(done.stdout.strip().splitlines()[-1])


def test_importing_the_main_window_loads_no_heavy_library():
    assert _loaded_after("import guiapp.ui.main_window") == []


def test_the_command_line_entry_loads_no_heavy_library():
    assert _loaded_after("import guiapp.cli.entry, guiapp.ui.app") == []


def _show_main_window(settings) -> str:  # noqa: ANN001 — a folder for the settings
    return (
        "from guiapp.ui.app import create_application; from guiapp.ui.main_window import MainWindow; "
        "from PySide6.QtCore import QSettings; "
        "QSettings.setDefaultFormat(QSettings.Format.IniFormat); "
        f"QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, {str(settings)!r}); "
        "app = create_application(); window = MainWindow(); window.show(); app.processEvents()"
    )


def test_showing_the_main_window_loads_no_heavy_library(tmp_path):
    assert _loaded_after(_show_main_window(tmp_path)) == []


def test_the_charts_and_tables_still_load_when_first_needed(tmp_path):
    """The deferred imports are real: drawing a chart loads pyqtgraph, making a table loads pandas."""
    code = _show_main_window(tmp_path) + (
        "; window.results_page.f1_chart"
        "; window.data_page.frame_model.frame()"
    )
    loaded = _loaded_after(code)
    assert "pandas" in loaded and "pyqtgraph" in loaded
    assert not set(loaded) & set(SCIENCE)


def test_the_features_package_gives_its_names_on_first_use():
    assert _loaded_after("import guiapp.core.features.tokens, guiapp.core.features.stop_words") == []
    from guiapp.core import features

    for name in features.__all__:
        assert getattr(features, name) is not None


def test_the_app_can_report_its_first_window_and_quit(tmp_path):
    """The hook that ``bench_cold_start.py`` times: ``TEXTLAB_EXIT_WHEN_SHOWN=1 python -m guiapp``."""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", TEXTLAB_EXIT_WHEN_SHOWN="1", HOME=str(tmp_path),
               XDG_CONFIG_HOME=str(tmp_path), XDG_DATA_HOME=str(tmp_path))
    done = subprocess.run([sys.executable, "-m", "guiapp"], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert any(line.startswith("TEXTLAB_SHOWN ") for line in done.stdout.splitlines())
