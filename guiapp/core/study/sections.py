"""The model and evaluation parts of an :class:`~guiapp.core.study.spec.ExperimentSpec`.

``EvaluationSpec`` holds the shared protocol (hold-out share, folds, class imbalance, bootstrap);
``ModelSpec`` one model to compare: a representation with its options × a classifier with its
grid. Both are plain data with a dictionary round trip; values are checked when read so that a
hand-written spec fails early with a sentence that says what to fix.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from guiapp.core.errors import UserError
from guiapp.core.numbers import number_words, parse_number

REPRESENTATION_LABELS: dict[str, str] = {
    "bow": "Basic BOW",
    "word_vectors": "Word vectors",
    "sentence_embeddings": "Sentence embeddings",
    "transformer": "Fine-tuned Transformer",
}
TRANSFORMER_TUNING_CHOICES = ("auto", "cross-validation", "validation split")
OVERSAMPLING_CHOICES = ("off", "random")


class SpecError(UserError):
    """A spec file that cannot be read or does not make sense."""


def refuse_unknown(data: dict[str, Any], known: set[str], where: str) -> None:
    unknown = sorted(set(data) - known)
    if unknown:
        raise SpecError(
            f"Unknown setting(s) in {where}: {', '.join(unknown)}.",
            f"Allowed here: {', '.join(sorted(known))}. Check the spelling.",
        )


def _number(data: dict[str, Any], key: str, default: Any, kind: type, where: str) -> Any:
    value = data.get(key, default)
    try:
        return parse_number(value, kind)
    except ValueError:
        raise SpecError(f"'{key}' in {where} must be {number_words(kind)}, not {value!r}.") from None


@dataclass
class EvaluationSpec:
    """How models are tuned and tested (PROTOCOL.md's shared protocol)."""

    test_share: float = 0.3  # random stratified hold-out when there is no split column or test file
    folds: int = 5  # stratified k-fold cross-validation on the training texts
    oversampling: str = "off"  # "off" or "random" (minority categories, training parts only)
    oversampling_ratio: float = 0.25  # minority categories grow to this share of the largest
    bootstrap_samples: int = 1000  # resamples of the test set for the 95 % interval
    # Transformers: "auto" = k-fold cross-validation on a GPU, one stratified validation split on a CPU
    transformer_tuning: str = "auto"
    validation_share: float = 0.2  # share of the training texts for that validation split

    def check(self) -> None:
        where = "[evaluation]"
        if not 0.05 <= self.test_share <= 0.9:
            raise SpecError(
                f"test_share in {where} must be between 0.05 and 0.9, not {self.test_share}.",
                "0.3 keeps 30 % of the coded texts aside for the final test.",
            )
        if not 2 <= self.folds <= 20:
            raise SpecError(f"folds in {where} must be between 2 and 20, not {self.folds}.")
        if self.oversampling not in OVERSAMPLING_CHOICES:
            raise SpecError(
                f"oversampling in {where} cannot be '{self.oversampling}'.",
                f"Choose one of: {', '.join(OVERSAMPLING_CHOICES)}.",
            )
        if not 0.0 < self.oversampling_ratio <= 1.0:
            raise SpecError(
                f"oversampling_ratio in {where} must be above 0 and at most 1, not {self.oversampling_ratio}.",
                "0.25 grows each smaller category to a quarter of the largest one (the paper's choice).",
            )
        if not 0 <= self.bootstrap_samples <= 100_000:
            raise SpecError(f"bootstrap_samples in {where} must be between 0 and 100000.")
        if self.transformer_tuning not in TRANSFORMER_TUNING_CHOICES:
            raise SpecError(
                f"transformer_tuning in {where} cannot be '{self.transformer_tuning}'.",
                f"Choose one of: {', '.join(TRANSFORMER_TUNING_CHOICES)}.",
            )
        if not 0.05 <= self.validation_share <= 0.5:
            raise SpecError(f"validation_share in {where} must be between 0.05 and 0.5, not {self.validation_share}.")

    def to_dict(self) -> dict[str, Any]:
        return {
            "test_share": self.test_share,
            "folds": self.folds,
            "oversampling": self.oversampling,
            "oversampling_ratio": self.oversampling_ratio,
            "bootstrap_samples": self.bootstrap_samples,
            "transformer_tuning": self.transformer_tuning,
            "validation_share": self.validation_share,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> EvaluationSpec:
        where = "[evaluation]"
        if not isinstance(data, dict):
            raise SpecError(f"The {where} part of the spec is not a table of settings.")
        refuse_unknown(data, set(cls().to_dict()), where)
        default = cls()
        spec = cls(
            test_share=_number(data, "test_share", default.test_share, float, where),
            folds=_number(data, "folds", default.folds, int, where),
            oversampling=str(data.get("oversampling", default.oversampling)).strip().lower(),
            oversampling_ratio=_number(data, "oversampling_ratio", default.oversampling_ratio, float, where),
            bootstrap_samples=_number(data, "bootstrap_samples", default.bootstrap_samples, int, where),
            transformer_tuning=str(data.get("transformer_tuning", default.transformer_tuning)).strip().lower(),
            validation_share=_number(data, "validation_share", default.validation_share, float, where),
        )
        spec.check()
        return spec


@dataclass
class ModelSpec:
    """One model to compare: a representation of the texts and a classifier with its grid."""

    representation: str = "bow"  # "bow" | "word_vectors" | "sentence_embeddings"
    classifier: str = "svm"  # "svm" | "xgboost" | "logistic_regression" | "naive_bayes"
    representation_options: dict[str, Any] = field(default_factory=dict)  # left out = default
    grid: dict[str, list[Any]] = field(default_factory=dict)  # left out = the default grid
    name: str = ""  # shown in results; empty = "SVM · Basic BOW"

    @property
    def display_name(self) -> str:
        if self.name:
            return self.name
        if self.representation == "transformer":
            from pathlib import Path

            model = str(self.representation_options.get("model") or "all-MiniLM-L6-v2")
            return f"Fine-tuned {Path(model).name or model}"
        from guiapp.core.models.conventional import CLASSIFIERS

        classifier = CLASSIFIERS[self.classifier].label if self.classifier in CLASSIFIERS else self.classifier
        return f"{classifier} · {REPRESENTATION_LABELS.get(self.representation, self.representation)}"

    def check(self) -> None:
        """Raise :class:`SpecError` when the model cannot be run as written."""
        from guiapp.core.models.conventional import CLASSIFIERS, normalise_grid

        where = f"model '{self.display_name}'"
        if self.representation == "transformer" or self.classifier == "fine_tune":
            self._check_transformer(where)
            return
        if self.representation not in REPRESENTATION_LABELS:
            raise SpecError(
                f"Unknown representation '{self.representation}' in {where}.",
                f"Use one of: {', '.join(REPRESENTATION_LABELS)}.",
            )
        if self.classifier not in CLASSIFIERS:
            raise SpecError(
                f"Unknown classifier '{self.classifier}' in {where}.",
                f"Use one of: {', '.join(CLASSIFIERS)}.",
            )
        if CLASSIFIERS[self.classifier].needs_nonnegative and self.representation != "bow":
            raise SpecError(
                f"Naive Bayes only works with bag-of-words features ({where}).",
                "Choose Basic BOW for naive Bayes, or another classifier for vector features.",
            )
        from guiapp.core.features.registry import validate_options

        try:
            normalise_grid(self.classifier, self.grid)
            validate_options(self.representation, self.representation_options)
        except UserError as error:
            raise SpecError(f"{error.message} ({where})", error.hint) from None

    def _check_transformer(self, where: str) -> None:
        from guiapp.core.models.transformers.options import (
            check_options,
            normalise_transformer_grid,
        )

        if (self.representation, self.classifier) != ("transformer", "fine_tune"):
            raise SpecError(
                f"A fine-tuned Transformer is written representation = \"transformer\", classifier = \"fine_tune\" ({where}).",
            )
        try:
            check_options(self.representation_options)
            normalise_transformer_grid(self.grid, str(self.representation_options.get("model") or "all-MiniLM-L6-v2"))
        except UserError as error:
            raise SpecError(f"{error.message} ({where})", error.hint) from None

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "representation": self.representation,
            "classifier": self.classifier,
            # TOML has no "nothing": an option switched off (None) is written as "none"
            "representation_options": {
                key: "none" if value is None else value for key, value in self.representation_options.items()
            },
            "grid": {key: list(values) for key, values in self.grid.items()},
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any], position: int = 1) -> ModelSpec:
        where = f"model {position} of [[models]]"
        if not isinstance(data, dict):
            raise SpecError(f"{where.capitalize()} is not a table of settings.")
        refuse_unknown(data, set(cls().to_dict()), where)
        options = data.get("representation_options", {})
        grid = data.get("grid", {})
        if not isinstance(options, dict) or not isinstance(grid, dict):
            raise SpecError(f"representation_options and grid in {where} must be tables of settings.")
        grid = {key: list(value) if isinstance(value, list | tuple) else [value] for key, value in grid.items()}
        spec = cls(
            representation=str(data.get("representation", "bow")).strip().lower(),
            classifier=str(data.get("classifier", "svm")).strip().lower(),
            representation_options={
                key: None if isinstance(value, str) and value.strip().lower() == "none" else value
                for key, value in options.items()
            },
            grid=grid,
            name=str(data.get("name", "")),
        )
        spec.check()
        return spec


# The models pre-ticked on the Models step: the paper's strong conventional baselines plus the
# "transfer learning without fine-tuning" baseline, all quick enough on a laptop.
DEFAULT_MODELS: tuple[tuple[str, str], ...] = (
    ("bow", "svm"),
    ("word_vectors", "svm"),
    ("sentence_embeddings", "logistic_regression"),
)


def available_models() -> list[tuple[str, str]]:
    """Every representation × classifier pair that can run (naive Bayes needs word counts)."""
    from guiapp.core.models.conventional import CLASSIFIERS

    return [
        (representation, classifier)
        for representation in REPRESENTATION_LABELS
        if representation != "transformer"
        for classifier, info in CLASSIFIERS.items()
        if not (info.needs_nonnegative and representation != "bow")
    ] + [("transformer", "fine_tune")]
