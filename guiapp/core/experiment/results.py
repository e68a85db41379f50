"""``ExperimentResult``: what a study found, as plain data that round-trips through JSON.

Per model: the cross-validated score of every grid point, the chosen setting and its per-fold
scores, the test metrics with a bootstrap interval, the test predictions and probabilities and
the time each stage took. The schema is documented in ``docs/results-format.md``.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from guiapp.core.experiment.metrics import CategoryScores

RESULTS_SCHEMA_VERSION = 1


@dataclass
class GridPointResult:
    """One setting of the grid and how it did in cross-validation."""

    params: dict[str, Any]
    fold_scores: list[float]
    mean: float
    std: float
    fit_seconds: float  # summed over the folds

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GridPointResult:
        return cls(**data)


@dataclass
class TestResult:
    """The one evaluation on the held-out test texts."""

    macro_f1: float
    macro_f1_ci: tuple[float, float] | None  # bootstrap percentile interval
    ci_level: float
    accuracy: float
    per_category: list[CategoryScores]
    confusion: list[list[int]]  # rows: human coding, columns: prediction (order of ``categories``)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["macro_f1_ci"] = list(self.macro_f1_ci) if self.macro_f1_ci else None
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TestResult:
        ci = data.get("macro_f1_ci")
        return cls(
            macro_f1=float(data["macro_f1"]),
            macro_f1_ci=(float(ci[0]), float(ci[1])) if ci else None,
            ci_level=float(data.get("ci_level", 0.95)),
            accuracy=float(data["accuracy"]),
            per_category=[CategoryScores(**item) for item in data["per_category"]],
            confusion=[[int(value) for value in row] for row in data["confusion"]],
        )


@dataclass
class ModelResult:
    """Everything about one compared model."""

    name: str
    representation: str
    classifier: str
    spec: dict[str, Any]  # the model's settings with defaults filled in
    status: str = "done"  # "done" | "failed" | "cancelled"
    message: str = ""  # why it failed, in plain words
    chosen_params: dict[str, Any] = field(default_factory=dict)
    cv_scores: list[float] = field(default_factory=list)  # per fold, chosen setting
    grid: list[GridPointResult] = field(default_factory=list)
    test: TestResult | None = None
    predictions: list[int] = field(default_factory=list)  # category index per test text
    probabilities: list[list[float]] | None = None  # per test text, per category
    seconds: dict[str, float] = field(default_factory=dict)  # features, tuning, final_fit, predict, total
    n_features: int = 0  # columns of the final model's input (Transformers: parameters)
    artefact: str = ""  # folder of the saved final model, if one was saved

    @property
    def ok(self) -> bool:
        return self.status == "done" and self.test is not None

    @property
    def cv_mean(self) -> float | None:
        return sum(self.cv_scores) / len(self.cv_scores) if self.cv_scores else None

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["grid"] = [asdict(point) for point in self.grid]
        data["test"] = self.test.to_dict() if self.test else None
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ModelResult:
        data = dict(data)
        data["grid"] = [GridPointResult.from_dict(point) for point in data.get("grid", [])]
        data["test"] = TestResult.from_dict(data["test"]) if data.get("test") else None
        return cls(**data)


@dataclass
class ExperimentResult:
    """A whole study's outcome. ``test_*`` lists share one order: the test texts."""

    spec: dict[str, Any]
    categories: list[str]
    split: dict[str, Any]  # how, n_train, n_test, description
    test_rows: list[int]  # spreadsheet row numbers of the test texts (in the test file if one was used)
    test_ids: list[Any]
    test_texts: list[str]
    test_true: list[int]  # category index per test text
    models: list[ModelResult] = field(default_factory=list)
    environment: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)  # what the run decided for the user, in words
    # where ``test_rows`` are counted, in words: "" for the study's own table (one sheet), else
    # "sheet “Utterances”" or "test.xlsx" (a separate test file), ", sheet “…”" added when it has several
    test_rows_in: str = ""
    started_at: str = ""
    finished_at: str = ""
    status: str = "done"  # "done" | "cancelled"
    schema_version: int = RESULTS_SCHEMA_VERSION

    def finished_models(self) -> list[ModelResult]:
        return [model for model in self.models if model.ok]

    def ranked(self) -> list[ModelResult]:
        """Finished models, best test macro-F1 first."""
        return sorted(self.finished_models(), key=lambda model: model.test.macro_f1, reverse=True)  # type: ignore[union-attr]

    def best(self) -> ModelResult | None:
        ranked = self.ranked()
        return ranked[0] if ranked else None

    def to_dict(self, include_texts: bool = True) -> dict[str, Any]:
        data = asdict(self)
        data["models"] = [model.to_dict() for model in self.models]
        if not include_texts:
            data.pop("test_texts")
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ExperimentResult:
        data = dict(data)
        data["models"] = [ModelResult.from_dict(model) for model in data.get("models", [])]
        data.setdefault("test_texts", [])
        return cls(**data)

    def to_json(self, include_texts: bool = False) -> str:
        return json.dumps(self.to_dict(include_texts), indent=2, ensure_ascii=False, allow_nan=False) + "\n"

    @classmethod
    def from_json(cls, text: str) -> ExperimentResult:
        return cls.from_dict(json.loads(text))
