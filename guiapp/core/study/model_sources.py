"""Whether the files a study's models need are on this computer, checked before anything is fitted.

``textlab health --spec`` asks here, so that it says "not ready" with the very sentence
``textlab run`` would give where a model could not start: no models at all; word vectors that are
missing or are not word vectors (only the first lines are read: nothing is converted); a sentence
model, a Transformer, SetFit's or a zero-shot model's language model whose folder is missing or
incomplete; a Hugging Face model that is not on this computer while downloads are switched off
(``HF_HUB_OFFLINE``). A hub model that ``run`` would download is only noted.

A language model with your codebook is never downloaded by a study: its folder must exist and hold
a model that writes text, and a Hugging Face id must already be on this computer (the Models step
downloads it, with consent); on a server, the address must be this computer's unless the
researcher agreed that the texts leave it (:func:`check_codebook_source`, which ``run`` also asks
before anything runs; nothing is loaded and no server is asked).
"""

from __future__ import annotations

from dataclasses import dataclass

from guiapp.core.errors import UserError
from guiapp.core.study.sections import ModelSpec
from guiapp.core.study.spec import ExperimentSpec

NO_MODELS = "The study has no models to compare."
NO_MODELS_HINT = "Tick at least one model on the Models step."
BUNDLED = "all-MiniLM-L6-v2"


@dataclass(frozen=True)
class ModelProblem:
    model: str  # the model's name as the results show it ("" for the study as a whole)
    message: str  # the sentence `textlab run` gives
    hint: str


def model_problems(spec: ExperimentSpec) -> tuple[list[ModelProblem], list[str]]:
    """What would stop each model of ``spec`` at once (see the module docstring), and notes (a model
    ``run`` would download first)."""
    if not spec.models:
        return [ModelProblem("", NO_MODELS, NO_MODELS_HINT)], []
    problems, notes = [], []
    for model in spec.models:
        try:
            note = _check_model(model)
        except UserError as error:
            problems.append(ModelProblem(model.display_name, error.message, error.hint))
        else:
            if note:
                notes.append(note)
    return problems, notes


def _check_model(model: ModelSpec) -> str:
    options = model.representation_options or {}
    if model.representation == "word_vectors":
        from guiapp.core.features.word_vector_files import (
            BUNDLED_VECTORS,
            check_word_vector_source,
        )

        check_word_vector_source(options.get("vectors") or BUNDLED_VECTORS)
        return ""
    if model.representation == "zero_shot":
        from guiapp.core.models.few_shot_options import zero_shot_options
        from guiapp.core.models.zero_shot.model_source import locate, model_choice

        locate(model_choice(zero_shot_options(model.classifier, dict(options))["model"]))  # never downloads
        return ""
    if model.representation in ("sentence_embeddings", "transformer", "setfit"):
        return _check_language_model(model.display_name, str(options.get("model") or BUNDLED))
    if model.representation == "codebook_llm":
        from guiapp.core.models.llm.codebook_options import codebook_llm_options

        check_codebook_source(model.classifier, codebook_llm_options(model.classifier, dict(options)))
    return ""


def check_codebook_source(classifier: str, options: dict) -> None:
    """Raise :class:`UserError`, in words, where the codebook language model cannot start: a folder
    that does not exist or holds no model that writes text, a Hugging Face id not on this computer, a
    server address that is not this computer without the researcher's agreement. ``options`` as
    filled in by ``codebook_llm_options``. Nothing is loaded, downloaded or asked."""
    if classifier == "server":
        from guiapp.core.models.llm.server_address import check_server_address

        check_server_address(options["address"], options["protocol"],
                             texts_may_leave_computer=options["texts_may_leave_computer"])
        return
    from pathlib import Path

    from guiapp.core.models.llm.causal_model import is_causal_model_folder
    from guiapp.core.models.transformers.sources.resolve import is_local_path, needs_download, resolve_model

    name = str(options["model"]).strip()
    family = "The language model with your codebook"
    if is_local_path(name):
        folder = Path(name).expanduser()
        if not folder.is_dir():
            raise UserError(f"{family} cannot start: the folder “{folder}” does not exist.",
                            "Choose the folder that holds the language model (its config.json, model.safetensors "
                            "and tokenizer files) on the Models step, or correct the path in the study file.")
    elif needs_download(name):
        raise UserError(f"{family} cannot start: the model “{name}” is not on this computer, and a study never "
                        "downloads it.",
                        "Download it on the Models step (TextLab asks before it downloads), or at the command "
                        f"line with `textlab download-model {name} --language-model`, or choose a folder that "
                        "holds the model.")
    folder = resolve_model(name, allow_download=False)
    if not is_causal_model_folder(folder):
        raise UserError(f"{family} cannot start: “{name}” holds no language model that writes text.",
                        "Choose the folder of a generative model (for example an instruction-tuned Qwen, Llama, "
                        "Mistral, Gemma or Phi model) with its config.json, model.safetensors and tokenizer files.")


def _check_language_model(shown: str, name: str) -> str:
    """The run's own checks of a language model's source, short of downloading it."""
    from guiapp.core.models.transformers.sources.hub import is_offline_environment
    from guiapp.core.models.transformers.sources.resolve import (
        MPNET_ALIASES,
        needs_download,
        resolve_model,
    )

    if name in MPNET_ALIASES:  # assembled from installed packages when the study runs
        return ""
    if needs_download(name) and not is_offline_environment():
        return f"{shown}: {name} is not on this computer yet; `textlab run` will download it (this needs the internet)."
    # a folder, the bundled model, a model already downloaded — or, offline, the run's own refusal
    resolve_model(name, allow_download=False)
    return ""
