"""How fast TextLab writes a predictions workbook, against pandas' ``DataFrame.to_excel``.

    python benchmarks/bench_export_xlsx.py [--rows 100000] [--skip-openpyxl]

Builds a rows × 10 table (5 text, 5 number columns) and one model's predictions over 5 categories
(predicted category, 5 probabilities, top words), then, in this one process:
- ours: ``write_excel`` (constant_memory at this size, formats, colour scale, frozen header);
- baseline: ``pandas.DataFrame.to_excel(engine="xlsxwriter")`` of the same combined table
  (``predictions_table``), plain, no formats: the strongest fair baseline;
- and beside it ``to_excel(engine="openpyxl")``, the weaker one.
Prints wall-clock seconds, ratios, and the peak RSS increase during each call (psutil, sampled
every 10 ms; ours runs first, so later figures may reuse memory the earlier ones freed).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd
import psutil

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from typing import Self

from guiapp.core.export.excel import write_excel
from guiapp.core.export.predictions import ModelPredictions, predictions_table

WORDS = ["the", "government", "policy", "health", "tax", "school", "vote", "bill", "law", "court", "police", "war", "trade", "money", "city", "farm", "energy", "water", "budget", "reform"]
CATEGORIES = ["economy", "health", "defence", "environment", "other"]


def make_data(rows: int) -> tuple[pd.DataFrame, ModelPredictions]:
    rng = np.random.default_rng(0)
    words = np.array(WORDS, dtype=object)
    data: dict[str, object] = {}
    for k in range(5):
        picks = words[rng.integers(0, len(WORDS), size=(rows, 12 if k == 0 else 2))]
        data[f"text_{k}"] = [" ".join(row) for row in picks]
    data["id"] = np.arange(rows)
    data["year"] = rng.integers(1990, 2024, rows)
    for k in range(3):
        data[f"score_{k}"] = rng.normal(size=rows)
    table = pd.DataFrame(data)
    probabilities = rng.dirichlet(np.ones(5), rows).astype(np.float32)
    top = [f"{WORDS[i % 20]} (+0.{i % 90 + 10}), {WORDS[(i * 7) % 20]} (+0.05)" for i in range(rows)]
    model = ModelPredictions("SVM · Basic BOW", CATEGORIES, probabilities.argmax(axis=1), probabilities, top)
    return table, model


class PeakRss:
    """Peak RSS increase during a block, sampled every 10 ms."""

    def __enter__(self) -> Self:
        self.process = psutil.Process()
        self.before = self.peak = self.process.memory_info().rss
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def _sample(self) -> None:
        while not self._stop.wait(0.01):
            self.peak = max(self.peak, self.process.memory_info().rss)

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, self.process.memory_info().rss)
        self.mb = (self.peak - self.before) / 2**20


def timed(label: str, call) -> tuple[float, float]:
    with PeakRss() as memory:
        started = time.perf_counter()
        call()
        seconds = time.perf_counter() - started
    print(f"time   {label:<52} {seconds:7.2f} s   peak RSS +{memory.mb:5.0f} MB")
    return seconds, memory.mb


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--skip-openpyxl", action="store_true")
    args = parser.parse_args()
    table, model = make_data(args.rows)
    combined = predictions_table(table, [model])
    print(f"table: {args.rows:,} rows x {table.shape[1]} columns + {combined.shape[1] - table.shape[1]} "
          f"prediction columns ({combined.size:,} cells)")
    with tempfile.TemporaryDirectory(prefix="textlab-bench-") as folder:
        root = Path(folder)
        ours, _ = timed("write_excel (TextLab, formatted)", lambda: write_excel(
            root / "ours.xlsx", table=table, predictions=[model]))
        # the baseline gets the ready-made combined frame (its build time not counted)
        theirs, _ = timed('DataFrame.to_excel(engine="xlsxwriter")', lambda: combined.to_excel(
            root / "xlsxwriter.xlsx", index=False, engine="xlsxwriter", sheet_name="Predictions"))
        weak = None
        if not args.skip_openpyxl:
            weak, _ = timed('DataFrame.to_excel(engine="openpyxl")', lambda: combined.to_excel(
                root / "openpyxl.xlsx", index=False, engine="openpyxl", sheet_name="Predictions"))
        sizes = ", ".join(f"{p.name} {p.stat().st_size / 2**20:.1f} MB" for p in sorted(root.iterdir()))
        print(f"files  {sizes}")
    print(f"ratio  write_excel is {theirs / ours:.2f}x the speed of to_excel(xlsxwriter)")
    if weak:
        print(f"ratio  write_excel is {weak / ours:.2f}x the speed of to_excel(openpyxl)")


if __name__ == "__main__":
    main()
