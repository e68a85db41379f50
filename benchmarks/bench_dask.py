"""A study's conventional models on a Dask cluster against this computer's own worker pool, in one run.

    python benchmarks/bench_dask.py [--study docs/examples/bills/study.toml] [--repeats 3]
    python benchmarks/bench_dask.py --tweets 2400     # a larger study: the paper's grids on Davidson et al. (2017)

Study: the documented example (``docs/examples/bills``: 600 training and 200 test bill titles,
4 policy topics; the paper's basic bag of words with an SVM and its full grid, averaged GloVe vectors
with an SVM, naive Bayes; the combined models), or any study file given, or with ``--tweets N`` a
larger study whose pieces take seconds rather than milliseconds: N training and N/3 test tweets
of Davidson et al. (2017) (``../shared/data``), the paper's full SVM and XGBoost grids on the basic
bag of words, random oversampling, 5 folds, combined models. Each way of running it does
the whole study (``run_experiment``: features, 5-fold grid searches, out-of-fold refits for the
combined models, final fits, tests):

* **local pool, 2 processes** — the default on this 2-core machine, and the baseline: what a
  researcher gets without a cluster (the engine's own process pool, ``core/compute/process_pool.py``);
* this process, no pool (``--jobs 1``: one fit at a time, each with all cores' threads), beside it;
* **Dask, 2 workers** — a ``distributed.LocalCluster`` with 2 worker processes × 1 thread over TCP:
  equal cores, so the difference is Dask's overhead (scheduler round trips, shipping each fold's
  features once, results back). Goal: under 10 %;
* Dask, 1 worker — for the scaling from 1 to 2 workers.

The clusters are started before timing (their start-up is printed separately, it is paid once per
run of ``textlab run --scheduler``). Median of ``--repeats`` runs each, alternating. Every run must
give the same chosen settings, scores and predictions as the local pool; exits 1 if not.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
EXAMPLE = ROOT / "docs" / "examples" / "bills" / "study.toml"
TWEETS = ROOT.parent / "shared" / "data" / "davidson2017_hate_offensive" / "labeled_data.csv"
TWEET_STUDY = """name = "Davidson et al. (2017), {n} training tweets"
[data]
source = "train.csv"
test_source = "test.csv"
[data.mapping]
text_columns = ["tweet"]
category_column = "class"
[evaluation]
folds = 5
oversampling = "random"
[[models]]
representation = "bow"
classifier = "svm"
[[models]]
representation = "bow"
classifier = "xgboost"
"""


def tweet_study(folder: Path, n: int) -> Path:
    import pandas as pd
    from sklearn.model_selection import train_test_split

    table = pd.read_csv(TWEETS)
    _, part = train_test_split(table, test_size=n + n // 3, stratify=table["class"], random_state=20210401)
    train, test = train_test_split(part, test_size=n // 3, stratify=part["class"], random_state=1)
    train[["tweet", "class"]].to_csv(folder / "train.csv", index=False)
    test[["tweet", "class"]].to_csv(folder / "test.csv", index=False)
    (folder / "study.toml").write_text(TWEET_STUDY.format(n=n), encoding="utf-8")
    return folder / "study.toml"


def fingerprint(result) -> list:
    return [(model.name, model.chosen_params, [point.fold_scores for point in model.grid], model.predictions)
            for model in result.models]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--study", type=Path, default=EXAMPLE)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--tweets", type=int, help="instead: a larger study on this many training tweets")
    args = parser.parse_args()
    if args.tweets:
        import tempfile

        args.study = tweet_study(Path(tempfile.mkdtemp(prefix="bench-dask-")), args.tweets)

    import distributed

    from guiapp.core.compute.executors import DaskExecutor, LocalExecutor
    from guiapp.core.experiment.run.runner import run_experiment
    from guiapp.core.study.spec import ExperimentSpec
    from guiapp.core.study.study_data import load_study_data

    spec = ExperimentSpec.load(args.study)
    spec.models = [model for model in spec.models if model.representation != "transformer"]
    data = load_study_data(spec, args.study)
    print(f"{spec.name or args.study.name}: {data.split.describe()}; {len(spec.models)} models "
          f"({', '.join(model.display_name for model in spec.models)}), combined models {'on' if spec.evaluation.combine else 'off'}")

    clusters, start_seconds = {}, {}
    for workers in (1, 2):
        start = time.perf_counter()
        cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, protocol="tcp",
                                           dashboard_address=None, silence_logs=50)
        client = distributed.Client(cluster)
        client.wait_for_workers(workers)
        start_seconds[workers] = time.perf_counter() - start
        clusters[workers] = (cluster, client)
    ways = {
        "local pool, 2 processes": (lambda: LocalExecutor(2), 2),
        "this process (no pool)": (lambda: LocalExecutor(1), 1),
        "Dask, 2 workers": (lambda: DaskExecutor(clusters[2][1]), 2),
        "Dask, 1 worker": (lambda: DaskExecutor(clusters[1][1]), 1),
    }
    # a first run of each warms the workers' imports (GloVe vectors, scikit-learn), as a running cluster is
    seconds: dict[str, list[float]] = {name: [] for name in ways}
    reference, same = None, True
    for repeat in range(args.repeats + 1):
        for name, (make, n_jobs) in ways.items():
            start = time.perf_counter()
            result = run_experiment(spec, spec_file=args.study, n_jobs=n_jobs, executor=make())
            elapsed = time.perf_counter() - start
            if repeat:
                seconds[name].append(elapsed)
            reference = reference or fingerprint(result)
            same = same and fingerprint(result) == reference
    median = {name: statistics.median(values) for name, values in seconds.items()}
    base = median["local pool, 2 processes"]
    print(f"\nmedian of {args.repeats} whole-study runs (after one warm-up run each); cluster start-up: "
          f"1 worker {start_seconds[1]:.1f} s, 2 workers {start_seconds[2]:.1f} s\n")
    print(f"{'how':26} {'seconds':>8}  {'vs local pool (2)':>18}")
    for name, value in median.items():
        print(f"{name:26} {value:8.2f}  {value / base:17.2f}×")
    overhead = median["Dask, 2 workers"] / base - 1
    print(f"\nDask's overhead at equal cores (2 workers vs the 2-process pool): {overhead:+.1%} (goal: under +10 %)")
    print(f"scaling 1 → 2 Dask workers: {median['Dask, 1 worker'] / median['Dask, 2 workers']:.2f}× faster "
          f"(the local pool: {median['this process (no pool)'] / base:.2f}×)")
    print(f"same chosen settings, scores and predictions everywhere: {'yes' if same else 'NO'}", flush=True)
    for cluster, client in clusters.values():
        try:
            client.close()
            cluster.close(timeout=30)
        except Exception as error:  # noqa: BLE001 — a slow shutdown does not change the figures above
            print(f"(closing a cluster: {error!r})")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
