"""Helpers shared by the benchmark scripts."""

from __future__ import annotations

import random
from pathlib import Path

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
