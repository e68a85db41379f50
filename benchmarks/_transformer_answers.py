"""`bench_predict.py --transformer` / `--agreement`: a fine-tuned Transformer's answers and sentence
embeddings, today's exact path against the new default path (and Hugging Face's pipeline), speed and
agreement in one run. See bench_predict.py's docstring for what each case is."""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks._common import PeakMemory, data_file, model_path

ROOT = Path(__file__).resolve().parents[1]
DAVIDSON = ["hate speech", "offensive language", "neither"]
SEED = 20210401
TRAIN_TEXTS = 1_000
FAST = "TEXTLAB_FAST_INFERENCE"


def corpus() -> tuple[list[str], np.ndarray, list[str], str]:
    """Real coded texts in a seeded order: the Davidson tweets, else the bundled example's bill titles."""
    import pandas as pd

    if data_file().is_file():
        table = pd.read_csv(data_file(), usecols=["tweet", "class"]).sample(frac=1.0, random_state=SEED)
        return table["tweet"].astype(str).tolist(), table["class"].to_numpy(int), DAVIDSON, "Davidson 2017 tweets"
    from guiapp.core.locations import example_path

    table = pd.read_excel(example_path(), engine="calamine").sample(frac=1.0, random_state=SEED)
    categories = sorted(table["Topic"].astype(str).unique())
    labels = table["Topic"].astype(str).map({c: i for i, c in enumerate(categories)}).to_numpy(int)
    return table["Title"].astype(str).tolist(), labels, categories, "US Congress bill titles (the bundled example)"


def fine_tune_into(folder: Path, texts: list[str], labels: np.ndarray, categories: list[str], device: str) -> float:
    """Fine-tune the model briefly with the app's own function and save it as a study does; seconds."""
    from guiapp.core.models.transformers.fine_tuning import fine_tune, save_fine_tuned
    from guiapp.core.models.transformers.training.settings import FineTuneSettings

    start = time.perf_counter()
    tuned = fine_tune(model_path(), texts, labels, len(categories),
                      FineTuneSettings(epochs=1, seed=SEED, device=device))
    save_fine_tuned(tuned, folder, categories)
    return time.perf_counter() - start


# -- child: one measured case ------------------------------------------------------------------
def case(job: dict, queue) -> None:
    """One case in a fresh process: ``job`` names what to run; puts (seconds, peak MB, answers, logs)."""
    os.environ.update(job["env"])

    from guiapp.core.events import Log

    logs: list[str] = []

    def on_event(event: object) -> None:
        if isinstance(event, Log):
            logs.append(event.message)

    answer = _classifier(job, on_event) if job["task"] == "classify" else _embedder(job, on_event)
    with PeakMemory() as memory:
        start = time.perf_counter()
        answers = answer(job["texts"])
        seconds = time.perf_counter() - start
    queue.put((seconds, memory.megabytes, np.asarray(answers, dtype=np.float32), logs))


def _classifier(job: dict, on_event):
    if job["way"] == "pipeline":
        from transformers import pipeline
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
        classify = pipeline("text-classification", model=job["folder"], tokenizer=job["folder"],
                            device=job["device"], top_k=None)
        order = list(classify.model.config.id2label.values())

        def answer(texts):
            rows = classify(texts, batch_size=64, truncation=True)
            return [[{d["label"]: d["score"] for d in row}[name] for name in order] for row in rows]
        return answer
    from dataclasses import replace

    from guiapp.core.predict.open_model import open_trained_model
    from guiapp.core.predict.stream import predict_in_chunks

    model = open_trained_model(job["folder"], Path(job["folder"]).name)
    tuned = model.fine_tuned
    if job["way"] == "fp32":
        tuned.settings = replace(tuned.settings, mixed_precision=False)

    def answer(texts):
        return predict_in_chunks(lambda chunk: _answer(tuned, chunk, on_event), texts, model.categories).probabilities
    return answer


def _answer(tuned, texts, on_event):
    from guiapp.core.models.transformers.fine_tuning import predict_proba

    probabilities = predict_proba(tuned, texts, on_event)
    return probabilities.argmax(axis=1), probabilities


def _embedder(job: dict, on_event):
    from guiapp.core.features.sentence_embeddings import (
        SentenceEmbeddings,
        load_model,
        resolve_model,
    )

    representation = SentenceEmbeddings(model=job["embedding_model"])
    load_model(resolve_model(representation.model)[0])  # opened before the clock starts, like the classifier

    def answer(texts):
        return representation.prepare(texts, on_event, cache=False).matrix
    return answer


def run_case(job: dict) -> tuple[float, float, np.ndarray, list[str]]:
    context = mp.get_context("spawn")
    queue = context.Queue()
    process = context.Process(target=case, args=(job, queue))
    process.start()
    result = queue.get()
    process.join()
    return result


