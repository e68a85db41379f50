"""Sentence embeddings kept on disk one text at a time, so a text embedded once is never embedded
again: not after the pool grew, not in the Findings step's corpus, not after the project is reopened.

The study's own embeddings are cached per list of texts (``sentence_embeddings.py``): the same
study reads them back whole. The quick models of the Coding and Findings steps embed whatever texts
they have not seen, in changing lists; for them the store is keyed by each text:

``<cache root>/embeddings/texts/<settings>/``, where ``<settings>`` is a hash of the model's exact
weights and the embedding options (:meth:`SentenceEmbeddings.text_store_key`), holds *parts*: each
``<part>.npy`` a float32 matrix, one row per text, and ``<part>.keys.npy`` the SHA-256 of each
row's text (a row of 32 bytes each). Both are plain NumPy files read without pickle; a part's keys are
written after its rows, so a part counts only once complete. When the parts grow many, the next
write joins them into one.
"""

from __future__ import annotations

import hashlib
import io
import uuid
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from guiapp.core import locations
from guiapp.core.atomic import write_bytes_atomic

KEYS_SUFFIX = ".keys.npy"
MAX_PARTS = 24  # more parts than this: the next write joins them into one


def text_key(text: str) -> bytes:
    """The 32-byte SHA-256 of a text (how the store finds it)."""
    return hashlib.sha256(text.encode("utf-8", errors="surrogatepass")).digest()


class EmbeddingStore:
    """The embeddings of single texts for one model and its options (``settings_key``)."""

    def __init__(self, settings_key: str, root: Path | None = None) -> None:
        base = root if root is not None else locations.cache_dir() / "embeddings" / "texts"
        self.folder = Path(base) / settings_key

    def read(self, texts: Sequence[str]) -> dict[str, np.ndarray]:
        """The stored embedding of each of ``texts`` that the store holds (text → vector)."""
        wanted = {text_key(text): text for text in dict.fromkeys(texts)}
        found: dict[str, np.ndarray] = {}
        if not wanted or not self.folder.is_dir():
            return found
        for keys_file in sorted(self.folder.glob(f"*{KEYS_SUFFIX}")):
            part = _read_part(keys_file)
            if part is None:
                continue
            keys, rows = part
            for position, key in enumerate(keys):
                text = wanted.get(key.tobytes())
                if text is not None and text not in found:
                    found[text] = np.array(rows[position], dtype=np.float32)
            if len(found) == len(wanted):
                break
        return found

    def write(self, texts: Sequence[str], matrix: np.ndarray) -> None:
        """Keep the embeddings of ``texts`` (one row of ``matrix`` each). The store is a cache: a
        write that fails (a full or read-only drive) loses nothing but time next time."""
        if not len(texts):
            return
        matrix = np.asarray(matrix, dtype=np.float32)
        keys = np.frombuffer(b"".join(text_key(text) for text in texts), dtype=np.uint8).reshape(-1, 32)
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            parts = sorted(self.folder.glob(f"*{KEYS_SUFFIX}"))
            joined: list[Path] = []
            if len(parts) >= MAX_PARTS:
                keys, matrix, joined = self._joined(keys, matrix, parts)
            name = uuid.uuid4().hex
            write_bytes_atomic(self.folder / f"{name}.npy", _npy(matrix))
            write_bytes_atomic(self.folder / f"{name}{KEYS_SUFFIX}", _npy(keys))
            for old in joined:  # joined into the new part: no longer needed
                old.unlink(missing_ok=True)
                _rows_file(old).unlink(missing_ok=True)
        except OSError:
            return

    def _joined(self, keys: np.ndarray, matrix: np.ndarray,
                parts: list[Path]) -> tuple[np.ndarray, np.ndarray, list[Path]]:
        """The new rows with every readable part's, each text once (parts of another width are left)."""
        all_keys, all_rows, joined = [keys], [matrix], []
        for keys_file in parts:
            part = _read_part(keys_file)
            if part is not None and part[1].shape[1] == matrix.shape[1]:
                all_keys.append(part[0])
                all_rows.append(np.asarray(part[1]))
                joined.append(keys_file)
        every_key = np.concatenate(all_keys)
        _, first = np.unique(every_key, axis=0, return_index=True)
        first.sort()
        return every_key[first], np.concatenate(all_rows)[first], joined

    def __len__(self) -> int:
        """How many texts the store holds (counting a text kept twice twice)."""
        total = 0
        for keys_file in self.folder.glob(f"*{KEYS_SUFFIX}") if self.folder.is_dir() else ():
            part = _read_part(keys_file)
            total += len(part[0]) if part is not None else 0
        return total


def _rows_file(keys_file: Path) -> Path:
    return keys_file.with_name(keys_file.name[: -len(KEYS_SUFFIX)] + ".npy")


def _read_part(keys_file: Path) -> tuple[np.ndarray, np.ndarray] | None:
    """A complete part's keys and rows (rows memory-mapped), or None when it is damaged or gone."""
    try:
        keys = np.load(keys_file, allow_pickle=False)
        rows = np.load(_rows_file(keys_file), allow_pickle=False, mmap_mode="r")
    except (OSError, ValueError):
        return None
    if (keys.dtype != np.uint8 or keys.ndim != 2 or keys.shape[1] != 32 or rows.dtype != np.float32 or rows.ndim != 2
            or rows.shape[0] != keys.shape[0]):
        return None
    return keys, rows


def _npy(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return buffer.getvalue()
