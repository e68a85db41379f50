"""Studies where a text can have several categories, measured on ETHOS multi-label (Mollas et al. 2022):
433 hateful comments, 8 categories (violence, directed vs generalised, gender, race, national origin,
disability, religion, sexual orientation), coded by several crowd workers — the file holds the share
of coders who gave each category, which TextLab counts as the category from 0.5, as the authors did.

The study is the app's: the default models (SVM on the bag of words, SVM on averaged word vectors,
logistic regression on sentence embeddings) and, with ``--transformer``, the bundled fine-tuned
MiniLM; one classifier per category (a sigmoid output per category for the Transformer), tuned by
5-fold iteratively stratified cross-validation, tested on 30 % of the texts held out by iterative
stratification. It runs twice: with every threshold at 0.5 and with thresholds tuned on the training
texts' out-of-fold probabilities. Printed, and written as Markdown with ``--out``: per model macro-F1
(95 % bootstrap interval), micro-F1, subset accuracy, Hamming loss and the time it took, beside the
figures the ETHOS authors published for the same data (their repository's multi-label experiments:
10-fold nested cross-validation, TF-IDF features).

Baselines printed beside TextLab's models, fitted on the same training texts and scored on the same
test texts: what a competent user would write with scikit-learn alone — ``OneVsRestClassifier`` of a
linear SVM on TF-IDF words, tuned by ``GridSearchCV`` over C with the authors' own multi-label folds —
and the trivial "predict every category's majority answer"; and XGBoost's own multi-output training
beside TextLab's one XGBoost model per category on the same features (time and scores), which is why
TextLab trains one model per category.

    .venv/bin/python benchmarks/bench_multilabel.py --transformer --out docs/multi-label.md
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DATA = ROOT.parent / "shared" / "data" / "ethos_mollas2020_hatespeech" / "Ethos_Dataset_Multi_Label.csv"
CATEGORIES = ["violence", "directed_vs_generalized", "gender", "race", "national_origin", "disability", "religion",
              "sexual_orientation"]

# The ETHOS authors' multi-label results (repository intelligence-csd-auth-gr/Ethos-Hate-Speech-Dataset,
# setEResults.txt: 10-fold nested cross-validation with iterative stratification, TF-IDF words, means
# over the folds): macro-F1, micro-F1, subset accuracy, Hamming loss.
PUBLISHED = {
    "ML-kNN": (0.5304, 0.5374, 0.2653, 0.1566),
    "MLARAM": (0.0606, 0.1871, 0.0715, 0.2948),
    "Binary relevance (tuned LR / SVM / trees)": (0.4841, 0.5283, 0.2748, 0.1299),
    "Classifier chains": (0.5123, 0.5511, 0.3051, 0.1276),
}


def _table(folder: Path) -> Path:
    frame = pd.read_csv(DATA, sep=";")
    path = folder / "ethos_multi_label.csv"
    frame.to_csv(path, index=False)
    return path


def run_study(source: Path, tune: bool, transformer: bool, folder: Path):
    from guiapp.core.experiment.run.runner import run_experiment
    from guiapp.core.study.mapping import ColumnMapping
    from guiapp.core.study.sections import DEFAULT_MODELS, EvaluationSpec, ModelSpec
    from guiapp.core.study.spec import DataSpec, ExperimentSpec

    spec = ExperimentSpec(
        name="ETHOS multi-label",
        data=DataSpec(source=str(source), mapping=ColumnMapping(text_columns=["comment"], multi_label=True,
                                                                category_columns=list(CATEGORIES))),
        evaluation=EvaluationSpec(tune_thresholds=tune),
        models=[ModelSpec(representation, classifier) for representation, classifier in DEFAULT_MODELS]
        + ([ModelSpec("transformer", "fine_tune")] if transformer else []),
    )
    started = time.perf_counter()
    result = run_experiment(spec, artefacts_dir=folder / f"models-{int(tune)}")
    return result, time.perf_counter() - started


def baselines(result) -> list[tuple[str, tuple[float, float, float, float], float]]:
    """scikit-learn's one-vs-rest linear SVM on TF-IDF, tuned by GridSearchCV, and the majority answer,
    on the study's own training and test texts."""
    from iterstrat.ml_stratifiers import MultilabelStratifiedKFold
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.model_selection import GridSearchCV
    from sklearn.multiclass import OneVsRestClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.svm import LinearSVC

    frame = pd.read_csv(DATA, sep=";")
    Y = (frame[CATEGORIES].to_numpy(dtype=float) >= 0.5).astype(np.uint8)
    texts = frame["comment"].astype(str).to_numpy()
    test_texts = set(result.test_texts)
    is_test = np.array([text in test_texts for text in texts])
    X_train, Y_train, X_test, Y_test = texts[~is_test], Y[~is_test], texts[is_test], Y[is_test]
    rows = []
    started = time.perf_counter()
    search = GridSearchCV(make_pipeline(TfidfVectorizer(), OneVsRestClassifier(LinearSVC())),
                          {"onevsrestclassifier__estimator__C": [0.1, 1.0, 10.0, 100.0]}, scoring="f1_macro",
                          cv=MultilabelStratifiedKFold(n_splits=5, shuffle=True, random_state=0)).fit(X_train, Y_train)
    rows.append(("scikit-learn: one-vs-rest linear SVM on TF-IDF, GridSearchCV", _scores(Y_test, search.predict(X_test)),
                 time.perf_counter() - started))
    majority = np.tile((Y_train.mean(axis=0) >= 0.5).astype(np.uint8), (len(Y_test), 1))
    rows.append(("every category's majority answer", _scores(Y_test, majority), 0.0))
    return rows


