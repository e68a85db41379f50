"""The findings as plain data: each category's share (in the whole corpus and per group) with its
interval, the naive count beside it, the coded texts alone, differences between groups, and what
was assumed — with tables for the Excel sheet and a paragraph for the methods appendix."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations

import pandas as pd

from guiapp.core.errors import DataError

CITATIONS = (
    "Egami, N., Hinck, M., Stewart, B. M., & Wei, H. (2023). Using imperfect surrogates for downstream "
    "inference: Design-based supervised learning for social science applications of large language models. "
    "Advances in Neural Information Processing Systems 36.",
    "Angelopoulos, A. N., Bates, S., Fannjiang, C., Jordan, M. I., & Zrnic, T. (2023). Prediction-powered "
    "inference. Science, 382(6671), 669–674.",
    "Angelopoulos, A. N., Duchi, J. C., & Zrnic, T. (2023). PPI++: Efficient prediction-powered inference. "
    "arXiv:2311.01453.",
)
SEQUENTIAL_CITATION = ("Zrnic, T., & Candès, E. J. (2024). Active statistical inference. Proceedings of the "
                       "41st International Conference on Machine Learning.")
ALL_PAIRS = "all pairs"
LANGUAGE_MODEL_NOTE = ("The model is a language model given the codebook: its labels entered these shares only as a "
                       "model's predictions, corrected by the coded texts as every model's are, and were never used "
                       "as the true categories.")  # the Findings step's and the project's word for every pair of groups
QUANTIFICATION_CITATION = ("Saerens, M., Latinne, P., & Decaestecker, C. (2002). Adjusting the outputs of a "
                           "classifier to new a priori probabilities. Neural Computation, 14(1), 21–41.")


@dataclass(frozen=True)
class Share:
    """One category's share of the whole corpus (``group`` None) or of a group."""

    group: str | None
    category: str
    estimate: float
    low: float
    high: float
    standard_error: float
    naive: float  # classify and count
    naive_low: float
    naive_high: float
    probabilistic: float  # mean predicted probability
    coded_only: float  # the coded texts alone, design-weighted
    coded_only_low: float
    coded_only_high: float
    n_texts: int
    n_coded: int
    warning: str = ""


@dataclass(frozen=True)
class Difference:
    """``estimate`` = the share of ``category`` in ``group`` minus its share in ``other``."""

    category: str
    group: str
    other: str
    estimate: float
    low: float
    high: float
    standard_error: float
    p_value: float
    naive: float  # the same difference by classify and count

    def sentence(self) -> str:
        """'Republicans: +8.1 points [3.0, 13.2] compared with Democrats'."""
        return (f"{self.group}: {100 * self.estimate:+.1f} points [{100 * self.low:.1f}, {100 * self.high:.1f}] "
                f"compared with {self.other}")


@dataclass(frozen=True)
class Findings:
    categories: tuple[str, ...]
    shares: tuple[Share, ...]  # the whole corpus first, then each group
    differences: tuple[Difference, ...]
    method: str
    method_key: str
    assumption: str
    level: float
    n_texts: int
    n_coded: int
    group_name: str | None = None
    groups: tuple[str, ...] = ()
    power: float | None = None
    warnings: tuple[str, ...] = ()
    comparison: str = ""  # the differences: each group against this group, ALL_PAIRS, or "" (the largest)
    # what the model whose answers were counted is, where the findings must say it (a language model's labels
    # are a model's predictions, never the truth): one sentence, or ""
    model_note: str = ""

    def largest(self) -> str:
        """The group with the most texts, the one the others are compared with unless asked otherwise."""
        sizes = {share.group: share.n_texts for share in self.shares if share.group is not None}
        return largest_group(self.groups, lambda name: sizes.get(name, 0)) if self.groups else ""

    def comparison_words(self) -> str:
        """'each year compared with 2015', 'every pair of years', 'each year compared with the largest, 2012'."""
        if not self.differences:
            return ""
        column = f"group of “{self.group_name}”" if self.group_name else "group"
        if self.comparison == ALL_PAIRS:
            return f"every pair of groups of “{self.group_name}”" if self.group_name else "every pair of groups"
        if self.comparison:
            return f"each {column} compared with “{self.comparison}”"
        return f"each {column} compared with the largest group, “{self.largest()}”"

    def overall(self) -> list[Share]:
        return [share for share in self.shares if share.group is None]

    def by_group(self, group: str) -> list[Share]:
        return [share for share in self.shares if share.group == group]

    def share(self, category: str, group: str | None = None) -> Share:
        for share in self.shares:
            if share.category == category and share.group == group:
                return share
        where = "the whole corpus" if group is None else f"the group “{group}”"
        raise DataError(f"There is no share of “{category}” for {where}.",
                        "Choose one of the categories and groups the findings were computed for.")

    def to_frame(self) -> pd.DataFrame:
        """One row per share: group, category, estimate and interval, the naive and coded-only
        answers, the numbers of texts and coded texts, and any warning."""
        rows = [{
            "group": "all texts" if s.group is None else s.group, "category": s.category,
            "share": s.estimate, "low": s.low, "high": s.high, "standard error": s.standard_error,
            "classify and count": s.naive, "classify and count low": s.naive_low,
            "classify and count high": s.naive_high, "mean probability": s.probabilistic,
            "coded texts alone": s.coded_only, "coded texts alone low": s.coded_only_low,
            "coded texts alone high": s.coded_only_high, "texts": s.n_texts, "coded texts": s.n_coded,
            "warning": s.warning,
        } for s in self.shares]
        frame = pd.DataFrame(rows)
        frame.attrs.update(level=self.level, method=self.method, assumption=self.assumption)
        return frame

    def differences_frame(self) -> pd.DataFrame:
        rows = [{
            "category": d.category, "group": d.group, "compared with": d.other, "difference": d.estimate,
            "low": d.low, "high": d.high, "standard error": d.standard_error, "p-value": d.p_value,
            "classify and count": d.naive, "in words": d.sentence(),
        } for d in self.differences]
        columns = ["category", "group", "compared with", "difference", "low", "high", "standard error",
                   "p-value", "classify and count", "in words"]
        frame = pd.DataFrame(rows, columns=columns)
        frame.attrs.update(level=self.level, method=self.method)
        return frame

    def methods_paragraph(self) -> str:
        """A paragraph for the methods appendix: estimator, assumption, sample sizes, citations."""
        percent = f"{100 * self.level:g} %"
        groups = ""
        if self.group_name is not None and self.groups:
            groups = (f" Shares were also estimated within each value of “{self.group_name}” "
                      f"({len(self.groups)} groups), with the differences between groups and their intervals"
                      + (f" ({self.comparison_words()})." if self.differences else "."))
        text = (f"The share of each category in the corpus ({self.n_texts:,} texts) was estimated from the "
                f"model's predicted probabilities for every text and {self.n_coded:,} coded texts, by "
                f"{self.method}. {self.assumption} The {percent} intervals carry the model's mistakes as "
                f"measured on the coded texts, whose probabilities came from models that had not seen them "
                f"(cross-fitting).{groups} For contrast, the shares of the predicted categories (classify and "
                f"count) are given beside them; they ignore the model's mistakes.")
        if self.model_note:
            text += f" {self.model_note}"
        cited = list(CITATIONS)
        if self.method_key == "sequential":
            cited.append(SEQUENTIAL_CITATION)
        if self.method_key.startswith("quantification"):
            cited = [QUANTIFICATION_CITATION]
        return text + "\n\n" + "\n".join(cited)


