"""A combined model opened from its folder: its parts opened from theirs, and their probabilities
combined as the study learnt (``experiment/combined/combining.py``).

The folder holds one JSON file (``combined.json``: the parts' names and folder names, the
categories and the combination's numbers); nothing in it is executed. The parts are the study's
own trained models, found by name (``find_part``) or beside the combined model's folder.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from guiapp.core.errors import UserError
from guiapp.core.untrusted.json_reading import UnreadableJson, read_json_file
from guiapp.core.untrusted.paths import path_problem
from guiapp.core.experiment.results.artefacts import COMBINED_FILE, COMBINED_FORMAT, model_folder_name
from guiapp.core.experiment.combined.combining import Combiner, combiner_from_dict, decide
from guiapp.core.predict.trained_model import TrainedModel

MAX_FILE_BYTES = 16 * 1024 * 1024
REMEMBERED_TEXTS = 20_000  # the parts' answers kept for the texts asked about last


class CombinedModel(TrainedModel):
    """The parts answer; their probabilities are combined (weighted vote or stacking)."""

    family = "combined"

    def __init__(self, name: str, parts: list[TrainedModel], combiner: Combiner, categories: list[str]) -> None:
        self.name, self.parts, self.combiner, self.categories = name, parts, combiner, categories
        self.multi_label = any(part.multi_label for part in parts)  # its parts give each category's own chance
        self._remembered: OrderedDict[str, list[np.ndarray]] = OrderedDict()
        self._lock = threading.Lock()

    def answer(self, texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
        combined = self.combiner.combine(self.part_answers(texts))
        return decide(combined, self.multi_label, self.combiner.thresholds), combined

    @property
    def thresholds(self) -> np.ndarray:
        tuned = self.combiner.thresholds
        return np.asarray(tuned, dtype=np.float64) if tuned else super().thresholds

    def part_answers(self, texts: list[str]) -> list[np.ndarray]:
        """Each part's probabilities for ``texts`` (one array per part). The answers for the last
        texts asked about are kept, so that explaining the texts just predicted does not ask the
        parts (a sentence model, a Transformer) again; trained models never change."""
        texts = list(texts)
        with self._lock:
            known = {text: self._remembered[text] for text in texts if text in self._remembered}
            for text in known:
                self._remembered.move_to_end(text)
        missing = [text for text in dict.fromkeys(texts) if text not in known]
        if missing:
            asked = [np.asarray(part.answer(missing)[1], dtype=np.float64) for part in self.parts]
            fresh = {text: [answers[row] for answers in asked] for row, text in enumerate(missing)}
            with self._lock:
                self._remembered.update(fresh)
                while len(self._remembered) > REMEMBERED_TEXTS:
                    self._remembered.popitem(last=False)
            known.update(fresh)
        if not texts:
            return [np.zeros((0, len(self.categories))) for _ in self.parts]
        return [np.vstack([known[text][k] for text in texts]) for k in range(len(self.parts))]

    @property
    def part_names(self) -> list[str]:
        return [part.name for part in self.parts]


def open_combined_model(folder: Path, name: str, find_part: Callable[[str], Path | None] | None,
                        open_part: Callable[..., TrainedModel]) -> CombinedModel:
    described = _read(folder / COMBINED_FILE)
    categories = described["categories"]
    parts = []
    for part in described["parts"]:
        where = _part_folder(folder, part, find_part)
        if where is None:
            raise UserError(f"The combined model “{name}” needs the trained model “{part['name']}”, which is not "
                            f"beside it ({folder.parent}).",
                            "Keep the study's trained models together: open the whole results folder or the project.")
        opened = open_part(where, part["name"], find_part)
        if list(opened.categories) != list(categories):
            raise UserError(f"The trained model “{part['name']}” found for “{name}” has other categories than the study.",
                            "Open the results folder or project the combined model came from.")
        parts.append(opened)
    return CombinedModel(name, parts, described["combiner"], categories)


def _read(path: Path) -> dict[str, Any]:
    """The combined model's file, read bounded and depth-limited; its parts' folders must be plain
    names that any file system can hold (nothing outside the model's folder is ever looked at)."""
    def damaged(why: str = "", details: str = "") -> UserError:
        return UserError(f"The combined model's file {path} is damaged or was not written by TextLab"
                         + (f" ({why})." if why else "."),
                         "Run the study again to build the combined models.", details=details or None)

    try:
        data = read_json_file(path, max_bytes=MAX_FILE_BYTES)
        if data.get("format") != COMBINED_FORMAT or int(data.get("version", 0)) != 1:
            raise damaged()
        categories = [str(value) for value in data["categories"]]
        parts = [{"name": str(part["name"]), "folder": str(part.get("folder", ""))} for part in data["parts"]]
        for part in parts:
            name = part["folder"]
            if name and (problem := path_problem(name) or ("/" in name and "is a path")):
                raise damaged(f"the folder of its part {name[:60]!r} {problem}")
        combiner = combiner_from_dict(data["combiner"])
    except UserError:
        raise
    except UnreadableJson as error:
        raise damaged(str(error)) from None
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        raise damaged(details=repr(error)) from error
    if not parts:
        raise damaged()
    return {"categories": categories, "parts": parts, "combiner": combiner}


def _part_folder(folder: Path, part: dict[str, str], find_part: Callable[[str], Path | None] | None) -> Path | None:
    if find_part is not None:
        found = find_part(part["name"])
        if found is not None and Path(found).is_dir():
            return Path(found)
    if part["folder"] and (folder / part["folder"]).is_dir():  # inside it (a Transformer's seeds)
        return folder / part["folder"]
    # beside it: as the run saved it, as a results folder names it, as a project unpacks it
    names = [part["folder"], model_folder_name(part["name"]),
             re.sub(r"[^A-Za-z0-9._-]", "-", part["name"]).strip("-.") or "model"]
    return next((folder.parent / candidate for candidate in names if candidate and (folder.parent / candidate).is_dir()),
                None)
