"""Does a model make more mistakes on some kinds of test texts (a party, a year, an outlet)?

``subgroup_scores(result, table, column)`` looks up each test text's value of ``column`` in the
study's table (in the separate test file's table when the study used one), groups the test texts
by it and runs :func:`guiapp.core.stats.subgroups.subgroup_report` per model, with the study's
seed and number of bootstrap resamples. ``result.test_rows`` are spreadsheet rows, so the text of
row ``r`` sits at position ``r - first row`` of the table (:func:`guiapp.core.tables.rows.positions_of_rows`).

**How values become groups.** Each value is a group ("Republican", "2004"; numbers and dates are
written as in the category column), unless the column holds numbers (or dates, taken by their
year) with more than 12 distinct values among the test texts: then the test texts are cut into up
to 5 ranges holding about equal numbers of them (quantiles; fewer ranges when there are too few
test texts for each to hold ``min_texts``; tied values stay in one range), each labelled by the
smallest and largest value in it, e.g. "2001–2004". Empty cells form their own group "(no value)".

**When macro-F1 says nothing.** Macro-F1 averages over categories; inside a group whose test texts
all carry one category in the coding (a speaker's texts are all coded with the speaker's party),
every other category the model answers there counts with an F1 of 0, so the group's macro-F1 sits
near 1/(number of categories answered) whatever the model does (0.27 for everyone, say). For such a
group the macro-F1 is left out (NaN) and the share coded as in the coding (accuracy, with its
interval) is the score to read; :meth:`SubgroupScores.score_note` says so in words.

**When a text can have several categories.** The macro-F1 of a group is the multi-label one (mean F1
over the categories coded or predicted in the group's texts, :mod:`multilabel_metrics`), and a test
text counts as coded differently from you unless the model gave it exactly the categories you coded
(so "share right" is the subset accuracy). A group counts as holding a single category when its
texts' codings together use at most one category.

:func:`candidate_columns` lists the columns worth grouping by; :func:`subgroup_table` gives one
row per model and group for a spreadsheet.
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass, field

import numpy as np
import pandas as pd

from guiapp.core.errors import DataError
from guiapp.core.experiment.results.experiment_result import ExperimentResult
from guiapp.core.stats.subgroups import NO_VALUE, TOO_FEW, subgroup_report
from guiapp.core.study.mapping import ColumnMapping
from guiapp.core.tables.cell_values import category_labels
from guiapp.core.tables.rows import positions_of_rows

MAX_GROUPS = 50  # columns with more distinct values are offered only when they hold numbers
MAX_NUMBER_GROUPS = 12  # numbers with more distinct values are cut into ranges
MAX_RANGES = 5


@dataclass
class GroupScore:
    """One group of test texts and how one model did on it."""

    label: str  # as shown: "Republican", "2001–2004", "(no value)"
    value: object  # for filtering: the cell's label, (low, high) for a range, None for empty cells
    rows: list[int]  # spreadsheet rows of the group's test texts
    n_texts: int
    macro_f1: float
    macro_f1_interval: tuple[float, float]
    error_rate: float
    error_interval: tuple[float, float]
    rest_error_rate: float | None  # the error rate of all other test texts
    verdict: str  # stats.subgroups: "much worse", "not clearly worse", "too few texts to judge"
    sentence: str
    flagged: bool
    coded_categories: int = 2  # different categories in the coding of the group's texts

    @property
    def macro_f1_meaningful(self) -> bool:
        """False for a group whose texts all carry one category in the coding (module docstring)."""
        return self.coded_categories >= 2

    @property
    def share_right(self) -> float:
        """The share of the group's texts the model codes as the coding does (accuracy)."""
        return 1.0 - self.error_rate

    @property
    def share_right_interval(self) -> tuple[float, float]:
        return 1.0 - self.error_interval[1], 1.0 - self.error_interval[0]

    def to_dict(self) -> dict:
        data = asdict(self)
        data["value"] = list(self.value) if isinstance(self.value, tuple) else self.value
        data["share_right"] = self.share_right
        data["share_right_interval"] = list(self.share_right_interval)
        return data


@dataclass
class ModelSubgroups:
    model: str
    groups: list[GroupScore]
    headline: str

    @property
    def flagged(self) -> list[GroupScore]:
        return [group for group in self.groups if group.flagged]

    def to_dict(self) -> dict:
        return {"model": self.model, "headline": self.headline, "groups": [g.to_dict() for g in self.groups]}


