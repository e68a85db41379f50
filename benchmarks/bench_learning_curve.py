"""The learning curve (the reference paper's protocol for its toxic-comments task, Wankmüller 2022,
Figure 14) against what a competent user would write instead, in one run.

    python benchmarks/bench_learning_curve.py [--sizes 500 1000 2000 5000 10000] [--repeats 5]
        [--jobs 2] [--baseline-sizes 500 1000 2000] [--baseline-repeats 2] [--with-embeddings]

Data: a stratified random sample of ``--texts`` tweets (default 11,000) from Davidson et al. (2017)
(``../shared/data/davidson2017_hate_offensive``; hate 6 %, offensive 77 %, neither 17 %); ``--test``
of them (default 1,000) are the fixed test set, the rest the largest training set — the reference
protocol's 11,000 = 10,000 + 1,000. Random oversampling of the smaller categories to 1/4 of the
largest inside each training part, as for Toxic. Models: the app's default conventional models
(``DEFAULT_MODELS``: SVM on the basic bag of words and on averaged word vectors, each with the
paper's 12-setting SVM grid) without sentence embeddings, which need a Transformer pass over all
texts on a CPU (``--with-embeddings`` adds them).

Engine: ``run_learning_curve`` — features prepared once for all texts, the grid tuned once by 5-fold
cross-validation on the 1,000-text subset of the first draw (the paper's choice), then one fit per
size and draw in the engine's worker processes.
Baseline: per size and draw, ``GridSearchCV(imblearn.Pipeline([representation, RandomOverSampler,
SVC]), grid, cv=5, scoring="f1_macro", n_jobs=--jobs)`` on the same subset, refit, predict the test
set — re-tuning at every point, re-vectorising for every fold and setting. On the smaller setting
``--baseline-sizes`` × ``--baseline-repeats`` (the full one takes hours on 2 cores); the engine is
timed on that same setting too, so the ratio compares like with like.

Prints the seconds of each, the ratio, and the mean test macro-F1 per size of both (they differ a
little: the baseline re-tunes at every point).
"""

from __future__ import annotations

import argparse
import functools
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DATA = ROOT.parent / "shared" / "data" / "davidson2017_hate_offensive" / "labeled_data.csv"
SEED = 20210401


def sample(n_texts: int, n_test: int) -> pd.DataFrame:
    """``n_texts`` tweets, stratified; a split column marks ``n_test`` of them (stratified) as test."""
    from sklearn.model_selection import train_test_split

    table = pd.read_csv(DATA)
    _, part = train_test_split(table, test_size=n_texts, stratify=table["class"], random_state=SEED)
    train, test = train_test_split(part, test_size=n_test, stratify=part["class"], random_state=SEED)
    frame = pd.concat([train.assign(split="train"), test.assign(split="test")])
    return pd.DataFrame({"text": frame["tweet"].to_numpy(), "label": frame["class"].astype(str).to_numpy(),
                         "split": frame["split"].to_numpy()})


def study(with_embeddings: bool):
    from guiapp.core.study.mapping import ColumnMapping
    from guiapp.core.study.sections import DEFAULT_MODELS, EvaluationSpec, ModelSpec
    from guiapp.core.study.spec import DataSpec, ExperimentSpec

    models = [ModelSpec(representation, classifier) for representation, classifier in DEFAULT_MODELS
              if with_embeddings or representation != "sentence_embeddings"]
    return ExperimentSpec(
        data=DataSpec(mapping=ColumnMapping(text_columns=["text"], category_column="label", split_column="split")),
        evaluation=EvaluationSpec(folds=5, oversampling="random", oversampling_ratio=0.25, bootstrap_samples=0),
        models=models, seed=SEED,
    )  # fmt: skip


def engine(spec, table, sizes, repeats, jobs):
    from guiapp.core.experiment.curves.learning_curves import LearningCurveOptions, run_learning_curve

    start = time.perf_counter()
    result = run_learning_curve(spec, table=table, n_jobs=jobs,
                                options=LearningCurveOptions(sizes=tuple(sizes), repeats=repeats, add_full_set=False))
    seconds = time.perf_counter() - start
    means = {model.name: {row.size: row.mean for row in model.summary()} for model in result.models}
    return seconds, means, result


