"""Do the findings' intervals hold? A validity simulation on real corpora with their true categories.

    python benchmarks/bench_findings_corpora.py [--draws 300] [--quick] [--corpora davidson cap]
        [--sizes 200 500 1000] [--designs random uncertainty] [--jobs 2] [--model findings]
        [--markdown results.md]

Corpora (from ``../shared/data``; an absent one is skipped with a line saying so):

- ``davidson``: Davidson et al. (2017) tweets, hate / offensive / neither (24,783).
- ``cap``: US Congress bill titles, 20 policy topics (CAP major codes; 4,449).

Each draw (replicate) codes texts with their true category and estimates every category's share of
the whole corpus (the coded texts counting with their coding) three ways: (a) classify and count
with its binomial interval, (b) the coded texts alone (design-weighted), (c) TextLab's estimate
(``estimate_findings``). It records whether each 95 % interval holds the true share and its width.

- ``random``: a simple random sample of n texts; (c) is PPI++ (power-tuned) for the corpus.
- ``uncertainty``: the Coding step's draws — texts drawn one at a time from the texts still open by
  ``strategies.selection_distribution`` / ``draw`` with the "auto" strategy (at random until two
  categories have five codings and a quick model exists, then where the model is least sure, with
  the class balance and the even share of the defaults), the quick model retrained every 10 codings
  up to 100, then every 100 (the Coding step retrains every 10; the probabilities are recorded per
  draw, so the schedule changes the estimator's precision, not its validity). (c) is the sequential
  design-based estimator with the recorded probabilities.

At each n the Findings step's model (``findings.quick_features.findings_probabilities``: the mean
of two logistic regressions, on the sentence embeddings and on the bag of words with every word
kept) is cross-fitted on the n coded texts (5 folds): each coded text gets the probabilities of the
fold model that did not see it, every other text the mean of the five fold models'. The sizes are
nested within a draw (the first 200 of its 500 texts, …), so one draw gives all three sizes; draws
are independent. The features are computed once per corpus (the embeddings are cached on disk).
The Coding step's draws use the Coding step's own quick model (the linear SVM on its default bag of
words), as the app does. ``--quick``: 40 draws. ``--model coding``: cross-fit the Coding step's
quick model instead (the estimate before the Findings step had its own model).

The table gives, per corpus, design and n, the coverage averaged over
categories (and the lowest category's for (c)), the mean interval width, and how much narrower
(c) is than (b).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import platform
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DATA = ROOT.parent / "shared" / "data"
SIZES = (200, 500, 1000)
DESIGNS = ("random", "uncertainty")
RETRAIN_EVERY = 10
RETRAIN_EVERY_LATER = 100
LATER_FROM = 100
LEVEL = 0.95


@dataclass
class Corpus:
    name: str
    description: str
    labels: np.ndarray  # category names
    categories: list[str]
    features: object  # the Coding step's bag of words, one row per text (its draws' model)
    truth: np.ndarray  # share of each category
    texts: list[str]
    model: str  # "findings": the Findings step's model; "coding": the Coding step's quick model


def _read_davidson(data: Path) -> tuple[list[str], np.ndarray] | None:
    path = data / "davidson2017_hate_offensive" / "labeled_data.csv"
    if not path.is_file():
        return None
    table = pd.read_csv(path)
    names = {0: "hate", 1: "offensive", 2: "neither"}
    return table["tweet"].astype(str).tolist(), table["class"].map(names).to_numpy()


def _read_cap(data: Path) -> tuple[list[str], np.ndarray] | None:
    path = data / "cap_uscongress_bills" / "USCongress.csv.gz"
    if not path.is_file():
        return None
    table = pd.read_csv(path, sep=";")
    return table["text"].astype(str).tolist(), table["major"].astype(str).to_numpy()


CORPORA = {
    "davidson": (_read_davidson, "Davidson tweets (hate / offensive / neither)"),
    "cap": (_read_cap, "CAP US bill titles (20 topics)"),
}


#: Features computed once in the main process (before the workers fork).
CACHE = None


def load(name: str, data: Path, model: str = "findings") -> Corpus | None:
    global CACHE
    from guiapp.core.coding.quick_model import BAG_OF_WORDS, FeatureCache, pool_features
    from guiapp.core.findings.quick_features import findings_features
    from guiapp.core.stats.agreement import sorted_categories

    read = CORPORA[name][0](data)
    if read is None:
        return None
    texts, labels = read
    labels = np.asarray(labels, dtype=object)
    categories = list(sorted_categories(set(labels.tolist())))
    CACHE = CACHE if CACHE is not None else FeatureCache()
    features = pool_features(BAG_OF_WORDS, texts, CACHE)
    if model == "findings":
        findings_features(texts, cache=CACHE)  # kept in CACHE for the draws
    index = {c: i for i, c in enumerate(categories)}
    truth = np.bincount([index[v] for v in labels], minlength=len(categories)) / len(labels)
    return Corpus(name, CORPORA[name][1], labels, categories, features, truth, texts, model)


# ---------------------------------------------------------------------- one draw
_CORPORA: dict[str, Corpus] = {}


def _estimates(corpus: Corpus, coded: np.ndarray, design: object, seed: int) -> dict[str, np.ndarray]:
    """Coverage and width of (a), (b), (c) per category for the coded texts ``coded``."""
    from guiapp.core.coding.quick_model import BAG_OF_WORDS
    from guiapp.core.findings import (
        CodedSample,
        cross_fitted_probabilities,
        estimate_findings,
    )
    from guiapp.core.findings.quick_features import findings_probabilities

    x, labels, cats = corpus.features, corpus.labels, corpus.categories
    coded_labels = labels[coded].tolist()
    if corpus.model == "findings":
        fitted = findings_probabilities(corpus.texts, coded, coded_labels, categories=cats, cache=CACHE, seed=seed)
    else:
        fitted = cross_fitted_probabilities(BAG_OF_WORDS, x, coded, coded_labels, categories=cats, seed=seed)
    found = estimate_findings(fitted.corpus, cats, CodedSample(coded_labels, fitted.coded, coded), design,
                              level=LEVEL)
    shares = found.overall()
    truth = corpus.truth
    out = {}
    for key, low, high, point in (
        ("a", "naive_low", "naive_high", "naive"),
        ("b", "coded_only_low", "coded_only_high", "coded_only"),
        ("c", "low", "high", "estimate"),
    ):
        lows = np.array([getattr(s, low) for s in shares])
        highs = np.array([getattr(s, high) for s in shares])
        points = np.array([getattr(s, point) for s in shares])
        out[f"cover_{key}"] = (lows <= truth) & (truth <= highs)
        out[f"width_{key}"] = highs - lows
        out[f"error_{key}"] = points - truth
    out["power"] = np.array([found.power if found.power is not None else np.nan])
    return out


def _random_draw(name: str, sizes: tuple[int, ...], seed: int) -> dict[int, dict[str, np.ndarray]]:
    from guiapp.core.findings import RandomSample

    corpus = _CORPORA[name]
    order = np.random.default_rng(seed).permutation(len(corpus.labels))
    return {n: _estimates(corpus, np.sort(order[:n]), RandomSample(), seed) for n in sizes}


def _uncertainty_draw(name: str, sizes: tuple[int, ...], seed: int) -> dict[int, dict[str, np.ndarray]]:
    """The Coding step's draws (strategy "auto"), estimated at each size."""
    from guiapp.core.coding.quick_model import BAG_OF_WORDS, QuickModel
    from guiapp.core.coding.strategies import (
        default_strategy,
        draw,
        selection_distribution,
    )
    from guiapp.core.findings import CodingStepDraws, Step

    corpus = _CORPORA[name]
    rng = np.random.default_rng(seed)
    x, labels, cats = corpus.features, corpus.labels, corpus.categories
    n_texts = len(labels)
    is_open = np.ones(n_texts, dtype=bool)
    coded: list[int] = []
    steps: list[Step] = []
    counts: Counter = Counter()
    probabilities = None
    last_retrain = 0
    out = {}
    for size in range(1, max(sizes) + 1):
        strategy = default_strategy(counts)
        if probabilities is None:
            strategy = "random"
        distribution = selection_distribution(strategy, n_texts, probabilities=probabilities,
                                              coded_counts=dict(counts), categories=cats,
                                              exclude=np.flatnonzero(~is_open))
        position = draw(distribution, rng)
        steps.append(Step(int(position), float(distribution[position])))
        is_open[position] = False
        coded.append(int(position))
        counts[labels[position]] += 1
        every = RETRAIN_EVERY if size < LATER_FROM else RETRAIN_EVERY_LATER
        ready = sum(1 for v in counts.values() if v) >= 2
        if ready and (probabilities is None or size - last_retrain >= every):
            model = QuickModel(BAG_OF_WORDS, seed=seed).fit(x[coded], labels[coded].tolist(), cats)
            probabilities = model.predict_proba(x)
            last_retrain = size
        if size in sizes:
            order = np.array(coded)
            design = CodingStepDraws((), tuple(steps))
            out[size] = _estimates(corpus, order, design, seed)
    return out