@dataclass
class SubgroupScores:
    column: str
    ranges: bool  # True: numbers cut into ranges; False: one group per value
    n_texts: int  # test texts
    min_texts: int
    samples: int
    seed: int
    level: float
    models: list[ModelSubgroups] = field(default_factory=list)
    headline: list[str] = field(default_factory=list)  # plain sentences, the most important first
    multi_label: bool = False  # a text can have several categories: "right" means exactly the coded ones

    def model(self, name: str) -> ModelSubgroups:
        return next(m for m in self.models if m.model == name)

    @property
    def single_category_groups(self) -> list[str]:
        """The groups whose test texts all carry one category in the coding: their macro-F1 says nothing."""
        return [g.label for g in self.models[0].groups if not g.macro_f1_meaningful] if self.models else []

    @property
    def score_name(self) -> str:
        """What the score column holds: "macro-F1", "share right" (no group has two categories in
        the coding) or "macro-F1 or share right" (some groups have, some not)."""
        single = self.single_category_groups
        if not single:
            return "macro-F1"
        return "share right" if len(single) == len(self.models[0].groups) else "macro-F1 or share right"

    def score_note(self) -> str:
        """Why macro-F1 is not shown for some or all groups, in plain words ("" when it is shown for all)."""
        single = self.single_category_groups
        if not single:
            return ""
        why = ("macro-F1 is not meaningful there: it averages over categories, and every other category the model "
               "answers in such a group counts as 0, so it stays low however well the model does")
        if len(single) == len(self.models[0].groups):
            return (f"Every group of “{self.column}” holds a single category in your coding (all its test texts are "
                    f"coded alike), so {why}. The share the model codes as you did (accuracy) is shown instead.")
        named = _listing([f"“{label}”" for label in single])
        verb = "holds" if len(single) == 1 else "hold"
        return (f"{named} {verb} a single category in your coding, so {why}. For "
                f"{'it' if len(single) == 1 else 'them'} the share the model codes as you did (accuracy) is shown "
                "instead of macro-F1.")

    def describe(self) -> str:
        """How the groups were made and judged, in plain words (a caption)."""
        exact = (" When a text can have several categories, a text counts as coded like you only if the model gave "
                 "it exactly the categories you coded." if self.multi_label else "")
        how = (f"The test texts are cut into {len(self.models[0].groups) if self.models else 0} ranges of "
               f"“{self.column}” with about equal numbers of texts." if self.ranges
               else f"Each value of “{self.column}” is a group.")
        score = {"macro-F1": "the model's macro-F1 on them",
                 "share right": "the share the model codes as you did",
                 }.get(self.score_name, "the model's macro-F1 on them (or the share it codes as you did)")
        return (f"{how} For each group: how many of the {self.n_texts:,} test texts it holds, {score} "
                f"and the share it codes differently from you, with {self.level:.0%} intervals from "
                f"{self.samples:,} resamples. A group is marked when its share wrong is clearly above that of all "
                f"other texts (allowing for the number of groups compared); groups of fewer than {self.min_texts:,} "
                f"texts are not judged.{exact}")

    def to_dict(self) -> dict:
        data = {key: value for key, value in asdict(self).items() if key != "models"}
        data["models"] = [m.to_dict() for m in self.models]
        if not self.multi_label:  # single-label results keep their format
            del data["multi_label"]
        return data


def _mapping(mapping) -> ColumnMapping:
    return mapping if isinstance(mapping, ColumnMapping) else ColumnMapping.from_dict(dict(mapping or {}))


def _numbers(series: pd.Series) -> pd.Series | None:
    """The column as numbers (dates as their year), or None when it is not a column of numbers."""
    if pd.api.types.is_datetime64_any_dtype(series):
        return series.dt.year.astype(float)
    if pd.api.types.is_bool_dtype(series) or not pd.api.types.is_numeric_dtype(series):
        return None
    return series.astype(float)


