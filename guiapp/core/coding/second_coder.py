"""Two coders: a second coder codes a sample of the texts the first one coded, without seeing
those codings; then how much the two agree, and where they disagree.

**The first coding** is what the study counts: the file's categories with the codings made in
TextLab applied. The second coder's codings are a record apart in the same log (entries chosen by
``"second coder"``, see ``codings.py``); they never change the study's coding.

**The sample** is a simple random sample, without replacement, of the texts the first coding
codes, that needs nothing stored beyond the log. Each coded text gets a key that stands for a
uniform draw in [0, 1): the first 8 bytes of the BLAKE2b hash of ``repr((seed, row))``
(:func:`sample_key`). The sample of size N is the N coded texts with the smallest keys, and the
second coder is shown those not yet second-coded in the order of their keys (skipped ones come
back after the rest). The keys do not depend on the texts, their categories or the order in
which they were coded, so the N smallest are a simple random sample of the coded texts, and the
order the second coder sees them in is random too. Texts the first coding skipped are not coded
and are never drawn.

What this rule guarantees, with the seed fixed:

- the same codings give the same sample, whatever the order they were made in;
- a larger sample holds every text of a smaller one (raising the size keeps the work done);
- when the first coder codes more texts, a text of the sample stays in it unless N coded texts
  now have smaller keys: each new coding pushes out at most one text — the one with the largest
  key — and only when its own key is smaller; the texts that stay keep their order. A text the
  second coder coded and that was pushed out keeps its coding in the log; it is not counted in
  the agreement of this sample, and a sample large enough to hold it again counts it
  (:attr:`SecondCoderSample.covering_size`).

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

import hashlib
import math
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from guiapp.core.coding.coding_record import SECOND_CODER
from guiapp.core.errors import DataError
from guiapp.core.stats.agreement import cohen_kappa, krippendorff_alpha, sorted_categories
from guiapp.core.stats.agreement_intervals import bootstrap_alpha, bootstrap_kappa

if TYPE_CHECKING:
    from guiapp.core.coding.coding_record import Coding

__all__ = ["DEFAULT_SAMPLES", "DEFAULT_SAMPLE_SIZE", "LEVEL", "SECOND_CODER", "CoderAgreement", "Disagreement",
           "SecondCoderSample", "compare_coders", "default_sample_size", "draw_second_coder_sample", "sample_key",
           "sample_order", "second_coder_queue", "second_coder_sample", "split_by_coder"]

Row = Hashable  # the table's index label of a text
DEFAULT_SAMPLES = 1000
LEVEL = 0.95
DEFAULT_SAMPLE_SIZE = 50  # texts a second coder codes unless the researcher asks for more or fewer


def _is_coded(category: object) -> bool:
    if isinstance(category, str):
        return category != ""
    if category is None:
        return False
    try:
        return bool(category == category)  # NaN is not a coding
    except (TypeError, ValueError):
        return False


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


# ---------------------------------------------------------------------- the sample


def _canonical(row: Row) -> Row:
    """``row`` as the key reads it: NumPy's whole numbers and texts as Python's, so a row keeps its
    key whichever way the table hands it over."""
    if isinstance(row, str):
        return str(row)
    if isinstance(row, int | np.integer) and not isinstance(row, bool | np.bool_):
        return int(row)
    return row


@lru_cache(maxsize=1 << 20)  # a key is asked for again after every coding
def _key(seed: int, row: Row) -> int:
    """The key as a whole number below 2**64 (exact to sort by)."""
    digest = hashlib.blake2b(repr((seed, _canonical(row))).encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big")


def sample_key(row: Row, seed: int = 0) -> float:
    """The key of ``row`` for a sample drawn with ``seed``: a uniform draw in [0, 1) fixed by the
    two (the first 8 bytes of the BLAKE2b hash of ``repr((seed, row))``)."""
    return _key(_check_seed(seed), row) / 2.0**64


def _check_seed(seed: object) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
        raise DataError(f"The seed of the sample must be a whole number, not {seed!r}.",
                        "Use a whole number such as 0; the same number draws the same sample again.")
    return int(seed)


def sample_order(first: Mapping[Row, object], seed: int = 0) -> list[Row]:
    """Every row the first coding codes (``first``: row → category; empty ones are not codings),
    smallest key first: the sample of size N is the first N."""
    seed = _check_seed(seed)
    coded = [row for row, category in first.items() if _is_coded(category)]
    keys = np.fromiter((_key(seed, row) for row in coded), dtype=np.uint64, count=len(coded))
    return [coded[i] for i in np.argsort(keys, kind="stable")]


def _check_size(size: object, n_coded: int) -> int:
    if isinstance(size, bool) or not isinstance(size, int | np.integer):
        raise DataError(f"The size of the sample must be a whole number, not {size!r}.",
                        "Enter how many texts the second coder should code.")
    if not n_coded:
        raise DataError("The first coder has not coded any texts yet.",
                        "Code texts first; the second coder then codes a sample of them.")
    if not 1 <= size <= n_coded:
        raise DataError(
            f"A sample of {size:,} texts cannot be drawn from the {n_coded:,} texts the first coder coded.",
            f"Choose between 1 and {n_coded:,} texts.",
        )
    return int(size)


def draw_second_coder_sample(first: Mapping[Row, object], size: int, *, seed: int = 0) -> list[Row]:
    """The sample of ``size`` rows the second coder codes: the rows the first coding codes with the
    smallest keys, in the order the second coder sees them (see the module's docstring)."""
    order = sample_order(first, seed)
    return order[:_check_size(size, len(order))]


@dataclass(frozen=True)
class SecondCoderSample:
    """Where the second coder stands with the sample of one size."""

    rows: list[Row]  # the sample, in the order the second coder sees it
    coded: list[Row]  # the rows of the sample the second coder coded, in that order
    skipped: list[Row]  # the rows of the sample the second coder skipped and has not coded since
    to_code: list[Row]  # what the second coder is shown next: not yet seen, then the skipped ones
    outside: list[Row]  # rows the second coder coded that this sample does not hold (still first-coded)
    covering_size: int  # the smallest size whose sample holds every row the second coder coded (0: none)
    n_first: int  # the texts the first coding codes: the largest sample possible

    @property
    def size(self) -> int:
        return len(self.rows)

    @property
    def done(self) -> bool:
        return not self.to_code


def second_coder_sample(first: Mapping[Row, object], second: Mapping[Row, object], size: int, seed: int = 0, *,
                        skipped: Iterable[Row] = ()) -> SecondCoderSample:
    """The sample of ``size`` texts of the first coding (``first``: row → category) with the second
    coder's progress on it (``second``: row → the second coder's category; ``skipped``: rows the
    second coder skipped and has not coded since). :class:`DataError` when the size does not fit."""
    order = sample_order(first, seed)
    size = _check_size(size, len(order))
    rows = order[:size]
    coded_by_second = {row for row, category in second.items() if _is_coded(category)}
    skips = set(skipped) - coded_by_second
    coded = [row for row in rows if row in coded_by_second]
    skipped_rows = [row for row in rows if row in skips]
    unseen = [row for row in rows if row not in coded_by_second and row not in skips]
    ranks = [rank for rank, row in enumerate(order) if row in coded_by_second]
    return SecondCoderSample(
        rows=rows, coded=coded, skipped=skipped_rows, to_code=unseen + skipped_rows,
        outside=[row for row in order[size:] if row in coded_by_second],
        covering_size=ranks[-1] + 1 if ranks else 0, n_first=len(order))


def second_coder_queue(first: Mapping[Row, object], second: Mapping[Row, object], size: int, seed: int = 0, *,
                       skipped: Iterable[Row] = ()) -> list[Row]:
    """The rows of the sample of ``size`` still to be coded by the second coder, in the order they
    are shown: those not yet seen by key, then those skipped (see :func:`second_coder_sample`)."""
    return second_coder_sample(first, second, size, seed, skipped=skipped).to_code


def default_sample_size(first: Mapping[Row, object], second: Mapping[Row, object], seed: int = 0) -> int:
    """The size a sample starts with: 50 texts (fewer when fewer are coded), or the smallest size
    that holds every text the second coder already coded, if larger — so that reopening a project
    shows the sample the second coder worked on. 0 when nothing is coded."""
    order = sample_order(first, seed)
    coded_by_second = {row for row, category in second.items() if _is_coded(category)}
    ranks = [rank for rank, row in enumerate(order) if row in coded_by_second]
    return max(min(DEFAULT_SAMPLE_SIZE, len(order)), ranks[-1] + 1 if ranks else 0)


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
