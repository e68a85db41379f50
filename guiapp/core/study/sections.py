"""The model and evaluation parts of an :class:`~guiapp.core.study.spec.ExperimentSpec`.

``EvaluationSpec`` holds the shared protocol (hold-out share, folds, class imbalance, bootstrap);
``ClusterSpec`` where the work runs; ``ModelSpec`` one model to compare: a representation with its
options × a classifier with its grid. Their settings, kinds and defaults are those the study file's
schema declares (``schema.py``); here they are plain data with a dictionary round trip, checked when
read so that a hand-written spec fails early with a sentence that says what to fix.
"""

from __future__ import annotations

from typing import Any

from guiapp.core.errors import UserError
from guiapp.core.study.schema import (
    CODEBOOK_LLM_CLASSIFIER_LABELS,
    FEW_SHOT_CLASSIFIER_LABELS,
    OVERSAMPLING_CHOICES,
    REPRESENTATION_LABELS,
    TRANSFORMER_TUNING_CHOICES,
    ClusterSchema,
    EvaluationSchema,
    ModelSchema,
    SpecError,
)
from guiapp.core.study.schema_section import SchemaSection

__all__ = [
    "CODEBOOK_LLM_CLASSIFIER_LABELS",
    "CODEBOOK_LLM_MODELS",
    "DEFAULT_MODELS",
    "FEW_SHOT_CLASSIFIER_LABELS",
    "FEW_SHOT_MODELS",
    "OVERSAMPLING_CHOICES",
    "REPRESENTATION_LABELS",
    "TRANSFORMER_TUNING_CHOICES",
    "ClusterSpec",
    "EvaluationSpec",
    "ModelSpec",
    "SpecError",
    "available_models",
]


class EvaluationSpec(SchemaSection, schema=EvaluationSchema, where=("evaluation",)):
    """How models are tuned and tested (``[evaluation]``): the shared protocol every model follows."""


class ClusterSpec(SchemaSection, schema=ClusterSchema, where=("cluster",)):
    """Where the study's pieces of work run (``[cluster]``): this computer by default, a running Dask
    scheduler (``scheduler``), or Dask workers started as SLURM jobs (``system = "slurm"``)."""

    @property
    def local(self) -> bool:
        """Whether the study runs on this computer's own worker processes."""
        return not self.scheduler and not self.system

    def describe(self) -> str:
        if self.scheduler:
            return f"the Dask scheduler at {self.scheduler}"
        if self.system:
            gpus = f", {self.gpus_per_worker} GPU{'s' if self.gpus_per_worker != 1 else ''} each" if self.gpus_per_worker else ""
            return (f"{self.workers} {self.system.upper()} worker job{'s' if self.workers != 1 else ''} "
                    f"({self.cores_per_worker} cores, {self.memory}{gpus}, up to {self.walltime})")
        return "this computer"

    def check(self) -> None:
        super().check()
        if self.scheduler and self.system:
            raise SpecError("[cluster] names both a scheduler address and a cluster system.",
                            "Keep one: scheduler to use a running Dask scheduler, or system to start workers as jobs.")
        if self.scheduler and "://" not in self.scheduler:
            raise SpecError(f"[cluster] scheduler {self.scheduler!r} is not an address.",
                            "Write it as tcp://HOST:PORT, e.g. tcp://login1:8786.")

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ClusterSpec:
        spec = super().from_dict(data)
        spec.check()
        return spec


class ModelSpec(SchemaSection, schema=ModelSchema):
    """One model to compare: a representation of the texts and a classifier with its grid. An
    option left out of ``representation_options`` has its default (None: switched off); a grid
    left out is the classifier's default grid; an empty name shows as "SVM · Basic BOW"."""

    @property
    def display_name(self) -> str:
        if self.name:
            return self.name
        if self.representation == "transformer":
            from pathlib import Path

            model = str(self.representation_options.get("model") or "all-MiniLM-L6-v2")
            return f"Fine-tuned {Path(model).name or model}"
        if (self.representation, self.classifier) in FEW_SHOT_MODELS:
            from guiapp.core.models.few_shot_options import display_name

            return display_name(self.classifier, self.representation_options)
        if self.representation == "codebook_llm":
            from guiapp.core.models.llm.codebook_options import display_name as codebook_name

            return codebook_name(self.classifier, self.representation_options)
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
        if self.representation in ("zero_shot", "setfit") or self.classifier in FEW_SHOT_CLASSIFIER_LABELS:
            self._check_few_shot(where)
            return
        if self.representation == "codebook_llm" or self.classifier in CODEBOOK_LLM_CLASSIFIER_LABELS:
            self._check_codebook_llm(where)
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

    def _check_few_shot(self, where: str) -> None:
        from guiapp.core.models.few_shot_options import check_setfit, check_zero_shot

        if (self.representation, self.classifier) not in FEW_SHOT_MODELS:
            raise SpecError(
                f"'{self.representation}' with '{self.classifier}' is not a model TextLab knows ({where}).",
                "Write representation = \"zero_shot\" with classifier = \"similarity\" or \"nli\", or "
                "representation = \"setfit\" with classifier = \"setfit\".",
            )
        try:
            if self.representation == "setfit":
                check_setfit(self.representation_options, self.grid)
            else:
                check_zero_shot(self.classifier, self.representation_options, self.grid)
        except UserError as error:
            raise SpecError(f"{error.message} ({where})", error.hint) from None

    def _check_codebook_llm(self, where: str) -> None:
        from guiapp.core.models.llm.codebook_options import check_codebook_llm

        if (self.representation, self.classifier) not in CODEBOOK_LLM_MODELS:
            raise SpecError(
                f"'{self.representation}' with '{self.classifier}' is not a model TextLab knows ({where}).",
                "Write representation = \"codebook_llm\" with classifier = \"in_textlab\" or \"server\".",
            )
        try:
            check_codebook_llm(self.classifier, self.representation_options, self.grid)
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
        checked = cls.validated(data, ("models", position - 1))
        spec = cls(
            representation=checked.representation,
            classifier=checked.classifier,
            representation_options={
                key: None if isinstance(value, str) and value.strip().lower() == "none" else value
                for key, value in checked.representation_options.items()
            },
            grid={key: list(value) if isinstance(value, list) else [value] for key, value in checked.grid.items()},
            name=checked.name,
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


# The models that need few or no coded texts: zero-shot (nothing learnt from coded texts) and SetFit.
FEW_SHOT_MODELS: tuple[tuple[str, str], ...] = (
    ("zero_shot", "similarity"),
    ("zero_shot", "nli"),
    ("setfit", "setfit"),
)


# A generative language model given the codebook, inside TextLab or on a language-model server.
CODEBOOK_LLM_MODELS: tuple[tuple[str, str], ...] = (
    ("codebook_llm", "in_textlab"),
    ("codebook_llm", "server"),
)


def available_models(*, few_shot: bool = False) -> list[tuple[str, str]]:
    """Every representation × classifier pair that can run (naive Bayes needs word counts), then the
    fine-tuned Transformer; with ``few_shot``, also the models that need few or no coded texts
    (:data:`FEW_SHOT_MODELS`)."""
    from guiapp.core.models.conventional import CLASSIFIERS

    return [
        (representation, classifier)
        for representation in REPRESENTATION_LABELS
        if representation not in ("transformer", "zero_shot", "setfit", "codebook_llm")
        for classifier, info in CLASSIFIERS.items()
        if not (info.needs_nonnegative and representation != "bow")
    ] + [("transformer", "fine_tune")] + (list(FEW_SHOT_MODELS) if few_shot else [])