def candidate_columns(table: pd.DataFrame, mapping) -> list[str]:
    """Columns worth grouping the test texts by, in table order: not the text, category, ID or
    split column; with 2 to 50 distinct values, or numbers (a year, a count, dates) with more
    (:func:`subgroup_scores` cuts numbers with more than 12 values into ranges). Whole numbers that differ in every row (an ID) and
    other columns with more than 50 values (free text) are left out."""
    chosen = _mapping(mapping)
    taken = {*chosen.text_columns, *chosen.category_columns, chosen.category_column, chosen.id_column,
             chosen.split_column}
    found = []
    for column in table.columns:
        if column in taken:
            continue
        values = table[column].dropna()
        distinct = values.nunique()
        if 2 <= distinct <= MAX_GROUPS:
            found.append(column)
            continue
        numbers = _numbers(values)
        if numbers is None or distinct < 2:
            continue
        whole = bool(np.all(np.mod(numbers, 1) == 0))
        if whole and distinct == len(values) and not pd.api.types.is_datetime64_any_dtype(values):
            continue  # an identifier
        found.append(column)
    return found


def _source_table(result: ExperimentResult, table: pd.DataFrame, test_table: pd.DataFrame | None) -> pd.DataFrame:
    if not result.test_split.from_test_file:
        return table
    if test_table is None:
        raise DataError("This study's test texts came from a separate test file, and that file's table is not here.",
                        "Open the test file as well (the project keeps it), then look at the groups again.")
    return test_table


def _positions(result: ExperimentResult, source: pd.DataFrame) -> np.ndarray:
    positions = positions_of_rows(source, result.test_rows)
    if len(positions) != len(result.test_true):
        raise DataError("These results do not say which rows of the table the test texts came from.",
                        "Run the study again with this version of TextLab.")
    if len(positions) and (positions.min() < 0 or positions.max() >= len(source)):
        raise DataError(f"The table has {len(source):,} rows, but the study's test texts reach row "
                        f"{int(max(result.test_rows)):,}: it is not the table the study was run on.",
                        "Choose the table (or test file) the study was run on.")
    _check_texts(result, source, positions)
    return positions


def _check_texts(result: ExperimentResult, source: pd.DataFrame, positions: np.ndarray) -> None:
    """Refuse a table whose rows no longer hold the study's test texts (sorted or edited since)."""
    mapping = result.study_source.mapping
    if not result.test_texts or not mapping.text_columns or not set(mapping.text_columns) <= set(source.columns):
        return
    from guiapp.core.study.mapping import apply_mapping

    sample = np.linspace(0, len(positions) - 1, min(len(positions), 200)).astype(int) if len(positions) else []
    try:
        texts = apply_mapping(source.iloc[positions[sample]][mapping.text_columns],
                              ColumnMapping(text_columns=mapping.text_columns,
                                            text_separator=mapping.text_separator)).frame["text"].tolist()
    except DataError:
        return
    differ = [i for i, text in zip(sample, texts, strict=True) if text != result.test_texts[i]]
    if len(differ) > len(sample) // 10:
        row = result.test_rows[differ[0]]
        raise DataError(f"Row {row:,} of the table does not hold the study's test text from that row: the table has "
                        "been sorted or changed since the study was run.",
                        "Choose the table the study was run on, unchanged.")


