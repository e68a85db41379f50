"""How responsive the window stays while TextLab reads a 1,000,000-row CSV (and checks it).

A QTimer fires every 10 ms on the GUI thread while the real worker (the same one the Data page
uses) reads the file; each late tick is a stall the user would feel. Baseline in the same run:
the same probe with no job running. Targets while loading: p99 < 50 ms, max < 200 ms.

    python benchmarks/bench_gui_stall.py [--rows 1000000] [--no-health]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import make_csv, percentile

TICK_MS = 10


def probe(app, start_job, quiet_seconds: float | None = None) -> tuple[list[float], float]:
    """Run the event loop until the job ends (or ``quiet_seconds``); return stalls in ms and wall time."""
    from PySide6.QtCore import QElapsedTimer, QEventLoop, QTimer

    loop = QEventLoop()
    clock = QElapsedTimer()
    stalls: list[float] = []
    last = [0]

    def tick() -> None:
        now = clock.elapsed()
        stalls.append(max(0.0, now - last[0] - TICK_MS))
        last[0] = now

    timer = QTimer()
    timer.setInterval(TICK_MS)
    timer.timeout.connect(tick)
    clock.start()
    timer.start()
    started = time.perf_counter()
    if start_job is None:
        QTimer.singleShot(int(quiet_seconds * 1000), loop.quit)
    else:
        start_job(loop.quit)
    loop.exec()
    timer.stop()
    return stalls, time.perf_counter() - started


def report(name: str, stalls: list[float], seconds: float) -> None:
    print(
        f"{name:<28} wall {seconds:6.2f} s   ticks {len(stalls):5d}   "
        f"p50 {percentile(stalls, 50):5.1f} ms   p99 {percentile(stalls, 99):6.1f} ms   max {max(stalls or [0]):6.1f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--no-health", action="store_true", help="skip the health-report measurement")
    args = parser.parse_args()

    from guiapp.core.tables.reader import read_table
    from guiapp.ui.app import create_application
    from guiapp.workers import Worker

    app = create_application()  # the app's own start-up (environment, style), as a user gets it
    with tempfile.TemporaryDirectory() as folder:
        path = make_csv(Path(folder) / "big.csv", args.rows)
        size_mb = path.stat().st_size / 1e6
        print(f"File: {args.rows:,} rows, {size_mb:.0f} MB CSV; probe every {TICK_MS} ms on the GUI thread")
        baseline, seconds = probe(app, None, quiet_seconds=2.0)
        report("idle (baseline)", baseline, seconds)

        holder: dict = {}

        def start_load(done) -> None:
            worker = Worker(read_table, path, name="bench read")
            worker.signals.finished.connect(lambda table: holder.update(table=table))
            worker.signals.failed.connect(lambda error: holder.update(error=error))
            worker.signals.done.connect(done)
            holder["worker"] = worker
            worker.start()

        stalls, seconds = probe(app, start_load)
        if "error" in holder:
            raise SystemExit(f"loading failed: {holder['error']}")
        report("while loading", stalls, seconds)
        load_p99, load_max = percentile(stalls, 99), max(stalls or [0])
        print(f"Loading: p99 stall {load_p99:.1f} ms (target < 50), max {load_max:.1f} ms (target < 200) -> "
              f"{'PASS' if load_p99 < 50 and load_max < 200 else 'FAIL'}")
        print(f"Ratio p99 loading / idle: {load_p99 / max(percentile(baseline, 99), 0.1):.1f}x")

        if not args.no_health:
            # The whole Data step as a user meets it: the real window opens the file, guesses
            # the columns, fills the table and computes the data-health report.
            from guiapp.ui.main_window import MainWindow

            window = MainWindow()
            window.show()
            page = window.data_page

            def start_page(done) -> None:
                page.reportReady.connect(lambda _report: done())
                window.errors.reported.connect(lambda error: (holder.update(error=error), done()))
                window.open_path(path)

            stalls, seconds = probe(app, start_page)
            if "error" in holder:
                raise SystemExit(f"the Data step failed: {holder['error']}")
            report("open + map + health (window)", stalls, seconds)
            print(f"Whole Data step: p99 stall {percentile(stalls, 99):.1f} ms, max {max(stalls or [0]):.1f} ms "
                  f"({page.report.n_rows:,} rows checked)")
            window.close()


if __name__ == "__main__":
    main()