def xgboost_native(result) -> list[tuple[str, tuple[float, float, float, float], float]]:
    """XGBoost's own multi-output training against TextLab's one model per category, on the same
    bag-of-words features, training and test texts and settings (200 trees of depth 4): time and scores."""
    from xgboost import XGBClassifier

    from guiapp.core.experiment.protocol.fitting import fit_classifier, predict
    from guiapp.core.features.bow import BagOfWords

    frame = pd.read_csv(DATA, sep=";")
    Y = (frame[CATEGORIES].to_numpy(dtype=float) >= 0.5).astype(np.uint8)
    texts = frame["comment"].astype(str).tolist()
    test_texts = set(result.test_texts)
    is_test = np.array([text in test_texts for text in texts])
    bow = BagOfWords().fit([t for t, test in zip(texts, is_test, strict=True) if not test])
    X = bow.transform(texts)
    settings = {"n_estimators": 200, "max_depth": 4, "learning_rate": 0.1}
    rows = []
    started = time.perf_counter()
    native = XGBClassifier(tree_method="hist", random_state=0, n_jobs=2, **settings).fit(X[~is_test], Y[~is_test])
    rows.append(("XGBoost's own multi-output model", _scores(Y[is_test], native.predict(X[is_test]).astype(np.uint8)),
                 time.perf_counter() - started))
    started = time.perf_counter()
    per_category = fit_classifier("xgboost", settings, 0, 2, X[~is_test], Y[~is_test])
    rows.append(("XGBoost, one model per category (TextLab)", _scores(Y[is_test], predict(per_category, X[is_test])),
                 time.perf_counter() - started))
    return rows


def _scores(Y_true: np.ndarray, Y_pred: np.ndarray) -> tuple[float, float, float, float]:
    from sklearn.metrics import accuracy_score, f1_score, hamming_loss

    present = (Y_true.sum(axis=0) + Y_pred.sum(axis=0)) > 0  # TextLab's rule: categories coded or predicted
    return (float(f1_score(Y_true[:, present], Y_pred[:, present], average="macro", zero_division=0)),
            float(f1_score(Y_true, Y_pred, average="micro", zero_division=0)),
            float(accuracy_score(Y_true, Y_pred)), float(hamming_loss(Y_true, Y_pred)))


