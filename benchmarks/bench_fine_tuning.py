"""Fine-tuning speed: TextLab's loop against Hugging Face's Trainer, on real short texts.

Bundled MiniLM, real tweets (Davidson et al. 2017, ``../shared/data/davidson2017_hate_offensive``),
one epoch, batch 16, learning rate 5e-5, the same seed:

  (a) ``guiapp.core.models.transformers.fine_tuning.fine_tune`` with its speed-ups (the last layer
      computes only the token the classifier reads; only the word embeddings the texts use are
      trained; see ``training/speed_switches.py``);
  (a0) the same loop with every speed-up switched off (``TEXTLAB_FINE_TUNING_OFF=all``);
  (b) an expert ``Trainer``: ``DataCollatorWithPadding`` + ``train_sampling_strategy=
      "group_by_length"`` (transformers 5's name for ``group_by_length=True``), fused AdamW —
      the honest baseline, what a careful programmer writes; the headline ratio;
  (c) a plain ``Trainer`` with every text padded to the longest training text (``--padded``);
  (d) a plain ``Trainer`` with every text padded to 512 tokens, the reference paper's way
      (``--padded``; mostly padding on tweets, so never the headline).

Each run happens in a fresh child process, which reports its peak resident memory and, on a GPU,
its peak GPU memory. On the CPU every configuration runs at each of ``--threads`` (torch's thread
count pinned, the same for TextLab and the Trainer), ``--repeat`` times, interleaved (a, a0, b,
a, a0, b, …), so that other work on a shared machine hits all alike; the best and the median run
count. The mean training loss of each tenth of the steps is printed for every run: the curves
must agree within the noise of dropout and batch order.

``--neighbours 0,1,2,4`` measures fine-tuning (TextLab only) while that many other processes each
keep a core busy, with torch's usual fixed thread count ("before") and with the thread count
chosen from the free cores ("after", ``training/cpu_threads.py``), and prints each time against
the quiet one.

    python benchmarks/bench_fine_tuning.py                              # CPU, 1 and 2 threads
    python benchmarks/bench_fine_tuning.py --neighbours 0,1,2,4 --texts 480
    python benchmarks/bench_fine_tuning.py --device cuda --texts 8000   # GPU: bf16 on both sides
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import data_file, model_path

ROOT = Path(__file__).resolve().parents[1]
SEED = 20210401
LR, BATCH = 5e-5, 16
WINDOWS = 10  # the loss curve: mean loss of each tenth of the steps

HALF_WEIGHTS = "model.fp16.safetensors"  # a carried copy of the model, half the size


def prepare_device_folder(folder: Path) -> None:
    """Write what a GPU machine without the Python packages needs into ``folder``: the Davidson CSV and
    the bundled model with its weights stored in float16 (45 MB instead of 87 MB; they are widened back
    to float32 there, the same for TextLab and the Trainer)."""
    import shutil

    import torch
    from safetensors.torch import load_file, save_file

    source = Path(model_path())
    target = folder / "all-MiniLM-L6-v2"
    target.mkdir(parents=True, exist_ok=True)
    for name in ("config.json", "special_tokens_map.json", "tokenizer.json", "tokenizer_config.json", "vocab.txt"):
        shutil.copy2(source / name, target / name)
    weights = load_file(str(source / "model.safetensors"))
    save_file({k: v.to(torch.float16) if v.is_floating_point() else v for k, v in weights.items()},
              str(target / HALF_WEIGHTS), metadata={"format": "pt"})
    data = folder / "davidson2017_hate_offensive"
    data.mkdir(exist_ok=True)
    shutil.copy2(data_file(), data / "labeled_data.csv")
    print(f"Wrote {target} and {data / 'labeled_data.csv'}. On the GPU machine:\n"
          f"  TEXTLAB_BENCH_MODEL={target} TEXTLAB_BENCH_DATA={data} python benchmarks/bench_fine_tuning.py "
          "--device cuda --bf16-only")


def widen_half_weights(workspace: Path) -> None:
    """If the model folder holds float16 weights only (a carried copy), write a float32 copy into
    ``workspace`` and point the children at it."""
    folder = Path(model_path())
    if not (folder / HALF_WEIGHTS).is_file() or (folder / "model.safetensors").is_file():
        return
    import shutil

    import torch
    from safetensors.torch import load_file, save_file

    target = workspace / folder.name
    shutil.copytree(folder, target, ignore=shutil.ignore_patterns(HALF_WEIGHTS))
    weights = load_file(str(folder / HALF_WEIGHTS))
    save_file({k: v.to(torch.float32) if v.is_floating_point() else v for k, v in weights.items()},
              str(target / "model.safetensors"), metadata={"format": "pt"})
    os.environ["TEXTLAB_BENCH_MODEL"] = str(target)


def load_texts(n: int) -> tuple[list[str], list[int]]:
    """A seeded sample of ``n`` tweets and their classes (the same for every run on one machine)."""
    try:
        import pandas as pd
    except ImportError:  # a bare GPU machine: the csv module and a seeded shuffle
        import csv

        import numpy as np

        with data_file().open(encoding="utf-8", newline="") as handle:
            rows = [(row["tweet"], int(row["class"])) for row in csv.DictReader(handle)]
        order = np.random.RandomState(SEED).permutation(len(rows))[:n]
        return [rows[i][0] for i in order], [rows[i][1] for i in order]
    table = pd.read_csv(data_file(), usecols=["tweet", "class"])
    table = table.sample(n=min(n, len(table)), random_state=SEED)
    return table["tweet"].astype(str).tolist(), table["class"].astype(int).tolist()


def peak_rss_mb() -> float:
    try:
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    except ImportError:  # Windows
        import psutil

        return psutil.Process().memory_info().peak_wset / 2**20


def cpu_seconds() -> float:
    """CPU time of this process so far (all its threads)."""
    times = os.times()
    return times.user + times.system


def window_means(losses: list[float], windows: int = WINDOWS) -> list[float]:
    n = len(losses)
    size = max(1, n // windows)
    return [sum(losses[i:i + size]) / len(losses[i:i + size]) for i in range(0, size * min(windows, n), size)]


# -- child: one measured run ------------------------------------------------------------------
def child(run: dict) -> dict:
    import numpy as np
    import torch

    if run.get("threads") and run["kind"] != "textlab":  # TextLab reads TEXTLAB_CPU_THREADS itself
        torch.set_num_threads(int(run["threads"]))
    path = model_path()
    texts, labels = load_texts(run["n_load"])
    if run["kind"] == "trainer_longest":  # the longest of all the texts the others train on
        from transformers import AutoTokenizer

        lengths = AutoTokenizer.from_pretrained(path, local_files_only=True)(
            texts, truncation=True, max_length=512)["input_ids"]
        run = {**run, "pad_to": max(map(len, lengths))}
    texts, labels = texts[: run["n"]], labels[: run["n"]]
    device = run["device"]
    rss_before = peak_rss_mb()
    if device == "cuda":
        torch.cuda.reset_peak_memory_stats()
    started, cpu_started = time.perf_counter(), cpu_seconds()
    notes: list[str] = []
    if run["kind"] == "textlab":
        from guiapp.core.models.transformers.fine_tuning import fine_tune
        from guiapp.core.models.transformers.training.settings import FineTuneSettings

        settings = FineTuneSettings(learning_rate=LR, epochs=1, batch_size=BATCH, max_length=512,
                                    seed=SEED, device=device, mixed_precision=run["bf16"])
        model = fine_tune(path, texts, np.array(labels), 3, settings)
        if device == "cuda":
            torch.cuda.synchronize()
        loop_speed, curve, notes = model.samples_per_second, window_means(model.losses), model.notes
    else:
        loop_speed, curve = trainer_run(path, texts, labels, run)
    wall, cpu = time.perf_counter() - started, cpu_seconds() - cpu_started
    result = {**run, "wall_s": wall, "cpu_s": cpu, "samples_per_s": run["n"] / wall, "loop_samples_per_s": loop_speed,
              "curve": curve, "mean_loss": float(np.mean(curve)) if curve else float("nan"),
              "peak_rss_mb": peak_rss_mb(), "rss_before_mb": rss_before, "torch_threads": torch.get_num_threads(),
              "notes": notes}
    if device == "cuda":
        result["peak_gpu_mb"] = torch.cuda.max_memory_allocated() / 2**20
        result["gpu"] = torch.cuda.get_device_name()
    return result


def trainer_run(path: str, texts: list[str], labels: list[int], run: dict) -> tuple[float, list[float]]:
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
    tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
    model = AutoModelForSequenceClassification.from_pretrained(path, num_labels=3, local_files_only=True)
    padded = run["kind"] in ("trainer_padded", "trainer_longest")
    if padded:
        encoded = tokenizer(texts, padding="max_length", max_length=run.get("pad_to", 512), truncation=True)
        collator = default_data_collator
    else:
        encoded = tokenizer(texts, truncation=True, max_length=512)
        collator = DataCollatorWithPadding(tokenizer)
    rows = [{"input_ids": ids, "attention_mask": mask, "labels": label}
            for ids, mask, label in zip(encoded["input_ids"], encoded["attention_mask"], labels, strict=True)]
    if padded:
        rows = [{k: torch.tensor(v) for k, v in row.items()} for row in rows]
    steps = -(-len(rows) // BATCH)
    options = {}
    known = inspect.signature(TrainingArguments).parameters
    if "train_sampling_strategy" in known:  # transformers ≥ 5
        options["train_sampling_strategy"] = "random" if padded else "group_by_length"
    else:
        options["group_by_length"] = not padded
    with tempfile.TemporaryDirectory() as out:
        args = TrainingArguments(
            output_dir=out, per_device_train_batch_size=BATCH, num_train_epochs=1, learning_rate=LR,
            lr_scheduler_type="linear", warmup_steps=0, weight_decay=0.0, report_to=[], save_strategy="no",
            logging_strategy="steps", logging_steps=max(1, steps // WINDOWS), disable_tqdm=True, seed=SEED,
            use_cpu=run["device"] == "cpu", bf16=run["bf16"] and run["device"] == "cuda",
            dataloader_num_workers=0, **options,
        )
        trainer = Trainer(model=model, args=args, train_dataset=rows, data_collator=collator,
                          processing_class=tokenizer)
        metrics = trainer.train().metrics
        curve = [float(entry["loss"]) for entry in trainer.state.log_history if "loss" in entry][:WINDOWS]
    return float(metrics["train_samples_per_second"]), curve


# -- parent: runs the children and prints the comparison ----------------------------------------
def measure(run: dict) -> dict:
    env = {**os.environ, "TOKENIZERS_PARALLELISM": "false", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    env.pop("TEXTLAB_FINE_TUNING_OFF", None)
    env.pop("TEXTLAB_CPU_THREADS", None)
    if run.get("off"):
        env["TEXTLAB_FINE_TUNING_OFF"] = run["off"]
    if run.get("threads"):
        env["TEXTLAB_CPU_THREADS"] = str(run["threads"])
    env.update(run.get("env", {}))
    done = subprocess.run([sys.executable, __file__, "--child", json.dumps(run)], env=env, capture_output=True,
                          text=True, check=False)
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    if done.returncode != 0 or not lines:
        sys.exit(f"run {run['name']} failed:\n{done.stderr[-4000:]}")
    return json.loads(lines[-1][len("RESULT "):])


def load_average() -> str:
    try:
        return "load average {:.2f} {:.2f} {:.2f}".format(*os.getloadavg())
    except (AttributeError, OSError):
        return "load average unknown"


def show(result: dict) -> None:
    gpu = f", peak GPU {result['peak_gpu_mb']:.0f} MB" if "peak_gpu_mb" in result else ""
    padded = f" (padded to {result['pad_to']})" if "pad_to" in result else ""
    threads = f" [{result['threads']} thr]" if result.get("threads") else ""
    print(f"{result['name'] + padded + threads:<58} {result['n']:>5} texts {result['wall_s']:7.1f} s "
          f"{result['samples_per_s']:6.1f} samples/s (loop {result['loop_samples_per_s']:6.1f}, CPU {result['cpu_s']:6.1f} s)  "
          f"RSS {result['peak_rss_mb']:.0f} MB{gpu}  [{load_average()}]", flush=True)
    print("    loss curve: " + " ".join(f"{x:.3f}" for x in result["curve"]), flush=True)


def summary(results: list[dict], key: tuple) -> tuple[float, float]:
    speeds = [r["samples_per_s"] for r in results if (r["kind"], r.get("off", ""), r["bf16"], r.get("threads")) == key]
    return (max(speeds), statistics.median(speeds)) if speeds else (0.0, 0.0)


def compare(args: argparse.Namespace) -> None:
    n, n_base = args.texts, min(args.baseline_texts, args.texts)
    cuda = args.device == "cuda"
    precisions = ([True] if args.bf16_only else [True, False]) if cuda else [False]
    thread_counts = [None] if cuda else [int(t) for t in args.threads.split(",")]
    runs = []
    for bf16 in precisions:
        tag = (" bf16" if bf16 else " fp32") if cuda else ""
        for threads in thread_counts:
            runs.append({"name": f"(a) TextLab fine_tune{tag}", "kind": "textlab", "off": "", "n": n, "bf16": bf16,
                         "threads": threads})
            if not args.no_switch_off:
                runs.append({"name": f"(a0) TextLab, speed-ups off{tag}", "kind": "textlab", "off": "all", "n": n,
                             "bf16": bf16, "threads": threads})
            for name in args.only_off.split(",") if args.only_off else []:
                runs.append({"name": f"(a-{name}) TextLab without {name}{tag}", "kind": "textlab", "off": name,
                             "n": n, "bf16": bf16, "threads": threads})
            runs.append({"name": f"(b) expert Trainer{tag}", "kind": "trainer_expert", "n": n, "bf16": bf16,
                         "threads": threads})
            if args.padded:
                runs.append({"name": f"(c) Trainer, padded to the longest text{tag}", "kind": "trainer_longest",
                             "n": n_base, "bf16": bf16, "threads": threads})
                runs.append({"name": f"(d) Trainer, padded to 512{tag}", "kind": "trainer_padded", "n": n_base,
                             "bf16": bf16, "threads": threads})
    print(f"Fine-tuning benchmark: bundled all-MiniLM-L6-v2, {n} Davidson et al. tweets (seeded sample), 1 epoch, "
          f"batch {BATCH}, lr {LR:g}, device {args.device}, {os.cpu_count()} CPUs, {load_average()}.")
    print(f"Every configuration runs {args.repeat} times, interleaved; best and median count.")
    results = []
    for rep in range(args.repeat):
        for run in runs:
            if rep and run["kind"] in ("trainer_padded", "trainer_longest"):
                continue
            result = measure({**run, "device": args.device, "n_load": n})
            results.append(result)
            show(result)
    print()
    for bf16 in precisions:
        for threads in thread_counts:
            tag = ((" bf16" if bf16 else " fp32") if cuda else "") + (f", {threads} threads" if threads else "")
            ours_best, ours_median = summary(results, ("textlab", "", bf16, threads))
            for kind, off, label in (("textlab", "all", "TextLab with its speed-ups off"),
                                     ("trainer_expert", "", "expert Trainer (dynamic padding, group_by_length) [headline]"),
                                     ("trainer_longest", "", "Trainer padded to the longest text"),
                                     ("trainer_padded", "", "Trainer padded to 512 tokens [mostly padding on tweets]")):
                best, median = summary(results, (kind, off, bf16, threads))
                if best:
                    print(f"TextLab vs {label}{tag}: {ours_best / best:.2f}x best, {ours_median / median:.2f}x median "
                          f"({ours_best:.1f} vs {best:.1f} samples/s)")
                if best and threads == 1 and kind in ("textlab", "trainer_expert"):  # the same texts; on one
                    # thread CPU time hardly depends on other programs' load
                    ours_cpu = min(r["cpu_s"] for r in results
                                   if (r["kind"], r.get("off", ""), r["bf16"], r.get("threads")) == ("textlab", "", bf16, 1))
                    theirs = min(r["cpu_s"] for r in results
                                 if (r["kind"], r.get("off", ""), r["bf16"], r.get("threads")) == (kind, off, bf16, 1))
                    print(f"    by CPU time (load-independent on 1 thread): {theirs / ours_cpu:.2f}x "
                          f"({ours_cpu:.1f} vs {theirs:.1f} CPU s)")
    if cuda and len(precisions) == 2:
        print(f"TextLab bf16 vs fp32: {summary(results, ('textlab', '', True, None))[0] / summary(results, ('textlab', '', False, None))[0]:.2f}x samples/s")
    if cuda:
        for r in results[:len(runs)]:
            print(f"peak GPU memory {r['name']}: {r['peak_gpu_mb']:.0f} MB ({r['gpu']})")


# -- busy computer: neighbours that keep cores busy ---------------------------------------------
BURN = "import time\nwhile True:\n    sum(i * i for i in range(10000))\n"


def start_neighbours(k: int) -> list[subprocess.Popen]:
    neighbours = [subprocess.Popen([sys.executable, "-c", BURN]) for _ in range(k)]
    time.sleep(1.0 if k else 0.0)
    return neighbours


def stop_neighbours(neighbours: list[subprocess.Popen]) -> None:
    for process in neighbours:
        process.kill()
    for process in neighbours:
        process.wait()


def busy(args: argparse.Namespace) -> None:
    counts = [int(k) for k in args.neighbours.split(",")]
    variants = [("before: torch's fixed thread count", {"off": "threads"}),
                ("after: threads from the free cores", {"off": ""})]
    if args.passive:
        variants.append(("after, OMP_WAIT_POLICY=PASSIVE", {"off": "", "env": {"OMP_WAIT_POLICY": "PASSIVE"}}))
        variants.append(("before, OMP_WAIT_POLICY=PASSIVE", {"off": "threads", "env": {"OMP_WAIT_POLICY": "PASSIVE"}}))
    print(f"Fine-tuning on a busy computer: {args.texts} tweets, 1 epoch, TextLab only, {os.cpu_count()} CPUs, "
          f"neighbours {counts} (each a process that keeps one core busy), {load_average()}.")
    times: dict[tuple[str, int], list[float]] = {}
    for rep in range(args.repeat):
        for k in counts:
            for label, variant in variants:
                neighbours = start_neighbours(k)
                try:
                    result = measure({"name": f"{label}, {k} neighbours", "kind": "textlab", "n": args.texts,
                                      "n_load": args.texts, "bf16": False, "device": "cpu", **variant})
                finally:
                    stop_neighbours(neighbours)
                times.setdefault((label, k), []).append(result["wall_s"])
                show(result)
                for note in result["notes"]:
                    print(f"    note: {note}")
    print()
    for label, _ in variants:
        quiet = min(times.get((label, 0), [float("nan")]))
        for k in counts:
            best = min(times[(label, k)])
            print(f"{label:<40} {k} neighbours: {best:7.1f} s  = {best / quiet:5.2f}x its quiet time")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--texts", type=int, default=2000, help="texts for TextLab and the expert Trainer")
    parser.add_argument("--baseline-texts", type=int, default=320, help="texts for the padded Trainers (c), (d)")
    parser.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    parser.add_argument("--threads", default="1,2", help="CPU: torch threads to compare at, e.g. 1,2")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each configuration, interleaved")
    parser.add_argument("--padded", action="store_true", help="also the padded Trainers (c) and (d)")
    parser.add_argument("--no-switch-off", action="store_true", help="skip (a0), TextLab with its speed-ups off")
    parser.add_argument("--only-off", default="", help="also TextLab with just these speed-ups off, e.g. "
                        "first_token,vocabulary")
    parser.add_argument("--neighbours", default="", help="busy-computer mode: numbers of CPU-burning neighbours")
    parser.add_argument("--passive", action="store_true", help="busy-computer mode: also OMP_WAIT_POLICY=PASSIVE")
    parser.add_argument("--bf16-only", action="store_true", help="GPU: only bf16 (TextLab and the Trainer)")
    parser.add_argument("--prepare-device", metavar="FOLDER", help="write the model (float16) and the data "
                        "into FOLDER for a GPU machine, then stop")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print("RESULT " + json.dumps(child(json.loads(args.child))), flush=True)
        return
    if not data_file().is_file():
        print(f"Skipped: the benchmark data {data_file()} is not here (it lives outside the repository; "
              "TEXTLAB_BENCH_DATA may name it).")
        return
    if args.prepare_device:
        prepare_device_folder(Path(args.prepare_device))
        return
    with tempfile.TemporaryDirectory() as workspace:
        widen_half_weights(Path(workspace))
        if args.neighbours:
            busy(args)
        else:
            compare(args)


if __name__ == "__main__":
    main()
