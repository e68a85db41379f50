"""What a study will do before it runs: every fit of every model, and how each model is tuned.

The plan follows the runner step by step, so that the Run step's header, the log's first lines
(and ``textlab run``'s) and the expected time all read the same numbers:

* a conventional model tries each setting of its grid on every cross-validation fold (k folds, or
  r × k with repeated cross-validation) — its *tuning fits*; when combined models will be built
  (``[evaluation] combine`` and at least two models), it refits the chosen setting in each of the
  first k folds for the held-out probabilities they learn from (``out_of_fold.py``) — its
  *out-of-fold fits*; then it fits the chosen setting once on all training texts;
* a fine-tuned Transformer tries each setting on every tuning split (the folds, or one validation
  split: the default without a GPU, ``transformer_runner.tuning_splits``), then fine-tunes the
  chosen setting on all training texts once per seed (``transformer_seeds``); its combined-model
  probabilities come with its tuning runs — for the validation texts only after one validation
  split, so there, where affordable (``transformer_out_of_fold.py``), the chosen setting is also
  fine-tuned once in each fold;
* a zero-shot model learns nothing from the coded texts, so it has no fits: it reads every training
  and test text once (one pass of its language model per text, or per text and category for NLI,
  ``few_shot_estimates.zero_shot_passes``) and its probabilities are scored on the same folds;
* SetFit tries each setting on every tuning split (the folds, or one validation split when the folds
  would take long on a CPU: ``few_shot_estimates.setfit_tuning``), each run learning from its
  pairs of coded texts (pairs per text × texts, for each epoch), then fits the chosen setting on all
  training texts; its combined-model probabilities come with its tuning runs — after one validation
  split, where affordable (``transformer_out_of_fold.setfit_out_of_fold_fits``, the Transformer's rule),
  the chosen setting is also trained once in each fold, so that every training text has them;
* a language model with your codebook learns nothing either: each prompt variant of its grid answers
  every training text once on the study's folds (examples drawn from the fold's other texts), then
  the chosen one answers the test texts, under each wording of the instruction for the sensitivity
  report — its *passes* (``codebook_estimates.py``); on a language-model server its time depends on
  the server's computer and is left out of the estimate, said so;
* the texts are turned into sentence embeddings once per embedding model, whatever the number of
  models that use them; the combined models are learnt from the probabilities above (no fit of
  a compared model).

The seconds come from ``estimates.py`` (this computer's measured speeds where it was measured).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from guiapp.core.experiment.speed import codebook_estimates, estimates, few_shot_estimates
from guiapp.core.experiment.families.transformer_out_of_fold import (
    out_of_fold_fits,
    setfit_out_of_fold_fits,
)
from guiapp.core.study.sections import ModelSpec
from guiapp.core.study.spec import ExperimentSpec

CROSS_VALIDATION = "cross-validation"
VALIDATION_SPLIT = "validation split"


@dataclass(frozen=True)
class ModelPlan:
    """One model's fits (a Transformer's are fine-tunings)."""

    name: str
    transformer: bool
    settings: int  # grid settings tried
    tuning: str  # CROSS_VALIDATION or VALIDATION_SPLIT
    tuning_splits: int  # folds × repeats, or 1 (one validation split)
    out_of_fold_fits: int  # refits of the chosen setting inside the folds, for the combined models
    final_fits: int  # on all training texts: 1, or one per seed for a Transformer
    seconds: float | None = None  # its own work (not the texts' embedding, shared by the models)
    kind: str = "conventional"  # "conventional", "transformer", "zero_shot", "setfit" or "codebook_llm"
    passes: int = 0  # zero-shot, codebook: passes of its language model over the texts (0: not known yet)
    pairs_per_fit: int = 0  # SetFit: pairs of coded texts one tuning run learns from per epoch (dearest setting)
    epochs: int = 0  # SetFit: the dearest setting's epochs
    untimed: bool = False  # its time is not in the estimate (a language-model server's answers)
    wordings: int = 1  # a language model with your codebook: wordings of the instruction answering the test texts

    @property
    def tuning_fits(self) -> int:
        return self.settings * self.tuning_splits

    @property
    def fits(self) -> int:
        return self.tuning_fits + self.out_of_fold_fits + self.final_fits

    def describe_fits(self) -> str:
        """"12 settings × 5 folds = 60, 5 refits for the combined models, 1 on all training texts"."""
        if self.kind == "zero_shot":
            passes = f" ({self.passes:,} passes of its language model)" if self.passes else ""
            return f"no fits: it reads every training and test text once{passes}"
        if self.kind == "codebook_llm":
            passes = f" ({self.passes:,} prompts)" if self.passes else ""
            return f"no fits: {_count(self.settings, 'prompt variant')} answer the training texts{passes}"
        where = "1 validation split" if self.tuning == VALIDATION_SPLIT else _count(self.tuning_splits, "fold")
        parts = [f"{_count(self.settings, 'setting')} × {where} = {self.tuning_fits:,}"]
        if self.out_of_fold_fits:
            parts.append(f"{self.out_of_fold_fits} refits for the combined models")
        seeds = f" ({self.final_fits} seeds)" if self.transformer and self.final_fits > 1 else ""
        parts.append(f"{self.final_fits} on all training texts{seeds}")
        return ", ".join(parts)


@dataclass(frozen=True)
class RunPlan:
    """The study's fits, model by model, and its expected seconds (None while the texts are unknown)."""

    models: tuple[ModelPlan, ...]
    folds: int
    repeats: int
    validation_share: float
    combined: bool  # combined models will be learnt from the models' held-out probabilities
    gpu: bool | None  # a Transformer fine-tunes on a GPU; None: not known yet (decided when it runs)
    auto_tuning: bool  # the Transformer's way of tuning follows the GPU ("auto")
    n_embedded: int = 0  # texts turned into sentence embeddings (once per embedding model), 0: none or unknown
    shared_seconds: float = 0.0  # starting, reading, embedding the texts, learning the combined models
    known: bool = False  # the numbers of texts were known: the seconds are an estimate

    @property
    def fits(self) -> int:
        return sum(model.fits for model in self.models)

    @property
    def seconds(self) -> float | None:
        if not self.known or any(model.seconds is None for model in self.models):
            return None
        return self.shared_seconds + sum(model.seconds or 0.0 for model in self.models)

    @property
    def conventional(self) -> list[ModelPlan]:
        return [model for model in self.models if not model.transformer and model.kind == "conventional"]

    @property
    def untimed(self) -> bool:
        """Some model's time is left out of the estimate (a language-model server's answers)."""
        return any(model.untimed for model in self.models)

    @property
    def few_shot(self) -> list[ModelPlan]:
        """The zero-shot and SetFit models."""
        return [model for model in self.models if model.kind in ("zero_shot", "setfit")]

    @property
    def transformers(self) -> list[ModelPlan]:
        return [model for model in self.models if model.transformer]

    def describe(self) -> str:
        """What the study does, in a researcher's words, with every count the runner will make."""
        sentences = []
        conventional = self.conventional
        if conventional:
            sentences.append(self._conventional_sentence(conventional))
        for model in self.transformers:
            sentences.append(self._transformer_sentence(model, len(self.transformers) > 1))
        for model in self.few_shot:
            sentences.append(self._zero_shot_sentence(model) if model.kind == "zero_shot"
                             else self._setfit_sentence(model))
        for model in self.models:
            if model.kind == "codebook_llm":
                sentences.append(self._codebook_sentence(model))
        if self.combined:
            sentences.append("Two combined models (a weighted vote and a stacking) are then learnt from the "
                             "models' held-out probabilities.")
        if self.n_embedded:
            sentences.append(f"The {self.n_embedded:,} texts are turned into sentence embeddings once.")
        return " ".join(sentences)

    def cross_validation_words(self) -> str:
        repeated = f", repeated {self.repeats} times with other folds" if self.repeats > 1 else ""
        return f"{self.folds}-fold cross-validation{repeated}"

    def _conventional_sentence(self, models: list[ModelPlan]) -> str:
        one = len(models) == 1
        settings = sum(model.settings for model in models)
        splits = self.folds * self.repeats
        tuning = sum(model.tuning_fits for model in models)
        subject = "The model tries" if one else f"The {len(models)} models try"
        text = (f"{subject} {_count(settings, 'setting')} on each of {splits} folds "
                f"({self.cross_validation_words()}: {tuning:,} fits), then "
                f"{'fits its chosen setting' if one else 'fit their chosen settings'} on all training texts "
                f"({len(models)} fit{'s' if not one else ''})")
        refits = sum(model.out_of_fold_fits for model in models)
        if refits:
            first = f"the first {self.folds} folds" if self.repeats > 1 else "the folds"
            text += f" and once more in each of {first} for the combined models ({refits} fits)"
        return text + "."

    def _zero_shot_sentence(self, model: ModelPlan) -> str:
        passes = f" ({model.passes:,} passes of its language model)" if model.passes else ""
        return (f"{model.name} learns nothing from the coded texts: it reads every training and test text once"
                f"{passes} and is scored on the same folds and test texts as the other models.")

    def _codebook_sentence(self, model: ModelPlan) -> str:
        variants = _count(model.settings, "prompt variant")
        text = (f"{model.name} learns nothing from the coded texts: {variants} each answer every training text "
                f"once on the first {self.folds} folds, with examples drawn only from the fold's other texts, then "
                "the chosen one answers the test texts")
        if model.wordings > 1:
            text += f" under {model.wordings} wordings of the instruction, for the prompt-sensitivity report"
        if model.passes:
            text += f" ({model.passes:,} prompts for the language model in all)"
        if model.untimed:
            text += ("; how long the language-model server takes depends on its computer, so its answers are not "
                     "in the time above")
        return text + "."

    def _setfit_sentence(self, model: ModelPlan) -> str:
        times = "once" if model.fits == 1 else f"{model.fits} times"
        if model.tuning == VALIDATION_SPLIT:
            where = f"on one validation split ({self.validation_share * 100:g} % of the training texts)"
        else:
            where = f"on each of {model.tuning_splits} folds ({self.cross_validation_words()})"
        refits = (f", once in each of {model.out_of_fold_fits} folds for the combined models"
                  if model.out_of_fold_fits else "")
        text = (f"{model.name} is trained {times}: {_count(model.settings, 'setting')} {where}{refits}, then the "
                "chosen setting on all training texts")
        if model.pairs_per_fit:
            text += (f"; each tuning run learns from about {model.pairs_per_fit:,} pairs of coded texts per epoch "
                     f"({_count(model.epochs, 'epoch')})")
        if self.gpu is None and self.auto_tuning and model.tuning == VALIDATION_SPLIT:
            text += (f" (without a GPU; with one, its settings are tried on each of {self.folds * self.repeats} "
                     "folds instead)")
        return text + "."

    def _transformer_sentence(self, model: ModelPlan, named: bool) -> str:
        subject = model.name if named else "The Transformer"
        times = "once" if model.fits == 1 else f"{model.fits} times"
        if model.tuning == VALIDATION_SPLIT:
            where = f"on one validation split ({self.validation_share * 100:g} % of the training texts)"
        else:
            where = f"on each of {model.tuning_splits} folds ({self.cross_validation_words()})"
        seeds = "once" if model.final_fits == 1 else f"with {model.final_fits} seeds"
        refits = (f", once in each of {model.out_of_fold_fits} folds for the combined models"
                  if model.out_of_fold_fits else "")
        text = (f"{subject} is fine-tuned {times}: {_count(model.settings, 'setting')} {where}{refits}, then the "
                f"chosen setting {seeds} on all training texts")
        if self.gpu is None and self.auto_tuning:  # the GPU is only known when it runs
            other = self.folds * self.repeats
            if model.tuning == VALIDATION_SPLIT:
                text += (f" (without a GPU; with one, its settings are tried on each of {other} folds instead: "
                         f"{model.settings * other + model.final_fits} fine-tunings)")
        return text + "."