def baseline(spec, table, sizes, repeats, jobs):
    """Re-tune with GridSearchCV at every size and draw, on the engine's own subsets."""
    from imblearn.over_sampling import RandomOverSampler
    from imblearn.pipeline import Pipeline
    from sklearn.metrics import f1_score
    from sklearn.model_selection import GridSearchCV, StratifiedKFold
    from sklearn.svm import SVC

    from guiapp.core.experiment.curves.nested_subsets import CurvePlan, curve_sizes, repeat_seeds
    from guiapp.core.experiment.protocol.resampling import oversampling_targets
    from guiapp.core.features import make_representation
    from guiapp.core.models.conventional import expand_grid
    from guiapp.core.study.study_data import load_study_data

    data = load_study_data(spec, table=table)
    texts = np.asarray(data.texts, dtype=object)
    chosen_sizes, _ = curve_sizes(sizes, len(data.split.train), add_full_set=False)
    plan = CurvePlan.make(data.split.train, data.y, chosen_sizes, repeat_seeds(spec.seed, repeats))
    test = data.split.test
    start = time.perf_counter()
    means = {}
    for model in spec.models:
        scores: dict[int, list[float]] = {size: [] for size in plan.sizes}
        points = expand_grid(model.classifier, model.grid)
        grid = [{f"model__{name}": [value] for name, value in point.items()} for point in points]
        for size in plan.sizes:
            for repeat in range(plan.repeats):
                rows = plan.subset(size, repeat)
                oversampler = RandomOverSampler(sampling_strategy=functools.partial(oversampling_targets, ratio=0.25),
                                                random_state=plan.seeds[repeat])
                pipeline = Pipeline([("features", make_representation(model.representation, model.representation_options)),
                                     ("oversample", oversampler), ("model", SVC(random_state=SEED))])
                search = GridSearchCV(pipeline, grid, scoring="f1_macro", n_jobs=jobs,
                                      cv=StratifiedKFold(5, shuffle=True, random_state=SEED))
                search.fit(texts[rows], data.y[rows])
                scores[size].append(f1_score(data.y[test], search.predict(texts[test]), average="macro"))
        means[model.display_name] = {size: float(np.mean(values)) for size, values in scores.items()}
    return time.perf_counter() - start, means


def show(label: str, seconds: float, means: dict) -> None:
    print(f"{label}: {seconds:.1f} s")
    for name, by_size in means.items():
        print(f"    {name:34} " + "  ".join(f"{size:>6,}: {value:.3f}" for size, value in by_size.items()))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=11_000)
    parser.add_argument("--test", type=int, default=1_000)
    parser.add_argument("--sizes", type=int, nargs="+", default=[500, 1_000, 2_000, 5_000, 10_000])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--baseline-sizes", type=int, nargs="+", default=[500, 1_000, 2_000])
    parser.add_argument("--baseline-repeats", type=int, default=2)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--with-embeddings", action="store_true")
    parser.add_argument("--skip-full", action="store_true", help="time only the smaller setting")
    parser.add_argument("--skip-baseline", action="store_true", help="time only the engine's full curve")
    args = parser.parse_args()
    if not DATA.exists():
        print(f"skipped: {DATA} is not present")
        return 0
    table = sample(args.texts, args.test)
    spec = study(args.with_embeddings)
    print(f"{len(table):,} tweets ({args.test:,} test), models: {', '.join(m.display_name for m in spec.models)}; "
          f"{args.jobs} worker processes")
    if not args.skip_full:
        seconds, means, _ = engine(spec, table, args.sizes, args.repeats, args.jobs)
        show(f"engine, full curve ({', '.join(map(str, args.sizes))} × {args.repeats} draws)", seconds, means)
    if args.skip_baseline:
        return 0
    small = f"{', '.join(map(str, args.baseline_sizes))} × {args.baseline_repeats} draws"
    ours, ours_means, _ = engine(spec, table, args.baseline_sizes, args.baseline_repeats, args.jobs)
    show(f"engine, smaller setting ({small}; tuned once on the 1,000-text subset)", ours, ours_means)
    base, base_means = baseline(spec, table, args.baseline_sizes, args.baseline_repeats, args.jobs)
    show(f"GridSearchCV re-tuned per size and draw ({small})", base, base_means)
    print(f"speed-up on the smaller setting: {base / ours:.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