def _ranges(numbers: pd.Series, min_texts: int) -> tuple[list[object], list[str], list[object]]:
    """Per test text its range label (None when empty); the labels and values in order."""
    valid = numbers.dropna()
    parts = max(2, min(MAX_RANGES, len(valid) // max(min_texts, 1)))
    codes = pd.qcut(valid, q=parts, labels=False, duplicates="drop")
    whole = bool(np.all(np.mod(valid, 1) == 0))
    labels, values = [], []
    names: dict[int, str] = {}
    for code in sorted(codes.unique()):
        members = valid[codes == code]
        low, high = float(members.min()), float(members.max())
        name = _number(low, whole) if low == high else f"{_number(low, whole)}–{_number(high, whole)}"
        names[int(code)] = name
        labels.append(name)
        values.append((int(low), int(high)) if whole else (low, high))
    keys = [None] * len(numbers)
    for index, code in zip(valid.index, codes, strict=True):
        keys[index] = names[int(code)]
    return keys, labels, values


def _natural(label: str) -> tuple:
    """Numbers in labels in numeric order ("2" before "10"), like the categories."""
    return tuple((0, int(part)) if part.isdigit() else (1, part.casefold()) for part in re.split(r"(\d+)", label))


def _number(value: float, whole: bool) -> str:
    if whole:
        return str(int(value))
    return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.3g}"


def _groups(column: pd.Series, min_texts: int) -> tuple[list[object], list[str], list[object], bool]:
    """(key per test text, group labels in order, group values in order, cut into ranges?)."""
    column = column.reset_index(drop=True)
    numbers = _numbers(column)
    if numbers is not None and numbers.dropna().nunique() > MAX_NUMBER_GROUPS:
        keys, labels, values = _ranges(numbers, min_texts)
        ranges = True
    else:
        if numbers is not None and pd.api.types.is_datetime64_any_dtype(column):
            column = numbers.astype("Int64")
        labelled = category_labels(column)
        keys = labelled.tolist()
        labels = sorted({key for key in keys if key is not None}, key=_natural)
        first = {}
        for key, cell in zip(keys, column, strict=True):
            if key is not None and key not in first:
                first[key] = cell.item() if hasattr(cell, "item") else cell
        values = [key if isinstance(first[key], str) else _plain(first[key]) for key in labels]
        ranges = False
    if any(key is None for key in keys):
        labels, values = [*labels, NO_VALUE], [*values, None]
    return keys, labels, values, ranges


def _plain(value: object) -> object:
    return int(value) if isinstance(value, float) and value.is_integer() else value


def subgroup_scores(result: ExperimentResult, table: pd.DataFrame, column: str, model_name: str | None = None, *,
                    test_table: pd.DataFrame | None = None, min_texts: int = 30, level: float = 0.95) -> SubgroupScores:
    """Each finished model's (or only ``model_name``'s) scores per group of test texts by ``column``."""
    source = _source_table(result, table, test_table)
    if column not in source.columns:
        where = "test file" if source is test_table else "table"
        raise DataError(f"The {where} has no column “{column}”.",
                        "Choose one of: " + ", ".join(map(str, source.columns[:20])))
    positions = _positions(result, source)
    keys, labels, values, ranges = _groups(source[column].iloc[positions], min_texts)
    models = result.ranked()
    if model_name is not None:
        models = [m for m in models if m.name.casefold() == model_name.casefold()]
        if not models:
            raise DataError(f"The study has no finished model called “{model_name}”.",
                            "Choose one of: " + ", ".join(m.name for m in result.ranked()))
    samples = result.protocol.samples(1000)
    seed = result.protocol.seed or 0
    scores = SubgroupScores(column, ranges, len(result.test_true), min_texts, samples, seed, level,
                            multi_label=result.multi_label)
    order = {label: number for number, label in enumerate(labels)}
    rows_of = {label: [] for label in labels}
    for row, key in zip(result.test_rows, keys, strict=True):
        rows_of[NO_VALUE if key is None else key].append(int(row))
    coded_of = {label: set() for label in labels}
    for true, key in zip(result.test_true, keys, strict=True):
        coded = coded_of[NO_VALUE if key is None else key]
        if result.multi_label:
            coded.update(int(v) for v in true)
        else:
            coded.add(int(true))
    for model in models:
        if result.multi_label:
            truth, predicted, metric, n_classes = _category_sets(result, model.predictions)
        else:
            truth, predicted, metric, n_classes = result.test_true, model.predictions, None, len(result.categories)
        report = subgroup_report(truth, predicted, keys, n_classes, metric=metric, min_texts=min_texts,
                                 samples=samples, seed=seed, level=level, label=f"“{column}”")
        groups = [_group_score(g, values[order[g.group]], rows_of[g.group], len(coded_of[g.group]))
                  for g in sorted(report, key=lambda g: order[g.group])]
        scores.models.append(ModelSubgroups(model.name, groups, _model_headline(model.name, column, groups)))
    scores.headline = _headline(scores)
    if scores.score_note():
        scores.headline.append(scores.score_note())
    return scores


def _category_sets(result: ExperimentResult, predictions: list):  # noqa: ANN202 — ids, ids, a metric, a count
    """For a study where a text can have several categories: each distinct set of categories (coded
    or predicted) as one number, so that a text is right exactly when its numbers match, and the
    multi-label macro-F1 computed from those numbers."""
    from guiapp.core.experiment.scores.multilabel_metrics import macro_f1
    from guiapp.core.experiment.scores.thresholds import indicator

    k = len(result.categories)
    truth, predicted = indicator(result.test_true, k), indicator(predictions, k)
    sets, ids = np.unique(np.concatenate([truth, predicted]), axis=0, return_inverse=True)
    ids = np.asarray(ids).reshape(-1)
    n = len(truth)

    def metric(t: np.ndarray, p: np.ndarray) -> float:
        return macro_f1(sets[t], sets[p])

    return ids[:n], ids[n:], metric, len(sets)


def _group_score(found, value: object, rows: list[int], coded_categories: int) -> GroupScore:
    """A group's scores; macro-F1 left out (NaN) where the group holds one category in the coding."""
    meaningful = coded_categories >= 2
    f1 = found.macro_f1 if meaningful else math.nan
    f1_interval = tuple(found.macro_f1_interval) if meaningful else (math.nan, math.nan)
    return GroupScore(str(found.group), value, rows, found.n_texts, f1, f1_interval, found.error_rate,
                      found.error_interval, found.rest_error_rate, found.verdict, found.sentence, found.flagged,
                      coded_categories)


def _listing(items: list[str], limit: int = 6) -> str:
    shown = items[:limit]
    if len(items) > limit:
        return ", ".join(shown) + f" and {len(items) - limit:,} more"
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]


