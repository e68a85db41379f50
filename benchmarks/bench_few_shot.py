"""Models that need few or no coded texts against the usual families, on real coded corpora in
``../shared/data`` (ETHOS hate speech, the Jigsaw toxic-comment fixture, US Congress bill titles).

Per corpus, one fixed held-out test set (30 % of the coded texts, stratified, seed 0), and on it the
test macro-F1 of:

- zero-shot by similarity (the bundled all-MiniLM-L6-v2) with the category names only, and with a
  one-sentence definition of each category (written in this file: ``CORPORA``); nothing is learnt
  from coded texts;
- SetFit (the app's defaults: 1 epoch, 20 pairs per text, learning rate 2e-5),
- logistic regression on sentence embeddings (the app's default model: C chosen from
  0.01 … 100 by 5-fold cross-validated macro-F1 on the coded texts drawn),
- the fine-tuned MiniLM (the app's defaults for a small model: learning rate 1e-4, 4 epochs),

each trained on ``n`` coded texts per category drawn at random from the training part (``--sizes``;
the draws are nested: a draw's 8 texts are among its 16), the draw repeated ``--draws`` times with
seeds 0, 1, … (which also seed the training). A size is skipped for a corpus where a category has
fewer than ``n`` training texts. Times are wall times (``time.perf_counter``): training, and
answering the test texts. The sentence embeddings of a corpus are computed once (and cached by the
app's cache) before the logistic regressions; their time is given once per corpus where they were not
read from the cache.

Each measurement is appended to a results file as one JSON line as soon as it is taken, so a run
can be stopped and continued (``--results``: measurements already there are not taken again), and
the Markdown can be rebuilt from one or several runs (``--from-results``).

The full grid (needs a GPU to finish in reasonable time):
    .venv/bin/python benchmarks/bench_few_shot.py --results benchmarks/out/few_shot.jsonl --out docs/few-shot.md
A smaller run, e.g.:
    .venv/bin/python benchmarks/bench_few_shot.py --corpora ethos jigsaw --sizes 8 16 --draws 3 \\
        --models zero lr fine_tune --results benchmarks/out/few_shot.jsonl
Options: --corpora ethos jigsaw cap, --sizes 8 16 32 64, --draws 5, --models zero setfit lr fine_tune,
--results FILE (JSON lines; continued when it exists), --out FILE (the Markdown: in an existing page only
the part between the "measured" markers is replaced), --from-results FILE …
(only rebuild the Markdown), --note TEXT (a line about the run put under the title).
"""

from __future__ import annotations

import argparse
import gc
import json
import platform
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DATA = ROOT.parent / "shared" / "data"

TEST_SHARE, SPLIT_SEED = 0.3, 0
SIZES = (8, 16, 32, 64)
MODELS = ("zero", "setfit", "lr", "fine_tune")
LR_GRID = (0.01, 0.1, 1.0, 10.0, 100.0)  # the app's default grid for logistic regression
LR_FOLDS = 5  # the app's default number of cross-validation folds
BOOTSTRAP = 1000

TITLES = {
    "zero_names": "Zero-shot · similarity, category names only",
    "zero_definitions": "Zero-shot · similarity, one-sentence definitions",
    "lr": "Logistic regression · Sentence embeddings",
    "fine_tune": "Fine-tuned MiniLM (all-MiniLM-L6-v2)",
    "setfit": "SetFit (all-MiniLM-L6-v2)",
}


@dataclass(frozen=True)
class Corpus:
    title: str
    read: Callable[[], pd.DataFrame]  # columns text, label (the category's name)
    files: tuple[str, ...]  # under the shared data folder: the corpus is skipped when one is absent
    definitions: dict[str, str]  # category name → one-sentence definition, in the categories' order
    anchor: tuple[float, str] | None = None  # the reference paper's NLI zero-shot macro-F1, and what it was on
    notes: list[str] = field(default_factory=list)