def plan_run(
    spec: ExperimentSpec,
    n_train: int | None = None,
    n_test: int = 0,
    n_categories: int = 2,
    n_jobs: int | None = None,
    *,
    gpu: bool | None = False,
    mean_tokens: float | None = None,
    multi_label: bool = False,
) -> RunPlan:
    """The plan of ``spec`` (see the module docstring); with ``n_train``, its expected seconds.

    ``gpu``: whether the Transformer will fine-tune on a GPU (None: not known — planned as
    without one, and said so). ``multi_label``: a text can have several categories (a language
    model with your codebook then asks one question per text and category)."""
    from guiapp.core.models.conventional import expand_grid
    from guiapp.core.models.transformers.options import expand_transformer_grid

    evaluation = spec.evaluation
    splits = evaluation.folds * evaluation.cv_repeats
    combined = evaluation.combine and len(spec.models) >= 2
    known = n_train is not None
    plans = []
    for model in spec.models:
        if model.representation == "transformer":
            name = str(model.representation_options.get("model") or "all-MiniLM-L6-v2")
            settings = len(expand_transformer_grid(model.grid, name))
            on_gpu = bool(gpu) and model.representation_options.get("device") != "cpu"
            tuning = _transformer_tuning(evaluation.transformer_tuning, on_gpu)
            tuning_splits = splits if tuning == CROSS_VALIDATION else 1
            seconds = _seconds(
                estimates.transformer_seconds, model, n_train or 0, n_test, tuning_splits=tuning_splits,
                cross_validation=tuning == CROSS_VALIDATION, validation_share=evaluation.validation_share,
                seeds=evaluation.transformer_seeds, on_gpu=on_gpu, mean_tokens=mean_tokens) if known else None
            refits = out_of_fold_fits(model, n_train or 0, evaluation.folds,
                                      validation_split=tuning == VALIDATION_SPLIT and evaluation.folds >= 2,
                                      combined=combined, on_gpu=on_gpu, mean_tokens=mean_tokens) if known else 0
            if refits and seconds is not None:
                seconds += _seconds(estimates.transformer_out_of_fold_seconds, model, n_train or 0, refits,
                                    on_gpu=on_gpu, mean_tokens=mean_tokens) or 0.0
            plans.append(ModelPlan(model.display_name, True, settings, tuning, tuning_splits, refits,
                                   evaluation.transformer_seeds, seconds, kind="transformer"))
        elif model.representation in ("zero_shot", "setfit"):
            plans.append(_few_shot_plan(model, spec, n_train, n_test, n_categories, gpu, mean_tokens))
        elif model.representation == "codebook_llm":
            plans.append(_codebook_plan(model, n_train, n_test, n_categories, gpu, mean_tokens, multi_label))
        else:
            settings = len(expand_grid(model.classifier, model.grid))
            refits = evaluation.folds if combined else 0
            seconds = _seconds(
                estimates.conventional_seconds, model, n_train or 0, n_test, n_categories, evaluation.folds,
                repeats=evaluation.cv_repeats, out_of_fold=combined, n_jobs=n_jobs) if known else None
            plans.append(ModelPlan(model.display_name, False, settings, CROSS_VALIDATION, splits, refits, 1, seconds))
    embedded = _embedding_models(spec.models)
    n_texts = (n_train or 0) + n_test
    shared = 0.0
    if known:
        shared = estimates.run_seconds(
            [model for model in spec.models
             if model.representation not in ("transformer", "zero_shot", "setfit", "codebook_llm")],
            n_jobs)
        shared += sum(estimates.embedding_seconds(model, n_texts) for model in embedded)
        if combined:
            shared += estimates.combining_seconds(n_train or 0, len(spec.models), n_categories)
    return RunPlan(
        models=tuple(plans),
        folds=evaluation.folds,
        repeats=evaluation.cv_repeats,
        validation_share=evaluation.validation_share,
        combined=combined,
        gpu=gpu,
        auto_tuning=evaluation.transformer_tuning == "auto",
        n_embedded=n_texts if embedded and known else 0,
        shared_seconds=shared,
        known=known,
    )


