"""How fast TextLab reads a large workbook, against pandas' fastest engine
(``pandas.read_excel(engine="calamine")``), and how long it stalls a GUI thread while it reads.

    python benchmarks/bench_read_xlsx.py [--rows 100000] [--csv-rows 1000000] [--skip-openpyxl]

The honest baseline is pandas with engine="calamine": the same Rust reader TextLab uses, so the
headline ratio is what TextLab's own work adds or saves (cell types, dates, progress, the
GIL-free reading): 1.2× to 1.8× faster (50,000–100,000 rows), not a large speed-up. pandas'
default engine, openpyxl, is much slower (about 11×) and is printed beside it only for scale
(``--skip-openpyxl`` leaves it out).

Writes a rows × 4 workbook (id, a ~15-word text, a category, a date) with xlsxwriter into a
temporary folder, then reads it in fresh child processes, one per reader, so that memory
figures don't mix: our ``read_table``, ``pandas.read_excel(engine="calamine")`` and
``pandas.read_excel(engine="openpyxl")``.

Measures (one summary line each):
- time: wall-clock seconds of the read call, and the ratio to pandas+calamine (then openpyxl);
- memory: peak resident memory (RSS) during the read minus RSS just before it, in a fresh
  child process (Linux: the kernel's peak counter VmHWM, reset before the read; elsewhere
  psutil RSS sampled every 10 ms). RSS, not tracemalloc, because calamine allocates in Rust;
- GUI stall: a probe thread sleeps 5 ms in a loop and records how late it wakes up; the
  largest gap (and the 99th percentile) is how long the read kept the GIL from a GUI thread.
Then the same stall probe while ``read_table`` loads a CSV with ``--csv-rows`` rows.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

WORDS = ["the", "government", "policy", "health", "tax", "school", "vote", "bill", "law", "court", "police", "war", "trade", "money", "city", "farm", "energy", "water", "budget", "reform", "citizens", "rights", "election", "defence", "transport", "housing"]
CATEGORIES = ["economy", "health", "defence", "environment", "other"]


def write_workbook(path: Path, rows: int) -> None:
    import xlsxwriter

    rng = random.Random(0)
    workbook = xlsxwriter.Workbook(str(path), {"constant_memory": True})
    sheet = workbook.add_worksheet("coded texts")
    date_format = workbook.add_format({"num_format": "yyyy-mm-dd"})
    sheet.write_row(0, 0, ["id", "text", "category", "date"])
    start = dt.datetime(2015, 1, 1)
    for i in range(1, rows + 1):
        sheet.write_number(i, 0, i)
        sheet.write_string(i, 1, " ".join(rng.choices(WORDS, k=15)))
        sheet.write_string(i, 2, rng.choice(CATEGORIES))
        sheet.write_datetime(i, 3, start + dt.timedelta(days=i % 3000), date_format)
    workbook.close()


def write_csv(path: Path, rows: int) -> None:
    rng = random.Random(1)
    with open(path, "w", encoding="utf-8", newline="") as handle:
        handle.write("id,text,category,score\n")
        lines = []
        for i in range(rows):
            text = " ".join(rng.choices(WORDS, k=6))
            lines.append(f'{i},"{text}",{CATEGORIES[i % 5]},{i % 7}\n')
            if len(lines) >= 10_000:
                handle.write("".join(lines))
                lines.clear()
        handle.write("".join(lines))


class StallProbe:
    """A thread that sleeps 5 ms at a time and records how late it wakes (GIL stalls)."""

    def __init__(self) -> None:
        self.gaps: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="stall-probe", daemon=True)

    def _run(self) -> None:
        last = time.perf_counter()
        while not self._stop.is_set():
            time.sleep(0.005)
            now = time.perf_counter()
            self.gaps.append(now - last)
            last = now

    def __enter__(self) -> StallProbe:
        self._thread.start()
        time.sleep(0.02)
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def summary(self) -> dict:
        gaps = sorted(self.gaps) or [0.0]
        return {
            "max_ms": gaps[-1] * 1000,
            "p99_ms": gaps[min(int(len(gaps) * 0.99), len(gaps) - 1)] * 1000,
            "samples": len(gaps),
        }


def _rss_bytes() -> int:
    import psutil

    return psutil.Process().memory_info().rss


class PeakRss:
    """Peak RSS increase during a block: Linux VmHWM after a reset, else psutil sampling."""

    def __enter__(self) -> PeakRss:
        self.before = _rss_bytes()
        self.method = "VmHWM"
        try:
            Path("/proc/self/clear_refs").write_text("5")  # resets the kernel's peak RSS
        except OSError:
            self.method = "psutil sampling"
            self.peak = self.before
            self._stop = threading.Event()
            self._sampler = threading.Thread(target=self._sample, daemon=True)
            self._sampler.start()
        return self

    def _sample(self) -> None:
        while not self._stop.wait(0.01):
            self.peak = max(self.peak, _rss_bytes())

    def __exit__(self, *exc) -> None:
        if self.method == "VmHWM":
            for line in Path("/proc/self/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    self.peak = int(line.split()[1]) * 1024
        else:
            self._stop.set()
            self._sampler.join()
        self.delta = max(self.peak - self.before, 0)


def child(reader: str, path: str) -> None:
    """Run one reader in this (fresh) process and print its measures as JSON."""
    import pandas as pd

    if reader == "textlab":
        from guiapp.core.tables.reader import read_table

        events = []
        with PeakRss() as memory, StallProbe() as probe:
            started = time.perf_counter()
            frame = read_table(path, on_event=events.append).frame
            seconds = time.perf_counter() - started
        stall = probe.summary()
    else:
        with PeakRss() as memory:
            started = time.perf_counter()
            frame = pd.read_excel(path, engine=reader)
            seconds = time.perf_counter() - started
        stall, events = None, []
    print(
        json.dumps(
            {
                "seconds": seconds,
                "rows": len(frame),
                "columns": list(map(str, frame.columns)),
                "memory_mb": memory.delta / 2**20,
                "memory_method": memory.method,
                "stall": stall,
                "progress_events": len(events),
            }
        )
    )


def run_child(reader: str, path: Path) -> dict:
    root = Path(__file__).resolve().parents[1]
    env = dict(os.environ, PYTHONPATH=str(root) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    output = subprocess.run(
        [sys.executable, __file__, "--child", reader, str(path)],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    ).stdout
    return json.loads(output.strip().splitlines()[-1])


def _ratio(baseline: float, ours: float) -> str:
    """"read_table is 1.2x faster than" / "read_table is 1.2x slower than"."""
    if ours <= baseline:
        return f"read_table is {baseline / ours:.1f}x faster than"
    return f"read_table is {ours / baseline:.1f}x slower than"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--csv-rows", type=int, default=1_000_000)
    parser.add_argument("--skip-openpyxl", action="store_true")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return
    with tempfile.TemporaryDirectory(prefix="textlab-bench-") as folder:
        workbook = Path(folder) / "coded_texts.xlsx"
        started = time.perf_counter()
        write_workbook(workbook, args.rows)
        size = workbook.stat().st_size / 2**20
        print(
            f"workbook: {args.rows:,} rows x 4 columns, {size:.1f} MB, "
            f"written in {time.perf_counter() - started:.1f} s"
        )
        ours = run_child("textlab", workbook)
        print(
            f"time   read_table (python-calamine):      {ours['seconds']:7.2f} s "
            f"({ours['rows']:,} rows, {ours['progress_events']} progress events)"
        )
        calamine = run_child("calamine", workbook)
        print(f"time   pandas.read_excel(calamine):       {calamine['seconds']:7.2f} s")
        assert calamine["rows"] == ours["rows"], (calamine["rows"], ours["rows"])
        print(f"ratio  {_ratio(calamine['seconds'], ours['seconds'])} pandas+calamine (the honest baseline: "
              "the same Rust reader)")
        theirs = None
        if not args.skip_openpyxl:
            theirs = run_child("openpyxl", workbook)
            print(f"time   pandas.read_excel(openpyxl):       {theirs['seconds']:7.2f} s")
            assert theirs["rows"] == ours["rows"], (theirs["rows"], ours["rows"])
            print(f"ratio  {_ratio(theirs['seconds'], ours['seconds'])} pandas+openpyxl (pandas' default "
                  "engine, for scale only)")
        method = ours["memory_method"]
        line = (
            f"memory peak RSS increase ({method}, fresh process): "
            f"read_table {ours['memory_mb']:.0f} MB, pandas+calamine {calamine['memory_mb']:.0f} MB"
        )
        if theirs:
            line += f", pandas+openpyxl {theirs['memory_mb']:.0f} MB"
        print(line)
        print(
            f"stall  max GIL stall seen by a 5 ms probe thread during read_table (workbook): "
            f"{ours['stall']['max_ms']:.0f} ms (p99 {ours['stall']['p99_ms']:.0f} ms)"
        )
        if args.csv_rows:
            csv_path = Path(folder) / "coded_texts.csv"
            write_csv(csv_path, args.csv_rows)
            csv = run_child("textlab", csv_path)
            print(
                f"stall  while read_table loads a {args.csv_rows:,}-row CSV "
                f"({csv_path.stat().st_size / 2**20:.0f} MB, {csv['seconds']:.2f} s, "
                f"{csv['progress_events']} progress events): max {csv['stall']['max_ms']:.0f} "
                f"ms, p99 {csv['stall']['p99_ms']:.0f} ms (target p99 < 50 ms, max < 200 ms)"
            )


if __name__ == "__main__":
    main()