def _ethos() -> pd.DataFrame:
    frame = pd.read_csv(DATA / "ethos_mollas2020_hatespeech" / "Ethos_Dataset_Binary.csv", sep=";")
    return pd.DataFrame({"text": frame["comment"],
                         "label": frame["isHate"].ge(0.5).map({True: "hate speech", False: "not hate speech"})})


def _jigsaw() -> pd.DataFrame:
    folder = DATA / "jigsaw_toxic_first292"
    frame = pd.concat([pd.read_csv(folder / "train.csv"), pd.read_csv(folder / "valid.csv")], ignore_index=True)
    return pd.DataFrame({"text": frame["comment_text"], "label": frame["toxic"].map({1: "toxic", 0: "not toxic"})})


# The CAP major topics as the Congressional Bills Project coded this corpus (the codebook of its time:
# immigration is part of topic 5, there is no topic 9, and 99 marks private bills).
CAP_TOPICS = {
    1: ("Macroeconomics", "Interest rates, inflation, unemployment, the federal budget and debt, taxes and "
                          "monetary policy."),
    2: ("Civil rights", "Discrimination by race, sex, age or disability, voting rights, freedom of speech and "
                        "religion, and privacy."),
    3: ("Health", "Health care and health insurance, Medicare and Medicaid, hospitals, prescription drugs, "
                  "diseases and medical research."),
    4: ("Agriculture", "Farming, crops and livestock, farm subsidies and prices, food inspection and safety, and "
                       "fisheries."),
    5: ("Labor and immigration", "Jobs, wages, working conditions, pensions and employee benefits, unions, job "
                                 "training, and immigration and citizenship."),
    6: ("Education", "Schools, colleges and universities, teachers, student loans and education programmes."),
    7: ("Environment", "Air and water pollution, toxic waste, recycling, protection of species and habitats, and "
                       "climate change."),
    8: ("Energy", "Electricity, oil, gas, coal and nuclear power, energy prices, energy saving and renewable "
                  "energy."),
    10: ("Transportation", "Highways, public transit, aviation and airports, railways, shipping and ports, and "
                           "transport safety."),
    12: ("Law and crime", "Crime, police, courts and prisons, illegal drugs, guns, and family matters such as "
                          "child abuse and domestic violence."),
    13: ("Social welfare", "Welfare and food assistance, Social Security benefits, and help for the poor, the "
                           "elderly, people with disabilities and children."),
    14: ("Housing", "Housing and community development, mortgages, homelessness, and urban and rural "
                    "development."),
    15: ("Domestic commerce", "Banking and finance, securities, insurance, small businesses, bankruptcy, consumer "
                              "protection, patents and copyrights, and disaster relief."),
    16: ("Defense", "The armed forces and their personnel, weapons, military bases, intelligence, and "
                    "veterans."),
    17: ("Technology", "Space, science and research, telecommunications, broadcasting, the internet and "
                       "computers."),
    18: ("Foreign trade", "Tariffs and customs duties, imports and exports, trade agreements, and suspending the "
                          "duty on particular goods."),
    19: ("International affairs", "Foreign aid, relations with other countries, international organisations, "
                                   "human rights abroad and diplomacy."),
    20: ("Government operations", "How the federal government runs: its agencies and employees, the postal "
                                  "service, elections, Congress, and naming federal buildings and post offices."),
    21: ("Public lands", "National parks, forests and other public lands, water resources and dams, Native "
                         "American affairs, and US territories."),
    99: ("Private bills", "A private bill for the relief of a named person or company, such as an immigration case "
                          "or a refund of customs duties."),
}


def _cap() -> pd.DataFrame:
    frame = pd.read_csv(DATA / "cap_uscongress_bills" / "USCongress.csv.gz", sep=";")
    unknown = sorted(set(frame["major"]) - set(CAP_TOPICS))
    if unknown:
        raise SystemExit(f"The CAP file has topic codes this benchmark does not name: {unknown}.")
    return pd.DataFrame({"text": frame["text"], "label": frame["major"].map(lambda code: CAP_TOPICS[code][0])})


