"""What a learning curve found, as plain data that round-trips through JSON.

Per model: the setting(s) chosen by tuning and where they were tuned, and one point per training
size and repeat with the test macro-F1 and the F1 of every category (in the order of
``categories``); a language model with your codebook has one point per number of examples per
category it is shown instead (``ModelCurve.axis``). :meth:`ModelCurve.summary` gives per size the mean, min and max over the repeats —
what the reference protocol reports (mean line and min–max band).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np

LEARNING_CURVE_SCHEMA_VERSION = 1
TRAINING_AXIS = "training texts"  # a point's ``size``: the coded training texts it learnt from
EXAMPLES_AXIS = "examples per category"  # a point's ``size``: the coded examples per category in the prompt (k)


@dataclass
class CurvePoint:
    """One model trained on one training subset and scored once on the test texts."""

    size: int
    repeat: int  # 1, 2, …
    macro_f1: float
    category_f1: list[float]  # per category, in the result's category order
    seconds: float = 0.0  # training and predicting

    @classmethod
    def scored(cls, size: int, repeat: int, y_test: np.ndarray, predicted: np.ndarray, n_categories: int,
               seconds: float) -> CurvePoint:
        """The point's scores for predictions of the test texts (metrics as in the study's results)."""
        from sklearn.metrics import f1_score

        from guiapp.core.experiment.scores.metrics import macro_f1

        per_category = f1_score(y_test, predicted, labels=np.arange(n_categories), average=None, zero_division=0)
        return cls(size, repeat, round(macro_f1(y_test, predicted), 6), [round(float(v), 6) for v in per_category],
                   round(seconds, 4))


@dataclass
class TuningChoice:
    """A setting chosen by tuning on one training subset, and the sizes that then used it."""

    tuned_on_size: int
    tuned_on_repeat: int
    params: dict[str, Any]
    score: float | None  # mean macro-F1 of the chosen setting on the held-out parts of the tuning subset
    how: str  # e.g. "5-fold cross-validation"; None above when there was only one setting
    used_for_sizes: list[int]


@dataclass
class SizeSummary:
    size: int
    mean: float
    low: float  # the smallest over the repeats
    high: float  # the largest over the repeats
    repeats: int
    category_means: list[float]


@dataclass
class ModelCurve:
    """One model's learning curve (or why it could not be drawn)."""

    name: str
    representation: str
    classifier: str
    spec: dict[str, Any]
    tuning: list[TuningChoice] = field(default_factory=list)
    points: list[CurvePoint] = field(default_factory=list)
    status: str = "done"  # "done" | "failed" | "cancelled"
    message: str = ""
    seconds: dict[str, float] = field(default_factory=dict)
    # what a point's ``size`` counts: training texts, or (a language model with your codebook) examples per category
    axis: str = TRAINING_AXIS

    @property
    def ok(self) -> bool:
        return self.status == "done"

    @property
    def over_examples(self) -> bool:
        """The curve is over the examples per category shown to a language model (k, from 0), not over
        the training texts: it is read and drawn on an axis of its own."""
        return self.axis == EXAMPLES_AXIS

    def summary(self) -> list[SizeSummary]:
        """Per size (smallest first): mean, min and max test macro-F1 over the repeats."""
        rows = []
        for size in sorted({point.size for point in self.points}):
            at_size = [point for point in self.points if point.size == size]
            scores = np.array([point.macro_f1 for point in at_size])
            categories = np.array([point.category_f1 for point in at_size])
            rows.append(SizeSummary(size, float(scores.mean()), float(scores.min()), float(scores.max()), len(at_size),
                                    [float(value) for value in categories.mean(axis=0)]))
        return rows

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ModelCurve:
        data = dict(data)
        data["tuning"] = [TuningChoice(**item) for item in data.get("tuning", [])]
        data["points"] = [CurvePoint(**item) for item in data.get("points", [])]
        return cls(**data)


@dataclass
class LearningCurveResult:
    """A study's learning curves: every model on the same subsets, scored on the same test texts."""

    spec: dict[str, Any]
    categories: list[str]
    sizes: list[int]
    repeat_seeds: list[int]
    n_train: int
    n_test: int
    tuning: str  # "once" (on one subset, reused for every size and repeat) or "per size"
    models: list[ModelCurve] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    status: str = "done"  # "done" | "cancelled"
    started_at: str = ""
    finished_at: str = ""
    environment: dict[str, Any] = field(default_factory=dict)
    schema_version: int = LEARNING_CURVE_SCHEMA_VERSION

    @property
    def repeats(self) -> int:
        return len(self.repeat_seeds)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["models"] = [model.to_dict() for model in self.models]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> LearningCurveResult:
        data = dict(data)
        version = int(data.get("schema_version", LEARNING_CURVE_SCHEMA_VERSION))
        if version > LEARNING_CURVE_SCHEMA_VERSION:
            from guiapp.core.errors import UserError

            raise UserError("This learning curve was written by a newer TextLab.", "Update TextLab to open it.")
        data["models"] = [ModelCurve.from_dict(item) for item in data.get("models", [])]
        return cls(**data)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=1, ensure_ascii=False) + "\n"

    @classmethod
    def from_json(cls, text: str) -> LearningCurveResult:
        return cls.from_dict(json.loads(text))


def with_shared_points(points: list[CurvePoint], shared_sizes: list[int], repeats: int) -> list[CurvePoint]:
    """The points sorted by size and repeat, where a size whose subsets are the same in every repeat
    (all training texts, no oversampling) was fitted once: its point then stands for every repeat
    (copied, with no seconds of its own)."""
    points = list(points)
    for size in shared_sizes:
        first = next(point for point in points if point.size == size and point.repeat == 1)
        points += [replace(first, repeat=repeat, seconds=0.0) for repeat in range(2, repeats + 1)]
    return sorted(points, key=lambda point: (point.size, point.repeat))