def _run(task: tuple[str, str, tuple[int, ...], int]) -> tuple[str, str, int, dict, float]:
    name, design, sizes, seed = task
    started = time.perf_counter()
    found = (_random_draw if design == "random" else _uncertainty_draw)(name, sizes, seed)
    return name, design, seed, found, time.perf_counter() - started


# ---------------------------------------------------------------------- the table
def summarise(results: list[tuple[str, str, int, dict, float]], corpora: dict[str, Corpus],
              sizes: tuple[int, ...]) -> pd.DataFrame:
    rows = []
    for name in corpora:
        for design in DESIGNS:
            mine = [r for r in results if r[0] == name and r[1] == design]
            if not mine:
                continue
            for n in sizes:
                stack = {key: np.array([r[3][n][key] for r in mine]) for key in mine[0][3][n]}
                cover_c = stack["cover_c"].mean(axis=0)
                worst = int(np.argmin(cover_c))
                width_b, width_c = stack["width_b"].mean(), stack["width_c"].mean()
                error = stack["error_c"]
                bias_z = np.abs(error.mean(axis=0)) / (error.std(axis=0, ddof=1) / np.sqrt(len(mine)) + 1e-12)
                rows.append({
                    "corpus": name, "design": design, "n": n, "draws": len(mine),
                    "(a) coverage": stack["cover_a"].mean(), "(b) coverage": stack["cover_b"].mean(),
                    "(c) coverage": cover_c.mean(), "(c) lowest category": cover_c[worst],
                    "lowest category": corpora[name].categories[worst],
                    "(a) width": stack["width_a"].mean(), "(b) width": width_b, "(c) width": width_c,
                    "(c) narrower than (b)": 1 - width_c / width_b,
                    "(c) largest |bias|/SE": float(bias_z.max()),
                    "power λ": float(np.nanmean(stack["power"])),
                    "seconds per draw": float(np.mean([r[4] for r in mine])),
                })
    return pd.DataFrame(rows)