CORPORA = {
    "ethos": Corpus(
        "ETHOS hate speech (binary: isHate ≥ 0.5; Mollas et al. 2020)", _ethos,
        ("ethos_mollas2020_hatespeech/Ethos_Dataset_Binary.csv",),
        {"hate speech": "The text attacks, insults or demeans people for who they are: their race, ethnicity, "
                        "nationality, religion, sex, sexual orientation or disability.",
         "not hate speech": "The text attacks no one for who they are; it may argue, disagree or be rude without "
                            "targeting a group of people."},
        (0.200, "its Ethos corpus (parliamentary speeches), another corpus than the ETHOS hate-speech data set "
                "here"),
    ),
    "jigsaw": Corpus(
        "Jigsaw toxic comments: the 292 coded comments of the shared fixture (toxic 0/1)", _jigsaw,
        ("jigsaw_toxic_first292/train.csv", "jigsaw_toxic_first292/valid.csv"),
        {"toxic": "The comment is rude, disrespectful or hostile: insults, obscenities, threats or personal attacks.",
         "not toxic": "The comment is civil: it discusses, asks or disagrees politely, without insults, obscenities "
                      "or threats."},
        (0.470, "the full Jigsaw toxic-comment data, of which the fixture here holds only the first 292 coded "
                "comments"),
        ["The shared folder holds only the first 292 coded comments of the Jigsaw training file (a test fixture, "
         "not a sample; 29 of them toxic): with so few toxic comments in the test set, one comment answered "
         "differently moves a score by several hundredths."],
    ),
    "cap": Corpus(
        "US Congress bill titles, CAP major topic (20 categories)", _cap,
        ("cap_uscongress_bills/USCongress.csv.gz",),
        {name: definition for name, definition in CAP_TOPICS.values()},
        None,
        ["The topics follow the codebook this corpus was coded with: immigration belongs to topic 5 (there is no "
         "topic 9), and code 99 marks private bills (30 texts, 21 of them in the training part)."],
    ),
}


# ---------------------------------------------------------------------------------------------- data
@dataclass
class Split:
    categories: list[str]
    definitions: dict[str, str]
    texts: list[str]  # all coded texts, training part first
    y: np.ndarray  # category index per text
    train: np.ndarray  # row numbers
    test: np.ndarray


def split_corpus(corpus: Corpus) -> Split:
    """The corpus' coded texts, with the fixed stratified held-out test set."""
    from sklearn.model_selection import train_test_split

    frame = corpus.read().dropna()
    frame = frame[frame["text"].astype(str).str.strip() != ""]
    categories = list(corpus.definitions)
    missing = sorted(set(frame["label"]) - set(categories))
    if missing:
        raise SystemExit(f"{corpus.title}: categories without a definition: {missing}.")
    y = frame["label"].map({name: index for index, name in enumerate(categories)}).to_numpy(np.int64)
    rows = np.arange(len(frame))
    train, test = train_test_split(rows, test_size=TEST_SHARE, stratify=y, random_state=SPLIT_SEED)
    return Split(categories, corpus.definitions, frame["text"].astype(str).tolist(), y, np.sort(train), np.sort(test))


def draw_orders(split: Split, draw: int) -> list[np.ndarray]:
    """For each category, its training rows in the random order of this draw (a size takes the first n)."""
    rng = np.random.default_rng(draw)
    return [rng.permutation(split.train[split.y[split.train] == k]) for k in range(len(split.categories))]


def drawn_rows(orders: list[np.ndarray], n: int) -> np.ndarray:
    return np.concatenate([order[:n] for order in orders])


