"""Combined models against the single models they combine, on the real coded corpora in
``../shared/data`` (ETHOS, US Congress bill titles, GermEval 2018, Davidson et al. 2017: ``DATASETS``),
with the app's default models.

For each data set: the app's default models (SVM on the basic bag of words, SVM on averaged word
vectors, logistic regression on sentence embeddings), each tuned by 5-fold cross-validation with
its default grid, and the two combined models (weighted vote, stacking) learnt from their
out-of-fold probabilities — all tested on the same held-out texts (30 % at random, stratified, or
the official test file where the corpus has one). Prints, and writes as Markdown with ``--out``,
test macro-F1 with its 95 % bootstrap interval per model, and the time the combined models added
(refitting each model's chosen setting inside the folds, and learning the combination) beside the
time of the whole study.

Rebuild the table in docs/:
    .venv/bin/python benchmarks/bench_combined.py --out docs/combined-models.md
Options: --datasets ethos ethos-transformer cap germeval davidson (default: all; ethos-transformer adds
the bundled fine-tuned Transformer to the default models), --keep FOLDER (keep each
study's results folder, e.g. to open them in the app).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DATA = ROOT.parent / "shared" / "data"

DATASETS = {
    "ethos": "ETHOS hate speech (binary; Mollas et al. 2020)",
    "ethos-transformer": "ETHOS hate speech (binary), with the bundled Transformer among the models",
    "cap": "US Congress bill titles, CAP major topic (20 categories)",
    "germeval": "GermEval 2018 offensive tweets (German; task 1; official test file)",
    "davidson": "Davidson et al. 2017 tweets (hate / offensive / neither)",
}


# said on the page: how the slow models get held-out answers for every training text
OUT_OF_FOLD_PARAGRAPH = (
    'Out-of-fold answers of the models that are slow to train. A fine-tuned Transformer or SetFit whose '
    'setting was chosen on one validation split (the default on a computer without a GPU) has held-out '
    'answers for those validation texts only — a fifth of the training texts — so a combination with it '
    'would be learnt on those few. Where that costs little, the chosen setting is therefore trained once '
    "more in each of the study's folds, so that every training text has answers from a model that never "
    'saw it: when these extra runs are expected to take at most ten minutes (from the same estimate as '
    "the study's expected time). Where they would take longer, they are skipped, the combination is "
    'learnt on the validation texts only, and it is not recommended when that is under half of the '
    'training texts; the Results step and the methods appendix say on how many texts it was learnt.'
)


def _tables(name: str, folder: Path) -> tuple[Path, Path | None]:
    """The data set as CSV files with a header (text, label) in ``folder``: (training+test or training, test)."""
    if name.startswith("ethos"):
        frame = pd.read_csv(DATA / "ethos_mollas2020_hatespeech" / "Ethos_Dataset_Binary.csv", sep=";")
        frame = pd.DataFrame({"text": frame["comment"], "label": frame["isHate"].ge(0.5).map({True: "hate", False: "not hate"})})
    elif name == "cap":
        frame = pd.read_csv(DATA / "cap_uscongress_bills" / "USCongress.csv.gz", sep=";")
        frame = pd.DataFrame({"text": frame["text"], "label": frame["major"].astype(str)})
    elif name == "davidson":
        frame = pd.read_csv(DATA / "davidson2017_hate_offensive" / "labeled_data.csv")
        frame = pd.DataFrame({"text": frame["tweet"], "label": frame["class"].map({0: "hate", 1: "offensive", 2: "neither"})})
    elif name == "germeval":
        def read(file: str) -> pd.DataFrame:
            raw = pd.read_csv(DATA / "germeval2018_offensive_de" / file, sep="\t", header=None, quoting=3,
                              names=["text", "label", "fine"], dtype=str)
            return raw[["text", "label"]]

        test = folder / f"{name}-test.csv"
        read("germeval2018.test.txt").to_csv(test, index=False)
        train = folder / f"{name}.csv"
        read("germeval2018.training.txt").to_csv(train, index=False)
        return train, test
    else:
        raise SystemExit(f"unknown data set {name!r}; choose from {', '.join(DATASETS)}")
    path = folder / f"{name}.csv"
    frame.to_csv(path, index=False)
    return path, None


def run_one(name: str, folder: Path, keep: Path | None) -> dict:
    from guiapp.core.experiment.run.runner import run_experiment
    from guiapp.core.study.mapping import ColumnMapping
    from guiapp.core.study.sections import DEFAULT_MODELS, EvaluationSpec, ModelSpec
    from guiapp.core.study.spec import DataSpec, ExperimentSpec

    source, test = _tables(name, folder)
    spec = ExperimentSpec(
        name=name,
        data=DataSpec(source=str(source), test_source=str(test) if test else "",
                      mapping=ColumnMapping(text_columns=["text"], category_column="label")),
        evaluation=EvaluationSpec(),
        models=[ModelSpec(representation, classifier) for representation, classifier in DEFAULT_MODELS]
        + ([ModelSpec("transformer", "fine_tune")] if name.endswith("-transformer") else []),
    )
    started = time.perf_counter()
    artefacts = (keep / name / "models") if keep else folder / f"{name}-models"
    result = run_experiment(spec, artefacts_dir=artefacts)
    seconds = time.perf_counter() - started
    if keep:
        (keep / name).mkdir(parents=True, exist_ok=True)
        (keep / name / "results.json").write_text(result.to_json(include_texts=True), encoding="utf-8")
    combined = [model for model in result.models if model.representation == "combined"]
    added = max((model.seconds.get("out_of_fold", 0.0) for model in combined), default=0.0) + sum(
        model.seconds.get("combining", 0.0) for model in combined)
    return {"name": name, "result": result, "seconds": seconds, "added": added,
            "n_train": result.split["n_train"], "n_test": result.split["n_test"], "categories": len(result.categories)}


def _kept(folder: Path) -> dict:
    """A run read back from its kept results.json (the study's time from its start and end stamps)."""
    from datetime import datetime

    from guiapp.core.experiment.results.experiment_result import ExperimentResult

    result = ExperimentResult.from_json((folder / "results.json").read_text(encoding="utf-8"))
    seconds = (datetime.fromisoformat(result.finished_at) - datetime.fromisoformat(result.started_at)).total_seconds()
    combined = [model for model in result.models if model.representation == "combined"]
    added = max((model.seconds.get("out_of_fold", 0.0) for model in combined), default=0.0) + sum(
        model.seconds.get("combining", 0.0) for model in combined)
    return {"name": folder.name, "result": result, "seconds": seconds, "added": added,
            "n_train": result.split["n_train"], "n_test": result.split["n_test"], "categories": len(result.categories)}


def _row(model) -> tuple[str, str]:
    test = model.test
    interval = f" ({test.macro_f1_ci[0]:.3f}–{test.macro_f1_ci[1]:.3f})" if test.macro_f1_ci else ""
    return model.name, f"{test.macro_f1:.3f}{interval}"


def markdown(runs: list[dict]) -> str:
    lines = [
        "# Combined models against the models they combine",
        "",
        f"Measured on {date.today():%Y-%m-%d} with `benchmarks/bench_combined.py` on the development machine "
        "(2 cores, no GPU). Rebuild this page with:",
        "",
        "    .venv/bin/python benchmarks/bench_combined.py --out docs/combined-models.md",
        "",
        "Each data set: the app's default models, each tuned by 5-fold cross-validation with its default grid, and "
        "the two combined models learnt from their out-of-fold probabilities (README, \"Combined models\"). "
        "All are tested on the same held-out texts; the interval is the 95 % bootstrap interval of the test macro-F1. "
        "Times are wall times on a machine shared with other work; a corpus's sentence embeddings are cached after "
        "its first study, so a repeated study of the same corpus (here ETHOS) is faster.",
        "",
        "The cross-validated macro-F1 is what the app recommends a model by (before the test texts are looked at): "
        "for a single model, its chosen setting's mean over the tuning folds (a Transformer tuned on one validation "
        "split: its score there); for a combined model, the combination learnt anew without each of five folds of "
        "the out-of-fold texts and scored on that fold. A combined model is recommended only when it beats the best "
        "model it combines on those same folds by more than one standard error and was learnt on at least half of "
        "the training texts.",
        "",
        OUT_OF_FOLD_PARAGRAPH,
        "",
    ]
    for run in runs:
        result = run["result"]
        singles = [m for m in result.finished_models() if m.representation != "combined"]
        combined = [m for m in result.finished_models() if m.representation == "combined"]
        best_single = max(m.test.macro_f1 for m in singles)
        lines += [
            f"## {DATASETS[run['name']]}",
            "",
            f"{run['n_train']:,} training and {run['n_test']:,} test texts, {run['categories']} categories. "
            f"The whole study took {run['seconds'] / 60:.1f} min; the combined models added {run['added']:.0f} s "
            f"({run['added'] / run['seconds']:.0%}).",
            "",
            "| model | cross-validated macro-F1 | test macro-F1 (95 % interval) | vs best single model |",
            "|---|---|---|---|",
        ]
        recommendation = result.recommendation()
        for model in singles + combined:
            name, score = _row(model)
            difference = model.test.macro_f1 - best_single
            mark = " **(recommended)**" if model is recommendation.model else ""
            cv = f"{model.cv_mean:.3f}" if model.cv_mean is not None else "—"
            lines.append(f"| {name}{mark} | {cv} | {score} | {difference:+.3f} |")
        lines += ["", f"Recommended: {recommendation.model.name}. {recommendation.reason}",
                  *(f"- {caution}" for caution in recommendation.cautions), ""]
    lines += _summary(runs)
    return "\n".join(lines) + "\n"


def _summary(runs: list[dict]) -> list[str]:
    """Per combination method: on how many data sets it is at least as good as the best single model."""
    differences: dict[str, list[float]] = {}
    for run in runs:
        finished = run["result"].finished_models()
        best_single = max(m.test.macro_f1 for m in finished if m.representation != "combined")
        for model in finished:
            if model.representation == "combined":
                differences.setdefault(model.name, []).append(model.test.macro_f1 - best_single)
    lines = ["## Summary", "", "| combined model | at least as good as the best single model | mean difference | "
             "worst difference |", "|---|---|---|---|"]
    for name, values in differences.items():
        wins = sum(value >= -1e-9 for value in values)
        lines.append(f"| {name} | {wins} of {len(values)} data sets | {sum(values) / len(values):+.3f} | "
                     f"{min(values):+.3f} |")
    lines += ["", "The model recommended by default (chosen on the training texts alone, before the test texts are "
              "looked at) against the best single model on the test texts:", "",
              "| data set | recommended | its test macro-F1 | best single model's | difference |", "|---|---|---|---|---|"]
    for run in runs:
        result = run["result"]
        chosen = result.recommendation().model
        best_single = max(m.test.macro_f1 for m in result.finished_models() if m.representation != "combined")
        lines.append(f"| {run['name']} | {chosen.name} | {chosen.test.macro_f1:.3f} | {best_single:.3f} | "
                     f"{chosen.test.macro_f1 - best_single:+.3f} |")
    lines += ["", "The combined models' time is the refitting of each model's chosen setting inside the folds "
              "(for their out-of-fold probabilities) and learning the combination; their parts' own training is "
              "not counted again.", ""]
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS), choices=list(DATASETS))
    parser.add_argument("--out", type=Path, help="write the Markdown table here")
    parser.add_argument("--keep", type=Path, help="keep each study's results and models here")
    parser.add_argument("--from-kept", type=Path, help="rebuild the table from the results kept earlier with --keep")
    args = parser.parse_args()
    if args.from_kept:
        runs = [_kept(args.from_kept / name) for name in args.datasets if (args.from_kept / name / "results.json").is_file()]
        text = markdown(runs)
        print(text)
        if args.out:
            args.out.write_text(text, encoding="utf-8")
        return
    if not DATA.is_dir():
        raise SystemExit(f"The coded corpora are not at {DATA}; this benchmark needs them.")
    runs = []
    with tempfile.TemporaryDirectory() as temporary:
        for name in args.datasets:
            print(f"--- {name}", flush=True)
            run = run_one(name, Path(temporary), args.keep)
            runs.append(run)
            for model in run["result"].finished_models():
                print(f"{_row(model)[0]:45s} {_row(model)[1]:25s} {model.seconds.get('total', 0):8.1f} s", flush=True)
            print(f"study {run['seconds']:.0f} s; combined models added {run['added']:.1f} s", flush=True)
    text = markdown(runs)
    print(text)
    if args.out:
        args.out.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
