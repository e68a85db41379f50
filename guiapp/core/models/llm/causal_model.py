"""Opening a causal (generative) language model inside TextLab: from a model folder on this computer
or a Hugging Face id, checked before it is loaded, on the GPU when there is one, else the CPU.

:func:`open_causal_model` finds the folder (a Hugging Face id only from this computer's cache
unless the researcher agreed to a download: ``local_files_only=False``), checks it in plain words
(configuration, safetensors weights, tokenizer, no program code of its own — the same checks as
every Transformer model's) and that it is a model that writes text (a causal language model, such as
Llama, Qwen, Mistral, Gemma, Phi or GPT-2), then loads it in evaluation mode. The
:class:`CausalModel` it returns carries what the appendix records: the model's name, the SHA-256 of
its weight files, the number type of its weights (dtype) and where it runs.

torch and transformers are imported inside the functions, so the window opens without them.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from guiapp.core.errors import UserError
from guiapp.core.events import EventCallback, Log, ignore_events

_CHOOSE = ("Choose a folder that holds a generative language model (for example an instruction-tuned "
           "Qwen, Llama, Mistral, Gemma or Phi model) with its config.json, model.safetensors and tokenizer files.")


@dataclass(frozen=True, eq=False)
class CausalModel:
    """A loaded causal language model, its tokenizer and what the record says of it."""

    name: str  # the Hugging Face id, or the folder's own name
    folder: Path  # where its files are
    model: Any = field(repr=False)  # a transformers PreTrainedModel in eval mode
    tokenizer: Any = field(repr=False)
    device: str  # "cuda", "mps" or "cpu"
    device_name: str  # e.g. "NVIDIA H100 80GB HBM3", or "CPU, 8 threads"
    dtype: str  # "float32", "bfloat16" or "float16"
    weights_sha256: str  # one SHA-256 over the weight files (see :func:`weights_digest`)
    model_type: str  # "llama", "qwen2", "gpt2" …

    @property
    def max_tokens(self) -> int | None:
        """The longest text (in tokens) the model reads, where its configuration says."""
        value = getattr(self.model.config, "max_position_embeddings", None)
        return int(value) if isinstance(value, int) and value > 0 else None

    def record(self) -> dict[str, Any]:
        """What the appendix and results.json record of the model."""
        from transformers import __version__ as transformers_version

        return {"model": self.name, "model_type": self.model_type, "weights_sha256": self.weights_sha256,
                "dtype": self.dtype, "device": self.device_name, "runtime": f"transformers {transformers_version}"}


def open_causal_model(source: str | os.PathLike[str], on_event: EventCallback = ignore_events, *,
                      local_files_only: bool = True, device: str = "auto") -> CausalModel:
    """The causal language model ``source`` names (a folder or a Hugging Face id), loaded and checked.

    ``local_files_only=False`` is the researcher's consent to download a named model (with progress
    and Cancel through ``on_event``); otherwise nothing goes online. ``device``: "auto" (a GPU when
    there is one), "cuda", "mps" or "cpu". Problems raise :class:`UserError` in plain words.
    """
    from guiapp.core.models.transformers.sources.resolve import (
        is_local_path,
        resolve_model,
    )

    name = str(source).strip() if isinstance(source, str | os.PathLike) else ""
    if not name:
        raise UserError("No language model was chosen.", _CHOOSE)
    folder = resolve_model(name, on_event, allow_download=not local_files_only)
    config = _causal_config(folder)
    shown = (Path(name).expanduser().name or name) if is_local_path(name) else name
    digest = weights_digest(folder)
    model, tokenizer, device_info, dtype = _load(folder, device)
    on_event(Log(f"Opened the language model {shown} on the {device_info.name} ({dtype})."))
    return CausalModel(shown, folder, model, tokenizer, device_info.kind, device_info.name, dtype, digest,
                       str(config.get("model_type", "")))


def is_causal_model_folder(folder: str | os.PathLike[str]) -> bool:
    """Whether ``folder`` holds a configuration of a model that writes text (read from config.json only)."""
    from guiapp.core.models.transformers.sources.folders import (
        find_model_dir,
        read_config,
    )

    try:
        model_dir = find_model_dir(Path(folder).expanduser())
        return model_dir is not None and _is_causal_type(read_config(model_dir))
    except (UserError, OSError):
        return False


def weights_digest(folder: Path) -> str:
    """One SHA-256 over the model's weight files: each ``*.safetensors`` file's name and SHA-256, in
    name order (the same for a single file and for shards in any order on disk)."""
    from guiapp.core.atomic import sha256_of_file

    files = sorted(path for path in Path(folder).iterdir() if path.is_file() and path.suffix == ".safetensors")
    if len(files) == 1:
        return sha256_of_file(files[0])
    combined = hashlib.sha256()
    for path in files:
        combined.update(f"{path.name}\0{sha256_of_file(path)}\n".encode())
    return combined.hexdigest()


def _causal_config(folder: Path) -> dict[str, Any]:
    from guiapp.core.models.transformers.sources.folders import read_config

    config = read_config(folder)
    if not _is_causal_type(config):
        raise UserError(
            f"The model in “{folder}” is not a language model that writes text (its type is "
            f"“{config.get('model_type')}”), so it cannot code texts with your codebook.",
            "Models such as BERT or RoBERTa classify or compare texts; use them as a fine-tuned or "
            "zero-shot model instead. " + _CHOOSE,
        )
    return config


def _is_causal_type(config: dict[str, Any]) -> bool:
    from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES

    model_type = str(config.get("model_type", ""))
    if model_type not in MODEL_FOR_CAUSAL_LM_MAPPING_NAMES:
        return False
    architectures = config.get("architectures") or []
    # An encoder such as BERT has a text-writing head in Transformers, but a saved BERT is no such model.
    return not architectures or any(str(name).endswith(("ForCausalLM", "LMHeadModel", "ForConditionalGeneration"))
                                    for name in architectures)


def _load(folder: Path, device: str) -> tuple[Any, Any, Any, str]:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from guiapp.core.models.transformers.fine_tuning import pick_device

    device_info = pick_device(device)
    dtype = torch.float32
    if device_info.kind == "cuda":
        dtype = torch.bfloat16 if device_info.bf16 else torch.float16
    try:
        tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=True, trust_remote_code=False)
    except Exception as error:  # OSError, ValueError … from a tokenizer that cannot be read
        raise UserError(f"The tokenizer of the language model in “{folder}” cannot be opened.",
                        "Copy or download the complete model folder again. " + _CHOOSE,
                        details=f"{type(error).__name__}: {error}") from error
    try:
        model = AutoModelForCausalLM.from_pretrained(folder, local_files_only=True, trust_remote_code=False,
                                                     use_safetensors=True, dtype=dtype)
    except torch.cuda.OutOfMemoryError as error:
        raise UserError(f"The language model in “{folder}” does not fit in the GPU's memory.",
                        "Choose a smaller model (for example 0.5 to 3 billion parameters), or a quantised "
                        "model on a language-model server.", details=str(error)) from error
    except Exception as error:  # a damaged or mismatched weights file
        raise UserError(f"The language model in “{folder}” cannot be opened.",
                        "Its files may be damaged or from another version; copy or download the model again.",
                        details=f"{type(error).__name__}: {error}") from error
    model.to(device_info.kind).eval()
    return model, tokenizer, device_info, str(dtype).removeprefix("torch.")