# ---------------------------------------------------------------------------------------------- models
def zero_shot(split: Split, with_definitions: bool) -> dict:
    from guiapp.core.models.zero_shot import ZeroShotSimilarity

    descriptions = split.definitions if with_definitions else None
    test_texts = [split.texts[i] for i in split.test]
    started = time.perf_counter()
    model = ZeroShotSimilarity(split.categories, descriptions)
    model.category_vectors()
    built = time.perf_counter()
    probabilities = model.predict_proba(test_texts)
    done = time.perf_counter()
    return {"predicted": probabilities.argmax(axis=1), "train_s": built - started, "test_s": done - built}


def logistic_regression(matrix: np.ndarray, split: Split, rows: np.ndarray, seed: int) -> dict:
    """The app's default: C chosen by 5-fold stratified cross-validated macro-F1, refitted on all drawn texts."""
    from sklearn.model_selection import StratifiedKFold

    from guiapp.core.experiment.scores.metrics import macro_f1
    from guiapp.core.models.conventional import make_classifier

    X, y = matrix[rows].astype(np.float64), split.y[rows]
    started = time.perf_counter()
    folds = list(StratifiedKFold(LR_FOLDS, shuffle=True, random_state=seed).split(X, y))
    scores = []
    for C in LR_GRID:
        fold_scores = []
        for fit, valid in folds:
            classifier = make_classifier("logistic_regression", {"C": C}, seed).fit(X[fit], y[fit])
            fold_scores.append(macro_f1(y[valid], classifier.predict(X[valid])))
        scores.append(float(np.mean(fold_scores)))
    chosen = LR_GRID[int(np.argmax(scores))]  # ties: the first, as the app's grid search
    classifier = make_classifier("logistic_regression", {"C": chosen}, seed).fit(X, y)
    trained = time.perf_counter()
    predicted = classifier.predict(matrix[split.test].astype(np.float64))
    return {"predicted": predicted, "train_s": trained - started, "test_s": time.perf_counter() - trained,
            "setting": f"C = {chosen:g}"}


def setfit(split: Split, rows: np.ndarray, seed: int) -> dict:
    from guiapp.core.models.setfit import SetFitSettings, train_setfit

    started = time.perf_counter()
    model = train_setfit([split.texts[i] for i in rows], split.y[rows], len(split.categories),
                         SetFitSettings(seed=seed), categories=split.categories)
    trained = time.perf_counter()
    probabilities = model.predict_proba([split.texts[i] for i in split.test])
    done = time.perf_counter()
    pairs = model.n_pairs
    del model
    gc.collect()
    return {"predicted": probabilities.argmax(axis=1), "train_s": trained - started, "test_s": done - trained,
            "setting": f"{pairs:,} pairs per epoch"}


def fine_tuned(split: Split, rows: np.ndarray, seed: int) -> dict:
    from benchmarks._common import model_path
    from guiapp.core.models.transformers.fine_tuning import (
        FineTuneSettings,
        fine_tune,
        predict_proba,
    )

    started = time.perf_counter()
    model = fine_tune(model_path(), [split.texts[i] for i in rows], split.y[rows], len(split.categories),
                      FineTuneSettings(learning_rate=1e-4, epochs=4, seed=seed))
    trained = time.perf_counter()
    probabilities = predict_proba(model, [split.texts[i] for i in split.test])
    done = time.perf_counter()
    del model
    gc.collect()
    return {"predicted": probabilities.argmax(axis=1), "train_s": trained - started, "test_s": done - trained}


# ---------------------------------------------------------------------------------------------- results file
class Results:
    """Measurements as JSON lines, appended as they are taken."""

    def __init__(self, path: Path | None) -> None:
        self.path, self.records = path, []
        if path is not None and path.is_file():
            self.records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]

    def has(self, **key: object) -> bool:
        return any(all(record.get(name) == value for name, value in key.items()) for record in self.records)

    def add(self, record: dict) -> None:
        self.records.append(record)
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as handle:
                handle.write(json.dumps(record) + "\n")


