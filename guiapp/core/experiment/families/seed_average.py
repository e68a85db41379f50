"""A Transformer fine-tuned with several seeds, kept as one model: each seed's model in a folder of
its own inside the model's folder (``seed-1``, ``seed-2``, …) and a ``combined.json`` that averages
their probabilities with equal weights — opened for prediction like any combined model."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from guiapp.core.atomic import write_text_atomic
from guiapp.core.experiment.results.artefacts import COMBINED_FILE, COMBINED_FORMAT
from guiapp.core.experiment.combined.combining import WeightedVote


def save_seed_average(models: list[Any], folder: Path, name: str, categories: list[str],
                      save: Callable[[Any, Path, list[str]], None], thresholds: Any = None) -> None:
    """Save each seed's model and the ``combined.json`` that averages them; a multi-label model's
    decision ``thresholds`` (one per category) are recorded there too."""
    folder.mkdir(parents=True, exist_ok=True)
    parts = []
    for number, model in enumerate(models, start=1):
        save(model, folder / f"seed-{number}", categories)
        parts.append({"name": f"{name} (seed {number})", "folder": f"seed-{number}"})
    described = {
        "format": COMBINED_FORMAT,
        "version": 1,
        "name": name,
        "categories": list(categories),
        "parts": parts,
        # the vote decides as its parts were tuned to: each category's chance against its threshold
        "combiner": WeightedVote([1.0 / len(models)] * len(models),
                                 thresholds=[] if thresholds is None else [float(value) for value in thresholds]).to_dict(),
    }
    write_text_atomic(folder / COMBINED_FILE, json.dumps(described, indent=2, ensure_ascii=False) + "\n")
