"""How much work the models that need few or no coded texts do, and how long it takes.

* A zero-shot model learns nothing: it reads every training and test text once. With similarity,
  that is one sentence embedding per text (and one per category's description); with NLI, one pass
  of the NLI model per text and category (the text against "This text is about <category>.").
* SetFit tunes a sentence-embedding model on pairs of coded texts — ``pairs_per_text`` similar and
  as many dissimilar pairs per text, for ``epochs`` epochs — then embeds the texts and learns a logistic regression on them. Every
  setting is trained on every tuning split (the study's folds, or one validation split), then the
  chosen setting once on all training texts. A pair costs two texts' passes of learning, as a
  fine-tuned Transformer's text costs one (the model's registry speed, ``speed_figures.py``).

SetFit chooses its setting like the fine-tuned Transformer (``[evaluation] transformer_tuning``):
"cross-validation" and "validation split" are followed as written; with "auto", the folds are used
on a GPU and on a CPU when they are expected to take at most :data:`LONG_TUNING_SECONDS`, else one
stratified validation split of the training texts.
"""

from __future__ import annotations

from guiapp.core.experiment.speed.speed_cache import machine_identity, read_speed
from guiapp.core.experiment.speed.speed_figures import (
    EMBED_TEXTS_PER_SECOND,
    LOAD_SECONDS,
    PREDICT_SHARE,
    TORCH_LOAD_SECONDS,
    per_text_finetune_seconds,
)
from guiapp.core.study.sections import ModelSpec

CROSS_VALIDATION = "cross-validation"
VALIDATION_SPLIT = "validation split"
LONG_TUNING_SECONDS = 600.0  # SetFit on a CPU: tuning on the folds beyond this → one validation split ("auto")
_NLI_MAX_TOKENS = 512


def setfit_pairs(n_texts: int, pairs_per_text: int, max_pairs: int | None = None) -> int:
    """The pairs of coded texts one SetFit training run learns from, per epoch: each text in
    ``pairs_per_text`` pairs of similar texts and as many of dissimilar ones (SetFit's sampling), at
    most ``max_pairs``."""
    from guiapp.core.models.setfit.pairs import pairs_wanted

    return 2 * pairs_wanted(n_texts, pairs_per_text, max_pairs)


def max_pairs_of(model: ModelSpec) -> int:
    """The most pairs per epoch the SetFit model ``model`` takes (its option, else the default)."""
    from guiapp.core.models.few_shot_options import setfit_options

    return int(setfit_options(model.representation_options)["max_pairs"])


def setfit_work(point: dict, n_texts: int, max_pairs: int) -> int:
    """How much one SetFit training run of the grid point ``point`` on ``n_texts`` texts does, for
    weighing the progress bar: the pairs it learns from over its epochs, and each text read for the head."""
    return int(point["epochs"]) * setfit_pairs(n_texts, point["pairs_per_text"], max_pairs) + int(n_texts)


def setfit_on_gpu(model: ModelSpec, gpu: bool) -> bool:
    """Whether SetFit ``model`` trains on the GPU ``gpu`` says this computer has: not when its device
    option is the processor."""
    from guiapp.core.models.few_shot_options import setfit_options

    return bool(gpu) and setfit_options(model.representation_options)["device"] != "cpu"


def _per_text(model: ModelSpec, on_gpu: bool, mean_tokens: float | None) -> float:
    from guiapp.core.models.few_shot_options import setfit_options

    options = setfit_options(model.representation_options)
    per_text = per_text_finetune_seconds(str(options["model"]), on_gpu, mean_tokens, int(options["max_length"]))
    return per_text * (read_speed(f"finetune:{options['model']}:{'gpu' if on_gpu else 'cpu'}", machine_identity())
                       or 1.0)


def setfit_run_seconds(model: ModelSpec, point: dict, n_fit: int, n_predict: int, *, on_gpu: bool = False,
                       mean_tokens: float | None = None) -> float:
    """One SetFit training run: its pairs × epochs (two texts' passes each), embedding the ``n_fit``
    texts for the head and the ``n_predict`` texts it answers, and loading the model."""
    per_text = _per_text(model, on_gpu, mean_tokens)
    learning = point["epochs"] * setfit_pairs(n_fit, point["pairs_per_text"], max_pairs_of(model)) * 2 * per_text
    return learning + PREDICT_SHARE * (max(n_fit, 0) + max(n_predict, 0)) * per_text + LOAD_SECONDS


def setfit_tuning_seconds(model: ModelSpec, n_train: int, splits: int, *, cross_validation: bool,
                          validation_share: float = 0.2, on_gpu: bool = False,
                          mean_tokens: float | None = None) -> float:
    """Every setting of SetFit's grid trained on each of ``splits`` tuning splits."""
    from guiapp.core.models.few_shot_options import expand_setfit_grid

    n_train = max(n_train, 1)
    if cross_validation:
        folds = max(splits, 2)
        fit, held_out = round(n_train * (folds - 1) / folds), round(n_train / folds)
    else:
        fit, held_out = round(n_train * (1 - validation_share)), round(n_train * validation_share)
    return sum(splits * setfit_run_seconds(model, point, fit, held_out, on_gpu=on_gpu, mean_tokens=mean_tokens)
               for point in expand_setfit_grid(model.grid))