def score(split: Split, outcome: dict) -> dict:
    from guiapp.core.experiment.scores.metrics import bootstrap_macro_f1, macro_f1

    truth = split.y[split.test]
    interval = bootstrap_macro_f1(truth, outcome["predicted"], len(split.categories), BOOTSTRAP, 0)
    return {"macro_f1": macro_f1(truth, outcome["predicted"]), "interval": list(interval) if interval else None,
            "train_s": outcome["train_s"], "test_s": outcome["test_s"], "setting": outcome.get("setting")}


def measure(name: str, sizes: list[int], draws: int, models: list[str], results: Results) -> None:
    from guiapp.core.features.sentence_embeddings import SentenceEmbeddings

    corpus = CORPORA[name]
    split = split_corpus(corpus)
    train_counts = np.bincount(split.y[split.train], minlength=len(split.categories))
    if not results.has(kind="corpus", corpus=name):
        results.add({"kind": "corpus", "corpus": name, "n_train": len(split.train), "n_test": len(split.test),
                     "categories": split.categories, "train_counts": train_counts.tolist(),
                     "test_counts": np.bincount(split.y[split.test], minlength=len(split.categories)).tolist(),
                     "machine": machine()})
    print(f"--- {corpus.title}: {len(split.train):,} training and {len(split.test):,} test texts, "
          f"{len(split.categories)} categories", flush=True)

    def report(model: str, n: int, draw: int | None, outcome: dict) -> None:
        record = {"kind": "score", "corpus": name, "model": model, "n": n, "draw": draw, **score(split, outcome)}
        results.add(record)
        print(f"{TITLES[model]:52s} n={n:3d} draw={'-' if draw is None else draw}  macro-F1 {record['macro_f1']:.3f}  "
              f"train {record['train_s']:7.1f} s  test texts {record['test_s']:6.1f} s", flush=True)

    if "zero" in models:
        for key, definitions in (("zero_names", False), ("zero_definitions", True)):
            if not results.has(kind="score", corpus=name, model=key):
                report(key, 0, None, zero_shot(split, definitions))
    usable = [n for n in sizes if n <= train_counts.min()]
    for n in sorted(set(sizes) - set(usable)):
        smallest = int(np.argmin(train_counts))
        reason = (f"{n} coded texts per category: not measured, the category “{split.categories[smallest]}” has "
                  f"only {train_counts[smallest]} training texts")
        if not results.has(kind="skipped", corpus=name, n=n):
            results.add({"kind": "skipped", "corpus": name, "n": n, "reason": reason})
        print(reason, flush=True)
    trained = [model for model in ("lr", "fine_tune", "setfit") if model in models]
    if not usable or not trained:
        return
    matrix = None
    if "lr" in trained:
        from guiapp.core.events import Log

        logged: list[str] = []
        started = time.perf_counter()
        matrix = SentenceEmbeddings().prepare(
            split.texts, lambda event: logged.append(event.message) if isinstance(event, Log) else None).matrix
        seconds = time.perf_counter() - started
        cached = any("from the cache" in message for message in logged)
        results.add({"kind": "embedding", "corpus": name, "n_texts": len(split.texts), "seconds": seconds,
                     "cached": cached})
        print(f"sentence embeddings of {len(split.texts):,} texts: {seconds:.1f} s"
              + (" (read from the app's cache)" if cached else ""), flush=True)
    for draw in range(draws):
        orders = draw_orders(split, draw)
        for n in usable:
            rows = drawn_rows(orders, n)
            for model in trained:
                if results.has(kind="score", corpus=name, model=model, n=n, draw=draw):
                    continue
                if model == "lr":
                    outcome = logistic_regression(matrix, split, rows, draw)
                elif model == "fine_tune":
                    outcome = fine_tuned(split, rows, draw)
                else:
                    outcome = setfit(split, rows, draw)
                report(model, n, draw, outcome)


