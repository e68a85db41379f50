"""The engine's grid search against a straightforward scikit-learn GridSearchCV, in one run.

    python benchmarks/bench_tuning.py [--train 2400] [--folds 5] [--jobs 2] [--only bow-svm]

Data: a stratified random sample of ``--train`` tweets from Davidson et al. (2017)
(``../shared/data/davidson2017_hate_offensive``; 3 categories: hate 6 %, offensive 77 %,
neither 17 %). Protocol (the reference paper's, Wankmüller 2022): its full SVM grid (kernel × C × γ, 12 settings)
and XGBoost grid (trees × depth × learning rate, 12 settings) × 5 stratified folds, random
oversampling of the smaller categories to 1/4 of the largest inside each training part, on the
basic bag of words and on averaged GloVe vectors (the bundled 6B 50-d; the paper used 42B 300-d).

Baseline: ``GridSearchCV(imblearn.Pipeline([representation, RandomOverSampler, classifier]))``
with default settings — it re-tokenises and re-vectorises for every fold *and* every setting
and fits XGBoost settings that differ only in the number of trees separately (XGBoost's own
default threads, i.e. all cores).
Engine: ``tuning.build_folds`` + ``tuning.grid_search`` + the refit of the chosen setting (as
GridSearchCV's ``refit=True``) — texts tokenised once, each fold's features built once, SVM
settings of a kernel fitted on one shared kernel matrix, XGBoost trees shared between settings
that differ only in their number, fits spread over ``--jobs`` worker processes (one thread each).

Prints per case the seconds of both, the speed-up ratio (target ≥ 2×) and whether the chosen
setting and every cross-validated score are identical; exits 1 if any chosen setting differs.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DATA = ROOT.parent / "shared" / "data" / "davidson2017_hate_offensive" / "labeled_data.csv"
SEED = 20210401
CASES = [("bow", "svm"), ("bow", "xgboost"), ("word_vectors", "svm"), ("word_vectors", "xgboost")]


def sample(n: int) -> tuple[list[str], np.ndarray]:
    from sklearn.model_selection import train_test_split

    table = pd.read_csv(DATA)
    _, part = train_test_split(table, test_size=n, stratify=table["class"], random_state=SEED)
    return part["tweet"].tolist(), part["class"].to_numpy()


def engine(kind: str, classifier: str, texts, y, folds: int, jobs: int):
    from guiapp.core.experiment.protocol.fitting import fit_classifier
    from guiapp.core.experiment.protocol.resampling import cv_folds, oversampled_rows
    from guiapp.core.experiment.protocol.tuning import build_folds, grid_search
    from guiapp.core.features import make_representation
    from guiapp.core.models.conventional import expand_grid

    representation = make_representation(kind, {})
    prepared = representation.prepare(texts)
    rows = np.arange(len(texts))
    fold_data = build_folds(representation, prepared, y, rows, cv_folds(y, folds, SEED), 0.25, SEED)
    points = expand_grid(classifier, {})
    results, chosen = grid_search(classifier, points, fold_data, SEED, jobs)
    # like GridSearchCV's refit=True: the chosen setting on all training texts
    final = representation.fit_prepared(prepared, rows)
    X, fit_y = final.transform_prepared(prepared, rows), y
    drawn = oversampled_rows(y, 0.25, SEED)
    fit_classifier(classifier, points[chosen], SEED, os.cpu_count() or 1, X[drawn], fit_y[drawn])
    return points[chosen], np.array([point.mean for point in results])


def baseline(kind: str, classifier: str, texts, y, folds: int):
    import functools

    from imblearn.over_sampling import RandomOverSampler
    from imblearn.pipeline import Pipeline
    from sklearn.model_selection import GridSearchCV, StratifiedKFold
    from sklearn.svm import SVC
    from xgboost import XGBClassifier

    from guiapp.core.experiment.protocol.resampling import oversampling_targets
    from guiapp.core.features import make_representation
    from guiapp.core.models.conventional import expand_grid

    model = SVC(random_state=SEED) if classifier == "svm" else XGBClassifier(tree_method="hist", random_state=SEED)
    pipeline = Pipeline(
        [
            ("features", make_representation(kind, {})),
            ("oversample", RandomOverSampler(sampling_strategy=functools.partial(oversampling_targets, ratio=0.25), random_state=SEED)),
            ("model", model),
        ]
    )
    points = expand_grid(classifier, {})
    grid = [{f"model__{name}": [value] for name, value in point.items()} for point in points]
    search = GridSearchCV(pipeline, grid, scoring="f1_macro", cv=StratifiedKFold(folds, shuffle=True, random_state=SEED))
    search.fit(np.asarray(texts, dtype=object), y)
    chosen = {name.removeprefix("model__"): value for name, value in search.best_params_.items()}
    return chosen, search.cv_results_["mean_test_score"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--train", type=int, default=2400)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--only", help="one case, e.g. bow-svm")
    args = parser.parse_args()
    if not DATA.exists():
        print(f"skipped: {DATA} is not present")
        return 0
    texts, y = sample(args.train)
    print(f"{len(texts)} tweets, categories {np.bincount(y).tolist()}, {args.folds} folds, {args.jobs} worker processes")
    total_ours = total_base = 0.0
    all_same = True
    for kind, classifier in CASES:
        if args.only and args.only != f"{kind}-{classifier}":
            continue
        start = time.perf_counter()
        ours_params, ours_scores = engine(kind, classifier, texts, y, args.folds, args.jobs)
        ours = time.perf_counter() - start
        start = time.perf_counter()
        base_params, base_scores = baseline(kind, classifier, texts, y, args.folds)
        base = time.perf_counter() - start
        same = ours_params == base_params
        scores_equal = np.allclose(ours_scores, base_scores, rtol=0, atol=1e-12)
        all_same &= same
        total_ours += ours
        total_base += base
        print(
            f"{kind:13} {classifier:8} engine {ours:6.1f} s   GridSearchCV {base:6.1f} s   ratio {base / ours:4.1f}x   "
            f"chosen {'identical' if same else 'DIFFERENT'} {ours_params}   scores {'identical' if scores_equal else 'differ'}"
        )
    print(f"all cases: engine {total_ours:.1f} s, GridSearchCV {total_base:.1f} s, speed-up ratio {total_base / total_ours:.2f}x (target >= 2x)")
    return 0 if all_same else 1


if __name__ == "__main__":
    raise SystemExit(main())
