"""Explanations already computed, kept so that the Documents step and projects need not redo them.

Integrated gradients and occlusion take seconds per document; a researcher clicks back and forth.
Records are keyed by model name × document (SHA-256 of its text) × category × method × settings,
held in memory and saved as one JSON file per model in a folder (written atomically, never
pickle), so a project can carry them and open them again. A damaged or foreign file counts as
empty: a cache may always be recomputed.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

from guiapp.core.atomic import write_bytes_atomic, write_text_atomic
from guiapp.core.explain.attribution import Attribution, Faithfulness

FORMAT = "textlab-explanations"
_FILE_NAME = re.compile(r"^[A-Za-z0-9._-]{1,120}\.json$")
FORMAT_VERSION = 1


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", errors="surrogatepass")).hexdigest()


def record_key(text: str, target: int, method: str, settings: dict[str, Any] | None = None) -> str:
    """One document × category × method × settings (the model is the file)."""
    return f"{text_hash(text)}|{int(target)}|{method}|{json.dumps(settings or {}, sort_keys=True)}"


def model_file_name(model: str) -> str:
    """A file name for a model's records: a readable part plus a hash, so any name is safe."""
    readable = re.sub(r"[^A-Za-z0-9._-]+", "-", model).strip("-.")[:40] or "model"
    return f"{readable}-{hashlib.sha256(model.encode()).hexdigest()[:12]}.json"


def run_cache_folder(cache_root: str | Path, started_at: str | None) -> Path:
    """The folder of one run's explanations under ``cache_root`` (keyed by when the run started,
    which a project keeps, so reopening the project finds the same folder)."""
    key = started_at.replace(":", "-") if started_at else "unsaved"
    return Path(cache_root) / re.sub(r"[^A-Za-z0-9._+-]", "-", key)


def explanations_folder(result: Any) -> Path:  # an ExperimentResult, or None before a run
    """Where the explanations of ``result``'s models are kept on this computer (a project carries
    copies of these files, see ``core/project/format.py``)."""
    from guiapp.core import locations

    return run_cache_folder(locations.cache_dir() / "explanations", result.started_at if result is not None else None)


def cache_files(folder: str | Path | None) -> dict[str, bytes]:
    """The cache files of ``folder`` (file name → bytes), e.g. to keep them in a project."""
    if folder is None or not Path(folder).is_dir():
        return {}
    files = {}
    for path in sorted(Path(folder).glob("*.json")):
        if _FILE_NAME.match(path.name) and path.is_file() and not path.is_symlink():
            try:
                files[path.name] = path.read_bytes()
            except OSError:
                continue  # a cache may always be recomputed
    return files


def restore_cache_files(folder: str | Path, files: dict[str, bytes]) -> list[Path]:
    """Write the cache files a project carried into ``folder``; a file already there is kept
    when it is at least as large (it holds the same records, or more). Unsafe names are skipped."""
    written = []
    for name, data in files.items():
        if not _FILE_NAME.match(name):
            continue
        path = Path(folder) / name
        try:
            if path.is_file() and path.stat().st_size >= len(data):
                continue
            write_bytes_atomic(path, data)
        except OSError:
            continue
        written.append(path)
    return written


class ExplanationCache:
    """Attributions and faithfulness records per model, in memory and (with a folder) on disk."""

    def __init__(self, folder: str | Path | None = None) -> None:
        self.folder = Path(folder) if folder is not None else None
        self._attributions: dict[str, dict[str, Attribution]] = {}
        self._faithfulness: dict[str, dict[str, Faithfulness]] = {}
        self._dirty: set[str] = set()

    # ------------------------------------------------------------------ records
    def attribution(self, model: str, text: str, target: int, method: str,
                    settings: dict[str, Any] | None = None) -> Attribution | None:
        return self._model(model)[0].get(record_key(text, target, method, settings))

    def put_attribution(self, text: str, attribution: Attribution, settings: dict[str, Any] | None = None) -> None:
        key = record_key(text, attribution.target, attribution.method, settings)
        self._model(attribution.model)[0][key] = attribution
        self._dirty.add(attribution.model)

    def faithfulness(self, model: str, text: str, target: int, method: str, k: int,
                     settings: dict[str, Any] | None = None) -> Faithfulness | None:
        return self._model(model)[1].get(record_key(text, target, method, {**(settings or {}), "k": k}))

    def put_faithfulness(self, text: str, attribution: Attribution, record: Faithfulness,
                         settings: dict[str, Any] | None = None) -> None:
        key = record_key(text, attribution.target, attribution.method, {**(settings or {}), "k": record.k})
        self._model(attribution.model)[1][key] = record
        self._dirty.add(attribution.model)

    def models(self) -> list[str]:
        return sorted(set(self._attributions) | set(self._faithfulness))

    def forget(self, model: str) -> None:
        """Drop a model's records (it was trained again), here and in the folder."""
        self._attributions.pop(model, None)
        self._faithfulness.pop(model, None)
        self._dirty.discard(model)
        if self.folder is not None:
            (self.folder / model_file_name(model)).unlink(missing_ok=True)

    # ------------------------------------------------------------------ files
    def save(self) -> list[Path]:
        """Write every model whose records changed since the last save; returns the files written."""
        if self.folder is None:
            return []
        written = []
        for model in sorted(self._dirty):
            path = self.folder / model_file_name(model)
            attributions, records = self._model(model)
            data = {"format": FORMAT, "format_version": FORMAT_VERSION, "model": model,
                    "attributions": {key: value.to_dict() for key, value in attributions.items()},
                    "faithfulness": {key: value.to_dict() for key, value in records.items()}}
            write_text_atomic(path, json.dumps(data, ensure_ascii=False))
            written.append(path)
        self._dirty.clear()
        return written

    def _model(self, model: str) -> tuple[dict[str, Attribution], dict[str, Faithfulness]]:
        if model not in self._attributions:
            self._attributions[model], self._faithfulness[model] = self._read(model)
        return self._attributions[model], self._faithfulness[model]

    def _read(self, model: str) -> tuple[dict[str, Attribution], dict[str, Faithfulness]]:
        if self.folder is None:
            return {}, {}
        path = self.folder / model_file_name(model)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if (data.get("format"), data.get("format_version"), data.get("model")) != (FORMAT, FORMAT_VERSION, model):
                return {}, {}
            return ({key: Attribution.from_dict(value) for key, value in data["attributions"].items()},
                    {key: Faithfulness.from_dict(value) for key, value in data["faithfulness"].items()})
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return {}, {}
