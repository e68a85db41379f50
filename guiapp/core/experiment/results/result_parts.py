"""The parts of a study's result that the app reads by name, as small typed records.

``ExperimentResult`` and ``ModelResult`` keep what the engine recorded as plain dictionaries
(``spec``, ``split``) so that results files keep their format. These records read them, so the
window, the command line and the exports never look a key up themselves:
``result.test_split``, ``result.study_source``, ``result.protocol``; a model's ``device``,
``combination``. Reading is lenient: what a result did not record reads as None (or empty), never
as an error, so results written by earlier versions open as they did.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from guiapp.core.study.category_fixes import CategoryFixes
from guiapp.core.study.mapping import ColumnMapping

RANDOM_HOLD_OUT = "random hold-out"
TEST_FILE = "test file"
SPLIT_COLUMN = "split column"


def _table(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _whole(value: Any) -> int | None:
    """An integer the result recorded (None when it recorded none or something else)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def _mapping(data: Any) -> ColumnMapping:
    try:
        return ColumnMapping.from_dict(_table(data))
    except (TypeError, ValueError):  # a list written as something else: no roles rather than an error
        return ColumnMapping()


@dataclass(frozen=True)
class StudySplit:
    """Which texts were held out for the one final test (``ExperimentResult.split``)."""

    how: str = ""  # "random hold-out" ("random" in older results), "split column" or "test file"
    n_train: int | None = None
    n_test: int | None = None
    description: str = ""  # in words, e.g. "72 texts (30%) set aside at random for the test, 168 for training"

    @classmethod
    def from_dict(cls, data: Any) -> StudySplit:
        data = _table(data)
        return cls(_text(data.get("how")), _whole(data.get("n_train")), _whole(data.get("n_test")),
                   _text(data.get("description")))

    @property
    def from_test_file(self) -> bool:
        return self.how == TEST_FILE

    @property
    def from_split_column(self) -> bool:
        return self.how == SPLIT_COLUMN

    @property
    def at_random(self) -> bool:
        return self.how in (RANDOM_HOLD_OUT, "random")

    @property
    def coded_texts(self) -> int | None:
        """Training and test texts together (None unless both were recorded)."""
        return self.n_train + self.n_test if self.n_train is not None and self.n_test is not None else None


@dataclass(frozen=True)
class StudySource:
    """Which study a result belongs to and the data it read (``spec["name"]`` and ``spec["data"]``)."""

    study_name: str = ""
    source: str = ""  # the table's path as the study named it
    sheet: str | None = None
    sha256: str = ""  # of the table when the study ran ("" = not recorded)
    rows: int | None = None  # rows of the table then (None = not recorded)
    test_source: str = ""  # the separate test file, if the study had one
    test_sheet: str | None = None
    mapping: ColumnMapping = field(default_factory=ColumnMapping)
    category_fixes: CategoryFixes = field(default_factory=CategoryFixes)

    @classmethod
    def from_spec(cls, spec: Any) -> StudySource:
        spec = _table(spec)
        data = _table(spec.get("data"))
        sheet, test_sheet = data.get("sheet"), data.get("test_sheet")
        return cls(
            study_name=_text(spec.get("name")),
            source=_text(data.get("source")),
            sheet=str(sheet) if sheet else None,
            sha256=_text(data.get("sha256")),
            rows=_whole(data.get("rows")),
            test_source=_text(data.get("test_source")),
            test_sheet=str(test_sheet) if test_sheet else None,
            mapping=_mapping(data.get("mapping")),
            category_fixes=CategoryFixes.from_dict(_table(data.get("category_fixes"))),
        )

    @property
    def data_files(self) -> list[str]:
        """The files the study read its texts from (the table, then the test file)."""
        return [name for name in (self.source, self.test_source) if name]

    def is_file(self, path: str | Path) -> bool:
        """Whether the study's table is the file at ``path``."""
        if not self.source:
            return False
        try:
            return Path(self.source).resolve() == Path(path).resolve()
        except OSError:
            return False


def _name(value: Any) -> str | None:
    return None if value is None else str(value)


# how each recorded setting of ``spec["evaluation"]`` is read
_PROTOCOL_READERS = {
    "test_share": _number, "folds": _whole, "cv_repeats": _whole, "oversampling": _name,
    "oversampling_ratio": _number, "bootstrap_samples": _whole, "transformer_tuning": _name,
    "validation_share": _number,
}


@dataclass(frozen=True)
class StudyProtocol:
    """How the models were tuned and tested (``spec["evaluation"]`` and the seed); None = not recorded."""

    test_share: float | None = None
    folds: int | None = None
    cv_repeats: int | None = None
    oversampling: str | None = None  # "off" or "random"
    oversampling_ratio: float | None = None
    bootstrap_samples: int | None = None
    transformer_tuning: str | None = None
    validation_share: float | None = None
    seed: int | None = None

    @classmethod
    def from_spec(cls, spec: Any) -> StudyProtocol:
        spec = _table(spec)
        evaluation = _table(spec.get("evaluation"))
        read = {name: reader(evaluation.get(name)) for name, reader in _PROTOCOL_READERS.items()}
        return cls(**read, seed=_whole(spec.get("seed")))

    def samples(self, default: int) -> int:
        """The bootstrap resamples the study asked for (``default`` when it recorded none, or 0)."""
        return self.bootstrap_samples or default


