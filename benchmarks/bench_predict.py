"""Predicting new texts: texts per second and peak memory, streamed in chunks vs all at once.

Conventional (default): an SVM on the basic bag of words (the example study's best conventional
family) is trained on the bundled example (US Congress bill titles), saved and opened as
`textlab predict` does, then applied to N generated titles (default 200,000 and 1,000,000). The
baseline is what a competent user would write: the fitted representation and classifier applied to
all texts at once (`transform(texts)` then `predict_proba`).

Transformer (`--transformer`): the bundled all-MiniLM-L6-v2 fine-tuned briefly with the app's own
`fine_tune` (1 epoch on 1,000 real tweets, Davidson et al. 2017, 3 categories; the bundled example's
bill titles where the tweets are absent), saved as a study saves it, then N other real texts
(default 10,000) are answered, each case in a fresh child process and streamed in chunks as
`textlab predict` does:

- the baseline, Hugging Face's `pipeline("text-classification", batch_size=64, truncation=True)`
  over all texts, what a competent user would write;
- today's path: the engine's exact answers (`TEXTLAB_FAST_INFERENCE=0`);
- the new path: the engine as it runs by default — on a CPU with native bfloat16, 16-bit answers
  after a check against exact ones on the first 256 texts (that check is inside the timing);
- sentence embeddings of the same texts (bundled MiniLM, mean pooling), today's exact path and the new
  one;

then the ratios and the agreement of the new answers with today's (same category, largest
probability difference, lowest cosine similarity of the embeddings; once a model passed its check,
every text gets its 16-bit answer, so this measures the 16-bit answers themselves). `--agreement`
answers 20,000 texts (or N) the two engine ways only, without the pipeline. `--repeat R` runs the
engine's cases R times in turns and counts the fastest run of each (on a shared machine other work
comes and goes). `--device cuda` runs the torch path on a GPU: fp32 against the model's mixed
precision (bfloat16, or float16 where the GPU lacks it), with the pipeline on the GPU as baseline.
`TEXTLAB_BENCH_MODEL` (a model folder) and `TEXTLAB_BENCH_DATA` (the Davidson CSV or its folder)
override the model and the data, as for benchmarks/bench_fine_tuning.py.

Each case runs in a fresh child process; peak memory is its resident set size (sampled every 10 ms)
above what it used before predicting, so memory that grows with the rows shows. `--top-words`
also times the "top words" column for the conventional model (exact linear contributions).
Usage: bench_predict.py [--transformer | --agreement] [--device cpu|cuda] [--repeat R] [--top-words N] [N ...]
"""

from __future__ import annotations

import multiprocessing as mp
import sys
import tempfile
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

    from guiapp.core.experiment.families.conventional_files import save_conventional
    from guiapp.core.experiment.protocol.fitting import fit_classifier
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


def _top_words(folder: Path, n: int) -> None:
    from guiapp.core.explain.top_words import top_words_for
    from guiapp.core.predict.open_model import open_trained_model

    model, texts = open_trained_model(folder, folder.name), _texts(n, seed=1)
    predicted, probabilities = model.answer(texts)
    start = time.perf_counter()
    top_words_for(model, texts, predicted, probabilities)
    seconds = time.perf_counter() - start
    print(f"top words (exact linear contributions), {n:,} texts: {n / seconds:,.0f} texts/s ({seconds:.1f} s)")


def _case(kind: str, folder: str, n: int, queue) -> None:
    from benchmarks._common import PeakMemory
    from guiapp.core.predict.open_model import open_trained_model
    from guiapp.core.predict.stream import predict_in_chunks

    texts = _texts(n)
    model = open_trained_model(folder, Path(folder).name)
    with PeakMemory() as memory:
        start = time.perf_counter()
        if kind == "streamed":
            predict_in_chunks(model.answer, texts, model.categories)
        else:
            model.answer(texts)
        seconds = time.perf_counter() - start
    queue.put((seconds, memory.megabytes))


def main() -> None:
    args = sys.argv[1:]
    if "--transformer" in args or "--agreement" in args:
        from benchmarks._transformer_answers import main as transformer_main

        transformer_main(args)
        return
    top_words = int(args[args.index("--top-words") + 1]) if "--top-words" in args else 0
    args = [a for i, a in enumerate(args) if a != "--top-words" and not (i and args[i - 1] == "--top-words")]
    sizes = [int(a) for a in args] or [200_000, 1_000_000]
    kinds = ("streamed", "at once")
    context = mp.get_context("spawn")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "SVM · Basic BOW"
        _train(folder)
        if top_words:
            _top_words(folder, top_words)
        print(f"{'rows':>10} {'case':>10} {'texts/s':>10} {'seconds':>8} {'peak MB above start':>20}")
        for n in sizes:
            rates = {}
            for kind in kinds:
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
