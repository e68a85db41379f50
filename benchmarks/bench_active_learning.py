"""What to code next, simulated: a coder who always answers with the true category codes the texts
each strategy proposes; after 100, 200, … 1,000 codings the quick model is scored (macro-F1) on a
fixed test set. Then the speed of a suggestion with 100,000 uncoded texts, and of retraining.

    python benchmarks/bench_active_learning.py [--corpora cap ethos davidson] [--repeats 5]
        [--model auto|embeddings|bag-of-words] [--batch 10] [--seed-set 20] [--pool 100000]
        [--markdown results.md] [--no-stop] [--quick]

Corpora (from ``../shared/data``; a corpus that is absent is skipped with a line saying so):

- ``cap``: US Congress bill titles, 20 policy topics (4,449; 1,000 test, 3,449 to code).
- ``ethos``: ETHOS comments, hate or not (998; 200 test, 798 to code, so its curve ends at 700).
- ``davidson``: Davidson et al. (2017) tweets, hate / offensive / neither (24,783; 2,000 test,
  22,783 to code).

The test set is a stratified random sample, the same for every strategy and repeat; the rest is the
pool of uncoded texts. Each repeat starts from its own random seed set (``--seed-set`` texts, the
same for all strategies of that repeat), then codes the texts the strategy proposes, ``--batch`` at
a time between retrainings, as TextLab retrains every 10 codings: the first of a batch is drawn
from the strategy's distribution, the next ones from the same distribution with the texts already
proposed left out. Before two categories have five codings each, ``uncertainty`` draws at random
and ``diversity`` draws a group of similar texts and a text in it uniformly — what TextLab does.

Stop signal: in the ``uncertainty`` runs, after every retraining, what the stop signal sees (the
predictions for a fixed stop set of 1,000 pool texts, and the out-of-fold macro-F1 of the codings so
far, ``stopping.py`` with its defaults); the table says after how many codings it first said stop
and the test macro-F1 then. ``--no-stop`` leaves it out (it costs a 5-fold refit every round).

Quick model (``--model auto``): logistic regression on the bundled MiniLM's sentence embeddings
for ``cap`` and ``ethos`` (embedded once, about 2 minutes on two cores, then read from TextLab's
cache); the linear SVM on the bag of words for ``davidson``, whose 24,783 tweets would take 7 to
12 minutes to embed on two cores. There, the groups of the ``diversity`` strategy are found on the
bag of words reduced to 100 dimensions (LSA) instead of sentence embeddings.

Speed: a pool of 100,000 uncoded texts whose embeddings are cached — simulated by random unit
vectors of the MiniLM's 384 dimensions (embedding 100,000 real texts takes 30 to 50 minutes on two
cores; the steps timed here take the same time whatever the vectors hold) — with 1,000 coded texts
in 3 and in 20 categories whose codings follow a noisy linear rule of the vectors. Timed: the
groups of the pool (once per pool), a suggestion (``choose_next`` with the last model's
probabilities: the time from a coding to the next text), and a retraining round (fit on the coded
texts, probabilities for the whole pool, the next suggestion), and the fit alone of both quick
models on 1,000 real coded texts (CAP).
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DATA = ROOT.parent / "shared" / "data"
SPLIT_SEED = 20240601
STRATEGIES = ("random", "uncertainty", "diversity")


@dataclass
class Corpus:
    name: str
    description: str
    texts: list[str]
    labels: np.ndarray  # category names (str)
    test: np.ndarray  # positions of the fixed test set
    pool: np.ndarray  # positions of the uncoded pool
    model: str = ""  # "embeddings" or "bag of words"
    features: object = None
    groups_from: str = ""
    clusters: object = None
    categories: list[str] = field(default_factory=list)


def _read_cap() -> tuple[list[str], np.ndarray] | None:
    path = DATA / "cap_uscongress_bills" / "USCongress.csv.gz"
    if not path.is_file():
        return None
    table = pd.read_csv(path, sep=";")
    return table["text"].astype(str).tolist(), table["major"].astype(str).to_numpy()


def _read_ethos() -> tuple[list[str], np.ndarray] | None:
    path = DATA / "ethos_mollas2020_hatespeech" / "Ethos_Dataset_Binary.csv"
    if not path.is_file():
        return None
    table = pd.read_csv(path, sep=";")
    return table["comment"].astype(str).tolist(), np.where(table["isHate"] >= 0.5, "hate", "not hate")


def _read_davidson() -> tuple[list[str], np.ndarray] | None:
    path = DATA / "davidson2017_hate_offensive" / "labeled_data.csv"
    if not path.is_file():
        return None
    table = pd.read_csv(path)
    names = {0: "hate", 1: "offensive", 2: "neither"}
    return table["tweet"].astype(str).tolist(), table["class"].map(names).to_numpy()


CORPORA = {
    "cap": (_read_cap, 1_000, "CAP US bill titles, 20 topics"),
    "ethos": (_read_ethos, 200, "ETHOS comments, hate or not"),
    "davidson": (_read_davidson, 2_000, "Davidson tweets, hate / offensive / neither"),
}
EMBEDDED = {"cap", "ethos"}  # embedded with --model auto


def load(name: str) -> Corpus | None:
    reader, n_test, description = CORPORA[name]
    read = reader()
    if read is None:
        return None
    from sklearn.model_selection import train_test_split

    texts, labels = read
    positions = np.arange(len(texts))
    pool, test = train_test_split(positions, test_size=n_test, stratify=labels, random_state=SPLIT_SEED)
    return Corpus(name, description, texts, np.asarray(labels, dtype=object), np.sort(test), np.sort(pool),
                  categories=sorted(set(labels)))


# ---------------------------------------------------------------------- features
def prepare(corpus: Corpus, model: str) -> None:
    """The quick model's features of every text (pool and test) and the groups of the pool."""
    from guiapp.core.coding.pool_clusters import PoolClusters
    from guiapp.core.coding.quick_model import BAG_OF_WORDS, EMBEDDINGS, pool_features

    if model == "auto":
        model = EMBEDDINGS if corpus.name in EMBEDDED else BAG_OF_WORDS
    corpus.model = model
    started = time.perf_counter()
    corpus.features = pool_features(model, corpus.texts)
    if model == EMBEDDINGS:
        vectors = np.asarray(corpus.features)[corpus.pool]
        corpus.groups_from = "sentence embeddings"
    else:
        from sklearn.decomposition import TruncatedSVD

        vectors = TruncatedSVD(100, random_state=0).fit_transform(corpus.features[corpus.pool])
        corpus.groups_from = "bag of words reduced to 100 dimensions (LSA)"
    corpus.clusters = PoolClusters.fit(vectors, seed=0)
    print(f"  {corpus.name}: {model} features of {len(corpus.texts):,} texts and "
          f"{corpus.clusters.n_clusters} groups in {time.perf_counter() - started:.1f} s", flush=True)


