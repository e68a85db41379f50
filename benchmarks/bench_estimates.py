"""The run's expected time against the time it really takes, for the app's default study.

    python benchmarks/bench_estimates.py [--texts 933] [--data davidson|cap] [--transformer]
                                         [--epochs 1] [--seeds 1] [--fresh-cache] [--jobs 2]

Data: a stratified random sample of ``--texts`` coded texts (Davidson et al. 2017 tweets, or the
CAP bill titles) from ``../shared/data``; the study is the Models step's default (bag-of-words SVM,
word-vectors SVM, sentence-embeddings logistic regression, combined models), with the bundled
Transformer added by ``--transformer`` (its grid cut to one setting of ``--epochs`` epochs).

Prints the run plan (the fits per model and how each is tuned), the estimate from the constants
and from this computer's measured speeds, the wall time, the CPU time of the process and its
worker processes, and the load average before and after. On a busy computer, compare the
estimate with the CPU time divided by the cores the run used: it moves less than the wall time.
``--fresh-cache`` runs with an empty cache folder (the texts' embeddings are computed again, the
speeds are not measured), as on a first run.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Self

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DATA = ROOT.parent / "shared" / "data"
SEED = 20210401


def sample(which: str, n: int) -> pd.DataFrame:
    from sklearn.model_selection import train_test_split

    if which == "cap":
        table = pd.read_csv(DATA / "cap_uscongress_bills" / "USCongress.csv.gz", sep=";")
        table = table.rename(columns={"major": "label"})
    else:
        table = pd.read_csv(DATA / "davidson2017_hate_offensive" / "labeled_data.csv")
        table = table.rename(columns={"tweet": "text", "class": "label"})
    table = table[table["label"].map(table["label"].value_counts()) >= len(table) // 100]  # categories of 1 % or more
    _, part = train_test_split(table, test_size=n, stratify=table["label"], random_state=SEED)
    return part[["text", "label"]].assign(label=lambda frame: frame["label"].astype(str)).reset_index(drop=True)


class CpuMeter:
    """CPU seconds of this process and every worker process it starts (polled: workers come and go)."""

    def __init__(self) -> None:
        import psutil

        self.me = psutil.Process()
        self.seen: dict[int, float] = {}
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._poll, daemon=True)

    def _poll(self) -> None:
        while not self.stop.wait(0.25):
            self._read()

    def _read(self) -> None:
        import psutil

        for process in self.me.children(recursive=True):
            try:
                times = process.cpu_times()
                self.seen[process.pid] = times.user + times.system
            except psutil.Error:
                continue

    def __enter__(self) -> Self:
        own = self.me.cpu_times()
        self.start_own = own.user + own.system
        self.start_children = dict(self.seen)
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._read()
        self.stop.set()
        self.thread.join()
        own = self.me.cpu_times()
        self.own = own.user + own.system - self.start_own
        self.children = sum(self.seen.values())

    @property
    def total(self) -> float:
        return self.own + self.children


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", choices=("davidson", "cap"), default="davidson")
    parser.add_argument("--texts", type=int, default=933)
    parser.add_argument("--jobs", type=int, default=None)
    parser.add_argument("--transformer", action="store_true")
    parser.add_argument("--only-transformer", action="store_true")
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--seeds", type=int, default=1)
    parser.add_argument("--fresh-cache", action="store_true")
    args = parser.parse_args()
    if args.fresh_cache:
        os.environ["TEXTLAB_CACHE_DIR"] = tempfile.mkdtemp(prefix="textlab-bench-cache-")

    from guiapp.core.experiment.run.run_plan import plan_run
    from guiapp.core.experiment.run.run_size import estimate_run
    from guiapp.core.experiment.run.runner import run_experiment
    from guiapp.core.experiment.protocol.tuning import default_jobs
    from guiapp.core.study.mapping import ColumnMapping
    from guiapp.core.study.sections import DEFAULT_MODELS, EvaluationSpec, ModelSpec
    from guiapp.core.study.spec import DataSpec, ExperimentSpec

    table = sample(args.data, args.texts)
    models = [] if args.only_transformer else [ModelSpec(r, c) for r, c in DEFAULT_MODELS]
    if args.transformer or args.only_transformer:
        models.append(ModelSpec("transformer", "fine_tune", grid={"epochs": [args.epochs]}))
    spec = ExperimentSpec(
        data=DataSpec(mapping=ColumnMapping(text_columns=["text"], category_column="label")),
        evaluation=EvaluationSpec(transformer_seeds=args.seeds),
        models=models,
        seed=SEED,
    )
    jobs = default_jobs() if args.jobs is None else args.jobs
    n_test = round(len(table) * spec.evaluation.test_share)
    n_train = len(table) - n_test
    n_categories = table["label"].nunique()
    plan = plan_run(spec, n_train, n_test, n_categories, jobs)
    print(plan.describe())
    for part in plan.models:
        print(f"  {part.name}: {part.describe_fits()}; about {part.seconds:.1f} s")
    print(f"  once per run (reading, worker processes, embeddings, combined models): about {plan.shared_seconds:.1f} s")
    estimate = estimate_run(spec, n_train, n_test, n_categories, jobs)
    print(f"estimate: {estimate.seconds:.1f} s ({estimate.duration})")

    load_before = os.getloadavg()
    started = time.perf_counter()
    with CpuMeter() as cpu:
        result = run_experiment(spec, table=table, n_jobs=jobs)
    wall = time.perf_counter() - started
    load_after = os.getloadavg()
    cores = min(jobs, os.cpu_count() or 1)
    print(f"{len(table)} texts ({n_train} training, {n_test} test, {n_categories} categories), {jobs} jobs")
    for model in result.models:
        parts = ", ".join(f"{name} {value:.1f}" for name, value in model.seconds.items())
        print(f"  {model.name}: {parts}")
    print(f"wall {wall:.1f} s; CPU {cpu.total:.1f} s (this process {cpu.own:.1f}, workers {cpu.children:.1f}); "
          f"CPU / {cores} cores {cpu.total / cores:.1f} s")
    print(f"load average before {load_before[0]:.2f} {load_before[1]:.2f}, after {load_after[0]:.2f} "
          f"{load_after[1]:.2f}")
    print(f"estimate / wall {estimate.seconds / wall:.2f}; estimate / (CPU / cores) "
          f"{estimate.seconds / max(cpu.total / cores, 1e-9):.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