def _few_shot_plan(model: ModelSpec, spec: ExperimentSpec, n_train: int | None, n_test: int, n_categories: int,
                   gpu: bool | None, mean_tokens: float | None) -> ModelPlan:
    """A zero-shot model's passes over the texts, or SetFit's training runs (``few_shot_estimates.py``)."""
    from guiapp.core.models.few_shot_options import expand_setfit_grid

    evaluation = spec.evaluation
    known = n_train is not None
    if model.representation == "zero_shot":
        seconds = _seconds(few_shot_estimates.zero_shot_seconds, model, (n_train or 0) + n_test, n_categories,
                           on_gpu=bool(gpu), mean_tokens=mean_tokens) if known else None
        passes = few_shot_estimates.zero_shot_passes(model, (n_train or 0) + n_test, n_categories) if known else 0
        return ModelPlan(model.display_name, False, 1, CROSS_VALIDATION, 0, 0, 0, seconds, kind="zero_shot",
                         passes=passes)
    splits = evaluation.folds * evaluation.cv_repeats
    points = expand_setfit_grid(model.grid)
    gpu = few_shot_estimates.setfit_on_gpu(model, bool(gpu))
    tuning = few_shot_estimates.setfit_tuning(evaluation.transformer_tuning, gpu, model, n_train, splits,
                                              mean_tokens=mean_tokens)
    cross_validation = tuning == CROSS_VALIDATION
    tuning_splits = splits if cross_validation else 1
    seconds = _seconds(few_shot_estimates.setfit_seconds, model, n_train or 0, n_test, tuning_splits=tuning_splits,
                       cross_validation=cross_validation, validation_share=evaluation.validation_share,
                       on_gpu=bool(gpu), mean_tokens=mean_tokens) if known else None
    refits = setfit_out_of_fold_fits(
        model, n_train or 0, evaluation.folds, validation_split=not cross_validation,
        combined=evaluation.combine and len(spec.models) >= 2, on_gpu=bool(gpu), mean_tokens=mean_tokens) if known else 0
    if refits and seconds is not None:
        seconds += _seconds(few_shot_estimates.setfit_out_of_fold_seconds, model, n_train or 0, refits,
                            on_gpu=bool(gpu), mean_tokens=mean_tokens) or 0.0
    dearest = max(points, key=lambda point: point["epochs"] * point["pairs_per_text"])
    pairs = 0
    if known:
        share = (evaluation.folds - 1) / evaluation.folds if cross_validation else 1 - evaluation.validation_share
        pairs = few_shot_estimates.setfit_pairs(round((n_train or 0) * share), dearest["pairs_per_text"],
                                                few_shot_estimates.max_pairs_of(model))
    return ModelPlan(model.display_name, False, len(points), tuning, tuning_splits, refits, 1, seconds, kind="setfit",
                     pairs_per_fit=pairs, epochs=dearest["epochs"])


