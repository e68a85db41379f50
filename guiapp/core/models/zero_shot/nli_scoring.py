"""Asking an NLI model about every text–category pair: loading it once per process, then batches
of pairs sorted by length (longest first, padded only to the longest pair of the batch), under
``torch.inference_mode``, on the GPU when there is one (16-bit there, as for fine-tuned models;
full 32-bit precision on the processor). Progress after every batch; the callback may cancel."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from guiapp.core.errors import UserError
from guiapp.core.events import EventCallback, Progress, ignore_events

_MODELS: dict[str, tuple[Any, Any]] = {}
_LOCK = threading.Lock()
_INPUTS = ("input_ids", "attention_mask", "token_type_ids")
_ASKING = "Asking the model about each text and category"


def nli_config(path: Path) -> Any:
    """The model's configuration (its answers' names: ``id2label``), read without its weights."""
    from transformers import AutoConfig

    try:
        return AutoConfig.from_pretrained(str(path), local_files_only=True, trust_remote_code=False)
    except (OSError, ValueError, KeyError) as error:
        raise UserError(f"The configuration of the model in “{path}” cannot be read.",
                        "Copy or download the model again.", details=str(error)) from error


def load_nli_model(path: Path) -> tuple[Any, Any]:
    """The tokenizer and model (evaluation mode, on the GPU if there is one), loaded once per process."""
    key = str(path)
    with _LOCK:
        if key in _MODELS:
            return _MODELS[key]
        import torch
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        from guiapp.core.models.transformers.fine_tuning import pick_device
        from guiapp.core.models.transformers.sources.files import quiet_loading
        from guiapp.core.models.transformers.sources.folders import refuse_custom_code

        refuse_custom_code(path)  # said in words; the loads below never run such code either
        try:
            with quiet_loading():
                tokenizer = AutoTokenizer.from_pretrained(key, local_files_only=True, trust_remote_code=False)
                model = AutoModelForSequenceClassification.from_pretrained(
                    key, local_files_only=True, use_safetensors=True, trust_remote_code=False, dtype=torch.float32)
        except (OSError, ValueError, KeyError, RuntimeError) as error:
            raise UserError(f"The NLI model in “{path}” cannot be opened: its files are damaged, incomplete "
                            "or of an unsupported kind.", "Copy or download the model again.",
                            details=f"{type(error).__name__}: {error}") from error
        model.eval()
        model.to(torch.device(pick_device("auto").kind))
        _MODELS[key] = (tokenizer, model)
        return tokenizer, model


def token_lengths(tokenizer: Any, texts: Sequence[str], limit: int) -> np.ndarray:
    """Each text's length in tokens (without the special tokens), at most ``limit``."""
    if not texts:
        return np.zeros(0, dtype=np.int64)
    ids = tokenizer(list(texts), add_special_tokens=False, truncation=True, max_length=limit,
                    return_attention_mask=False, return_token_type_ids=False)["input_ids"]
    return np.fromiter(map(len, ids), dtype=np.int64, count=len(texts))


def pair_logits(tokenizer: Any, model: Any, texts: Sequence[str], hypotheses: Sequence[str], columns: Sequence[int],
                *, batch_size: int, limit: int, on_event: EventCallback = ignore_events) -> np.ndarray:
    """The model's logits at ``columns`` for every (text, hypothesis) pair: shape (texts, hypotheses,
    columns). The texts are cut (never the hypotheses) to fit ``limit`` tokens."""
    import torch

    from guiapp.core.models.transformers.fine_tuning import pick_device
    from guiapp.core.models.transformers.training.cpu_threads import CpuThreads
    from guiapp.core.models.transformers.training.loop import autocast_dtype, halving_on_lack_of_memory
    from guiapp.core.models.transformers.training.speed_switches import SpeedSwitches

    n, k = len(texts), len(hypotheses)
    total = n * k
    on_event(Progress(0.0 if total else 1.0, f"{_ASKING}: 0 of {total:,}", 0, total))
    out = np.zeros((total, len(columns)), dtype=np.float64)
    if total == 0:
        return out.reshape(n, k, len(columns))
    lengths = (token_lengths(tokenizer, texts, limit)[:, None]
               + token_lengths(tokenizer, hypotheses, limit)[None, :]).ravel()  # pair i * k + j
    order = np.argsort(-lengths, kind="stable")
    device = next(model.parameters()).device
    dtype = autocast_dtype(device, True, pick_device("auto").bf16) if device.type == "cuda" else None
    wanted = torch.as_tensor(list(columns), dtype=torch.long, device=device)
    all_work, done = max(int(lengths.sum()), 1), [0, 0]
    batches = [order[i:i + batch_size] for i in range(0, total, batch_size)]  # longest first

    def answer(pairs: np.ndarray) -> None:
        encoded = tokenizer([texts[p // k] for p in pairs], [hypotheses[p % k] for p in pairs],
                            padding=True, truncation="only_first", max_length=limit, return_tensors="pt")
        inputs = {name: encoded[name].to(device) for name in _INPUTS if name in encoded}
        with torch.inference_mode(), torch.autocast(device.type, dtype=dtype, enabled=dtype is not None):
            logits = model(**inputs).logits.float()
        out[pairs] = logits.index_select(1, wanted).cpu().numpy()

    with CpuThreads(enabled=device.type == "cpu" and SpeedSwitches.from_environment().threads) as threads:
        for pairs in halving_on_lack_of_memory(batches, device, answer):
            threads.tick()
            done[0] += len(pairs)
            done[1] += int(lengths[pairs].sum())
            on_event(Progress(min(done[1] / all_work, 1.0),
                              f"{_ASKING}: {done[0]:,} of {total:,}",
                              done[0], total))
    return out.reshape(n, k, len(columns))