# -- the parent: cases, ratios, agreement --------------------------------------------------------
def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="bench_predict.py --transformer")
    parser.add_argument("--transformer", action="store_true")
    parser.add_argument("--agreement", action="store_true", help="20,000 texts, the two engine ways only")
    parser.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    parser.add_argument("--repeat", type=int, default=1, help="run the engine's cases this many times, in "
                        "turns; the fastest run of each counts (a shared machine)")
    parser.add_argument("sizes", nargs="*", type=int)
    args = parser.parse_args(argv)
    n = (args.sizes or [20_000 if args.agreement else 10_000])[0]
    texts, labels, categories, source = corpus()
    train = slice(0, TRAIN_TEXTS)
    pool = texts[TRAIN_TEXTS:]
    if len(pool) < n:
        sys.path.insert(0, str(ROOT))
        from benchmarks.bench_predict import _texts

        print(f"Only {len(pool):,} real texts besides the training texts: {n - len(pool):,} generated titles added.")
        pool = pool + _texts(n - len(pool))
    answer_texts = pool[:n]
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["TEXTLAB_CACHE_DIR"] = str(Path(tmp) / "cache")  # a fresh cache: every check is made here
        folder = Path(tmp) / "MiniLM fine-tuned"
        seconds = fine_tune_into(folder, texts[train], labels[train], categories, args.device)
        from guiapp.core.models.transformers.fine_tuning import model_name

        print(f"{model_name(model_path())} fine-tuned with the app's fine_tune: 1 epoch on {TRAIN_TEXTS:,} {source} "
              f"({len(categories)} categories, {seconds:.0f} s); answering {n:,} other texts on {_where(args.device)}.")
        common = {"folder": str(folder), "device": args.device, "texts": answer_texts,
                  "embedding_model": model_path()}
        cases = _cases(args)
        results: dict[tuple[str, str], tuple[float, float, np.ndarray, list[str]]] = {}
        print(f"{'answers':>10} {'way':>28} {'texts/s':>9} {'seconds':>8} {'peak MB':>8}")
        for round_ in range(args.repeat):  # in turns, so that other work on a shared machine hits all alike
            for task, way, label, env in cases:
                if round_ and way == "pipeline":
                    continue  # the baseline once: it is the slowest by far
                job = {**common, "task": task, "way": way, "env": env}
                result = run_case(job)
                if (task, way) not in results or result[0] < results[task, way][0]:
                    results[task, way] = result  # the fastest run of each case counts
                seconds, peak = result[:2]
                print(f"{task:>10} {label:>28} {n / seconds:>9,.1f} {seconds:>8.1f} {peak:>8,.0f}", flush=True)
        _ratios(results, args.device)
        _agreement(results, args.device, n)


def _where(device: str) -> str:
    import torch

    if device == "cuda":
        return torch.cuda.get_device_name(0)
    from guiapp.core.models.transformers import fast_inference

    bf16 = {True: "native bfloat16", False: "no native bfloat16", None: "bfloat16 support unknown"}
    return f"the CPU ({os.cpu_count()} cores, {bf16[fast_inference.native_bfloat16()]})"


def _cases(args) -> list[tuple[str, str, str, dict[str, str]]]:
    """(task, way, label, environment) of each case, in the order they run."""
    if args.device == "cuda":
        return [("classify", "pipeline", "HF pipeline (baseline)", {}),
                ("classify", "fp32", "engine, fp32", {}),
                ("classify", "mixed", "engine, mixed precision", {}),
                ("embed", "today", "engine, fp32", {})]
    cases = [] if args.agreement else [("classify", "pipeline", "HF pipeline (baseline)", {})]
    cases += [("classify", "today", "today: exact", {FAST: "0"}),
              ("classify", "new", "new: default (checked 16-bit)", {FAST: "auto"}),
              ("embed", "today", "today: exact", {FAST: "0"}),
              ("embed", "new", "new: default (checked 16-bit)", {FAST: "auto"})]
    return cases


def _rate(results, key) -> float | None:
    return 1.0 / results[key][0] if key in results else None


def _ratios(results, device: str) -> None:
    pairs = ([("classify", "mixed", "classify", "fp32", "mixed precision / fp32"),
              ("classify", "mixed", "classify", "pipeline", "mixed precision / HF pipeline")] if device == "cuda" else
             [("classify", "new", "classify", "today", "new / today"),
              ("classify", "new", "classify", "pipeline", "new / HF pipeline"),
              ("classify", "today", "classify", "pipeline", "today / HF pipeline"),
              ("embed", "new", "embed", "today", "new / today")])
    for a_task, a_way, b_task, b_way, words in pairs:
        a, b = _rate(results, (a_task, a_way)), _rate(results, (b_task, b_way))
        if a is not None and b is not None:
            print(f"{a_task:>10} {'ratio':>28} {a / b:>9.2f}x speed ({words})")


def _agreement(results, device: str, n: int) -> None:
    new, today = ("mixed", "fp32") if device == "cuda" else ("new", "today")
    if ("classify", new) in results and ("classify", today) in results:
        fast, exact = results["classify", new][2].astype(np.float64), results["classify", today][2].astype(np.float64)
        difference = np.abs(fast - exact).max(axis=1)
        same = (fast.argmax(axis=1) == exact.argmax(axis=1)).mean()
        print(f"Agreement on {n:,} texts, {new} vs {today}: same category {same:.3%} "
              f"({int(round((1 - same) * n))} texts changed), largest probability difference {difference.max():.4f} "
              f"(99th percentile {np.percentile(difference, 99):.4f}, texts above 0.02: {(difference > 0.02).sum()})")
    if ("embed", new) in results and ("embed", today) in results:
        fast, exact = results["embed", new][2].astype(np.float64), results["embed", today][2].astype(np.float64)
        cosine = (fast * exact).sum(axis=1) / (np.linalg.norm(fast, axis=1) * np.linalg.norm(exact, axis=1))
        print(f"Embeddings on {n:,} texts, {new} vs {today}: lowest cosine similarity {cosine.min():.6f} "
              f"(mean {cosine.mean():.6f})")
    for (task, way), result in results.items():
        for line in dict.fromkeys(result[3]):
            print(f"  log of {task} {way}: {line}")
