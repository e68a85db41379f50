"""``ExperimentResult``: what a study found, as plain data that round-trips through JSON.

Per model: the cross-validated score of every grid point, the chosen setting and its per-fold
scores, the test metrics with a bootstrap interval, the test predictions and probabilities and
the time each stage took. The schema is documented in ``docs/results-format.md``.

What the engine records about the study and each model's settings stays in plain dictionaries
(``spec``, ``split``) so results files keep their format; the properties below read them as typed
records (``result_parts.py``), and the app reads those, never the dictionaries' keys.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from guiapp.core.experiment.results.result_parts import (
    CategoryScores,
    Combination,
    DeviceUsed,
    SettingChoice,
    StudyProtocol,
    StudySource,
    StudySplit,
)

RESULTS_SCHEMA_VERSION = 1


def answers(values) -> list:  # noqa: ANN001 — a numpy array
    """The results' form of codings or predictions: a category index per text, or where a text can
    have several categories (a 0/1 matrix) the list of its categories' indices."""
    import numpy as np

    values = np.asarray(values)
    if values.ndim == 2:
        return [[int(index) for index in np.flatnonzero(row)] for row in values]
    return [int(value) for value in values]


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
    confusion: list[list[int]]  # rows: human coding, columns: prediction (order of ``categories``); [] when multi-label
    # studies where a text can have several categories (None otherwise); ``accuracy`` is then the subset accuracy
    micro_f1: float | None = None  # F1 over every (text, category) decision pooled
    hamming_loss: float | None = None  # share of (text, category) decisions that are wrong
    # per category [[true negatives, false positives], [false negatives, true positives]] (rows: the coding)
    category_confusions: list[list[list[int]]] | None = None

    @property
    def multi_label(self) -> bool:
        return self.category_confusions is not None

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["macro_f1_ci"] = list(self.macro_f1_ci) if self.macro_f1_ci else None
        data["per_category"] = [scores.to_dict() for scores in self.per_category]
        if not self.multi_label:  # single-label results keep their format
            for name in ("micro_f1", "hamming_loss", "category_confusions"):
                del data[name]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TestResult:
        ci = data.get("macro_f1_ci")
        return cls(
            macro_f1=float(data["macro_f1"]),
            macro_f1_ci=(float(ci[0]), float(ci[1])) if ci else None,
            ci_level=float(data.get("ci_level", 0.95)),
            accuracy=float(data["accuracy"]),
            per_category=[CategoryScores.from_dict(item) for item in data["per_category"]],
            confusion=[[int(value) for value in row] for row in data["confusion"]],
            micro_f1=None if data.get("micro_f1") is None else float(data["micro_f1"]),
            hamming_loss=None if data.get("hamming_loss") is None else float(data["hamming_loss"]),
            category_confusions=None if data.get("category_confusions") is None else [
                [[int(value) for value in row] for row in matrix] for matrix in data["category_confusions"]],
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
    # category index per test text; in a multi-label study the list of category indices per test text
    predictions: list[Any] = field(default_factory=list)
    probabilities: list[list[float]] | None = None  # per test text, per category
    seconds: dict[str, float] = field(default_factory=dict)  # features, tuning, final_fit, predict, total
    n_features: int = 0  # columns of the final model's input (Transformers: parameters)
    artefact: str = ""  # folder of the saved final model, if one was saved
    # multi-label: each category's decision threshold on its probability (0.5, or tuned on out-of-fold probabilities)
    thresholds: list[float] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.status == "done" and self.test is not None

    @property
    def cv_mean(self) -> float | None:
        return sum(self.cv_scores) / len(self.cv_scores) if self.cv_scores else None

    @property
    def total_seconds(self) -> float | None:
        """The time the model took from start to end (None when not recorded)."""
        total = self.seconds.get("total") if isinstance(self.seconds, dict) else None
        return float(total) if isinstance(total, int | float) and not isinstance(total, bool) else None

    # -- what ``spec`` recorded, typed -----------------------------------------------------------
    def _recorded(self, name: str) -> Any:
        return self.spec.get(name) if isinstance(self.spec, dict) else None

    @property
    def tuning(self) -> str:
        """How a Transformer's setting was chosen, in words ("one validation split (20% of the training
        texts)", "5-fold cross-validation"); "" when not recorded (the study's cross-validation)."""
        how = self._recorded("tuning")
        return str(how) if how else ""

    @property
    def device(self) -> DeviceUsed | None:
        """Where a Transformer trained (None for other models and when not recorded)."""
        return DeviceUsed.from_dict(self._recorded("device"))

    @property
    def notes(self) -> list[str]:
        """What the run noted about this model, in words (texts cut to the model's length, seeds …)."""
        notes = self._recorded("notes")
        return [str(note) for note in notes if note] if isinstance(notes, list) else []

    @property
    def setting_choice(self) -> SettingChoice | None:
        """How a Transformer's setting was chosen from its tuning scores (None when not recorded)."""
        choice = self._recorded("setting_choice")
        if not isinstance(choice, dict):
            return None
        try:
            return SettingChoice.from_dict(choice)
        except (TypeError, ValueError, IndexError, AttributeError):
            return None

    @property
    def combination(self) -> Combination | None:
        """What a combined model combines (None for the other models)."""
        return Combination.from_spec(self.spec) if self.representation == "combined" else None

    @property
    def representation_options(self) -> dict[str, Any]:
        """The representation's settings as used, defaults written out."""
        options = self._recorded("representation_options")
        return dict(options) if isinstance(options, dict) else {}

    @property
    def settings_tried(self) -> dict[str, Any]:
        """The grid as searched: the values tried per setting (empty when not recorded)."""
        grid = self._recorded("grid")
        return {str(name): values for name, values in grid.items()} if isinstance(grid, dict) else {}

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["grid"] = [asdict(point) for point in self.grid]
        data["test"] = self.test.to_dict() if self.test else None
        if not self.thresholds:  # single-label results keep their format
            del data["thresholds"]
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
    test_true: list[Any]  # category index per test text; multi-label: the list of category indices per test text
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
    multi_label: bool = False  # a text can have several categories (``test_true`` and predictions hold lists)

    # -- what ``spec`` and ``split`` recorded, typed ---------------------------------------------
    @property
    def test_split(self) -> StudySplit:
        """Which texts were held out for the final test, and how many."""
        return StudySplit.from_dict(self.split)

    @property
    def study_source(self) -> StudySource:
        """The study's name and the data it read: file, sheet, checksum, rows, column roles, fixes."""
        return StudySource.from_spec(self.spec)

    @property
    def protocol(self) -> StudyProtocol:
        """How the models were tuned and tested: folds, test share, oversampling, bootstrap, seed."""
        return StudyProtocol.from_spec(self.spec)

    def study_spec(self):  # noqa: ANN201 — an ExperimentSpec, or None
        """The study as it was run (None when the result did not record it, or it no longer reads)."""
        from guiapp.core.errors import UserError
        from guiapp.core.study.spec import ExperimentSpec

        try:
            return ExperimentSpec.from_dict(self.spec) if self.spec else None
        except (UserError, ValueError, TypeError):
            return None

    @property
    def n_test_texts(self) -> int:
        """The number of test texts (from the split when the texts themselves were left out)."""
        return len(self.test_true) or self.test_split.n_test or 0

    def finished_models(self) -> list[ModelResult]:
        return [model for model in self.models if model.ok]

    def ranked(self) -> list[ModelResult]:
        """Finished models: the recommended one first (``recommendation.py``), then by test macro-F1."""
        by_test = sorted(self.finished_models(), key=lambda model: model.test.macro_f1, reverse=True)  # type: ignore[union-attr]
        chosen = self.recommendation()
        if chosen is None:
            return by_test
        return [chosen.model, *(model for model in by_test if model is not chosen.model)]

    def best(self) -> ModelResult | None:
        """The recommended model (chosen on the training texts alone)."""
        ranked = self.ranked()
        return ranked[0] if ranked else None

    def recommendation(self):  # noqa: ANN201 — a Recommendation, or None
        """Which model is recommended and why (``recommendation.py``)."""
        from guiapp.core.experiment.results.recommendation import recommend

        return recommend(self.models, self.test_split.n_train)

    def to_dict(self, include_texts: bool = True) -> dict[str, Any]:
        data = asdict(self)
        data["models"] = [model.to_dict() for model in self.models]
        if not include_texts:
            data.pop("test_texts")
        if not self.multi_label:  # single-label results keep their format
            data.pop("multi_label")
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