def setfit_seconds(model: ModelSpec, n_train: int, n_test: int, *, tuning_splits: int, cross_validation: bool,
                   validation_share: float = 0.2, on_gpu: bool = False, mean_tokens: float | None = None) -> float:
    """Expected seconds of SetFit's work in a study: tuning, then the chosen setting (costed at the
    grid's dearest setting) on all training texts, answering the test texts."""
    from guiapp.core.models.few_shot_options import expand_setfit_grid

    dearest = max(expand_setfit_grid(model.grid), key=lambda point: point["epochs"] * point["pairs_per_text"])
    return (setfit_tuning_seconds(model, n_train, tuning_splits, cross_validation=cross_validation,
                                  validation_share=validation_share, on_gpu=on_gpu, mean_tokens=mean_tokens)
            + setfit_run_seconds(model, dearest, max(n_train, 1), n_test, on_gpu=on_gpu, mean_tokens=mean_tokens)
            + TORCH_LOAD_SECONDS)


def setfit_out_of_fold_seconds(model: ModelSpec, n_train: int, folds: int, *, on_gpu: bool = False,
                               mean_tokens: float | None = None) -> float:
    """Expected seconds of training SetFit's chosen setting (costed at the grid's dearest setting) once
    in each of ``folds`` folds of the training texts, each answering the fold's held-out texts."""
    from guiapp.core.models.few_shot_options import expand_setfit_grid

    dearest = max(expand_setfit_grid(model.grid), key=lambda point: point["epochs"] * point["pairs_per_text"])
    folds, n_train = max(folds, 2), max(n_train, 1)
    fit, held_out = round(n_train * (folds - 1) / folds), round(n_train / folds)
    return folds * setfit_run_seconds(model, dearest, fit, held_out, on_gpu=on_gpu, mean_tokens=mean_tokens)


def setfit_tuning(how: str, on_gpu: bool, model: ModelSpec, n_train: int | None, folds: int, *,
                  mean_tokens: float | None = None) -> str:
    """How SetFit's setting is chosen: :data:`CROSS_VALIDATION` (on the study's ``folds`` splits) or
    :data:`VALIDATION_SPLIT` (see the module docstring). Without the number of training texts,
    "auto" on a CPU is planned as one validation split."""
    if how in (CROSS_VALIDATION, VALIDATION_SPLIT):
        return how
    if on_gpu:
        return CROSS_VALIDATION
    if n_train is None:
        return VALIDATION_SPLIT
    try:
        seconds = setfit_tuning_seconds(model, n_train, folds, cross_validation=True, on_gpu=False,
                                        mean_tokens=mean_tokens)
    except (ValueError, KeyError, OSError):
        return VALIDATION_SPLIT
    return CROSS_VALIDATION if seconds <= LONG_TUNING_SECONDS else VALIDATION_SPLIT


def zero_shot_passes(model: ModelSpec, n_texts: int, n_categories: int) -> int:
    """How many times a zero-shot model runs its language model: once per text (and per category's
    description) with similarity; once per text and category with NLI."""
    if model.classifier == "nli":
        return max(n_texts, 0) * max(n_categories, 1)
    return max(n_texts, 0) + max(n_categories, 1)


def zero_shot_seconds(model: ModelSpec, n_texts: int, n_categories: int, *, on_gpu: bool = False,
                      mean_tokens: float | None = None) -> float:
    """Expected seconds of a zero-shot model reading ``n_texts`` (training and test texts) once."""
    from guiapp.core.models.few_shot_options import zero_shot_options

    options = zero_shot_options(model.classifier, model.representation_options)
    passes = zero_shot_passes(model, n_texts, n_categories)
    if model.classifier == "nli":
        per_pass = PREDICT_SHARE * per_text_finetune_seconds(str(options["model"]), on_gpu, mean_tokens,
                                                              _NLI_MAX_TOKENS)
    else:
        per_pass = read_speed(f"embed:{options['model']}", machine_identity()) or 1.0 / EMBED_TEXTS_PER_SECOND
    return TORCH_LOAD_SECONDS + passes * per_pass


def model_seconds(model: ModelSpec, n_train: int, n_test: int, n_categories: int, folds: int, *,
                  on_gpu: bool = False, tuning: str = "auto", validation_share: float = 0.2,
                  mean_tokens: float | None = None) -> float:
    """Expected seconds of one zero-shot or SetFit model on its own (the Models step's figure)."""
    if model.representation == "zero_shot":
        return zero_shot_seconds(model, n_train + n_test, n_categories, on_gpu=on_gpu, mean_tokens=mean_tokens)
    on_gpu = setfit_on_gpu(model, on_gpu)
    how = setfit_tuning(tuning, on_gpu, model, n_train, folds, mean_tokens=mean_tokens)
    cross_validation = how == CROSS_VALIDATION
    return setfit_seconds(model, n_train, n_test, tuning_splits=folds if cross_validation else 1,
                          cross_validation=cross_validation, validation_share=validation_share, on_gpu=on_gpu,
                          mean_tokens=mean_tokens)
