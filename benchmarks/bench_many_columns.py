"""Time reading, column guessing and the health report on a table of 1,000 columns × 200 rows,
against pandas.read_csv of the same file as the baseline.

    python benchmarks/bench_many_columns.py [--columns 1000] [--rows 200] [--repeat 3]
"""

from __future__ import annotations

import argparse
import csv
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _common import LABELS, WORDS  # noqa: E402


def make_wide_csv(path: Path, rows: int, columns: int, seed: int = 1) -> Path:
    """id, text, label, then columns of whole numbers, decimals, labels and short phrases."""
    rng = random.Random(seed)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "text", "label"] + [f"var{i}" for i in range(columns - 3)])
        for r in range(rows):
            extra = [
                (str(rng.randint(0, 100)), f"{rng.random():.3f}", rng.choice(LABELS),
                 " ".join(rng.choices(WORDS, k=rng.randint(1, 4))))[c % 4]
                for c in range(columns - 3)
            ]
            text = " ".join(rng.choices(WORDS, k=rng.randint(5, 25)))
            writer.writerow([r, text, rng.choice(LABELS)] + extra)
    return path


def best_of(repeat: int, work) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(repeat):
        started = time.perf_counter()
        result = work()
        best = min(best, time.perf_counter() - started)
    return best, result


def main() -> None:
    import pandas as pd

    from guiapp.core.health.report import compute_health
    from guiapp.core.study.mapping import suggest_mapping
    from guiapp.core.tables.reader import read_table

    parser = argparse.ArgumentParser()
    parser.add_argument("--columns", type=int, default=1000)
    parser.add_argument("--rows", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = make_wide_csv(Path(folder) / "wide.csv", args.rows, args.columns)
        baseline, _ = best_of(args.repeat, lambda: pd.read_csv(path, dtype=str))
        read, table = best_of(args.repeat, lambda: read_table(path))
        guess, mapping = best_of(args.repeat, lambda: suggest_mapping(table.frame))

        def words(texts, on_event):
            return [len(text.split()) for text in texts], "words"

        health, _ = best_of(args.repeat, lambda: compute_health(table.frame, mapping, token_counter=words))
    total = read + guess + health
    print(f"{args.columns} columns × {args.rows} rows (best of {args.repeat})")
    print(f"  pandas.read_csv (baseline) {baseline:6.2f} s")
    print(f"  read_table                 {read:6.2f} s")
    print(f"  suggest_mapping            {guess:6.2f} s")
    print(f"  compute_health             {health:6.2f} s")
    print(f"  total                      {total:6.2f} s  = {total / baseline:.1f}× the pandas read")


if __name__ == "__main__":
    main()