# ---------------------------------------------------------------------- simulation
def macro_f1(truth: np.ndarray, predicted: np.ndarray, categories: list[str]) -> float:
    from sklearn.metrics import f1_score

    return float(f1_score(truth, predicted, labels=categories, average="macro", zero_division=0))


@dataclass
class Run:
    scores: dict[int, float]  # test macro-F1 after so many codings
    rounds: list = field(default_factory=list)  # stopping.Round per retraining (when watched)
    round_scores: dict[int, float] = field(default_factory=dict)  # test macro-F1 at those rounds


def simulate(corpus: Corpus, strategy: str, repeat: int, last: int, batch: int, seed_set: int,
             every: int, watch: bool = False) -> Run:
    """Test macro-F1 of the quick model after every ``every`` codings, up to ``last``; ``watch``:
    also what the stop signal sees at every retraining (the predictions for a stop set of 1,000
    pool texts and the out-of-fold macro-F1 of the codings so far)."""
    from guiapp.core.coding.quick_model import QuickModel, out_of_fold_probabilities
    from guiapp.core.coding.stopping import Round, draw_stop_set
    from guiapp.core.coding.strategies import choose_next, default_strategy

    pool_x, pool_y = corpus.features[corpus.pool], corpus.labels[corpus.pool]
    test_x, test_y = corpus.features[corpus.test], corpus.labels[corpus.test]
    n_pool = len(corpus.pool)
    stop_set = np.asarray(draw_stop_set(range(n_pool), seed=repeat))
    coded = list(np.random.default_rng([SPLIT_SEED, repeat]).choice(n_pool, seed_set, replace=False))
    rng = np.random.default_rng([SPLIT_SEED, repeat, STRATEGIES.index(strategy) + 1])
    run = Run({})
    while True:
        n = len(coded)
        labels = pool_y[coded].tolist()
        counts = Counter(labels)
        guided = strategy != "random" and default_strategy(counts) != "random"
        model = None
        if guided or n % every == 0 or n == last:
            model = QuickModel(corpus.model, seed=repeat).fit(pool_x[coded], labels)
            if n % every == 0 or n == last:
                run.scores[n] = macro_f1(test_y, model.predict(test_x), corpus.categories)
        probabilities = model.predict_proba(pool_x) if guided else None
        if watch and guided:
            held_out, columns = out_of_fold_probabilities(corpus.model, pool_x[coded], labels, seed=repeat)
            oof = macro_f1(np.asarray(labels, dtype=object), np.asarray(columns, dtype=object)[held_out.argmax(axis=1)],
                           sorted(counts))
            run.rounds.append(Round.from_probabilities(n, probabilities[stop_set], model.categories, oof))
            run.round_scores[n] = run.scores.get(n) or macro_f1(test_y, model.predict(test_x), corpus.categories)
        if n >= last:
            return run
        drawn_by = strategy if guided or strategy == "diversity" else "random"
        # the next batch: all drawn from this model's distribution, the texts drawn so far left out
        take = min(batch - n % batch or batch, last - n)
        for _ in range(take):
            choice = choose_next(
                drawn_by, n_pool, probabilities=probabilities, clusters=corpus.clusters,
                coded_counts=counts if guided else None,
                categories=model.categories if guided else None, rng=rng, exclude=coded)
            coded.append(choice.position)


