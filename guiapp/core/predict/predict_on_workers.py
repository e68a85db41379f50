"""Predicting a large table's texts on Dask workers (a running scheduler or SLURM worker jobs), chunk
by chunk, with the same answers as a run on this computer.

The texts are split into chunks of rows. Each chunk is one Dask task that gets the chunk's texts and
the saved models' folders: a worker opens the models from their folders itself (the workers share
the file system with this computer; a model is never sent over the network) and keeps them open for
its next chunks. Only a few chunks per worker thread are queued at a time, so the texts of a large
table are not all sent to the scheduler at once. Each task has Dask's retries, and a worker that dies has its chunk run again on
another worker; since a chunk's answers depend only on its texts and the saved models, the result is
the same.

Each finished chunk is written at once to a folder of chunk files beside the output
(``<output>.parts``), with a manifest (``parts.json``) that records which texts and models they
belong to. After Cancel, Ctrl-C or a crash, the same command finds the chunks already done there and
sends only the others; a folder made for other texts, models or chunk sizes is emptied first. The
folder is removed once the output is written (by the caller, :func:`remove_parts`).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import threading
import time
from collections import deque
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from guiapp.core.events import EventCallback, Log, Progress, ignore_events
from guiapp.core.predict.new_texts import NewTextPredictions
from guiapp.core.predict.stream import DEFAULT_CHUNK_SIZE, Predictions, predict_in_chunks

WORKER_CHUNK_SIZE = 10 * DEFAULT_CHUNK_SIZE  # rows per Dask task: a multiple of the models' own chunks
PARTS_SUFFIX = ".parts"
MANIFEST = "parts.json"
RETRIES = 3
IN_FLIGHT_PER_THREAD = 2  # chunks queued per worker thread
POLL_SECONDS = 0.2

ModelFolders = Sequence[tuple[str, "str | Path"]]


def parts_folder_for(output: str | Path) -> Path:
    """Where the chunks of the predictions written to ``output`` are kept until it is written."""
    output = Path(output)
    return output.with_name(output.name + PARTS_SUFFIX)


def remove_parts(folder: str | Path) -> None:
    shutil.rmtree(folder, ignore_errors=True)


def predict_on_workers(
    client: Any,
    model_folders: ModelFolders,
    texts: Sequence[str],
    parts: str | Path,
    *,
    chunk_size: int = WORKER_CHUNK_SIZE,
    on_event: EventCallback = ignore_events,
) -> NewTextPredictions:
    """Every model's answers for ``texts``, predicted on the workers of ``client`` (a
    ``distributed.Client``) in chunks of ``chunk_size`` rows, each chunk kept in the folder ``parts``
    as soon as it is done (see the module docstring). A ``Cancelled`` raised by ``on_event`` stops
    the work between progress reports and cancels what is still running."""
    if chunk_size < 1:
        raise ValueError("chunk_size must be at least 1")
    folders = [(str(name), str(Path(folder).resolve())) for name, folder in model_folders]
    texts = [str(text) if text is not None else "" for text in texts]
    n = len(texts)
    bounds = [(begin, min(begin + chunk_size, n)) for begin in range(0, n, chunk_size)]
    parts = Path(parts)
    done = _done_chunks(parts, _manifest(folders, texts, chunk_size, len(bounds)))
    if done:
        on_event(Log(f"{len(done):,} of {len(bounds):,} chunks were predicted before and are not predicted again."))
    todo = deque(index for index in range(len(bounds)) if index not in done)
    waiting: dict[Any, int] = {}  # future → chunk index
    some_finished = threading.Event()

    def submit_more() -> None:
        """Keep a few chunks per worker thread queued, not the whole table: the texts of a chunk are
        sent when it is submitted, so the scheduler holds a few chunks' texts at a time."""
        workers = client.scheduler_info().get("workers", {}) if todo else {}
        limit = max(4, IN_FLIGHT_PER_THREAD * sum(int(info.get("nthreads", 1)) for info in workers.values()))
        while todo and len(waiting) < limit:
            index = todo.popleft()
            future = client.submit(answer_chunk, folders, texts[bounds[index][0]:bounds[index][1]], pure=False,
                                   retries=RETRIES, key=f"textlab-predict-chunk-{index}-{os.urandom(4).hex()}")
            future.add_done_callback(lambda _: some_finished.set())
            waiting[future] = index

    start = time.perf_counter()
    rows_done = sum(bounds[i][1] - bounds[i][0] for i in done)
    rows_before = rows_done
    finished = False
    try:
        on_event(Progress(rows_done / n if n else 1.0, f"Predicting on the workers: {rows_done:,} of {n:,} texts",
                          rows_done, n))
        submit_more()
        while waiting:
            some_finished.wait(POLL_SECONDS)
            some_finished.clear()
            for future in [f for f in waiting if f.done()]:
                index = waiting.pop(future)
                _write_chunk(parts, index, future.result())  # an error on the worker is raised here
                future.release()
                done.add(index)
                rows_done += bounds[index][1] - bounds[index][0]
            submit_more()
            left = _time_left(start, rows_done - rows_before, n - rows_done)
            on_event(Progress(rows_done / n if n else 1.0,
                              f"Predicting on the workers: {rows_done:,} of {n:,} texts{left}", rows_done, n))
        finished = True
    finally:
        if not finished and waiting:  # Cancel, Ctrl-C or an error: nothing keeps running on the cluster
            client.cancel(list(waiting), force=True)
    found = _gather(parts, folders, len(bounds))
    for name, predictions in zip(found.models, found.predictions, strict=True):
        empty = predictions.n_empty
        on_event(Log(f"{name}: {n - empty:,} texts predicted on the workers" + (
            f"; {empty:,} empty {'text' if empty == 1 else 'texts'} left out." if empty else ".")))
    return found


