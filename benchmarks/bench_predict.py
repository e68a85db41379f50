"""Predicting new texts: texts per second and peak memory, streamed in chunks vs all at once.

A conventional model (SVM on the basic bag of words, the example study's best conventional family)
is trained on the bundled example (US Congress bill titles), saved and opened as `textlab predict`
does, then applied to N generated titles (default 200,000 and 1,000,000). The baseline is what a
competent user would write: the fitted representation and classifier applied to all texts at once
(`transform(texts)` then `predict_proba`). Peak memory is sampled (RSS) in a child process per case,
so each case starts clean. Usage: bench_predict.py [N ...]
"""

from __future__ import annotations

import multiprocessing as mp
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _texts(n: int, seed: int = 0) -> list[str]:
    import pandas as pd

    from guiapp.core.locations import example_path

    titles = pd.read_excel(example_path(), engine="calamine")["Title"].astype(str).tolist()
    rng = np.random.default_rng(seed)
    words = " ".join(titles).split()
    lengths = rng.integers(6, 30, size=n)
    picks = rng.integers(0, len(words), size=int(lengths.sum()))
    out, start = [], 0
    for length in lengths:
        out.append(" ".join(words[i] for i in picks[start:start + length]))
        start += length
    return out


def _train(folder: Path) -> None:
    import pandas as pd

    from guiapp.core.experiment.conventional_files import save_conventional
    from guiapp.core.experiment.fitting import fit_classifier
    from guiapp.core.features import make_representation
    from guiapp.core.locations import example_path

    frame = pd.read_excel(example_path(), engine="calamine")
    texts, labels = frame["Title"].astype(str).tolist(), frame["Topic"].astype(str)
    categories = sorted(labels.unique())
    y = labels.map({c: i for i, c in enumerate(categories)}).to_numpy()
    representation = make_representation("bow", {}).fit(texts)
    classifier = fit_classifier("svm", {"kernel": "linear", "C": 0.1}, 1, 2, representation.transform(texts), y,
                                probabilities=True)
    save_conventional(folder, representation, classifier, categories, {"name": "SVM · Basic BOW"})


def _case(kind: str, folder: str, n: int, queue) -> None:
    import psutil

    from guiapp.core.predict.stream import predict_in_chunks
    from guiapp.core.predict.trained_model import open_trained_model

    texts = _texts(n)
    model = open_trained_model(folder, "SVM · Basic BOW")
    process, peak, stop = psutil.Process(), [0], threading.Event()
    base = process.memory_info().rss

    def sample() -> None:
        while not stop.is_set():
            peak[0] = max(peak[0], process.memory_info().rss)
            time.sleep(0.01)

    watcher = threading.Thread(target=sample, daemon=True)
    watcher.start()
    start = time.perf_counter()
    if kind == "streamed":
        predict_in_chunks(model.answer, texts, model.categories)
    else:
        model.answer(texts)
    seconds = time.perf_counter() - start
    stop.set()
    watcher.join()
    queue.put((seconds, (peak[0] - base) / 2**20))


def main() -> None:
    sizes = [int(a) for a in sys.argv[1:]] or [200_000, 1_000_000]
    context = mp.get_context("spawn")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "model"
        _train(folder)
        print(f"{'rows':>10} {'case':>10} {'texts/s':>10} {'seconds':>8} {'peak MB above start':>20}")
        for n in sizes:
            rates = {}
            for kind in ("streamed", "at once"):
                queue = context.Queue()
                process = context.Process(target=_case, args=(kind, str(folder), n, queue))
                process.start()
                seconds, peak = queue.get()
                process.join()
                rates[kind] = n / seconds
                print(f"{n:>10,} {kind:>10} {n / seconds:>10,.0f} {seconds:>8.1f} {peak:>20,.0f}")
            print(f"{'':>10} {'ratio':>10} {rates['streamed'] / rates['at once']:>10.2f}x speed (streamed / at once)")


if __name__ == "__main__":
    main()
