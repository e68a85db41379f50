"""Do the Findings' intervals per group hold? A simulation built like a corpus of headlines per year.

    python benchmarks/bench_findings.py [--quick] [--draws 150] [--sizes 300 1000] [--jobs 2]
        [--seed 0] [--markdown results.md]

Each draw builds a corpus like the one researchers measure per year: 25 categories whose shares run
from 0.3 % to 15 % (geometric steps), 11 groups ("years") of unequal size, each with its own shares
(the overall shares times a random factor between about ½ and 2), and a classifier that errs: its
probabilities are a softmax of logits that hold the log of each category's share, a push towards the
true category that is weak for rare categories (the model saw few of them) and that varies by group
(one year's texts are read better than another's), and noise. About two thirds of the texts get the
right category; rare categories are mostly missed.

Two modes, as on the Findings step:

- **table** — the table's own texts (3,000): the coded texts are texts of the table.
  ``random``: a simple random sample of n. ``coding``: the Coding step's draws — half of n taken as
  the file's codings (a random sample), the other half drawn one at a time from the texts still open,
  90 % of the chance where the model is least sure (1 − its highest probability) and 10 % evenly, each
  draw's probability recorded (unequal chances). The truth is each group's share among the table's texts.
- **predicted** — texts a study's model predicted (2,200 new texts): the coded texts are n separate
  texts of the same kind (the study's test texts) with their groups. The truth is each group's share
  among the predicted texts.

Per setting it prints, over every (draw, group, category) cell, how often TextLab's 95 % interval held
the truth (coverage), for all categories and for rare ones (overall share below 1 %) on their own,
the mean width in points, and the same for the naive count (classify and count, its binomial
interval) and the coded texts alone. Goal: TextLab's per-group coverage 93–97 % in every setting.
``--quick``: 6 draws of n = 300, a smoke run of a few seconds.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import platform
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

K = 25
GROUPS = 11
TABLE_TEXTS = 3000
PREDICTED_TEXTS = 2200
SHARES = np.geomspace(0.003, 0.15, K)
SHARES = SHARES / SHARES.sum()
RARE = SHARES < 0.01
CATEGORIES = tuple(f"topic {k + 1:02d}" for k in range(K))
SETTINGS = (("table", "random"), ("table", "coding"), ("predicted", "random"))
LEVEL = 0.95


# ---------------------------------------------------------------------- the world of one draw
class World:
    """The groups' shares and the classifier of one draw; texts are drawn from it."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.group_weights = rng.dirichlet(np.full(GROUPS, 4.0))
        factor = np.exp(rng.normal(0.0, 0.4, (GROUPS, K)))
        shares = SHARES * factor
        self.shares = shares / shares.sum(axis=1, keepdims=True)
        self.quality = rng.uniform(0.6, 1.4, GROUPS)  # how well each group's texts are read
        self.push = 1.0 + 0.9 * np.log1p(100 * SHARES)  # towards the true category: weak for rare ones

    def texts(self, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(group, true category, the model's probabilities) of ``n`` texts."""
        group = rng.choice(GROUPS, size=n, p=self.group_weights)
        cumulative = self.shares[group].cumsum(axis=1)
        label = np.minimum((rng.random(n)[:, None] > cumulative).sum(axis=1), K - 1)
        logits = np.log(SHARES)[None, :] + rng.normal(0.0, 1.0, (n, K))
        logits[np.arange(n), label] += 1.2 * self.quality[group] * self.push[label]
        logits -= logits.max(axis=1, keepdims=True)
        probabilities = np.exp(logits)
        return group, label, probabilities / probabilities.sum(axis=1, keepdims=True)


def _coding_step(probabilities: np.ndarray, n: int, rng: np.random.Generator):
    """Half of ``n`` as the file's codings (at random), half drawn one at a time where the model is
    least sure (90 %) or evenly (10 %): (coded positions, CodingStepDraws)."""
    from guiapp.core.findings import CodingStepDraws, Step

    total = probabilities.shape[0]
    initial = rng.choice(total, size=n // 2, replace=False)
    is_open = np.ones(total, dtype=bool)
    is_open[initial] = False
    unsure = 1.0 - probabilities.max(axis=1)
    steps = []
    for _ in range(n - n // 2):
        weight = np.where(is_open, unsure, 0.0)
        chance = 0.9 * weight / weight.sum() + 0.1 * is_open / is_open.sum()
        position = int(rng.choice(total, p=chance))
        steps.append(Step(position, float(chance[position])))
        is_open[position] = False
    coded = np.concatenate([initial, [s.position for s in steps]]).astype(np.intp)
    return coded, CodingStepDraws(tuple(int(i) for i in initial), tuple(steps))


def one_draw(task: tuple[str, str, int, int]) -> dict[str, np.ndarray]:
    """Coverage and widths of one draw of one setting: per (group, category) cell."""
    from guiapp.core.findings import (
        CodedSample,
        RandomSample,
        SeparateSample,
        estimate_findings,
    )

    mode, design_name, n, seed = task
    rng = np.random.default_rng(seed)
    world = World(rng)
    if mode == "table":
        group, label, probabilities = world.texts(TABLE_TEXTS, rng)
        if design_name == "random":
            coded, design = np.sort(rng.choice(TABLE_TEXTS, size=n, replace=False)), RandomSample()
        else:
            coded, design = _coding_step(probabilities, n, rng)
        sample = CodedSample([CATEGORIES[k] for k in label[coded]], probabilities[coded], coded)
    else:
        group, label, probabilities = world.texts(PREDICTED_TEXTS, rng)
        coded_group, coded_label, coded_probabilities = world.texts(n, rng)
        sample = CodedSample([CATEGORIES[k] for k in coded_label], coded_probabilities,
                             groups=[f"year {g}" for g in coded_group])
        design = SeparateSample()
    names = [f"year {g}" for g in group]
    largest = f"year {int(np.bincount(group, minlength=GROUPS).argmax())}"
    found = estimate_findings(probabilities, CATEGORIES, sample, design, groups=names, reference=largest,
                              level=LEVEL)
    rows: dict[str, list] = {key: [] for key in ("rare", "cover", "width", "naive_cover", "naive_width",
                                                   "alone_cover", "alone_width", "few")}
    for g in range(GROUPS):
        members = group == g
        if not members.any():
            continue
        truth = np.bincount(label[members], minlength=K) / members.sum()
        shares = found.by_group(f"year {g}")
        if not shares:
            continue
        for k, share in enumerate(shares):
            rows["rare"].append(RARE[k])
            rows["cover"].append(share.low <= truth[k] <= share.high)
            rows["width"].append(share.high - share.low)
            rows["naive_cover"].append(share.naive_low <= truth[k] <= share.naive_high)
            rows["naive_width"].append(share.naive_high - share.naive_low)
            rows["alone_cover"].append(share.coded_only_low <= truth[k] <= share.coded_only_high)
            rows["alone_width"].append(share.coded_only_high - share.coded_only_low)
            rows["few"].append(bool(share.warning))
    return {key: np.asarray(value) for key, value in rows.items()}


# ---------------------------------------------------------------------- the table
def summarise(results: dict[tuple[str, str, int], list[dict[str, np.ndarray]]]) -> list[dict]:
    out = []
    for (mode, design, n), draws in results.items():
        stack = {key: np.concatenate([d[key] for d in draws]) for key in draws[0]}
        rare = stack["rare"].astype(bool)
        out.append({
            "mode": mode, "design": design, "n": n, "draws": len(draws), "cells": len(rare),
            "cover": stack["cover"].mean(), "cover rare": stack["cover"][rare].mean(),
            "cover common": stack["cover"][~rare].mean(),
            "width": stack["width"].mean(), "width rare": stack["width"][rare].mean(),
            "naive cover": stack["naive_cover"].mean(), "naive cover rare": stack["naive_cover"][rare].mean(),
            "naive width": stack["naive_width"].mean(),
            "alone cover": stack["alone_cover"].mean(), "alone cover rare": stack["alone_cover"][rare].mean(),
            "alone width": stack["alone_width"].mean(),
            "warned": stack["few"].mean(),
        })
    return out


def markdown(rows: list[dict]) -> str:
    header = ("| mode | design | n | draws | TextLab: all | rare (< 1 %) | common | width (rare) "
              "| naive count: all | rare | width | coded texts alone: all | rare | width |")
    lines = [header,
             "|" + "---|" * 14]
    for r in rows:
        lines.append(
            f"| {r['mode']} | {r['design']} | {r['n']:,} | {r['draws']} | **{100 * r['cover']:.1f} %** "
            f"| **{100 * r['cover rare']:.1f} %** | {100 * r['cover common']:.1f} % "
            f"| {100 * r['width']:.1f} ({100 * r['width rare']:.1f}) | {100 * r['naive cover']:.1f} % "
            f"| {100 * r['naive cover rare']:.1f} % | {100 * r['naive width']:.1f} | {100 * r['alone cover']:.1f} % "
            f"| {100 * r['alone cover rare']:.1f} % | {100 * r['alone width']:.1f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=150)
    parser.add_argument("--quick", action="store_true", help="a smoke run: 6 draws, n = 300")
    parser.add_argument("--sizes", nargs="+", type=int, default=[300, 1000])
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--markdown", type=Path)
    args = parser.parse_args(argv)
    draws = min(6, args.draws) if args.quick else args.draws
    sizes = [300] if args.quick else sorted(set(args.sizes))
    tasks = [(mode, design, n, args.seed * 1_000_003 + 100_000 * s + 1_000 * i + r)
             for s, (mode, design) in enumerate(SETTINGS) for i, n in enumerate(sizes) for r in range(draws)]
    started = time.perf_counter()
    results: dict[tuple[str, str, int], list] = {(m, d, n): [] for m, d in SETTINGS for n in sizes}
    if args.jobs > 1:
        with multiprocessing.get_context("fork").Pool(args.jobs) as pool:
            found = pool.map(one_draw, tasks, chunksize=4)
    else:
        found = [one_draw(task) for task in tasks]
    for task, result in zip(tasks, found, strict=True):
        results[task[:3]].append(result)
    text = markdown(summarise(results))
    elapsed = time.perf_counter() - started
    command = "python benchmarks/bench_findings.py " + " ".join(argv if argv is not None else sys.argv[1:])
    footer = (f"\n\nPer-group coverage of 95 % intervals, over every (draw, group, category) cell; widths in "
              f"points.\n{command.strip()} — {elapsed:.0f} s on {platform.platform()}, Python "
              f"{platform.python_version()}, {args.jobs} processes")
    print(text + footer, flush=True)
    if args.markdown:
        args.markdown.write_text(text + footer + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