def first_stop(run: Run) -> int | None:
    """The number of codings at which the stop signal first says stop."""
    from guiapp.core.coding.stopping import stop_reading

    for index in range(len(run.rounds)):
        if stop_reading(run.rounds[: index + 1]).should_stop:
            return run.rounds[index].n_coded
    return None


def needed(curve: dict[int, float], target: float) -> float | None:
    """Codings from which on the mean curve stays at or above ``target`` (linear between the last
    measured point below it and the next): a noisy curve that touches the target once early does
    not count as having reached it."""
    points = sorted(curve.items())
    below = [index for index, (_, value) in enumerate(points) if value < target]
    if not below:
        return float(points[0][0])
    index = below[-1]
    if index == len(points) - 1:
        return None
    (n0, v0), (n1, v1) = points[index], points[index + 1]
    return n0 + (n1 - n0) * (target - v0) / (v1 - v0)


def run_corpus(corpus: Corpus, args: argparse.Namespace) -> dict:
    last = min(args.max_codings, (len(corpus.pool) - 1) // 100 * 100)
    curves: dict[str, list[dict[int, float]]] = {s: [] for s in STRATEGIES}
    seconds: dict[str, float] = dict.fromkeys(STRATEGIES, 0.0)
    stops: list[tuple[int | None, float | None]] = []  # (codings, test F1 then) per repeat
    for repeat in range(args.repeats):
        for strategy in STRATEGIES:
            started = time.perf_counter()
            watch = args.watch_stop and strategy == "uncertainty"
            run = simulate(corpus, strategy, repeat, last, args.batch, args.seed_set, args.every, watch)
            curves[strategy].append(run.scores)
            seconds[strategy] += time.perf_counter() - started
            if watch:
                stop = first_stop(run)
                stops.append((stop, None if stop is None else run.round_scores[stop]))
        print(f"  {corpus.name}: repeat {repeat + 1} of {args.repeats} done "
              f"({', '.join(f'{s} {seconds[s]:.0f} s' for s in STRATEGIES)} so far)", flush=True)
    means = {s: {n: float(np.mean([c[n] for c in runs])) for n in runs[0]} for s, runs in curves.items()}
    sds = {s: {n: float(np.std([c[n] for c in runs], ddof=1)) if len(runs) > 1 else float("nan")
               for n in runs[0]} for s, runs in curves.items()}
    target = means["random"][last]
    return {"corpus": corpus, "last": last, "means": means, "sds": sds, "target": target,
            "needed": {s: needed(means[s], target) for s in STRATEGIES}, "seconds": seconds, "stops": stops}


def corpus_table(outcome: dict) -> str:
    corpus: Corpus = outcome["corpus"]
    last = outcome["last"]
    columns = [n for n in sorted(outcome["means"]["random"]) if n % 100 == 0 and n >= 100]
    head = "| strategy | " + " | ".join(f"{n:,}" for n in columns) + " | sd at the end | codings to reach random's F1 at the end |"
    lines = [f"**{corpus.description}** — {len(corpus.pool):,} texts to code, {len(corpus.test):,} test texts; "
             f"quick model on {corpus.model}; groups from the {corpus.groups_from}. "
             f"Random's macro-F1 after {last:,} codings: {outcome['target']:.3f}.", "",
             head, "|" + "---|" * (len(columns) + 3)]
    for strategy in STRATEGIES:
        reach = outcome["needed"][strategy]
        reach_text = f"> {last:,}" if reach is None else f"{int(round(reach, -1)):,}"
        lines.append(f"| {strategy} | " + " | ".join(f"{outcome['means'][strategy][n]:.3f}" for n in columns)
                     + f" | {outcome['sds'][strategy][last]:.3f} | {reach_text} |")
    stops = outcome["stops"]
    if stops:
        fired = [(n, f1) for n, f1 in stops if n is not None]
        said = ", ".join("–" if n is None else f"{n:,} (F1 {f1:.3f})" for n, f1 in stops)
        lines += ["", f"Stop signal (uncertainty, default settings), codings at which it first said stop in each "
                  f"repeat, with the test macro-F1 then: {said}; it said stop within {last:,} codings in "
                  f"{len(fired)} of {len(stops)} repeats. Uncertainty's mean F1 at {last:,}: "
                  f"{outcome['means']['uncertainty'][last]:.3f}."]
    return "\n".join(lines)


# ---------------------------------------------------------------------- speed
def _median_seconds(call, times: int) -> float:
    spent = []
    for _ in range(times):
        started = time.perf_counter()
        call()
        spent.append(time.perf_counter() - started)
    return float(np.median(spent))


def speed(pool_size: int, cap: Corpus | None) -> str:
    """Seconds for the steps between a coding and the next suggestion (see the module docstring)."""
    from guiapp.core.coding.pool_clusters import PoolClusters
    from guiapp.core.coding.quick_model import BAG_OF_WORDS, EMBEDDINGS, QuickModel, out_of_fold_probabilities, pool_features
    from guiapp.core.coding.strategies import choose_next

    rng = np.random.default_rng(0)
    dim, n_coded = 384, 1_000
    pool = rng.normal(size=(pool_size, dim)).astype(np.float32)
    pool /= np.linalg.norm(pool, axis=1, keepdims=True)
    coded = rng.normal(size=(n_coded, dim)).astype(np.float32)
    coded /= np.linalg.norm(coded, axis=1, keepdims=True)
    started = time.perf_counter()
    clusters = PoolClusters.fit(pool, seed=0)
    grouping = time.perf_counter() - started
    lines = [f"Pool of {pool_size:,} uncoded texts (random unit vectors, 384 dimensions), "
             f"{n_coded:,} coded texts; median of repeated timings, seconds. Grouping the pool "
             f"({clusters.n_clusters} groups, once per pool): {grouping:.1f} s.", "",
             "| categories | step | random | uncertainty | diversity |", "|---|---|---|---|---|"]
    for n_categories in (3, 20):
        rule = rng.normal(size=(dim, n_categories))
        labels = [f"c{v}" for v in (coded @ rule + rng.gumbel(size=(n_coded, n_categories)) * 0.3).argmax(axis=1)]
        counts = Counter(labels)
        model = QuickModel(EMBEDDINGS).fit(coded, labels)
        fit = _median_seconds(lambda: QuickModel(EMBEDDINGS).fit(coded, labels), 3)  # noqa: B023
        probabilities = model.predict_proba(pool)
        predict = _median_seconds(lambda: model.predict_proba(pool), 3)  # noqa: B023
        exclude = rng.choice(pool_size, 9, replace=False).tolist()  # earlier texts of the batch

        def suggest(strategy: str) -> float:
            guided = strategy != "random"
            return _median_seconds(lambda: choose_next(
                strategy, pool_size, probabilities=probabilities if guided else None,  # noqa: B023
                clusters=clusters, coded_counts=counts if guided else None,  # noqa: B023
                categories=model.categories if guided else None, rng=rng, exclude=exclude), 20)  # noqa: B023

        choose = {s: suggest(s) for s in STRATEGIES}
        lines.append(f"| {n_categories} | coding → next suggestion | "
                     + " | ".join(f"{choose[s]:.3f}" for s in STRATEGIES) + " |")
        lines.append(f"| {n_categories} | retraining round: fit {fit:.2f} + probabilities of the pool "
                     f"{predict:.2f} + suggestion | " + " | ".join(f"{fit + predict + choose[s]:.2f}" for s in STRATEGIES) + " |")
    if cap is not None:
        rows = np.random.default_rng(1).choice(cap.pool, n_coded, replace=False)
        labels = cap.labels[rows].tolist()
        lines += ["", f"Retraining on {n_coded:,} real coded texts (CAP bill titles, 20 topics), median of 3, seconds:", "",
                  "| quick model | fit | 5-fold out-of-fold probabilities |", "|---|---|---|"]
        for kind in (EMBEDDINGS, BAG_OF_WORDS):
            features = pool_features(kind, cap.texts)[rows]
            fit = _median_seconds(lambda: QuickModel(kind).fit(features, labels), 3)  # noqa: B023
            oof = _median_seconds(lambda: out_of_fold_probabilities(kind, features, labels), 3)  # noqa: B023
            lines.append(f"| {kind} | {fit:.2f} | {oof:.2f} |")
    return "\n".join(lines)


def machine() -> str:
    import sklearn

    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (f"{cpu}, {os.cpu_count()} cores, {platform.system()} {platform.release()}; Python "
            f"{platform.python_version()}, NumPy {np.__version__}, scikit-learn {sklearn.__version__}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpora", nargs="+", choices=list(CORPORA), default=["cap", "ethos", "davidson"])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--model", choices=["auto", "embeddings", "bag-of-words"], default="auto")
    parser.add_argument("--batch", type=int, default=10, help="codings between retrainings (TextLab: 10)")
    parser.add_argument("--seed-set", type=int, default=20, help="random codings to start from")
    parser.add_argument("--max-codings", type=int, default=1_000)
    parser.add_argument("--every", type=int, default=50, help="score the model after every so many codings")
    parser.add_argument("--pool", type=int, default=100_000, help="uncoded texts for the speed test (0: skip)")
    parser.add_argument("--markdown", type=Path, help="also write the tables to this file")
    parser.add_argument("--no-stop", dest="watch_stop", action="store_false",
                        help="do not follow the stop signal (it refits the out-of-fold model every round)")
    parser.add_argument("--quick", action="store_true", help="1 repeat, 300 codings, a pool of 20,000: a smoke run")
    args = parser.parse_args()
    if args.quick:
        args.repeats, args.max_codings, args.pool = 1, 300, min(args.pool, 20_000)
    if args.every % args.batch or args.max_codings % 100 or args.seed_set >= 100:
        parser.error("--every must be a multiple of --batch, --max-codings of 100, and --seed-set below 100")
    model = {"bag-of-words": "bag of words"}.get(args.model, args.model)
    command = "python benchmarks/bench_active_learning.py " + " ".join(sys.argv[1:])
    print(f"{command}\n{machine()}", flush=True)
    sections = [f"`{command}` on {machine()}; {args.repeats} repeats, seed set of {args.seed_set} random "
                f"codings, retrained every {args.batch} codings; mean test macro-F1.", ""]
    started = time.perf_counter()
    loaded: dict[str, Corpus] = {}
    for name in args.corpora:
        corpus = load(name)
        if corpus is None:
            print(f"skipped {name}: its data is not in {DATA}", flush=True)
            continue
        loaded[name] = corpus
        prepare(corpus, model)
        outcome = run_corpus(corpus, args)
        table = corpus_table(outcome)
        print("\n" + table + "\n", flush=True)
        sections += [table, ""]
    if args.pool:
        cap = loaded.get("cap") or load("cap")
        if cap is not None and cap.model != "embeddings":
            prepare(cap, "embeddings")
        table = speed(args.pool, cap)
        print("\n" + table + "\n", flush=True)
        sections += [table, ""]
    total = time.perf_counter() - started
    sections.append(f"Whole run: {total / 60:.1f} minutes.")
    print(f"whole run: {total / 60:.1f} minutes")
    if args.markdown:
        args.markdown.write_text("\n".join(sections) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