@dataclass(frozen=True)
class DeviceUsed:
    """Where a Transformer trained (``ModelResult.spec["device"]``)."""

    kind: str  # "cuda", "mps" or "cpu"
    name: str = ""  # e.g. "NVIDIA H100 80GB HBM3" or "CPU, 8 threads"
    bf16: bool = False  # trained with 16-bit numbers

    @classmethod
    def from_dict(cls, data: Any) -> DeviceUsed | None:
        data = _table(data)
        if not data.get("kind"):
            return None
        return cls(str(data["kind"]), _text(data.get("name")), bool(data.get("bf16")))


@dataclass(frozen=True)
class Combination:
    """What a combined model (weighted vote or stacking) combines and where it was learnt."""

    parts: list[str] = field(default_factory=list)  # the combined models' names
    weights: dict[str, float] = field(default_factory=dict)  # the vote's weights or stacking's share of influence
    learnt_on: str = ""  # in words
    learnt_on_texts: int | None = None
    against_parts: AgainstParts | None = None  # how it fared against its parts in cross-validation

    @classmethod
    def from_spec(cls, spec: Any) -> Combination:
        spec = _table(spec)
        weights = _table(spec.get("weights"))
        return cls(
            parts=[str(name) for name in spec.get("parts") or []],
            weights={str(name): float(value) for name, value in weights.items() if _number(value) is not None},
            learnt_on=_text(spec.get("learnt_on")),
            learnt_on_texts=_whole(spec.get("learnt_on_texts")),
            against_parts=AgainstParts.from_dict(spec.get("against_parts")),
        )


@dataclass
class CategoryScores:
    category: str
    precision: float
    recall: float
    f1: float
    support: int
    predicted: int = -1  # test texts the model put in this category (-1: not recorded by older versions)
    # multi-label studies: bootstrap interval of this category's F1 over the test texts (None otherwise)
    f1_ci: tuple[float, float] | None = None

    @property
    def counted(self) -> bool:
        """Whether this category counts in the macro-F1: it was coded or predicted in the test texts
        (a category with neither has no F1 and is left out, as scikit-learn's macro-F1 does)."""
        return self.support > 0 or self.predicted > 0

    def to_dict(self) -> dict:
        data = dict(self.__dict__)
        if self.predicted < 0:  # not recorded: an older result stays as it was
            del data["predicted"]
        if self.f1_ci is None:
            del data["f1_ci"]
        else:
            data["f1_ci"] = list(self.f1_ci)
        return data

    @classmethod
    def from_dict(cls, data: dict) -> CategoryScores:
        data = dict(data)
        if data.get("f1_ci") is not None:
            data["f1_ci"] = (float(data["f1_ci"][0]), float(data["f1_ci"][1]))
        return cls(**data)


@dataclass
class SettingChoice:
    chosen: int  # index into the grid points
    best: int  # the highest mean score
    rule: str
    standard_error: float | None
    interval: tuple[float, float] | None  # of the best setting's score
    within_noise: list[int] = field(default_factory=list)  # indices, grid order
    edges: dict[str, str] = field(default_factory=dict)  # "learning_rate" / "epochs" → "highest" / "lowest"
    extended_grid: dict[str, list] = field(default_factory=dict)  # the grid one step beyond the edge

    def to_dict(self) -> dict:
        data = asdict(self)
        data["interval"] = list(self.interval) if self.interval else None
        return data

    @classmethod
    def from_dict(cls, data: dict) -> SettingChoice:
        interval = data.get("interval")
        error = data.get("standard_error")
        return cls(
            chosen=int(data.get("chosen", 0)),
            best=int(data.get("best", 0)),
            rule=str(data.get("rule", "")),
            standard_error=None if error is None else float(error),
            interval=(float(interval[0]), float(interval[1])) if interval else None,
            within_noise=[int(index) for index in data.get("within_noise") or []],
            edges={str(name): str(edge) for name, edge in (data.get("edges") or {}).items()},
            extended_grid={str(name): list(values) for name, values in (data.get("extended_grid") or {}).items()},
        )


@dataclass(frozen=True)
class AgainstParts:
    best_part: str  # the part with the best mean macro-F1 on the held-out folds
    best_part_score: float
    worst_part_score: float
    score: float  # the combination's mean macro-F1 on the same folds
    advantage: float  # mean per-fold difference to the best part
    advantage_se: float  # its standard error over the folds (NaN with one fold)
    folds: int
    learnt_on_texts: int

    @property
    def below_every_part(self) -> bool:
        return self.score < self.worst_part_score

    @property
    def clear_advantage(self) -> bool:
        """Better than its best part by more than one standard error (the one-standard-error rule)."""
        return self.advantage > 0 and math.isfinite(self.advantage_se) and self.advantage > self.advantage_se

    def to_dict(self) -> dict:
        return {name: (None if isinstance(value, float) and not math.isfinite(value) else value)
                for name, value in self.__dict__.items()}

    @classmethod
    def from_dict(cls, data: dict | None) -> AgainstParts | None:
        if not isinstance(data, dict):
            return None
        try:
            return cls(
                best_part=str(data["best_part"]),
                best_part_score=float(data["best_part_score"]),
                worst_part_score=float(data["worst_part_score"]),
                score=float(data["score"]),
                advantage=float(data["advantage"]),
                advantage_se=float("nan") if data.get("advantage_se") is None else float(data["advantage_se"]),
                folds=int(data["folds"]),
                learnt_on_texts=int(data["learnt_on_texts"]),
            )
        except (KeyError, TypeError, ValueError):
            return None
