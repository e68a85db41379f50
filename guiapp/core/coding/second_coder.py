"""Two coders: a second coder codes a sample of the texts the first one coded, without seeing
those codings; then how much the two agree, and where they disagree.

**The sample** is a simple random sample, without replacement, of the texts the first coder
coded, drawn with a seed (the same seed and codings give the same sample) and handed to the
second coder in a random order, so neither the order of coding nor the first coder's categories
steer what the second coder sees. A simple random sample keeps the agreement an estimate for all
the coded texts; texts the first coder skipped are not coded and cannot be drawn.

**Agreement** over the texts both coded (a text the second coder skipped is left out):

- the share of texts coded alike;
- Cohen's kappa (chance-corrected from each coder's own category shares);
- Krippendorff's alpha, nominal (chance-corrected from the categories' pooled shares; the
  coefficient content analysis usually reports; Krippendorff 2004 asks for α ≥ 0.8, and
  tolerates 0.667 for tentative conclusions);

each with a percentile bootstrap interval over texts (``stats/agreement_intervals.py``). Both
coefficients are undefined ("–") when the two coders used one and the same category only.

**Disagreements**: every text coded differently, in the order of the sample, with both
categories, for the coders to discuss.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from guiapp.core.errors import DataError
from guiapp.core.stats.agreement import cohen_kappa, krippendorff_alpha, sorted_categories
from guiapp.core.stats.agreement_intervals import bootstrap_alpha, bootstrap_kappa

if TYPE_CHECKING:
    from guiapp.core.coding.coding_record import Coding

Row = Hashable  # the table's index label of a text
DEFAULT_SAMPLES = 1000
LEVEL = 0.95


def _is_coded(category: object) -> bool:
    if category is None or category == "":
        return False
    try:
        return bool(category == category)  # NaN is not a coding
    except (TypeError, ValueError):
        return False


SECOND_CODER = "second coder"  # how a second coder's texts are recorded as chosen (``Coding.chosen_by``)


def split_by_coder(entries: Iterable[Coding], source: str = "table") -> tuple[dict[Row, str], dict[Row, str]]:
    """From the record of codings (oldest first): row → category of the first coding, and of the
    second coder's (entries chosen by ``"second coder"``), each the latest per row; a row whose
    latest entry is a skip has none."""
    first: dict[Row, str | None] = {}
    second: dict[Row, str | None] = {}
    for entry in entries:
        if entry.source == source:
            (second if entry.chosen_by == SECOND_CODER else first)[entry.row] = entry.category
    return ({row: c for row, c in first.items() if _is_coded(c)},
            {row: c for row, c in second.items() if _is_coded(c)})


def draw_second_coder_sample(first: Mapping[Row, str], size: int, *, seed: int = 0) -> list[Row]:
    """``size`` rows drawn at random from those the first coder coded (``first``: row → category),
    in the random order the second coder sees them."""
    coded = [row for row, category in first.items() if _is_coded(category)]
    if isinstance(size, bool) or not isinstance(size, int | np.integer):
        raise DataError(f"The size of the sample must be a whole number, not {size!r}.",
                        "Enter how many texts the second coder should code.")
    if not coded:
        raise DataError("The first coder has not coded any texts yet.",
                        "Code texts first; the second coder then codes a sample of them.")
    if not 1 <= size <= len(coded):
        raise DataError(
            f"A sample of {size:,} texts cannot be drawn from the {len(coded):,} texts the first coder coded.",
            f"Choose between 1 and {len(coded):,} texts.",
        )
    try:
        ordered = sorted(coded)  # the draw must not depend on the order the codings came in
    except TypeError:
        ordered = sorted(coded, key=lambda row: (type(row).__name__, str(row)))
    chosen = np.random.default_rng(seed).choice(len(ordered), size=size, replace=False)
    return [ordered[i] for i in chosen]


@dataclass(frozen=True)
class Disagreement:
    row: Row
    first: str  # the first coder's category
    second: str  # the second coder's category


@dataclass(frozen=True)
class CoderAgreement:
    """How far two coders agree on the texts both coded."""

    n_texts: int
    share_agreeing: float
    kappa: float
    kappa_interval: tuple[float, float]
    alpha: float
    alpha_interval: tuple[float, float]
    disagreements: list[Disagreement]
    categories: list  # the order of the rows and columns of ``table``
    table: np.ndarray  # counts: rows the first coder's category, columns the second's
    level: float = LEVEL
    samples: int = DEFAULT_SAMPLES
    seed: int = 0

    def sentence(self) -> str:
        """The result in one or two plain sentences."""
        alike = f"The two coders coded {self.share_agreeing:.0%} of {self.n_texts:,} texts alike"
        if not math.isfinite(self.alpha):
            return (f"{alike}; both used one and the same category only, so agreement beyond "
                    "chance cannot be measured.")
        low, high = self.alpha_interval
        interval = f" ({self.level:.0%} interval {low:.2f} to {high:.2f})" if math.isfinite(low) else ""
        if self.alpha >= 0.8:
            verdict = "good enough for most content analyses (0.8 or more)"
        elif self.alpha >= 0.667:
            verdict = "enough only for tentative conclusions (between 0.667 and 0.8)"
        else:
            verdict = "too low to rely on the coding (below 0.667): discuss the disagreements and sharpen the codebook"
        return f"{alike}. Krippendorff's alpha is {self.alpha:.2f}{interval}: {verdict}."


def compare_coders(
    first: Mapping[Row, str],
    second: Mapping[Row, str],
    rows: Sequence[Row] | None = None,
    *,
    samples: int = DEFAULT_SAMPLES,
    seed: int = 0,
    level: float = LEVEL,
) -> CoderAgreement:
    """Agreement between two coders (each: row → category) on the texts both coded. ``rows``:
    the sample in the order it was drawn (the order of the disagreements); by default the second
    coder's rows in the order given."""
    order = list(second) if rows is None else list(rows)
    both = [row for row in order
            if _is_coded(first.get(row)) and _is_coded(second.get(row))]
    if len(both) < 2:
        raise DataError(
            f"Only {len(both)} text{'s have' if len(both) != 1 else ' has'} been coded by both coders.",
            "Agreement needs at least two texts coded by both; let the second coder code more of the sample.",
        )
    a = [first[row] for row in both]
    b = [second[row] for row in both]
    categories = sorted_categories(a + b)
    index = {category: i for i, category in enumerate(categories)}
    table = np.zeros((len(categories), len(categories)), dtype=int)
    np.add.at(table, ([index[x] for x in a], [index[y] for y in b]), 1)
    return CoderAgreement(
        n_texts=len(both),
        share_agreeing=float(np.trace(table) / len(both)),
        kappa=cohen_kappa(a, b),
        kappa_interval=bootstrap_kappa(a, b, samples, seed, level),
        alpha=krippendorff_alpha([a, b]),
        alpha_interval=bootstrap_alpha([a, b], samples, seed, level),
        disagreements=[Disagreement(row, x, y) for row, x, y in zip(both, a, b, strict=True) if x != y],
        categories=categories,
        table=table,
        level=level,
        samples=samples,
        seed=seed,
    )