def answer_chunk(folders: list[tuple[str, str]], texts: list[str]) -> list[tuple[np.ndarray, np.ndarray]]:
    """On a worker: each model's (predicted, probabilities) for ``texts``, as the one-computer path
    computes them (the same inner chunks, empty texts left out)."""
    from guiapp.core.predict.new_texts import answer_chunk_size

    answers = []
    for name, folder in folders:
        model = _opened(name, folder)
        found = predict_in_chunks(model.answer, texts, model.categories, chunk_size=answer_chunk_size(model),
                                  multi_label=model.multi_label)
        answers.append((found.predicted, found.probabilities, list(found.categories)))
    return answers


_OPENED: dict[tuple[str, str], Any] = {}  # on a worker: the models it opened, for its next chunks


def _opened(name: str, folder: str) -> Any:
    model = _OPENED.get((name, folder))
    if model is None:
        from guiapp.core.predict.open_model import open_trained_model

        model = _OPENED[(name, folder)] = open_trained_model(folder, name)
    return model


def _manifest(folders: list[tuple[str, str]], texts: list[str], chunk_size: int, chunks: int) -> dict:
    digest = hashlib.sha256()
    for text in texts:
        digest.update(text.encode("utf-8", "surrogatepass"))
        digest.update(b"\0")
    models = []
    for name, folder in folders:  # a model trained again in the same folder is another model
        stamps = sorted((p.relative_to(folder).as_posix(), p.stat().st_size, p.stat().st_mtime_ns)
                        for p in Path(folder).rglob("*") if p.is_file())
        models.append([name, folder, hashlib.sha256(json.dumps(stamps).encode()).hexdigest()])
    return {"texts": digest.hexdigest(), "rows": len(texts), "models": models, "chunk_size": chunk_size,
            "chunks": chunks}


def _done_chunks(parts: Path, manifest: dict) -> set[int]:
    """The chunks already in ``parts`` for this manifest; a folder of another prediction is emptied."""
    path = parts / MANIFEST
    try:
        same = json.loads(path.read_text(encoding="utf-8")) == manifest
    except (OSError, ValueError):
        same = False
    if not same:
        remove_parts(parts)
        parts.mkdir(parents=True, exist_ok=True)
        temporary = path.with_suffix(".tmp")
        temporary.write_text(json.dumps(manifest), encoding="utf-8")
        os.replace(temporary, path)
        return set()
    done = set()
    for index in range(manifest["chunks"]):
        if _chunk_path(parts, index).is_file():
            done.add(index)
    return done


def _chunk_path(parts: Path, index: int) -> Path:
    return parts / f"chunk-{index:06d}.npz"


def _write_chunk(parts: Path, index: int, answers: list) -> None:
    arrays = {}
    for model, (predicted, probabilities, _) in enumerate(answers):
        arrays[f"predicted_{model}"] = np.asarray(predicted)
        arrays[f"probabilities_{model}"] = np.asarray(probabilities)
    temporary = parts / f"chunk-{index:06d}.tmp.npz"
    np.savez(temporary, **arrays)
    os.replace(temporary, _chunk_path(parts, index))  # whole or absent, also after a crash
    categories = parts / "categories.json"
    if not categories.is_file():
        categories.write_text(json.dumps([c for _, _, c in answers]), encoding="utf-8")


def _gather(parts: Path, folders: list[tuple[str, str]], chunks: int) -> NewTextPredictions:
    categories = json.loads((parts / "categories.json").read_text(encoding="utf-8")) if chunks else None
    if categories is None:  # no texts at all: the models' categories from their folders
        categories = [list(_opened(name, folder).categories) for name, folder in folders]
    pieces: list[list[np.ndarray]] = [[] for _ in range(2 * len(folders))]
    for index in range(chunks):
        with np.load(_chunk_path(parts, index), allow_pickle=False) as chunk:
            for model in range(len(folders)):
                pieces[2 * model].append(chunk[f"predicted_{model}"])
                pieces[2 * model + 1].append(chunk[f"probabilities_{model}"])
    found = []
    for model in range(len(folders)):
        k = len(categories[model])
        predicted = np.concatenate(pieces[2 * model]) if chunks else np.zeros(0, dtype=np.int32)
        probabilities = np.concatenate(pieces[2 * model + 1]) if chunks else np.zeros((0, k), dtype=np.float32)
        found.append(Predictions(categories=list(categories[model]), predicted=predicted, probabilities=probabilities))
    return NewTextPredictions([name for name, _ in folders], found)


def _time_left(start: float, done: int, left: int) -> str:
    elapsed = time.perf_counter() - start
    if left <= 0 or done <= 0 or elapsed < 2.0:
        return ""
    seconds = elapsed / done * left
    if seconds < 60:
        return f" — about {max(5, round(seconds / 5) * 5):.0f} s left"
    if seconds < 3600:
        return f" — about {round(seconds / 60):.0f} min left"
    return f" — about {seconds / 3600:.1f} h left"