def markdown(table: pd.DataFrame) -> str:
    header = ("| corpus | design | n | draws | (a) cover | (b) cover | (c) cover | (c) lowest cat. | (a) width "
              "| (b) width | (c) width | (c) narrower than (b) | (c) max \\|bias\\|/SE | λ |")
    lines = [header, "|" + "---|" * 14]
    for row in table.itertuples(index=False):
        r = row._asdict()
        values = list(r.values())
        (corpus, design, n, draws, cover_a, cover_b, cover_c, lowest, lowest_name, width_a, width_b, width_c,
         narrower, bias, lam, _) = values
        lines.append(f"| {corpus} | {design} | {n:,} | {draws} | {100 * cover_a:.1f} % | {100 * cover_b:.1f} % | "
                     f"**{100 * cover_c:.1f} %** | {100 * lowest:.1f} % ({lowest_name}) | {100 * width_a:.2f} | "
                     f"{100 * width_b:.2f} | {100 * width_c:.2f} | {100 * narrower:.0f} % | {bias:.1f} | {lam:.2f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=300)
    parser.add_argument("--quick", action="store_true", help="40 draws")
    parser.add_argument("--corpora", nargs="+", choices=list(CORPORA), default=list(CORPORA))
    parser.add_argument("--sizes", nargs="+", type=int, default=list(SIZES))
    parser.add_argument("--designs", nargs="+", choices=list(DESIGNS), default=list(DESIGNS))
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--model", choices=("findings", "coding"), default="findings",
                        help="findings: the Findings step's model; coding: the Coding step's quick model")
    parser.add_argument("--markdown", type=Path)
    args = parser.parse_args(argv)
    draws = 40 if args.quick else args.draws
    sizes = tuple(sorted(set(args.sizes)))
    started = time.perf_counter()
    for name in args.corpora:
        corpus = load(name, args.data, args.model)
        if corpus is None:
            print(f"{name}: not found under {args.data}, skipped")
            continue
        _CORPORA[name] = corpus
        print(f"{name}: {len(corpus.labels):,} texts, {len(corpus.categories)} categories, the Coding step's "
              f"bag of words {corpus.features.shape[1]:,} words; cross-fitted model: {args.model}", flush=True)
    if not _CORPORA:
        print("no corpus found")
        return 0
    tasks = [(name, design, sizes, args.seed * 1_000_003 + 7919 * d + r)
             for name in _CORPORA for d, design in enumerate(args.designs) for r in range(draws)]
    # the slow tasks first, so the pool ends together
    tasks.sort(key=lambda t: (t[1] != "uncertainty", t[0] != "davidson"))
    results = []
    context = multiprocessing.get_context("fork")
    with context.Pool(args.jobs) as pool:
        for done, result in enumerate(pool.imap_unordered(_run, tasks, chunksize=1), start=1):
            results.append(result)
            if done % max(1, len(tasks) // 20) == 0:
                print(f"  {done:,} of {len(tasks):,} draws, {time.perf_counter() - started:.0f} s", flush=True)
    table = summarise(results, _CORPORA, sizes)
    text = markdown(table)
    elapsed = time.perf_counter() - started
    machine = (f"{platform.platform()}, Python {platform.python_version()}, {os.cpu_count()} CPUs, "
               f"{args.jobs} processes")
    command = "python benchmarks/bench_findings_corpora.py " + " ".join(argv if argv is not None else sys.argv[1:])
    footer = f"\n\n{command.strip()} — {elapsed / 60:.1f} minutes on {machine}"
    print()
    print(text + footer)
    if args.markdown:
        args.markdown.write_text(text + footer + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