def markdown(runs: list[tuple[str, object, float]], extra: list, n_texts: int, transformer: bool = False) -> str:
    result = runs[0][1]
    counts = np.zeros(len(result.categories), dtype=int)
    lines = [
        "# Several categories per text: measured",
        "",
        f"Measured on {date.today():%Y-%m-%d} with `benchmarks/bench_multilabel.py` on the development machine "
        "(2 cores, no GPU, shared with other work). Rebuild this page with:",
        "",
        f"    .venv/bin/python benchmarks/bench_multilabel.py {'--transformer ' if transformer else ''}--out docs/multi-label.md",
        "",
        f"ETHOS multi-label (Mollas et al. 2022): {n_texts} hateful comments, 8 categories, each the share of "
        "crowd coders who gave it, counted from 0.5. "
        f"{result.split['n_train']} training and {result.split['n_test']} test texts (30 % held out by iterative "
        "stratification). The app's default models, each one classifier per category tuned by 5-fold iteratively "
        "stratified cross-validation, and the combined models."
        + (" The fine-tuned Transformer (the bundled MiniLM, one output per category, binary cross-entropy with each "
           "category's texts weighted against those without it) is tuned on one validation split, as on any computer "
           "without a GPU." if transformer else ""),
        "",
    ]
    del counts
    for label, run, seconds in runs:
        lines += [f"## {label}", "", f"The whole study took {seconds / 60:.1f} min.", "",
                  "| model | macro-F1 (95 % interval) | micro-F1 | subset accuracy | Hamming loss | time |",
                  "|---|---|---|---|---|---|"]
        recommended = run.recommendation().model if run.recommendation() else None
        for model in run.finished_models():
            test = model.test
            interval = f" ({test.macro_f1_ci[0]:.3f}–{test.macro_f1_ci[1]:.3f})" if test.macro_f1_ci else ""
            mark = " **(recommended)**" if model is recommended else ""
            lines.append(f"| {model.name}{mark} | {test.macro_f1:.3f}{interval} | {test.micro_f1:.3f} | "
                         f"{test.accuracy:.3f} | {test.hamming_loss:.3f} | {model.total_seconds or 0:.0f} s |")
        lines.append("")
    lines += ["## Beside other ways to do it", "",
              "Fitted on the same training texts and scored on the same test texts:", "",
              "| method | macro-F1 | micro-F1 | subset accuracy | Hamming loss | time |", "|---|---|---|---|---|---|"]
    for name, (macro, micro, subset, hamming), seconds in extra:
        lines.append(f"| {name} | {macro:.3f} | {micro:.3f} | {subset:.3f} | {hamming:.3f} | {seconds:.0f} s |")
    lines += ["", "The ETHOS authors' published multi-label results for the same 433 texts and 8 categories "
              "(10-fold nested cross-validation, means over the folds; not the same test texts, so compare the "
              "level, not the third decimal):", "",
              "| method (Mollas et al.) | macro-F1 | micro-F1 | subset accuracy | Hamming loss |", "|---|---|---|---|---|"]
    for name, (macro, micro, subset, hamming) in PUBLISHED.items():
        lines.append(f"| {name} | {macro:.3f} | {micro:.3f} | {subset:.3f} | {hamming:.3f} |")
    lines += ["", "What the measures mean: macro-F1 is the mean of the categories' F1 (each category counts alike, "
              "the headline); micro-F1 pools every (text, category) decision, so frequent categories weigh more; "
              "subset accuracy is the share of texts whose whole set of categories is right; Hamming loss is the "
              "share of (text, category) decisions that are wrong (lower is better).", ""]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, help="write the table as Markdown here")
    parser.add_argument("--transformer", action="store_true", help="add the bundled fine-tuned Transformer")
    args = parser.parse_args()
    if not DATA.is_file():
        raise SystemExit(f"{DATA} is not here; this benchmark needs the shared data folder.")
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        source = _table(folder)
        runs = []
        for tune in (False, True):
            result, seconds = run_study(source, tune, args.transformer, folder)
            label = "Thresholds tuned on the training texts' out-of-fold probabilities" if tune else "Every threshold 0.5"
            runs.append((label, result, seconds))
            print(f"{label}: {seconds:.0f} s")
            for model in result.finished_models():
                test = model.test
                print(f"  {model.name}: macro-F1 {test.macro_f1:.3f}, micro-F1 {test.micro_f1:.3f}, "
                      f"subset accuracy {test.accuracy:.3f}, Hamming loss {test.hamming_loss:.3f}, "
                      f"{model.total_seconds or 0:.0f} s")
        extra = baselines(runs[0][1]) + xgboost_native(runs[0][1])
        for name, scores, seconds in extra:
            print(f"  {name}: macro-F1 {scores[0]:.3f}, micro-F1 {scores[1]:.3f}, subset accuracy {scores[2]:.3f}, "
                  f"Hamming loss {scores[3]:.3f}, {seconds:.0f} s")
        text = markdown(runs, extra, len(pd.read_csv(DATA, sep=";")), args.transformer)
    if args.out:
        args.out.write_text(text, encoding="utf-8")
        print(f"written to {args.out}")


if __name__ == "__main__":
    main()
