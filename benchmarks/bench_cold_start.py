"""How long TextLab takes from launch to its first window (cold start).

Starts ``python -m guiapp`` in a fresh process (offscreen, settings in a temporary folder) with
``TEXTLAB_EXIT_WHEN_SHOWN=1``: the app prints the clock once the main window is shown and the
event loop runs, then quits. The time counts from just before the process starts. Baseline in the
same run: the floor any PySide6 app pays (``import PySide6.QtWidgets`` and an empty QMainWindow
shown). Reports the median of ``--runs`` runs each (default 5), the app's time over that floor (the
difference and the ratio) and the load average, since a busy machine makes every start slower.
Goal: the window within 1.5 s of the floor.

    python benchmarks/bench_cold_start.py [--runs 5] [--modules]

``--modules`` also lists the heavy libraries loaded by the time the window shows (should be none
of scikit-learn, SciPy, PyTorch, Transformers, XGBoost, Captum, pandas, pyarrow, pyqtgraph).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("sklearn", "scipy", "torch", "transformers", "xgboost", "captum", "pandas", "pyarrow", "pyqtgraph")
GOAL_OVER_FLOOR = 1.5  # seconds the window may take beyond an empty PySide6 window

BASELINE = """
import time
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMainWindow
app = QApplication([])
app.setStyle("Fusion")
window = QMainWindow()
window.resize(1100, 760)
window.show()
def report():
    print(f"TEXTLAB_SHOWN {time.time():.6f}", flush=True)
    app.quit()
QTimer.singleShot(0, report)
app.exec()
"""

# the app, with a report of the heavy modules loaded once the window shows
APP_WITH_MODULES = """
import atexit, sys
atexit.register(lambda: print("MODULES", sorted(m for m in %r if m in sys.modules), flush=True))
sys.argv = ["textlab"]
from guiapp.cli.entry import main
raise SystemExit(main())
""" % (HEAVY,)


def _environment(settings: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        QT_QPA_PLATFORM="offscreen",
        TEXTLAB_EXIT_WHEN_SHOWN="1",
        HOME=settings,
        XDG_CONFIG_HOME=settings,
        XDG_DATA_HOME=settings,
        XDG_CACHE_HOME=os.environ.get("XDG_CACHE_HOME", str(Path.home() / ".cache")),
    )
    env.pop("PYTHONDEVMODE", None)
    return env


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def time_start(arguments: list[str], tree: Path = ROOT) -> tuple[float, float, str]:
    """Seconds from process start to the printed "window shown" clock, the process's CPU seconds
    (start to exit, all threads) and its output."""
    with tempfile.TemporaryDirectory(prefix="textlab-cold-") as settings:
        cpu = _child_cpu()
        started = time.time()
        done = subprocess.run(
            [sys.executable, *arguments], cwd=tree, env=_environment(settings),
            capture_output=True, text=True, timeout=180,
        )
        cpu = _child_cpu() - cpu
    for line in done.stdout.splitlines():
        if line.startswith("TEXTLAB_SHOWN "):
            return float(line.split()[1]) - started, cpu, done.stdout
    raise RuntimeError(f"the window never reported itself shown (exit code {done.returncode}):\n"
                       f"{done.stdout}\n{done.stderr[-3000:]}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--modules", action="store_true", help="list heavy libraries loaded at the first window")
    parser.add_argument("--tree", type=Path, default=ROOT,
                        help="run the app from this source tree (e.g. an export of an older commit)")
    args = parser.parse_args()

    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} ({os.cpu_count()} cores)")
    time_start(["-m", "guiapp"], args.tree)  # warm the disk cache and the .pyc files: "cold" = a new process
    results = {}
    for name, arguments in (("baseline (empty PySide6 window)", ["-c", BASELINE]), ("TextLab first window", ["-m", "guiapp"])):
        runs = [time_start(arguments, args.tree)[:2] for _ in range(args.runs)]
        results[name] = statistics.median(wall for wall, _ in runs)
        cpu = statistics.median(cpu for _, cpu in runs)
        print(f"{name:34s} median {results[name]:.2f} s (CPU {cpu:.2f} s)   runs: "
              f"{' '.join(f'{wall:.2f}' for wall, _ in runs)}")
    app, floor = results["TextLab first window"], results["baseline (empty PySide6 window)"]
    over = app - floor
    print(f"TextLab over the PySide6 floor: +{over:.2f} s ({app / floor:.1f}x the floor); "
          f"goal ≤ {GOAL_OVER_FLOOR:.1f} s over the floor: {'met' if over <= GOAL_OVER_FLOOR else 'NOT met'}")
    if args.modules:
        *_, output = time_start(["-c", APP_WITH_MODULES], args.tree)
        print(next((line for line in output.splitlines() if line.startswith("MODULES")), "MODULES ?"))
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