def machine() -> str:
    import os

    import torch

    device = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "no GPU"
    return f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, {device}"


# ---------------------------------------------------------------------------------------------- Markdown
def rows_of(records: list[dict], corpus: str) -> list[str]:
    scores = [r for r in records if r["kind"] == "score" and r["corpus"] == corpus]
    lines = []
    for model in ("zero_names", "zero_definitions"):
        found = [r for r in scores if r["model"] == model]
        if found:
            r = found[-1]
            interval = f" (95 % interval {r['interval'][0]:.3f}–{r['interval'][1]:.3f})" if r["interval"] else ""
            lines.append(f"| {TITLES[model]} | 0 | {r['macro_f1']:.3f}{interval} | — | {r['train_s']:.1f} | "
                         f"{r['test_s']:.1f} |")
    sizes = sorted({r["n"] for r in scores if r["draw"] is not None})
    for n in sizes:
        for model in ("lr", "fine_tune", "setfit"):
            found = [r for r in scores if r["model"] == model and r["n"] == n]
            if not found:
                continue
            values = np.array([r["macro_f1"] for r in found])
            spread = (f"{values.mean():.3f} (SD {values.std(ddof=1):.3f}; {values.min():.3f}–{values.max():.3f})"
                      if len(values) > 1 else f"{values[0]:.3f} (one draw)")
            lines.append(f"| {TITLES[model]} | {n} | {spread} | {len(values)} | "
                         f"{np.mean([r['train_s'] for r in found]):.1f} | {np.mean([r['test_s'] for r in found]):.1f} |")
    return lines


def markdown(records: list[dict], note: str = "") -> str:
    corpora = [name for name in CORPORA if any(r["kind"] == "corpus" and r["corpus"] == name for r in records)]
    machines = sorted({r["machine"] for r in records if r["kind"] == "corpus"})
    lines = [
        f"Measured on {date.today():%Y-%m-%d} with `benchmarks/bench_few_shot.py` ({'; '.join(machines)}).",
        *([note] if note else []),
        "",
        "Per corpus, one fixed test set (30 % of the coded texts, stratified, seed 0); every model is scored on the "
        "same test texts by macro-F1. Zero-shot learns nothing from coded texts: it is scored once, with the 95 % "
        "bootstrap interval of its test macro-F1. The other models learn from *n* coded texts per category drawn at "
        "random from the training part; each draw is repeated with another seed (which also seeds the training), "
        "and the table gives the mean over the draws, the standard deviation and the lowest and highest score. "
        "Times are wall times per draw in seconds: training (the logistic regression: choosing C by 5-fold "
        "cross-validation and refitting; zero-shot: embedding the names and definitions, the first row of a "
        "run also opening the sentence model) and answering the test texts.",
        "",
    ]
    for name in corpora:
        corpus = CORPORA[name]
        info = next(r for r in records if r["kind"] == "corpus" and r["corpus"] == name)
        lines += [f"## {corpus.title}", "",
                  f"{info['n_train']:,} training and {info['n_test']:,} test texts, {len(info['categories'])} "
                  f"categories (fewest in one category: {min(info['train_counts'])} training, "
                  f"{min(info['test_counts'])} test texts).", ""]
        lines += [f"{text}" for text in corpus.notes]
        if corpus.notes:
            lines.append("")
        lines += ["| model | coded texts per category | test macro-F1: mean (SD; lowest–highest) | draws | "
                  "training (s) | answering the test texts (s) |", "|---|---|---|---|---|---|"]
        lines += rows_of(records, name)
        if corpus.anchor:
            lines += [f"| Reference paper: zero-shot NLI (anchor) | 0 | {corpus.anchor[0]:.3f} | — | — | — |", "",
                      f"The anchor is the reference paper's zero-shot NLI macro-F1 on {corpus.anchor[1]}: "
                      "printed for orientation, not measured here."]
        embedded = [r for r in records if r["kind"] == "embedding" and r["corpus"] == name
                    and not r.get("cached", r["seconds"] < 1.0)]
        if any(r["kind"] == "embedding" and r["corpus"] == name for r in records):
            lines += ["", "The logistic regressions read the sentence embeddings of the corpus, computed once "
                          "(and kept in the app's cache); their rows do not count that time. "
                          + (f"Embedding all {embedded[0]['n_texts']:,} texts took {embedded[0]['seconds']:.1f} s. "
                             if embedded else "")
                          + "Answering new texts needs their embeddings first: about as long as zero-shot's "
                          "answering time above (the same sentence model embeds them)."]
        skipped = [r["reason"] for r in records if r["kind"] == "skipped" and r["corpus"] == name]
        if skipped:
            lines += ["", *(f"- {reason}." for reason in skipped)]
        lines.append("")
    lines += ["### Definitions used for zero-shot", ""]
    for name in corpora:
        lines += [f"{CORPORA[name].title}:", ""]
        lines += [f"- **{category}**: {definition}" for category, definition in CORPORA[name].definitions.items()]
        lines.append("")
    return "\n".join(lines)