def _percent(share: float | None) -> str:
    if share is None or not math.isfinite(share):
        return "–"
    return f"{share:.1%}" if 0 < share < 0.1 else f"{share:.0%}"


def _model_headline(model: str, column: str, groups: list[GroupScore]) -> str:
    flagged = [g for g in groups if g.flagged]
    if len(groups) == 1:
        return f"Every test text has the same “{column}” ({groups[0].label}), so there is nothing to compare."
    if all(g.verdict == TOO_FEW for g in groups):
        return f"No group of “{column}” holds enough test texts to judge {model}."
    if not flagged:
        return (f"No group stands out for {model} — no value of “{column}” has clearly more mistakes than the "
                "other texts.")
    parts = [f"“{g.label}” ({_percent(g.error_rate)} wrong vs {_percent(g.rest_error_rate)} for the others)"
             for g in flagged]
    listed = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return f"{model} makes more mistakes on texts whose “{column}” is {listed}."


def _headline(scores: SubgroupScores) -> list[str]:
    if not scores.models:
        return ["No model finished, so there is nothing to compare."]
    groups = scores.models[0].groups
    if len(groups) == 1:
        return [scores.models[0].headline]
    small = [g for g in groups if g.verdict == TOO_FEW]
    if len(small) == len(groups):
        return [(f"Every group of “{scores.column}” has fewer than {scores.min_texts:,} test texts: too few to judge "
                 "whether a model does worse on any of them.")]
    flagged = [m for m in scores.models if m.flagged]
    lines = [m.headline for m in flagged]
    if not flagged and len(scores.models) > 1:
        lines = [(f"No group stands out: no model makes clearly more mistakes on any value of “{scores.column}” than "
                  "on the other texts. That does not prove they work equally well for every group; the intervals show "
                  "how uncertain the shares are.")]
    elif not flagged:
        lines = [scores.models[0].headline]
    elif len(flagged) < len(scores.models):
        others = [m.model for m in scores.models if not m.flagged]
        lines.append(f"No group stands out for {others[0]}." if len(others) == 1
                     else f"No group stands out for the other {len(others)} models.")
    if small:
        verb = "has" if len(small) == 1 else "have"
        lines.append(f"{len(small):,} of the {len(groups):,} groups {verb} fewer than {scores.min_texts:,} test texts "
                     f"and so {'is' if len(small) == 1 else 'are'} not judged.")
    return lines


def subgroup_table(scores: SubgroupScores) -> pd.DataFrame:
    """One row per model and group, for a spreadsheet; the macro-F1 cells are empty (NaN) for a group
    whose texts all carry one category in the coding (read its share right instead)."""
    rows = []
    for m in scores.models:
        for g in m.groups:
            rows.append({
                "model": m.model, scores.column: g.label, "test texts": g.n_texts,
                "categories in your coding": g.coded_categories,
                "macro-F1": g.macro_f1, "macro-F1 low": g.macro_f1_interval[0], "macro-F1 high": g.macro_f1_interval[1],
                "share right": g.share_right, "share right low": g.share_right_interval[0],
                "share right high": g.share_right_interval[1],
                "share wrong": g.error_rate, "share wrong low": g.error_interval[0],
                "share wrong high": g.error_interval[1], "share wrong of the others": g.rest_error_rate,
                "verdict": g.verdict, "sentence": g.sentence,
            })
    return pd.DataFrame(rows)