OVER_FULL = 0.0005  # shares adding up to more than 100 % by more than rounding
SUM_NOTE_START = "The shares add up to more than 100 %"


def sum_note(shares: Sequence[Share], several: bool) -> str:
    """One sentence on why the shares of the whole corpus or of a group add up to more than 100 %, or ""
    when none does. ``several``: a text can have several categories."""
    totals: dict[str | None, float] = {}
    for share in shares:
        if share.estimate == share.estimate:  # not NaN
            totals[share.group] = totals.get(share.group, 0.0) + share.estimate
    over = {group: total for group, total in totals.items() if total > 1 + OVER_FULL}
    if not over:
        return ""
    where = [("all texts" if group is None else f"“{group}”") + f" {100 * total:.1f} %"
             for group, total in over.items()]
    said = SUM_NOTE_START + " (" + ", ".join(where[:3]) + (" …" if len(where) > 3 else "") + ")"
    if several:
        return said + ": a text can have several categories and counts in each of them."
    return (said + ": each category's share is estimated on its own, with its own correction for the model's "
            "mistakes, and a correction that would take a share below 0 % is shown as 0 %.")


class NoSuchGroup(DataError):
    """A group named to compare the others with that the findings have no share of."""


def comparison_of(reference: object | None, all_pairs: bool) -> str:
    """What the differences compare, as a Findings records it: a group's name, ALL_PAIRS, or "" (each
    group against the largest)."""
    if reference is not None and str(reference) != "":
        return str(reference)
    return ALL_PAIRS if all_pairs else ""


def largest_group(names: Sequence[str], size: Callable[[str], int]) -> str:
    """The group the others are compared with unless asked otherwise: the one with the most texts
    (of equal ones, the last)."""
    return max(reversed(list(names)), key=size)


def group_pairs(names: Sequence[str], reference: object | None, size: Callable[[str], int],
                all_pairs: bool = False) -> list[tuple[str, str]]:
    """The pairs of groups whose difference is given: each against ``reference`` when one is named;
    every pair when ``all_pairs`` is asked for; else each against the largest group (``size``: its
    texts) — 11 years give 10 comparisons per category, not 55."""
    if reference is not None and str(reference) != "":
        shown = str(reference)
        if shown not in names:
            raise NoSuchGroup(f"There is no group “{shown}” to compare the others with: the groups with a share are "
                              + _listed(names) + ".",
                              "Choose one of these groups to compare with, or leave the choice out to compare each "
                              "group with the largest.")
        return [(name, shown) for name in names if name != shown]
    if all_pairs:
        return list(combinations(names, 2))
    largest = largest_group(names, size)
    return [(name, largest) for name in names if name != largest]


def _listed(names: Sequence[str]) -> str:
    shown = [f"“{name}”" for name in names[:12]]
    more = f" and {len(names) - 12:,} more" if len(names) > 12 else ""
    return ", ".join(shown) + more