START, END = "<!-- measured: start (benchmarks/bench_few_shot.py) -->", "<!-- measured: end -->"


def write_page(path: Path, measured: str) -> None:
    """Put the measured part into ``path`` between the markers, keeping the rest of the page; a new
    page (or one without the markers) is the measured part under a title."""
    block = f"{START}\n\n{measured}\n{END}\n"
    text = path.read_text(encoding="utf-8") if path.is_file() else ""
    if START in text and END in text:
        before, rest = text.split(START, 1)
        page = before + block + rest.split(END, 1)[1].lstrip("\n")
    else:
        page = f"# Models that need few or no coded texts: what they reach\n\n{block}"
    path.write_text(page, encoding="utf-8")


def print_tables(records: list[dict]) -> None:
    for name, corpus in CORPORA.items():
        lines = rows_of(records, name)
        if lines:
            print(f"\n{corpus.title}")
            for line in lines:
                print(line)
            if corpus.anchor:
                print(f"| Reference paper: zero-shot NLI (anchor) | 0 | {corpus.anchor[0]:.3f} | — | — | — |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpora", nargs="+", default=list(CORPORA), choices=list(CORPORA))
    parser.add_argument("--sizes", nargs="+", type=int, default=list(SIZES), help="coded texts per category")
    parser.add_argument("--draws", type=int, default=5, help="draws of the coded texts per size")
    parser.add_argument("--models", nargs="+", default=list(MODELS), choices=list(MODELS))
    parser.add_argument("--results", type=Path, help="JSON lines of the measurements (continued when it exists)")
    parser.add_argument("--from-results", type=Path, nargs="+", help="only rebuild the Markdown from these files")
    parser.add_argument("--out", type=Path, help="write the Markdown here")
    parser.add_argument("--note", default="", help="a line about the run, put under the title")
    args = parser.parse_args()
    if args.draws < 1 or any(n < 1 for n in args.sizes):
        parser.error("--draws and every size must be at least 1")
    if args.from_results:
        records = [record for path in args.from_results for record in Results(path).records]
    else:
        results = Results(args.results)
        started = time.perf_counter()
        for name in args.corpora:
            absent = [path for path in CORPORA[name].files if not (DATA / path).is_file()]
            if absent:
                print(f"--- {CORPORA[name].title}: skipped, {DATA / absent[0]} is not there", flush=True)
                continue
            measure(name, sorted(set(args.sizes)), args.draws, args.models, results)
        print(f"\nwall time {time.perf_counter() - started:.0f} s", flush=True)
        records = results.records
    print_tables(records)
    if args.out:
        write_page(args.out, markdown(records, args.note))


if __name__ == "__main__":
    main()
