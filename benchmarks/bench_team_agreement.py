"""A simulated coding team measured by TextLab's team agreement: known codings of 600 texts in 4
categories (drawn uniformly), three coders with error rates of 5 %, 15 % and 30 % (a wrong coding
is one of the other three categories at random), each coding a random 80 % of the texts, so that
texts are coded by one, two or three coders. Printed, and written as Markdown with ``--out``:

- per coder: the simulated error, the accuracy against the known codings with its 95 % bootstrap
  interval (the simulated accuracy is 1 - error), and Cohen's kappa against them with its interval
  (the simulated kappa is (1 - error - 1/4) / (3/4), since every category is equally common);
- Krippendorff's alpha of the team with its interval, beside alpha on a fresh simulation of
  30,000 texts (the value the interval should hold), Fleiss' kappa and the pairs' kappas.

    .venv/bin/python benchmarks/bench_team_agreement.py --out docs/team-agreement.md
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from guiapp.core.stats.team_agreement import team_agreement  # noqa: E402
from guiapp.core.stats.wording import with_interval  # noqa: E402

CATEGORIES = ["economy", "health", "crime", "culture"]
ERROR_RATES = (0.05, 0.15, 0.30)


def simulate_team(seed: int, n_texts: int, error_rates=ERROR_RATES, share_coded: float = 0.8):
    """({coder: category} per text, text → known category) for coders with the given error rates."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, len(CATEGORIES), n_texts)
    rows = [{} for _ in range(n_texts)]
    for number, error in enumerate(error_rates, start=1):
        wrong = rng.random(n_texts) < error
        codes = np.where(wrong, (truth + rng.integers(1, len(CATEGORIES), n_texts)) % len(CATEGORIES), truth)
        for i in np.flatnonzero(rng.random(n_texts) < share_coded):
            rows[i][f"coder {number}"] = CATEGORIES[codes[i]]
    return rows, {i: CATEGORIES[t] for i, t in enumerate(truth)}


def report(n_texts: int, seed: int) -> str:
    coders = [f"coder {i}" for i in range(1, len(ERROR_RATES) + 1)]
    rows, truth = simulate_team(seed, n_texts)
    started = time.perf_counter()
    result = team_agreement(rows, truth, coders=coders, samples=1000, seed=1)
    seconds = time.perf_counter() - started
    large, _ = simulate_team(seed + 1, 30_000)
    population_alpha = team_agreement(large, coders=coders, samples=1).alpha
    lines = [
        f"Simulated team: {n_texts:,} texts, {len(CATEGORIES)} categories, each coder codes a random 80 % "
        f"(seed {seed}); 1,000 bootstrap resamples over the texts, 95 % intervals.",
        "",
        "| coder | simulated error | texts coded | accuracy vs truth (interval) | simulated accuracy "
        "| kappa vs truth (interval) | simulated kappa |",
        "|---|---|---|---|---|---|---|",
    ]
    for entry, error in zip(result.against_reference, ERROR_RATES, strict=True):
        lines.append(
            f"| {entry.coder} | {error:.0%} | {entry.n_texts:,} | {with_interval(entry.accuracy, entry.accuracy_interval, 3)} "
            f"| {1 - error:.3f} | {with_interval(entry.kappa, entry.kappa_interval, 3)} | {(0.75 - error) / 0.75:.3f} |")
    lines += [
        "",
        f"Krippendorff's alpha (nominal, {result.n_texts_compared:,} texts coded by two coders or more): "
        f"{with_interval(result.alpha, result.alpha_interval, 3)}; on a fresh simulation of 30,000 texts: "
        f"{population_alpha:.3f}.",
        f"Fleiss' kappa: {with_interval(result.fleiss.kappa, result.fleiss.interval, 3)}. {result.fleiss.note}",
        "",
        "| pair | texts both coded | Cohen's kappa (interval) |",
        "|---|---|---|",
    ]
    lines += [f"| {p.coder_a} – {p.coder_b} | {p.n_shared:,} | {with_interval(p.kappa, p.interval, 3)} |"
              for p in result.pairs]
    lines += ["", f"{len(result.disagreements):,} texts with a disagreement; the whole measurement took "
                  f"{seconds:.2f} s."]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=600)
    parser.add_argument("--seed", type=int, default=40)
    parser.add_argument("--out", type=Path, help="also write the Markdown here")
    args = parser.parse_args()
    text = report(args.texts, args.seed)
    print(text)
    if args.out:
        args.out.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