def _codebook_plan(model: ModelSpec, n_train: int | None, n_test: int, n_categories: int, gpu: bool | None,
                   mean_tokens: float | None, multi_label: bool) -> ModelPlan:
    """A language model with your codebook: its prompt variants, its passes and (inside TextLab) its
    seconds (``codebook_estimates.py``)."""
    known = n_train is not None
    settings = len(codebook_estimates.prompt_variants(model))
    passes = codebook_estimates.codebook_passes(model, n_train or 0, n_test, n_categories, multi_label) if known else 0
    on_server = model.classifier == "server"
    seconds = None
    if known:
        seconds = 0.0 if on_server else _seconds(codebook_estimates.codebook_seconds, model, n_train or 0, n_test,
                                                 n_categories, on_gpu=bool(gpu), mean_tokens=mean_tokens,
                                                 multi_label=multi_label)
    return ModelPlan(model.display_name, False, settings, CROSS_VALIDATION, 0, 0, 0, seconds, kind="codebook_llm",
                     passes=passes, untimed=on_server, wordings=codebook_estimates.sensitivity_of(model))


def fine_tunes_on_gpu(spec: ExperimentSpec, *, may_import: bool = True) -> bool | None:
    """Whether the study's Transformer (or SetFit model) will fine-tune on a GPU of this computer (False
    without one); None when that is not known without importing PyTorch (``may_import`` False), or
    when the study runs on a cluster, whose workers decide."""
    wanted = [model for model in spec.models if model.representation == "setfit" or (
              model.representation in ("transformer", "codebook_llm") and model.classifier != "server"
              and model.representation_options.get("device") != "cpu")]
    if not wanted:
        return False
    if not spec.cluster.local:
        return None
    if "torch" not in sys.modules and not may_import:
        return None
    try:
        import torch
    except ImportError:
        return False
    return bool(torch.cuda.is_available())


def _transformer_tuning(how: str, on_gpu: bool) -> str:
    if how == "auto":
        return CROSS_VALIDATION if on_gpu else VALIDATION_SPLIT
    return how


def _embedding_models(models: list[ModelSpec]) -> list[ModelSpec]:
    """One model per distinct sentence-embedding model (the texts are embedded once for each)."""
    seen: dict[str, ModelSpec] = {}
    for model in models:
        if model.representation == "sentence_embeddings":
            seen.setdefault(str(model.representation_options.get("model") or estimates.EMBEDDING_MODEL), model)
    return list(seen.values())


def _seconds(compute: Callable[..., float], *args: Any, **kwargs: Any) -> float | None:
    """``compute(*args, **kwargs)``, or None for a model the estimate does not know (no time)."""
    from guiapp.core.errors import UserError

    try:
        return float(compute(*args, **kwargs))
    except (UserError, ValueError, OSError, KeyError):
        return None


def _count(n: int, word: str) -> str:
    return f"{n:,} {word}{'s' if n != 1 else ''}"
